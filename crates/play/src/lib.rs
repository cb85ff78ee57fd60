//! The user-facing layer of Sumito: what a person sees and touches. SVG
//! pictures of positions and games, the terminal board, clocks, the
//! interactive play session and analysis (with the network player of
//! `sumito_arena::players::network`).
//!
//! Nothing here links libtorch: a network reaches this crate only as a
//! `sumito_mcts::Evaluator`. Model bundles (the torch side) live in
//! `sumito-bundle`, so that the light `sumito` binary can use this crate.

pub mod analysis;
pub mod board_text;
pub mod clock;
pub mod drawing;
pub mod general_view;
pub mod motion;
pub mod review;
pub mod session;
pub mod svg;
mod titles;

/// Game records (the arena's format), which sessions save and load.
pub use sumito_arena::record;

/// "Black wins", "White wins" or "Draw".
pub use sumito_game::board::outcome_title;
pub use titles::color_title;
