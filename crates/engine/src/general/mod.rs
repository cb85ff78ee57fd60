//! The general game: every variant of the rules file and 3 to 6 players.
//!
//! The two-player game keeps its own engine ([`crate::Position`]): fixed
//! bitboards for two colours, move generation by whole-board shifts, counting
//! without making moves. Nothing here touches it, so the variants cost the
//! two-player game nothing. [`GeneralPosition`] plays everything else (and
//! the plain two-player game too, for the tests that compare both): up to
//! six seats, teams, neutral marbles, obstacle and hole cells, shield and
//! rotation moves, the one-colour game, targets per side. Its move
//! generation walks the cells of the mover's marbles on bitboards; it is
//! written for being exact and plain rather than for the last nanosecond.
//!
//! * [`rules`]: [`GeneralRules`] (what holds during play) and [`Seating`].
//! * [`material`]: material counted exactly, one side against the others.
//! * [`moves`]: [`GeneralMove`], the shield and rotation tables, action indices.
//! * [`position`]: [`GeneralPosition`], legal moves, playing, game end.
//! * [`setup`]: start layouts of 3–6 players, neutral marbles, handicap.
//! * [`text`]: the position text of the general game.
//! * [`notation`]: moves as text, with the reason a move is illegal.
//! * [`symmetry`]: which of the 12 symmetries a rules value keeps.

pub mod material;
pub mod moves;
pub mod notation;
pub mod position;
pub mod rules;
pub mod setup;
pub mod symmetry;
pub mod text;

pub use moves::{GeneralMove, MoveKind, RotationMove, ShieldMove, action_count};
pub use position::{
    CellContent, GeneralBoardError, GeneralPosition, describe_ending, general_perft,
};
pub use rules::{
    GeneralRules, MAX_SEATS, NeutralPushOff, RulesError, SEAT_LETTERS, SEAT_NAMES, Seating,
};
pub use setup::{GeneralLayout, GeneralSetup, SetupError};

#[cfg(test)]
mod tests;
