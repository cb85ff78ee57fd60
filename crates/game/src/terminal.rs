//! How a game of the engine ended, as the search values it (for both
//! games: [`crate::AbaloneGame`] and [`crate::GeneralGame`]).

use sumito_engine::Outcome;
use sumito_mcts::{Side, Terminal};

/// The search's value of the engine's `outcome` in a game of `sides` sides:
/// a draw among every side is a draw, among some a tie.
pub fn terminal_of(outcome: Outcome, sides: usize) -> Terminal {
    match outcome {
        Outcome::Win(side) => Terminal::Win(Side::new(side)),
        Outcome::Draw(mask) if mask.count_ones() as usize == sides => Terminal::Draw,
        Outcome::Draw(mask) => Terminal::Tie(mask),
    }
}
