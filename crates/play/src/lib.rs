//! The user-facing layer of Sumito: what a person sees and touches once a
//! model exists. SVG pictures of positions and games, the terminal board,
//! clocks, the interactive play session, model bundles and analysis.

pub mod analysis;
pub mod arena_player;
pub mod board_text;
pub mod bundle;
pub mod clock;
pub mod motion;
pub mod network;
pub mod opponent;
pub mod session;
pub mod svg;

/// Game records (the arena's format), which sessions save and load.
pub use sumito_arena::record;

use sumito_engine::{Color, Outcome};

/// "Black" or "White", as a person writes it at the start of a sentence.
pub fn color_title(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// "Black wins", "White wins" or "Draw".
pub fn outcome_title(outcome: Outcome) -> String {
    match outcome {
        Outcome::Win(color) => format!("{} wins", color_title(color)),
        Outcome::Draw => "Draw".to_string(),
    }
}
