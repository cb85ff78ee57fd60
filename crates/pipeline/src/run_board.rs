//! A game as a training run sees it: its self-play, the fixed opponents of
//! its evaluation games and the replay its trainer reads, each made from
//! the run's configuration (the starts of both are every game's:
//! [`crate::starts`]). The run's loop ([`crate::run`]) and the trainer
//! ([`crate::trainer`]) are written once over it; the run's rules pick the
//! game ([`crate::config::RulesConfig::kind`]) and
//! [`sumito_game::with_board!`] names its type.

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;

use sumito_arena::player::Entrant;
use sumito_arena::players::general::general_registry;

use crate::config::{Config, ConfigError};
use crate::replay::format::SelfPlayGame;
use crate::replay::general_format::GeneralReplay;
use crate::replay::store::ReplayGame;
use crate::selfplay::{GeneralSelfPlay, SelfPlayKind, TwoPlayerSelfPlay, run_starts};
use sumito_net::NetBoard;

/// What a run of a game is made of.
pub trait RunBoard: NetBoard {
    /// A finished self-play game as it is written, read and trained on.
    type Replay: ReplayGame + std::fmt::Debug + 'static;
    /// Its self-play: what a searched position keeps, its replay.
    type SelfPlay: SelfPlayKind<Board = Self, Game = Self::Replay>;
    /// The self-play of the run `config` describes.
    fn self_play(config: &Config) -> Result<Self::SelfPlay, ConfigError>;

    /// The game's classical player `spec` names (a fixed opponent of the
    /// rating games); the error says what is wrong.
    fn fixed_player(spec: &str) -> Result<Entrant<Self>, String>;
}

impl RunBoard for Position {
    type Replay = SelfPlayGame;
    type SelfPlay = TwoPlayerSelfPlay;
    fn self_play(config: &Config) -> Result<TwoPlayerSelfPlay, ConfigError> {
        TwoPlayerSelfPlay::of(&config.rules)
    }

    fn fixed_player(spec: &str) -> Result<Entrant<Position>, String> {
        crate::opponents::fixed_player(spec)
    }
}

impl RunBoard for GeneralPosition {
    type Replay = GeneralReplay;
    type SelfPlay = GeneralSelfPlay;
    fn self_play(config: &Config) -> Result<GeneralSelfPlay, ConfigError> {
        Ok(GeneralSelfPlay {
            starts: run_starts(&config.rules)?,
        })
    }

    /// Its classical players: `random`, `greedy` and the paranoid
    /// `alphabeta` of `sumito_arena::players::general`.
    fn fixed_player(spec: &str) -> Result<Entrant<GeneralPosition>, String> {
        general_registry()
            .prepare_str(spec)
            .map_err(|err| err.to_string())
    }
}
