//! The built-in players, from weakest to strongest: `random`, `greedy` and
//! `alphabeta`, with their factories and the [`PlayerRegistry`] of them
//! (`PlayerRegistry::builtin`); those of
//! the general game in [`general`]; and the one network player of every
//! game and command, [`network::NetworkSearch`] (a tree search over any
//! evaluator, which the layers that load networks give it).

mod alphabeta;
pub mod general;
pub mod network;
mod simple;
mod table;

pub use alphabeta::{AlphaBeta, AlphaBetaConfig, AlphaBetaFactory, SearchReport};
pub use simple::{GreedyFactory, GreedyPlayer, RandomFactory, RandomPlayer};

use crate::player::{PlayerFactory, PlayerRegistry};

// The registry of the classical players lives beside them, so that the
// player interface (`crate::player`) names none of its implementations.
impl Default for PlayerRegistry {
    fn default() -> PlayerRegistry {
        PlayerRegistry::builtin()
    }
}

impl PlayerRegistry {
    /// `random`, `greedy` and `alphabeta`.
    pub fn builtin() -> PlayerRegistry {
        let mut registry = PlayerRegistry::empty();
        let kinds: [Box<dyn PlayerFactory>; 3] = [
            Box::new(RandomFactory),
            Box::new(GreedyFactory),
            Box::new(AlphaBetaFactory),
        ];
        for factory in kinds {
            registry
                .register(factory)
                .expect("built-in kinds are distinct");
        }
        registry
    }
}
