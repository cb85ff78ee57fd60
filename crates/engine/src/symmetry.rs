//! The 12 symmetries of the hexagonal board (6 rotations about E5, each with
//! or without a reflection) acting on cells, directions, moves, action
//! indices and positions.
//!
//! With `x = diag − 5` and `y = row − 4` (E5 at the origin; E is (1,0), NW is
//! (0,1), NE is (1,1)), the turn by 60° anticlockwise is `(x, y) → (x − y, x)`
//! (E → NE → NW → W → SW → SE) and the reflection in row E is
//! `(x, y) → (x − y, −y)`. Symmetry `s` (0..12) reflects first if `s >= 6`,
//! then turns `s % 6` times. Symmetry 0 is the identity.

use crate::action::{ACTION_COUNT, Move};
use crate::board::{CELL_COUNT, Cell, Direction};
use crate::position::Position;
use std::sync::LazyLock;

/// One of the 12 symmetries of the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Symmetry(u8);

/// Maps a vector `(x, y)` by symmetry `index`.
fn map_vector(index: u8, (mut x, mut y): (i32, i32)) -> (i32, i32) {
    if index >= 6 {
        (x, y) = (x - y, -y);
    }
    for _ in 0..index % 6 {
        (x, y) = (x - y, x);
    }
    (x, y)
}

struct Tables {
    cells: [[u8; CELL_COUNT]; 12],
    directions: [[u8; 6]; 12],
    actions: Vec<[u16; ACTION_COUNT]>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut cells = [[0u8; CELL_COUNT]; 12];
    let mut directions = [[0u8; 6]; 12];
    for s in 0..12u8 {
        for cell in Cell::all() {
            let x = i32::from(cell.diag()) - 5;
            let y = i32::from(cell.row()) - 4;
            let (x, y) = map_vector(s, (x, y));
            let image = Cell::from_row_diag((y + 4) as u8, (x + 5) as u8)
                .expect("symmetries map the board onto itself");
            cells[usize::from(s)][cell.index()] = image.index() as u8;
        }
        for dir in Direction::ALL {
            let (dr, dd) = dir.delta();
            let (x, y) = map_vector(s, (dd, dr));
            let image = Direction::ALL
                .into_iter()
                .find(|d| d.delta() == (y, x))
                .expect("symmetries map directions onto directions");
            directions[usize::from(s)][dir.index()] = image.index() as u8;
        }
    }
    let mut tables = Tables {
        cells,
        directions,
        actions: Vec::with_capacity(12),
    };
    for s in 0..12u8 {
        let mut actions = [0u16; ACTION_COUNT];
        for mv in Move::all() {
            actions[mv.action()] = Symmetry(s).map_move_with(&tables, mv).action() as u16;
        }
        tables.actions.push(actions);
    }
    tables
});

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 12: rotations by 0, 60, …, 300 degrees, then the same after a reflection.
    pub const ALL: [Symmetry; 12] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
        Symmetry(8),
        Symmetry(9),
        Symmetry(10),
        Symmetry(11),
    ];

    /// Index 0..12 in the order of [`Symmetry::ALL`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        if self.0 >= 6 {
            self // every reflection is its own inverse
        } else {
            Symmetry((6 - self.0) % 6)
        }
    }

    /// The image of a cell.
    pub fn apply_cell(self, cell: Cell) -> Cell {
        let image = TABLES.cells[self.index()][cell.index()];
        Cell::new(usize::from(image)).expect("tables hold valid cells")
    }

    /// The image of a direction.
    pub fn apply_direction(self, dir: Direction) -> Direction {
        Direction::ALL[usize::from(TABLES.directions[self.index()][dir.index()])]
    }

    fn map_move_with(self, tables: &Tables, mv: Move) -> Move {
        let cell = |c: Cell| {
            Cell::new(usize::from(tables.cells[self.index()][c.index()])).expect("valid cell")
        };
        let dir =
            |d: Direction| Direction::ALL[usize::from(tables.directions[self.index()][d.index()])];
        let cells: Vec<Cell> = mv.cells().collect();
        let direction = dir(mv.direction());
        let axis = if cells.len() > 1 {
            dir(cells[0]
                .direction_to(cells[1])
                .expect("groups are contiguous"))
        } else {
            direction
        };
        Move::from_group(cell(cells[0]), axis, cells.len(), direction)
            .expect("symmetries map the action space onto itself")
    }

    /// The image of a move.
    pub fn apply_move(self, mv: Move) -> Move {
        Move::from_action(self.apply_action(mv.action())).expect("tables hold valid actions")
    }

    /// The image of an action index (`action < ACTION_COUNT`).
    pub fn apply_action(self, action: usize) -> usize {
        usize::from(TABLES.actions[self.index()][action])
    }

    /// The image of a position: marbles moved, everything else kept.
    pub fn apply_position(self, position: &Position) -> Position {
        let mut marbles = [0u128; 2];
        for color in crate::Color::ALL {
            for cell in position.marbles(color) {
                marbles[color.index()] |= self.apply_cell(cell).bit();
            }
        }
        position.with_marbles(marbles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_structure() {
        let cell = |s: &str| s.parse::<Cell>().unwrap();
        let turn = Symmetry::ALL[1];
        assert_eq!(turn.apply_cell(cell("E5")), cell("E5"));
        assert_eq!(turn.apply_cell(cell("E6")), cell("F6"));
        assert_eq!(turn.apply_direction(Direction::E), Direction::NE);
        assert_eq!(turn.apply_direction(Direction::NE), Direction::NW);
        assert_eq!(Symmetry::ALL[3].apply_cell(cell("A1")), cell("I9"));
        assert_eq!(Symmetry::ALL[6].apply_cell(cell("A1")), cell("I5"));
        assert_eq!(Symmetry::ALL[6].apply_direction(Direction::E), Direction::E);
        assert_eq!(
            Symmetry::ALL[6].apply_direction(Direction::NE),
            Direction::SE
        );
        let mut images = std::collections::HashSet::new();
        for s in Symmetry::ALL {
            let inverse = s.inverse();
            for c in Cell::all() {
                assert_eq!(inverse.apply_cell(s.apply_cell(c)), c);
                for d in Direction::ALL {
                    if let Some(n) = c.neighbour(d) {
                        assert_eq!(
                            s.apply_cell(c).neighbour(s.apply_direction(d)),
                            Some(s.apply_cell(n))
                        );
                    }
                }
            }
            for mv in Move::all() {
                assert_eq!(inverse.apply_move(s.apply_move(mv)), mv);
            }
            images.insert(Cell::all().map(|c| s.apply_cell(c)).collect::<Vec<_>>());
        }
        assert_eq!(images.len(), 12, "the 12 symmetries are distinct");
        assert_eq!(Symmetry::IDENTITY.apply_action(1000), 1000);
    }
}
