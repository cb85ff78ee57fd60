//! A game as a training run sees it: its replay (as self-play makes it,
//! the store reads it and the trainer trains on it); its evaluation games'
//! fixed opponents are its classical players ([`ArenaBoard`]), and where
//! games start is every game's ([`crate::starts`]). The run's loop ([`crate::run`]) and the trainer
//! ([`crate::trainer`]) are written once over it; the run's rules pick the
//! game ([`crate::config::RunRules::kind`]) and
//! [`sumito_game::with_board!`] names its type.

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;

use sumito_arena::arena_board::ArenaBoard;

use crate::replay::format::SelfPlayGame;
use crate::replay::general_format::GeneralReplay;
use crate::replay::replay_game::ReplayGame;
use sumito_net::NetBoard;

/// What a run of a game is made of.
pub trait RunBoard: NetBoard + ArenaBoard {
    /// Its replay ([`ReplayGame`]): what self-play keeps of a searched
    /// position and makes of a finished game, the file the store reads, the
    /// samples the trainer trains on.
    type Replay: ReplayGame<Board = Self>;
}

impl RunBoard for Position {
    type Replay = SelfPlayGame;
}

impl RunBoard for GeneralPosition {
    type Replay = GeneralReplay;
}
