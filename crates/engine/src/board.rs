//! Cells, directions, colours and the bitboard geometry they map onto.
//!
//! The 61 cells are numbered 0..61 row by row (A1..A5, B1..B6, …, I5..I9).
//! For bitboards each cell `(row, diag)` (row 0 = A … 8 = I, diag 1..=9) owns
//! bit `(row + 1) * 10 + diag` of a `u128`. Column 0 of every row, the row
//! below A and the rows above I are padding that never holds a marble, so one
//! step in any direction is a plain shift by a constant (see [`Direction`])
//! and a marble stepping off the board lands on a padding bit instead of
//! wrapping onto another cell.

use std::fmt;
use std::str::FromStr;

/// Number of cells on the board.
pub const CELL_COUNT: usize = 61;

/// Bits per bitboard row: diagonals 1..=9 plus one padding column (0).
pub(crate) const ROW_STRIDE: i32 = 10;

/// First cell index of each row, plus the total at the end.
const ROW_START: [u8; 10] = [0, 5, 11, 18, 26, 35, 43, 50, 56, 61];

/// Whether `(row, diag)` is one of the 61 cells.
pub(crate) const fn on_board(row: i32, diag: i32) -> bool {
    row >= 0 && row <= 8 && diag >= 1 && diag <= 9 && (diag - 1 - row).abs() <= 4
}

/// Lowest diagonal present in `row` (0..=8).
pub(crate) const fn row_min_diag(row: i32) -> i32 {
    if row > 3 { row - 3 } else { 1 }
}

/// Highest diagonal present in `row` (0..=8).
pub(crate) const fn row_max_diag(row: i32) -> i32 {
    if row + 5 < 9 { row + 5 } else { 9 }
}

/// The bit of `(row, diag)`, also for cells one step off the board.
pub(crate) const fn bit_of(row: i32, diag: i32) -> i32 {
    (row + 1) * ROW_STRIDE + diag
}

const fn cell_index_of(row: i32, diag: i32) -> usize {
    ROW_START[row as usize] as usize + (diag - row_min_diag(row)) as usize
}

const fn build_cell_coords() -> [(u8, u8); CELL_COUNT] {
    let mut out = [(0u8, 0u8); CELL_COUNT];
    let mut row = 0;
    while row <= 8 {
        let mut diag = row_min_diag(row);
        while diag <= row_max_diag(row) {
            out[cell_index_of(row, diag)] = (row as u8, diag as u8);
            diag += 1;
        }
        row += 1;
    }
    out
}

/// `(row, diag)` of every cell, by cell index.
pub(crate) const CELL_COORDS: [(u8, u8); CELL_COUNT] = build_cell_coords();

const fn build_cell_bits() -> [u8; CELL_COUNT] {
    let mut out = [0u8; CELL_COUNT];
    let mut i = 0;
    while i < CELL_COUNT {
        let (row, diag) = CELL_COORDS[i];
        out[i] = bit_of(row as i32, diag as i32) as u8;
        i += 1;
    }
    out
}

/// Bitboard bit of every cell, by cell index.
pub(crate) const CELL_BIT: [u8; CELL_COUNT] = build_cell_bits();

/// Marker in [`BIT_CELL`] for bits that are not cells.
pub(crate) const NO_CELL: u8 = u8::MAX;

const fn build_bit_cells() -> [u8; 128] {
    let mut out = [NO_CELL; 128];
    let mut i = 0;
    while i < CELL_COUNT {
        out[CELL_BIT[i] as usize] = i as u8;
        i += 1;
    }
    out
}

/// Cell index of every bitboard bit, or [`NO_CELL`] for padding.
pub(crate) const BIT_CELL: [u8; 128] = build_bit_cells();

const fn build_board_mask() -> u128 {
    let mut mask = 0u128;
    let mut i = 0;
    while i < CELL_COUNT {
        mask |= 1u128 << CELL_BIT[i];
        i += 1;
    }
    mask
}

/// The 61 on-board bits.
pub(crate) const BOARD_MASK: u128 = build_board_mask();

/// The bits of row E (the centre line used by the no-push-off rule).
pub(crate) const ROW_E_MASK: u128 = {
    let mut mask = 0u128;
    let mut diag = 1;
    while diag <= 9 {
        mask |= 1u128 << bit_of(4, diag);
        diag += 1;
    }
    mask
};

/// Iterates the set bits of a bitboard, lowest first.
pub(crate) fn bits(mut board: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if board == 0 {
            None
        } else {
            let bit = board.trailing_zeros();
            board &= board - 1;
            Some(bit)
        }
    })
}

/// One of the 61 cells, numbered 0..61 in the order A1..A5, B1..B6, …, I5..I9.
///
/// Displays as `E5` (row letter, diagonal number); parses case-insensitively.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Cell(u8);

impl Cell {
    /// The cell with this index, if `index < 61`.
    pub fn new(index: usize) -> Option<Cell> {
        (index < CELL_COUNT).then_some(Cell(index as u8))
    }

    /// The cell on `row` (0 = A … 8 = I) and diagonal `diag` (1..=9), if it exists.
    pub fn from_row_diag(row: u8, diag: u8) -> Option<Cell> {
        let (row, diag) = (i32::from(row), i32::from(diag));
        on_board(row, diag).then(|| Cell(cell_index_of(row, diag) as u8))
    }

    /// Index 0..61.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// Row 0 (A) ..= 8 (I).
    pub fn row(self) -> u8 {
        CELL_COORDS[self.index()].0
    }

    /// Diagonal 1..=9.
    pub fn diag(self) -> u8 {
        CELL_COORDS[self.index()].1
    }

    /// The next cell in `dir`, if it is on the board.
    pub fn neighbour(self, dir: Direction) -> Option<Cell> {
        let (dr, dd) = dir.delta();
        let (row, diag) = (i32::from(self.row()) + dr, i32::from(self.diag()) + dd);
        on_board(row, diag).then(|| Cell(cell_index_of(row, diag) as u8))
    }

    /// All 61 cells in index order.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..CELL_COUNT as u8).map(Cell)
    }

    /// The direction from `self` to the adjacent cell `other`, if they touch.
    pub fn direction_to(self, other: Cell) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|&dir| self.neighbour(dir) == Some(other))
    }

    /// Hexagonal distance from the centre E5 (0 ..= 4).
    pub fn distance_from_centre(self) -> u8 {
        let x = i32::from(self.diag()) - 5;
        let y = i32::from(self.row()) - 4;
        x.abs().max(y.abs()).max((x - y).abs()) as u8
    }

    pub(crate) fn bit(self) -> u128 {
        1u128 << CELL_BIT[self.index()]
    }

    pub(crate) fn from_bit(bit: u32) -> Option<Cell> {
        let index = BIT_CELL[bit as usize];
        (index != NO_CELL).then_some(Cell(index))
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'A' + self.row()), self.diag())
    }
}

/// Why a text is not a cell name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a cell: expected a row letter A-I and a diagonal 1-9 on the board, like E5"
)]
pub struct CellParseError {
    /// The text that was read.
    pub text: String,
}

impl FromStr for Cell {
    type Err = CellParseError;

    fn from_str(text: &str) -> Result<Cell, CellParseError> {
        let err = || CellParseError {
            text: crate::excerpt(text),
        };
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return Err(err());
        }
        let row = bytes[0].to_ascii_uppercase().wrapping_sub(b'A');
        let diag = bytes[1].wrapping_sub(b'0');
        if row > 8 || !(1..=9).contains(&diag) {
            return Err(err());
        }
        Cell::from_row_diag(row, diag).ok_or_else(err)
    }
}

/// The six directions. As `(Δrow, Δdiag)`: E (0,+1), W (0,−1), NE (+1,+1),
/// SW (−1,−1), NW (+1,0), SE (−1,0). Opposite directions sit next to each
/// other, so `index ^ 1` is the opposite.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    E,
    W,
    NE,
    SW,
    NW,
    SE,
}

impl Direction {
    /// All six, in index order.
    pub const ALL: [Direction; 6] = [
        Direction::E,
        Direction::W,
        Direction::NE,
        Direction::SW,
        Direction::NW,
        Direction::SE,
    ];

    /// The reverse direction.
    pub fn opposite(self) -> Direction {
        Direction::ALL[self.index() ^ 1]
    }

    /// Index 0..6 in the order of [`Direction::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// `(Δrow, Δdiag)` of one step.
    pub fn delta(self) -> (i32, i32) {
        DIR_DELTA[self.index()]
    }

    /// Whether `other` runs along the same line (equal or opposite).
    pub fn is_parallel(self, other: Direction) -> bool {
        self.index() >> 1 == other.index() >> 1
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// `(Δrow, Δdiag)` by direction index.
pub(crate) const DIR_DELTA: [(i32, i32); 6] = [(0, 1), (0, -1), (1, 1), (-1, -1), (1, 0), (-1, 0)];

/// Bit offset of one step, by direction index.
pub(crate) const DIR_SHIFT: [i32; 6] = {
    let mut out = [0i32; 6];
    let mut i = 0;
    while i < 6 {
        out[i] = DIR_DELTA[i].0 * ROW_STRIDE + DIR_DELTA[i].1;
        i += 1;
    }
    out
};

/// A player's colour. Black moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other colour.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// Black = 0, White = 1.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The letter of the position text format: `b` or `w`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_numbering_and_rows() {
        assert_eq!(Cell::all().count(), 61);
        let names: Vec<String> = Cell::all().map(|c| c.to_string()).collect();
        assert_eq!(&names[..6], ["A1", "A2", "A3", "A4", "A5", "B1"]);
        assert_eq!(names[30], "E5");
        assert_eq!(&names[56..], ["I5", "I6", "I7", "I8", "I9"]);
        for cell in Cell::all() {
            assert_eq!(Cell::from_row_diag(cell.row(), cell.diag()), Some(cell));
            assert_eq!(cell.to_string().parse::<Cell>(), Ok(cell));
            assert_eq!(cell.to_string().to_lowercase().parse::<Cell>(), Ok(cell));
            assert_eq!(Cell::from_bit(CELL_BIT[cell.index()].into()), Some(cell));
        }
        assert_eq!(Cell::from_row_diag(0, 6), None);
        assert_eq!(Cell::from_row_diag(8, 4), None);
        assert!("A6".parse::<Cell>().is_err());
        assert!("J1".parse::<Cell>().is_err());
        assert!("E0".parse::<Cell>().is_err());
        assert!("E".parse::<Cell>().is_err());
        assert!("é5".parse::<Cell>().is_err());
        assert_eq!(BOARD_MASK.count_ones(), 61);
        assert_eq!(ROW_E_MASK.count_ones(), 9);
    }

    #[test]
    fn neighbours_follow_the_rule_sheet() {
        let cell = |s: &str| s.parse::<Cell>().unwrap();
        assert_eq!(cell("A1").neighbour(Direction::NE), Some(cell("B2")));
        assert_eq!(cell("A1").neighbour(Direction::NW), Some(cell("B1")));
        assert_eq!(cell("E5").neighbour(Direction::E), Some(cell("E6")));
        assert_eq!(cell("E5").neighbour(Direction::SE), Some(cell("D5")));
        assert_eq!(cell("E5").neighbour(Direction::SW), Some(cell("D4")));
        assert_eq!(cell("A1").neighbour(Direction::W), None);
        assert_eq!(cell("I9").neighbour(Direction::NE), None);
        for dir in Direction::ALL {
            assert_eq!(dir.opposite().opposite(), dir);
            assert!(dir.is_parallel(dir.opposite()));
            for cell in Cell::all() {
                if let Some(next) = cell.neighbour(dir) {
                    assert_eq!(next.neighbour(dir.opposite()), Some(cell));
                    assert_eq!(cell.direction_to(next), Some(dir));
                    assert_eq!(
                        i32::from(CELL_BIT[next.index()]) - i32::from(CELL_BIT[cell.index()]),
                        DIR_SHIFT[dir.index()]
                    );
                }
            }
        }
        // Corners have 3 neighbours, the centre 6; 6 corners in all.
        let corners: Vec<String> = Cell::all()
            .filter(|c| {
                Direction::ALL
                    .iter()
                    .filter(|&&d| c.neighbour(d).is_some())
                    .count()
                    == 3
            })
            .map(|c| c.to_string())
            .collect();
        assert_eq!(corners, ["A1", "A5", "E1", "E9", "I5", "I9"]);
        assert_eq!(cell("E5").distance_from_centre(), 0);
        assert_eq!(cell("C3").distance_from_centre(), 2);
        assert_eq!(cell("A1").distance_from_centre(), 4);
    }
}
