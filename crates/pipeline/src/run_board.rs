//! A game as a training run sees it: its self-play, its evaluation games
//! and the replay its trainer reads, each made from the run's
//! configuration. The run's loop ([`crate::run`]) and the trainer
//! ([`crate::trainer`]) are written once over it; the run's rules pick the
//! game ([`crate::config::RulesConfig::kind`]) and
//! [`sumito_game::with_board!`] names its type.

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;

use crate::config::{Config, ConfigError};
use crate::evaluation::{EvaluationKind, GeneralEvaluation, TwoPlayerEvaluation};
use crate::replay::format::SelfPlayGame;
use crate::replay::general_format::GeneralReplay;
use crate::replay::store::ReplayGame;
use crate::selfplay::{GeneralSelfPlay, SelfPlayKind, TwoPlayerSelfPlay};
use sumito_net::NetBoard;

/// What a run of a game is made of.
pub trait RunBoard: NetBoard {
    /// A finished self-play game as it is written, read and trained on.
    type Replay: ReplayGame + std::fmt::Debug + 'static;
    /// Its self-play: starts, what a searched position keeps, its replay.
    type SelfPlay: SelfPlayKind<Board = Self, Game = Self::Replay>;
    /// Its evaluation games: starts and fixed opponents.
    type Evaluation: EvaluationKind<Board = Self>;

    /// The self-play of the run `config` describes.
    fn self_play(config: &Config) -> Result<Self::SelfPlay, ConfigError>;

    /// The evaluation games of the run `config` describes.
    fn evaluation(config: &Config) -> Result<Self::Evaluation, ConfigError>;
}

impl RunBoard for Position {
    type Replay = SelfPlayGame;
    type SelfPlay = TwoPlayerSelfPlay;
    type Evaluation = TwoPlayerEvaluation;

    fn self_play(config: &Config) -> Result<TwoPlayerSelfPlay, ConfigError> {
        Ok(TwoPlayerSelfPlay::of(&config.rules))
    }

    fn evaluation(config: &Config) -> Result<TwoPlayerEvaluation, ConfigError> {
        Ok(TwoPlayerEvaluation::of(config))
    }
}

impl RunBoard for GeneralPosition {
    type Replay = GeneralReplay;
    type SelfPlay = GeneralSelfPlay;
    type Evaluation = GeneralEvaluation;

    fn self_play(config: &Config) -> Result<GeneralSelfPlay, ConfigError> {
        Ok(GeneralSelfPlay {
            general: config.general_run_rules()?,
        })
    }

    fn evaluation(config: &Config) -> Result<GeneralEvaluation, ConfigError> {
        Ok(GeneralEvaluation {
            general: config.general_run_rules()?,
        })
    }
}
