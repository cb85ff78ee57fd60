//! The built-in players, from weakest to strongest: `random`, `greedy` and
//! `alphabeta`, with their factories ([`classical_kinds`]); those of
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

use crate::player::PlayerFactory;

/// The two-player game's classical kinds: `random`, `greedy` and
/// `alphabeta` (its registry: `Position::classical_players`, [`crate::arena_board::ArenaBoard`]).
pub fn classical_kinds() -> Vec<Box<dyn PlayerFactory>> {
    vec![
        Box::new(RandomFactory),
        Box::new(GreedyFactory),
        Box::new(AlphaBetaFactory),
    ]
}
