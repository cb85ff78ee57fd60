//! Push-off threats: the marbles each seat could push off with one move if
//! it were its turn, by the rules alone. One type for both engines
//! ([`crate::Position::push_off_threats`], from the bitboards of
//! [`crate::Position::push_off_targets`], and
//! [`crate::general::GeneralPosition::push_off_threats`], from the seat's
//! moves), so that a page or a report marks them in any game the same way.

use crate::board::{Cell, bits};

/// A marble that `seat` could push off the board with one move if it were
/// its turn. Seats are numbered as the rules seat them (in the two-player
/// game seat 0 is Black, [`crate::Color::index`]). Ordered by seat, then
/// cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PushOffThreat {
    pub seat: usize,
    pub cell: Cell,
}

/// The threats of each seat in turn, from the bitboard of the marbles it
/// could push off (`targets`, seat 0 first): ordered by seat, then cell.
pub(crate) fn threats_of(targets: impl IntoIterator<Item = u128>) -> Vec<PushOffThreat> {
    targets
        .into_iter()
        .enumerate()
        .flat_map(|(seat, board)| {
            bits(board)
                .filter_map(Cell::from_bit)
                .map(move |cell| PushOffThreat { seat, cell })
        })
        .collect()
}
