//! The game contract of the search: what it asks of a game it plays.

use crate::side::{Side, Terminal};
use crate::values::Values;

/// A game the search can play: two sides or more. See the crate
/// documentation for the full contract.
pub trait Game: Clone + Send + Sync {
    /// Size of the fixed action space; every action is `< NUM_ACTIONS`.
    const NUM_ACTIONS: usize;

    /// How the tree stores values: [`ZeroSum`](crate::ZeroSum) for two sides,
    /// [`SideValues`](crate::SideValues) for more.
    type Values: Values;

    /// The number of sides (players or teams); 2 unless the game says
    /// otherwise, constant over a game.
    fn sides(&self) -> usize {
        2
    }

    /// The side to move. Meaningless (but must not panic) once the game is over.
    fn to_play(&self) -> Side;

    /// Clears `out` and fills it with the legal actions, in a deterministic
    /// order. Empty once the game is over.
    fn legal_actions(&self, out: &mut Vec<usize>);

    /// Plays `action`, which must be one of [`Game::legal_actions`].
    fn apply(&mut self, action: usize);

    /// `Some` exactly when the game is over: its result as the search values
    /// it.
    fn terminal(&self) -> Option<Terminal>;

    /// Whether playing `action` might end the game: `false` only when it
    /// surely does not. Before each search the root's moves that might are
    /// played to find those that end the game (a win in one is never
    /// missed); a cheap answer here saves playing the others. A game end it
    /// answers `false` for is still found when the search visits the move.
    fn may_end_game(&self, _action: usize) -> bool {
        true
    }
}
