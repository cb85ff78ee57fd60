//! A game as a training run sees it: its replay (as self-play makes it,
//! the store reads it and the trainer trains on it) and the fixed
//! opponents of its evaluation games (where both start is every game's:
//! [`crate::starts`]). The run's loop ([`crate::run`]) and the trainer
//! ([`crate::trainer`]) are written once over it; the run's rules pick the
//! game ([`crate::config::RulesConfig::kind`]) and
//! [`sumito_game::with_board!`] names its type.

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;

use sumito_arena::player::Entrant;
use sumito_arena::players::general::general_registry;

use crate::replay::format::SelfPlayGame;
use crate::replay::general_format::GeneralReplay;
use crate::replay::store::ReplayGame;
use crate::selfplay::SelfPlayReplay;
use sumito_net::NetBoard;

/// What a run of a game is made of.
pub trait RunBoard: NetBoard {
    /// A finished self-play game as self-play makes it
    /// ([`SelfPlayReplay`]: what a searched position keeps, the replay of
    /// a finished game) and the store reads and the trainer trains on.
    type Replay: ReplayGame + SelfPlayReplay<Board = Self> + std::fmt::Debug + 'static;

    /// The game's classical player `spec` names (a fixed opponent of the
    /// rating games); the error says what is wrong.
    fn fixed_player(spec: &str) -> Result<Entrant<Self>, String>;
}

impl RunBoard for Position {
    type Replay = SelfPlayGame;

    fn fixed_player(spec: &str) -> Result<Entrant<Position>, String> {
        crate::opponents::fixed_player(spec)
    }
}

impl RunBoard for GeneralPosition {
    type Replay = GeneralReplay;

    /// Its classical players: `random`, `greedy` and the paranoid
    /// `alphabeta` of `sumito_arena::players::general`.
    fn fixed_player(spec: &str) -> Result<Entrant<GeneralPosition>, String> {
        general_registry()
            .prepare_str(spec)
            .map_err(|err| err.to_string())
    }
}
