//! A game as a training run sees it: its self-play, the starts and fixed
//! opponents of its evaluation games and the replay its trainer reads,
//! each made from the run's configuration. The run's loop ([`crate::run`]) and the trainer
//! ([`crate::trainer`]) are written once over it; the run's rules pick the
//! game ([`crate::config::RulesConfig::kind`]) and
//! [`sumito_game::with_board!`] names its type.

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;

use sumito_arena::player::Entrant;
use sumito_arena::players::general::general_registry;
use sumito_engine::Layout;

use crate::config::{Config, ConfigError};
use crate::error::{PipelineError, Result};
use crate::matches::NamedStart;
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
    /// The self-play of the run `config` describes.
    fn self_play(config: &Config) -> std::result::Result<Self::SelfPlay, ConfigError>;

    /// The starts of the evaluation games of the run `config` describes,
    /// taken in turn.
    fn evaluation_starts(config: &Config) -> Result<Vec<NamedStart<Self>>>;

    /// The game's classical player `spec` names (a fixed opponent of the
    /// rating games); the error says what is wrong.
    fn fixed_player(spec: &str) -> std::result::Result<Entrant<Self>, String>;
}

impl RunBoard for Position {
    type Replay = SelfPlayGame;
    type SelfPlay = TwoPlayerSelfPlay;
    fn self_play(config: &Config) -> std::result::Result<TwoPlayerSelfPlay, ConfigError> {
        Ok(TwoPlayerSelfPlay::of(&config.rules))
    }

    /// The layouts of `[evaluation] openings` under the run's rules.
    fn evaluation_starts(config: &Config) -> Result<Vec<NamedStart<Position>>> {
        let rules = config.rules.rules();
        Ok(config
            .evaluation
            .openings
            .iter()
            .filter_map(|name| Layout::from_name(name).ok())
            .map(|layout| NamedStart {
                name: layout.name().to_string(),
                position: Position::start(layout, rules),
            })
            .collect())
    }

    fn fixed_player(spec: &str) -> std::result::Result<Entrant<Position>, String> {
        crate::opponents::fixed_player(spec)
    }
}

impl RunBoard for GeneralPosition {
    type Replay = GeneralReplay;
    type SelfPlay = GeneralSelfPlay;
    fn self_play(config: &Config) -> std::result::Result<GeneralSelfPlay, ConfigError> {
        Ok(GeneralSelfPlay {
            general: config.general_run_rules()?,
        })
    }

    /// Every layout of the run's rules (the general game's evaluation does
    /// not read `[evaluation] openings`, whose layouts seat two).
    fn evaluation_starts(config: &Config) -> Result<Vec<NamedStart<GeneralPosition>>> {
        let general = config.general_run_rules()?;
        general
            .setups
            .iter()
            .map(|setup| {
                Ok(NamedStart {
                    name: setup.layout.name().to_string(),
                    position: setup
                        .start(&general.rules)
                        .map_err(|err| PipelineError::Evaluation(err.to_string()))?,
                })
            })
            .collect()
    }

    /// Its classical players: `random`, `greedy` and the paranoid
    /// `alphabeta` of `sumito_arena::players::general`.
    fn fixed_player(spec: &str) -> std::result::Result<Entrant<GeneralPosition>, String> {
        general_registry()
            .prepare_str(spec)
            .map_err(|err| err.to_string())
    }
}
