//! What a replay is: the one interface each game's replay format
//! implements, once (the two-player `format::SelfPlayGame`, the general
//! game's `general_format::GeneralReplay`). Self-play makes a replay from a
//! finished game, the replay folder writes its file, the store reads it back
//! into the trainer's window, and the trainer draws its training samples:
//! each of them asks only this trait, never the game's types.

use rand_chacha::ChaCha8Rng;
use sumito_engine::Ending;
use sumito_game::{Board, GameKind};
use sumito_mcts::SearchResult;
use sumito_net::Sample;

use crate::config::Config;

/// A finished game's records and resignation bookkeeping, which its
/// [`ReplayGame::finish`] turns into a replay.
#[derive(Debug)]
pub struct FinishedGame<R> {
    pub positions: Vec<R>,
    /// How it ended: by its rules (the last position's ending), or with
    /// every side but the winner resigned (`EndReason::Resignation`: with
    /// two sides, the other side resigned; with more, each other side had
    /// stayed below the threshold for its last moves).
    pub ending: Ending,
    /// Whether resignation was off for this game (to check its threshold).
    pub resignation_disabled: bool,
    /// The side the game would have been conceded to first, if any.
    pub would_concede_to: Option<usize>,
}

/// What self-play's statistics count of one replay.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameTally {
    pub positions: u64,
    pub training_positions: u64,
    /// The game has a winner.
    pub decisive: bool,
    pub resigned: bool,
    /// Played out with resignation off, some side would have resigned:
    /// whether that resignation would have been false (the side did not
    /// lose).
    pub resign_check: Option<bool>,
}

/// A game's replay: what self-play keeps of each searched position and
/// makes of a finished game, the file it is written as (the container's
/// byte for its [`GameKind`]), and the training samples drawn from it.
pub trait ReplayGame: Sized + Send + Sync + std::fmt::Debug + 'static {
    // Its file.

    /// Which game its files hold.
    const KIND: GameKind;
    /// The file's bytes.
    fn encode(&self) -> Vec<u8>;
    /// The training positions of a file, read cheaply where the format
    /// allows (a file that would fall out of the window at once is only
    /// counted).
    fn peek_training_positions(bytes: &[u8]) -> Result<u64, String>;
    fn decode(bytes: &[u8]) -> Result<Self, String>;
    /// The indices of its positions that carry a policy target.
    fn training_indices(&self) -> Vec<u32>;

    // Self-play.

    /// The board of its game.
    type Board: Board;
    /// What is kept of one searched position.
    type PositionRecord;

    /// The record of `position`, where the search `result` chose the move.
    fn position_record(position: &Self::Board, result: &SearchResult) -> Self::PositionRecord;

    /// The position of a record.
    fn position_of(record: &Self::PositionRecord) -> Self::Board;

    /// The records of the game's positions.
    fn positions(&self) -> &[Self::PositionRecord];

    /// The replay of a finished game under `rules` whose last position is
    /// `last`.
    fn finish(
        game: FinishedGame<Self::PositionRecord>,
        last: &Self::Board,
        rules: &<Self::Board as Board>::Rules,
        model_generation: u32,
    ) -> Self;

    /// What self-play's statistics count of it.
    fn tally(&self) -> GameTally;

    // Training.

    /// The network's training sample of its game.
    type Sample: Sample;

    /// `batch_size` training samples, each of a position that `draw` picks
    /// from the window (a replay and the index of one of its positions with
    /// a policy target), put under a random symmetry its rules keep: what
    /// the trainer trains on. The window is not empty.
    fn training_batch<'a>(
        draw: impl FnMut(&mut ChaCha8Rng) -> (&'a Self, usize),
        rng: &mut ChaCha8Rng,
        config: &Config,
        batch_size: usize,
    ) -> Vec<Self::Sample>;
}
