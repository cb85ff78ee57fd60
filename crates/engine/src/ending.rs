//! How a game ends: who won or shared a draw ([`Outcome`]) and why
//! ([`EndReason`]), together an [`Ending`]. One type for both engines (the
//! two-player [`crate::Position`] and [`crate::general::GeneralPosition`])
//! and for every layer above them: matches, records, replay files,
//! evaluation and the terminal.
//!
//! Sides are numbered as the rules seat them: in the two-player game side 0
//! is Black and side 1 White ([`crate::Color::index`]); in the general game
//! a side is a seat or a team ([`crate::general::Seating`]).

use crate::board::Color;
use std::fmt;

/// Who a finished game went to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// This side won.
    Win(usize),
    /// A draw among the sides whose bits are set (bit `i`: side `i`): every
    /// side that shared the best count; the others lost. Two players draw as
    /// `Draw(0b11)` ([`Outcome::draw_of_all`]).
    Draw(u8),
}

impl Outcome {
    /// The two-player game won by `color`.
    pub fn win_of(color: Color) -> Outcome {
        Outcome::Win(color.index())
    }

    /// A draw shared by every one of `sides` sides.
    pub const fn draw_of_all(sides: usize) -> Outcome {
        Outcome::Draw(((1u16 << sides) - 1) as u8)
    }

    /// The winning side, if one side won.
    pub const fn winner(self) -> Option<usize> {
        match self {
            Outcome::Win(side) => Some(side),
            Outcome::Draw(_) => None,
        }
    }

    /// Whether `side` won or shares the draw.
    pub const fn shared_by(self, side: usize) -> bool {
        match self {
            Outcome::Win(winner) => winner == side,
            Outcome::Draw(mask) => side < 8 && mask >> side & 1 == 1,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// A side pushed off the marbles its rules ask for.
    MarblesOff,
    /// A neutral marble was pushed off under `neutral_push_off =
    /// "pusher-wins"` (the general game).
    NeutralPushedOff,
    /// The move limit: decided by marbles pushed off.
    MoveLimit,
    /// Too long without a push-off: decided by cells held on row E.
    NoPushOff,
    /// The side to move cannot move (two players: it loses), or no player
    /// can (more players: decided by marbles pushed off). The rule sheets
    /// do not cover this; it arises only from contrived positions.
    NoLegalMoves,
    /// Every other side resigned to the winner (self-play resigns a game
    /// whose value stayed below a threshold); the rules did not end it.
    Resignation,
}

impl EndReason {
    /// Whether marbles pushed off decided the game at once (a side's own
    /// target, or a neutral marble): what match reports count as decisive.
    pub const fn by_push_off(self) -> bool {
        matches!(self, EndReason::MarblesOff | EndReason::NeutralPushedOff)
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::MarblesOff => "enough marbles pushed off",
            EndReason::NeutralPushedOff => "a neutral marble pushed off wins",
            EndReason::MoveLimit => "move limit reached, decided by marbles pushed off",
            EndReason::NoPushOff => "no marble pushed off for too long, decided by row E",
            EndReason::NoLegalMoves => "no legal move",
            EndReason::Resignation => "resignation",
        })
    }
}

/// How a finished game ended: who it went to, and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Ending {
    pub outcome: Outcome,
    pub reason: EndReason,
}

impl Ending {
    pub const fn new(outcome: Outcome, reason: EndReason) -> Ending {
        Ending { outcome, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_name_their_sides() {
        assert_eq!(Outcome::draw_of_all(2), Outcome::Draw(0b11));
        assert_eq!(Outcome::draw_of_all(6), Outcome::Draw(0b11_1111));
        assert_eq!(Outcome::win_of(Color::White), Outcome::Win(1));
        assert_eq!(Outcome::Win(2).winner(), Some(2));
        assert_eq!(Outcome::Draw(0b101).winner(), None);
        assert!(Outcome::Draw(0b101).shared_by(2));
        assert!(!Outcome::Draw(0b101).shared_by(1));
        assert!(!Outcome::Win(0).shared_by(1));
    }

    #[test]
    fn reasons_say_what_decided() {
        assert!(EndReason::NeutralPushedOff.by_push_off());
        assert!(!EndReason::MoveLimit.by_push_off());
        assert_eq!(EndReason::NoLegalMoves.to_string(), "no legal move");
        assert_eq!(
            EndReason::MoveLimit.to_string(),
            "move limit reached, decided by marbles pushed off"
        );
    }
}
