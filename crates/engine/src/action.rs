//! The fixed action space: every (group, direction) pair that can ever be a
//! legal move, numbered once and for all.
//!
//! # Ordering (stable: never change it, the network's policy head depends on it)
//!
//! 1. **Singles**, actions `0..312`: for each cell in index order (A1, A2, …,
//!    I9), for each direction in [`Direction::ALL`] order (E, W, NE, SW, NW,
//!    SE), one action if the neighbour in that direction is on the board.
//! 2. **Inline groups**, actions `312..774`: first all groups of 2, then all
//!    groups of 3; within a size, by the *trailing* cell in index order, then
//!    by direction in `Direction::ALL` order; one action whenever the whole
//!    group and the cell its leading marble moves into are on the board.
//! 3. **Broadside groups**, actions `774..1734`: first all groups of 2, then
//!    all of 3; within a size, by the group's *first* cell (its end with the
//!    lower index) in index order, then by the group's axis E, NE, NW (the
//!    direction from the first cell to the others), then by the direction of
//!    motion in `Direction::ALL` order skipping the two along the axis; one
//!    action whenever every marble and every destination is on the board.
//!
//! That gives 312 + 462 + 960 = 1734 actions ([`ACTION_COUNT`]).

use crate::board::{
    BIT_CELL, CELL_BIT, CELL_COORDS, CELL_COUNT, Cell, DIR_DELTA, Direction, bit_of, on_board,
};
use std::fmt;

/// Number of (group, direction) pairs that can ever be legal.
pub const ACTION_COUNT: usize = 1734;
/// First single-marble action.
pub const SINGLE_ACTIONS_START: usize = 0;
/// First inline 2–3 marble action.
pub const INLINE_ACTIONS_START: usize = 312;
/// First broadside action.
pub const BROADSIDE_ACTIONS_START: usize = 774;

/// Group axes of broadside moves, as direction indices (E, NE, NW): the three
/// directions that increase the cell index, so a group's first cell is its
/// lowest.
pub(crate) const AXES: [usize; 3] = [0, 2, 4];

/// Bit used for "further off the board than one step": a padding bit that is
/// never occupied and not on the board.
pub(crate) const FAR_OFF_BIT: u8 = 0;

/// Everything about one action, precomputed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ActionInfo {
    /// Cell indices of the group: trailing..leading for inline moves, first
    /// (lowest index)..last for broadsides. Only `len` are meaningful.
    pub cells: [u8; 3],
    pub len: u8,
    pub dir: u8,
    pub broadside: bool,
    /// Bitboard of the group.
    pub from_bits: u128,
    /// Bitboard of the group after the move.
    pub to_bits: u128,
    /// Inline only: bits of the cells 1, 2, 3 steps ahead of the leading
    /// marble; a cell that is off the board is its padding bit if it is one
    /// step off, or [`FAR_OFF_BIT`] beyond that. Never occupied when off.
    pub ahead: [u8; 3],
}

const EMPTY_INFO: ActionInfo = ActionInfo {
    cells: [0; 3],
    len: 0,
    dir: 0,
    broadside: false,
    from_bits: 0,
    to_bits: 0,
    ahead: [0; 3],
};

/// Cell index `steps` steps from `cell` in direction `dir`, if on the board.
const fn walk(cell: usize, dir: usize, steps: i32) -> Option<usize> {
    let (row, diag) = CELL_COORDS[cell];
    let (dr, dd) = DIR_DELTA[dir];
    let (row, diag) = (row as i32 + dr * steps, diag as i32 + dd * steps);
    if on_board(row, diag) {
        Some(BIT_CELL[bit_of(row, diag) as usize] as usize)
    } else {
        None
    }
}

const fn cell_bit(cell: usize) -> u128 {
    1u128 << CELL_BIT[cell]
}

const fn inline_info(trailing: usize, dir: usize, len: usize) -> Option<ActionInfo> {
    // The group and the cell the leading marble enters must be on the board.
    if walk(trailing, dir, len as i32).is_none() {
        return None;
    }
    let mut info = EMPTY_INFO;
    info.len = len as u8;
    info.dir = dir as u8;
    let mut i = 0;
    while i < len {
        let Some(cell) = walk(trailing, dir, i as i32) else {
            return None;
        };
        info.cells[i] = cell as u8;
        info.from_bits |= cell_bit(cell);
        let Some(dest) = walk(trailing, dir, i as i32 + 1) else {
            return None;
        };
        info.to_bits |= cell_bit(dest);
        i += 1;
    }
    let (row, diag) = CELL_COORDS[info.cells[len - 1] as usize];
    let (dr, dd) = DIR_DELTA[dir];
    let mut k = 1;
    let mut previous_on_board = true;
    while k <= 3 {
        let (r, d) = (row as i32 + dr * k, diag as i32 + dd * k);
        info.ahead[k as usize - 1] = if previous_on_board {
            bit_of(r, d) as u8
        } else {
            FAR_OFF_BIT
        };
        previous_on_board = on_board(r, d);
        k += 1;
    }
    Some(info)
}

const fn broadside_info(first: usize, axis: usize, dir: usize, len: usize) -> Option<ActionInfo> {
    let mut info = EMPTY_INFO;
    info.len = len as u8;
    info.dir = dir as u8;
    info.broadside = true;
    let mut i = 0;
    while i < len {
        let Some(cell) = walk(first, axis, i as i32) else {
            return None;
        };
        let Some(dest) = walk(cell, dir, 1) else {
            return None;
        };
        info.cells[i] = cell as u8;
        info.from_bits |= cell_bit(cell);
        info.to_bits |= cell_bit(dest);
        i += 1;
    }
    Some(info)
}

const fn build_actions() -> [ActionInfo; ACTION_COUNT] {
    let mut out = [EMPTY_INFO; ACTION_COUNT];
    let mut n = 0;
    // Singles, then inline groups of 2 and 3.
    let mut len = 1;
    while len <= 3 {
        let mut cell = 0;
        while cell < CELL_COUNT {
            let mut dir = 0;
            while dir < 6 {
                if let Some(info) = inline_info(cell, dir, len) {
                    out[n] = info;
                    n += 1;
                }
                dir += 1;
            }
            cell += 1;
        }
        len += 1;
    }
    let mut len = 2;
    while len <= 3 {
        let mut cell = 0;
        while cell < CELL_COUNT {
            let mut a = 0;
            while a < 3 {
                let axis = AXES[a];
                let mut dir = 0;
                while dir < 6 {
                    if dir >> 1 != axis >> 1
                        && let Some(info) = broadside_info(cell, axis, dir, len)
                    {
                        out[n] = info;
                        n += 1;
                    }
                    dir += 1;
                }
                a += 1;
            }
            cell += 1;
        }
        len += 1;
    }
    assert!(n == ACTION_COUNT);
    out
}

/// Every action, by index.
pub(crate) static ACTIONS: [ActionInfo; ACTION_COUNT] = build_actions();

/// Marker for "no action" in the lookup tables.
pub(crate) const NO_ACTION: u16 = u16::MAX;

/// Lookup tables from a bitboard bit to an action, one table per move kind.
/// Inline tables (singles are inline groups of 1) are keyed by the bit of the
/// trailing marble, broadside tables by the group's first cell.
pub(crate) const fn inline_table(len: usize, dir: usize) -> usize {
    6 * (len - 1) + dir
}
pub(crate) const fn broadside_table(len: usize, axis_slot: usize, dir: usize) -> usize {
    18 + 18 * (len - 2) + 6 * axis_slot + dir
}
const TABLE_COUNT: usize = 54;

const fn build_tables() -> [[u16; 128]; TABLE_COUNT] {
    let mut out = [[NO_ACTION; 128]; TABLE_COUNT];
    let mut action = 0;
    while action < ACTION_COUNT {
        let info = &ACTIONS[action];
        let len = info.len as usize;
        let dir = info.dir as usize;
        if info.broadside {
            let first = info.cells[0] as usize;
            let second = info.cells[1] as usize;
            let mut slot = 0;
            while slot < 3 {
                if let Some(next) = walk(first, AXES[slot], 1)
                    && next == second
                {
                    out[broadside_table(len, slot, dir)][CELL_BIT[first] as usize] = action as u16;
                }
                slot += 1;
            }
        } else {
            let trailing = info.cells[0] as usize;
            out[inline_table(len, dir)][CELL_BIT[trailing] as usize] = action as u16;
        }
        action += 1;
    }
    out
}

/// Action lookup tables; see [`inline_table`] and [`broadside_table`].
pub(crate) static ACTION_TABLES: [[u16; 128]; TABLE_COUNT] = build_tables();

/// A move: exactly one of the [`ACTION_COUNT`] (group, direction) pairs.
///
/// `Move` is independent of any position; whether it is legal is a question
/// for [`crate::Position::is_legal`]. Displays in Aba-Pro notation (`A1B2`,
/// `C3C5D4`); see [`crate::notation`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Move(u16);

impl Move {
    /// The move with this action index, if `action < ACTION_COUNT`.
    pub fn from_action(action: usize) -> Option<Move> {
        (action < ACTION_COUNT).then_some(Move(action as u16))
    }

    /// The action index, 0..ACTION_COUNT.
    pub fn action(self) -> usize {
        usize::from(self.0)
    }

    pub(crate) fn info(self) -> &'static ActionInfo {
        &ACTIONS[self.action()]
    }

    /// The moving group: trailing..leading for inline moves, from the end with
    /// the lower cell index for broadsides.
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        let info = self.info();
        info.cells[..usize::from(info.len)]
            .iter()
            .map(|&index| Cell::new(usize::from(index)).expect("action tables hold valid cells"))
    }

    /// The direction every marble of the group moves.
    pub fn direction(self) -> Direction {
        Direction::ALL[usize::from(self.info().dir)]
    }

    /// Number of own marbles moved, 1..=3.
    pub fn group_len(self) -> usize {
        usize::from(self.info().len)
    }

    /// Whether the group moves sideways (not along its own line).
    pub fn is_broadside(self) -> bool {
        self.info().broadside
    }

    /// The inline move of the `len` marbles starting at `trailing` towards `dir`,
    /// if it is in the action space.
    pub fn inline(trailing: Cell, dir: Direction, len: usize) -> Option<Move> {
        if !(1..=3).contains(&len) {
            return None;
        }
        let table = &ACTION_TABLES[inline_table(len, dir.index())];
        let action = table[usize::from(CELL_BIT[trailing.index()])];
        (action != NO_ACTION).then_some(Move(action))
    }

    /// The broadside move of the `len` (2 or 3) marbles from `end` along `axis`
    /// stepping towards `dir`, if it is in the action space. `axis` may point
    /// either way along the group's line.
    pub fn broadside(end: Cell, axis: Direction, len: usize, dir: Direction) -> Option<Move> {
        if !(2..=3).contains(&len) || dir.is_parallel(axis) {
            return None;
        }
        let mut first = end;
        let mut axis = axis;
        if axis.index() & 1 == 1 {
            // W, SW, SE lower the index: start from the other end instead.
            for _ in 1..len {
                first = first.neighbour(axis)?;
            }
            axis = axis.opposite();
        }
        let slot = AXES.iter().position(|&a| a == axis.index())?;
        let table = &ACTION_TABLES[broadside_table(len, slot, dir.index())];
        let action = table[usize::from(CELL_BIT[first.index()])];
        (action != NO_ACTION).then_some(Move(action))
    }

    /// The move of `len` marbles starting at `start` along `axis` in direction
    /// `dir`: inline when `dir` is parallel to `axis` (then the group's
    /// trailing end is chosen from `dir`), broadside otherwise.
    pub fn from_group(start: Cell, axis: Direction, len: usize, dir: Direction) -> Option<Move> {
        if len == 1 || !dir.is_parallel(axis) {
            if len == 1 {
                return Move::inline(start, dir, 1);
            }
            return Move::broadside(start, axis, len, dir);
        }
        let mut trailing = start;
        if axis != dir {
            for _ in 1..len {
                trailing = trailing.neighbour(axis)?;
            }
        }
        Move::inline(trailing, dir, len)
    }

    /// Every move of the action space, in action order.
    pub fn all() -> impl Iterator<Item = Move> {
        (0..ACTION_COUNT as u16).map(Move)
    }
}

/// A bound on the number of legal moves in any position: per own marble (at
/// most 14) one inline move of 1–3 marbles trailing from it in each of 6
/// directions (the group size is forced by the marbles in front), and as a
/// broadside group's first cell 3 axes × 4 directions × 2 sizes.
pub const MAX_LEGAL_MOVES: usize = 14 * (6 + 3 * 4 * 2);

/// The legal moves of a position, in increasing action order. Fixed capacity,
/// no heap allocation.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_LEGAL_MOVES],
    len: usize,
}

impl MoveList {
    pub(crate) fn new() -> MoveList {
        MoveList {
            moves: [Move(0); MAX_LEGAL_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn push_action(&mut self, action: u16) {
        debug_assert!(action != NO_ACTION);
        self.moves[self.len] = Move(action);
        self.len += 1;
    }

    pub(crate) fn sort(&mut self) {
        self.moves[..self.len].sort_unstable();
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// By-value iterator over a [`MoveList`].
#[derive(Clone, Debug)]
pub struct MoveListIntoIter {
    list: MoveList,
    next: usize,
}

impl Iterator for MoveListIntoIter {
    type Item = Move;
    fn next(&mut self) -> Option<Move> {
        let mv = self.list.get(self.next).copied();
        self.next += usize::from(mv.is_some());
        mv
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.list.len - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for MoveListIntoIter {}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = MoveListIntoIter;
    fn into_iter(self) -> MoveListIntoIter {
        MoveListIntoIter {
            list: self,
            next: 0,
        }
    }
}

/// Checks the table invariants once (used by tests).
#[cfg(test)]
pub(crate) fn check_tables() {
    use crate::board::NO_CELL;
    let mut seen = 0;
    for table in &ACTION_TABLES {
        for (bit, &action) in table.iter().enumerate() {
            if action != NO_ACTION {
                seen += 1;
                assert!(usize::from(action) < ACTION_COUNT);
                assert_ne!(BIT_CELL[bit], NO_CELL);
            }
        }
    }
    assert_eq!(seen, ACTION_COUNT);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str) -> Cell {
        name.parse().unwrap()
    }

    #[test]
    fn counts_of_each_kind() {
        let singles = Move::all().filter(|m| m.group_len() == 1).count();
        let inline = Move::all()
            .filter(|m| m.group_len() > 1 && !m.is_broadside())
            .count();
        let broadside = Move::all().filter(|m| m.is_broadside()).count();
        assert_eq!((singles, inline, broadside), (312, 462, 960));
        assert!(
            Move::all()
                .take(INLINE_ACTIONS_START)
                .all(|m| m.group_len() == 1)
        );
        assert!(
            Move::all()
                .skip(INLINE_ACTIONS_START)
                .take(BROADSIDE_ACTIONS_START - INLINE_ACTIONS_START)
                .all(|m| m.group_len() > 1 && !m.is_broadside())
        );
        assert!(
            Move::all()
                .skip(BROADSIDE_ACTIONS_START)
                .all(|m| m.is_broadside())
        );
        assert_eq!(Move::from_action(ACTION_COUNT), None);
        check_tables();
    }

    #[test]
    fn pinned_indices() {
        // Singles: A1 has E, NE, NW neighbours.
        assert_eq!(
            Move::inline(cell("A1"), Direction::E, 1).unwrap().action(),
            0
        );
        assert_eq!(
            Move::inline(cell("A1"), Direction::NE, 1).unwrap().action(),
            1
        );
        assert_eq!(
            Move::inline(cell("A1"), Direction::NW, 1).unwrap().action(),
            2
        );
        assert_eq!(
            Move::inline(cell("A2"), Direction::E, 1).unwrap().action(),
            3
        );
        assert_eq!(
            Move::inline(cell("I9"), Direction::SE, 1).unwrap().action(),
            311
        );
        // Inline groups start with A1-A2 moving E.
        assert_eq!(
            Move::inline(cell("A1"), Direction::E, 2).unwrap().action(),
            312
        );
        assert_eq!(
            Move::inline(cell("A1"), Direction::NE, 2).unwrap().action(),
            313
        );
        let last_inline = Move::from_action(BROADSIDE_ACTIONS_START - 1).unwrap();
        assert_eq!(last_inline.group_len(), 3);
        assert_eq!(last_inline.to_string(), "I9H9");
        // Broadsides start with A1-A2 stepping NE.
        let first = Move::from_action(BROADSIDE_ACTIONS_START).unwrap();
        assert_eq!(first.to_string(), "A1A2B2");
        assert_eq!(first.direction(), Direction::NE);
        assert_eq!(
            Move::broadside(cell("A2"), Direction::W, 2, Direction::NW)
                .unwrap()
                .action(),
            775
        );
        let last = Move::from_action(ACTION_COUNT - 1).unwrap();
        assert_eq!(last.group_len(), 3);
        assert!(last.is_broadside());
        assert_eq!(last.to_string(), "I7I9H7");
    }

    #[test]
    fn constructors_invert_cells_and_direction() {
        for mv in Move::all() {
            let cells: Vec<Cell> = mv.cells().collect();
            assert_eq!(cells.len(), mv.group_len());
            let axis = if cells.len() > 1 {
                cells[0].direction_to(cells[1]).unwrap()
            } else {
                mv.direction()
            };
            if mv.is_broadside() {
                assert!(!axis.is_parallel(mv.direction()));
                assert_eq!(
                    Move::broadside(cells[0], axis, cells.len(), mv.direction()),
                    Some(mv)
                );
                let last = *cells.last().unwrap();
                assert_eq!(
                    Move::broadside(last, axis.opposite(), cells.len(), mv.direction()),
                    Some(mv)
                );
            } else {
                assert_eq!(axis, mv.direction());
                assert_eq!(
                    Move::inline(cells[0], mv.direction(), cells.len()),
                    Some(mv)
                );
            }
            assert_eq!(
                Move::from_group(cells[0], axis, cells.len(), mv.direction()),
                Some(mv)
            );
        }
        // Off-board destinations are not actions.
        assert_eq!(Move::inline(cell("A1"), Direction::W, 1), None);
        assert_eq!(Move::inline(cell("A1"), Direction::E, 5), None);
        assert_eq!(
            Move::broadside(cell("A1"), Direction::E, 2, Direction::SE),
            None
        );
        assert_eq!(
            Move::broadside(cell("A1"), Direction::E, 2, Direction::W),
            None
        );
    }
}
