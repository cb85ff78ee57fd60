//! Abalone as a [`sumito_mcts::Game`]: the one place where the rules engine
//! and the game-agnostic search meet (the engine knows nothing of search, the
//! search nothing of Abalone).
//!
//! * State: [`AbaloneGame`], a newtype over the engine's `Copy`
//!   [`Position`] (the search clones it once per simulation, so this is cheap).
//! * Actions: the engine's fixed action space, `NUM_ACTIONS =`
//!   [`ACTION_COUNT`] = 1734; an action is [`Move::action`], legal actions come
//!   in the engine's generation order, which is deterministic.
//! * Players: Black is [`Side::FIRST`], White [`Side::SECOND`].
//! * Terminal: the outcome of [`Position::ending`] ([`terminal_of`]): the
//!   winner's side, or a draw (move limit or no-push-off rule with equal
//!   counts).
//!
//! ```
//! use sumito_engine::{Layout, Position, Rules};
//! use sumito_game::AbaloneGame;
//! use sumito_mcts::{Search, SearchConfig, UniformEvaluator};
//!
//! let start = AbaloneGame(Position::start(Layout::BelgianDaisy, Rules::default()));
//! let config = SearchConfig { simulations: 64, ..SearchConfig::default() };
//! let mut search = Search::new(start, config, 1).unwrap();
//! let result = search.search(&UniformEvaluator).unwrap();
//! let mv = AbaloneGame::move_of(result.action).unwrap();
//! assert!(search.root().position().is_legal(mv));
//! ```
//!
//! [`Position`]: sumito_engine::Position
//! [`ACTION_COUNT`]: sumito_engine::ACTION_COUNT
//! [`Move::action`]: sumito_engine::Move::action
//! [`Position::ending`]: sumito_engine::Position::ending
//! [`Side::FIRST`]: sumito_mcts::Side::FIRST
//! [`Side::SECOND`]: sumito_mcts::Side::SECOND

mod abalone;
pub mod board;
pub mod choice;
pub mod formats;
pub mod general;
pub mod kind;
pub mod level;
mod terminal;

pub use abalone::{AbaloneGame, color_of, player_of};
pub use board::Board;
pub use choice::{GameHistory, choose_move};
pub use general::{GENERAL_ACTIONS, GeneralGame};
pub use kind::GameKind;
pub use level::{FULL_STRENGTH, LEVELS, Level, LevelPlay};
pub use terminal::terminal_of;
