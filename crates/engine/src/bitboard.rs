//! The engine's bitboard geometry, public for code outside the engine that
//! works on whole bitboards (the arena's evaluation counts sumitos and
//! endangered marbles with shifts), so that it uses the layout and shifts of
//! move generation rather than a copy of them that could drift apart.
//!
//! A bitboard is a `u128` in which cell `(row, diag)` is bit
//! `(row + 1) * 10 + diag` (see the crate docs); [`Position::bitboard`]
//! gives the marbles of one colour in this form. Every bit outside
//! [`ON_BOARD`] is padding, so a marble stepping off the board lands on a
//! padding bit instead of on another cell.
//!
//! [`Position::bitboard`]: crate::Position::bitboard

use crate::board::{BOARD_MASK, DIR_SHIFT};

/// The bits of the 61 cells.
pub const ON_BOARD: u128 = BOARD_MASK;

/// The bit offset of one step in each direction, by [`Direction::index`]
/// (E +1, W −1, NE +11, SW −11, NW +10, SE −10), for [`step`].
///
/// [`Direction::index`]: crate::Direction::index
pub const DIRECTION_SHIFTS: [i32; 6] = DIR_SHIFT;

/// Moves every bit of `board` by `shift` bit positions (positive: up the
/// board); bits shifted past either end of the `u128` are dropped.
#[inline(always)]
pub fn step(board: u128, shift: i32) -> u128 {
    if shift >= 0 {
        board << shift
    } else {
        board >> -shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cell, Direction};

    #[test]
    fn a_step_moves_each_cell_to_its_neighbour_or_off_the_board() {
        for cell in Cell::all() {
            for dir in Direction::ALL {
                let moved = step(cell.bit(), DIRECTION_SHIFTS[dir.index()]);
                match cell.neighbour(dir) {
                    Some(next) => assert_eq!(moved, next.bit(), "{cell} {dir}"),
                    None => assert_eq!(moved & ON_BOARD, 0, "{cell} {dir}"),
                }
            }
        }
    }
}
