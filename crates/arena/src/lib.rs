//! Fixed opponents of graded strength, matches between any players, game
//! records, and ratings.
//!
//! - [`player`]: the [`Player`] interface, [`SearchLimit`], and the
//!   [`PlayerRegistry`] that turns specs like `alphabeta:depth=3` into
//!   [`Entrant`]s; other crates register their own kinds.
//! - [`players`]: `random`, `greedy` and `alphabeta`, and those of the
//!   general game ([`players::general`]); [`eval`]: the evaluation the
//!   two-player ones use, with weights from TOML.
//! - [`arena`]: matches of either game in parallel ([`play_match`]), with
//!   varied openings, seats rotated, progress, standings and saved
//!   records; [`match_start`]: where a match's games start;
//!   [`play_out`]: one game between players, of either game.
//! - [`ladder`]: one player against fixed opponents at fixed settings, as
//!   Markdown and JSON.
//! - [`arena_board`]: a game as matches see it ([`arena_board::ArenaBoard`]:
//!   its classical players and its ladder).
//! - [`record`]: [`record::GameRecord`], the record of a game of either
//!   game, and [`record::AnyRecord`], a record of either game decided from
//!   its rules and start; [`record_format`]: the one plain-text record
//!   format both write, [`record_text`] reads and writes it;
//!   [`record_v1`]: the older two-player format, still read.
//! - [`elo`]: maximum-likelihood ratings with 95 % intervals; [`scale`]:
//!   the one Elo scale, the classical players' fixed ratings that every
//!   table holds; [`sprt`]: the sequential test that can stop a two-player
//!   match early.
//! - [`report`]: the tables and the machine-readable `result:` line.
//! - [`tactics`]: the tactics suite (positions whose right moves an exact
//!   search of material proves), its generator, and players' solve rates.

pub mod arena;
pub mod arena_board;
pub mod chart;
pub mod elo;
pub mod eval;
pub mod ladder;
pub mod levels;
pub mod match_start;
pub mod play_out;
pub mod player;
pub mod players;
pub mod record;
pub mod record_format;
pub mod record_text;
pub mod record_v1;
pub mod report;
pub mod scale;
pub mod spec;
mod splitmix;
pub mod sprt;
pub mod tactics;

pub use arena::{MatchConfig, MatchObserver, MatchResults, play_match};
pub use elo::{PairResult, Ratings, fit_elo};
pub use player::{Entrant, Player, PlayerError, PlayerFactory, PlayerRegistry, SearchLimit};
pub use spec::{PlayerSpec, SpecError};
pub(crate) use splitmix::splitmix64;
