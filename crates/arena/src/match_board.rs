//! What a match needs of a game beyond [`Board`]: where its games start,
//! which moves a random opening may play, how a game ended and who finished
//! ahead, and the record of a game. The two-player [`Position`] and the
//! general game's [`GeneralPosition`] implement it, so that matches,
//! ladders and their reports ([`crate::arena`], [`crate::ladder`],
//! [`crate::report`]) are written once for both.

use sumito_engine::general::{GeneralEnd, GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{EndReason, Layout, Position, Rules};

use crate::record::{GameRecord, RecordBoard, Start};

/// How a game ended, as match reports count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndedBy {
    /// Enough marbles pushed off (or, where the rules say so, a neutral
    /// marble).
    MarblesOff,
    /// The move limit: decided by marbles pushed off.
    MoveLimit,
    /// Another rule ended it (too long without a push-off, no legal move).
    Other,
}

/// A game of a match as the match plays and records it.
pub trait MatchBoard: RecordBoard {
    /// Whether a random opening may play `mv`: it pushes no marble, so that
    /// no side starts ahead.
    fn is_quiet(&self, mv: Self::Move) -> bool;

    /// Marbles `side` has pushed off: it orders the sides behind the winner.
    fn side_score(&self, side: usize) -> u32;

    /// How the game ended, once it is over.
    fn ended_by(&self) -> Option<EndedBy>;

    /// The move limit in plies, if the rules have one.
    fn max_plies(&self) -> Option<u32>;

    /// The limit on plies without a push-off, if the rules have one.
    fn no_push_off_plies(&self) -> Option<u32>;

    /// Whether the rules end every game (a move limit, or a limit on plies
    /// without a push-off), so that players who cannot make progress still
    /// finish.
    fn ends_surely(&self) -> bool {
        self.max_plies().is_some() || self.no_push_off_plies().is_some()
    }

    /// The record of a game from `layout` under `rules` by the players
    /// `players` (by side), its first `opening_plies` moves a random
    /// opening, ended at `end`.
    fn record(
        layout: Self::Layout,
        rules: &Self::Rules,
        players: &[String],
        opening_plies: u32,
        moves: &[Self::Move],
        end: &Self,
    ) -> GameRecord<Self>;
}

/// Where a match's games start: a layout under the match's rules, and its
/// first position.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchStart<B: MatchBoard> {
    pub layout: B::Layout,
    pub position: B,
}

impl MatchStart<Position> {
    /// `layout` under `rules`.
    pub fn two_player(layout: Layout, rules: Rules) -> MatchStart<Position> {
        MatchStart {
            layout,
            position: Position::start(layout, rules),
        }
    }
}

impl MatchStart<GeneralPosition> {
    /// `layout` under the `[rules]` table `table`; the error names the key
    /// at fault.
    pub fn general(
        layout: GeneralLayout,
        table: &RulesTable,
    ) -> Result<MatchStart<GeneralPosition>, String> {
        Ok(MatchStart {
            layout,
            position: table
                .start(layout)
                .map_err(|err| format!("{layout}: {err}"))?,
        })
    }
}

impl MatchBoard for Position {
    fn is_quiet(&self, mv: Self::Move) -> bool {
        !self.is_push(mv)
    }

    fn side_score(&self, side: usize) -> u32 {
        // The marbles the other colour lost.
        u32::from(self.marbles_off(sumito_game::board::color_of_seat(1 - side)))
    }

    fn ended_by(&self) -> Option<EndedBy> {
        self.outcome().map(|(_, reason)| match reason {
            EndReason::MarblesOff => EndedBy::MarblesOff,
            EndReason::MoveLimit => EndedBy::MoveLimit,
            EndReason::NoPushOff | EndReason::NoLegalMoves => EndedBy::Other,
        })
    }

    fn max_plies(&self) -> Option<u32> {
        self.rules().max_plies
    }

    fn no_push_off_plies(&self) -> Option<u32> {
        self.rules().no_push_off_plies
    }

    fn record(
        layout: Layout,
        rules: &Rules,
        players: &[String],
        opening_plies: u32,
        moves: &[Self::Move],
        end: &Position,
    ) -> GameRecord<Position> {
        GameRecord {
            start: Start::Layout(layout),
            rules: *rules,
            players: players.to_vec(),
            opening_plies,
            moves: moves.to_vec(),
            result: end.outcome(),
        }
    }
}

impl MatchBoard for GeneralPosition {
    fn is_quiet(&self, mv: Self::Move) -> bool {
        // A push moves another seat's (or a neutral) marble.
        let after = self.play(mv);
        let mover = self.seat_to_move();
        (0..self.rules().seating.seats())
            .filter(|&seat| seat != mover)
            .all(|seat| self.bitboard(seat) == after.bitboard(seat))
            && self.neutral_bitboard() == after.neutral_bitboard()
    }

    fn side_score(&self, side: usize) -> u32 {
        GeneralPosition::side_score(self, side)
    }

    fn ended_by(&self) -> Option<EndedBy> {
        self.outcome().map(|(_, end)| match end {
            GeneralEnd::MarblesOff | GeneralEnd::NeutralPushedOff => EndedBy::MarblesOff,
            GeneralEnd::MoveLimit => EndedBy::MoveLimit,
            GeneralEnd::NoPushOff | GeneralEnd::NoLegalMoves => EndedBy::Other,
        })
    }

    fn max_plies(&self) -> Option<u32> {
        self.rules().max_plies
    }

    fn no_push_off_plies(&self) -> Option<u32> {
        self.rules().no_push_off_plies
    }

    fn record(
        layout: GeneralLayout,
        rules: &RulesTable,
        players: &[String],
        opening_plies: u32,
        moves: &[Self::Move],
        end: &GeneralPosition,
    ) -> GameRecord<GeneralPosition> {
        let seating = end.rules().seating;
        GameRecord {
            start: Start::Layout(layout),
            rules: rules.clone(),
            players: (0..seating.seats())
                .map(|seat| players[seating.side_of(seat)].clone())
                .collect(),
            opening_plies,
            moves: moves.to_vec(),
            result: end.outcome(),
        }
    }
}
