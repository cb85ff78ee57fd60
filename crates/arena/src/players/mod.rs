//! The built-in players, from weakest to strongest: `random`, `greedy` and
//! `alphabeta`, with their factories for the [`PlayerRegistry`]; those of
//! the general game in [`general`]; and the one network player of every
//! game and command, [`network::NetworkSearch`] (a tree search over any
//! evaluator, which the layers that load networks give it).
//!
//! [`PlayerRegistry`]: crate::player::PlayerRegistry

mod alphabeta;
pub mod general;
pub mod network;
mod simple;
mod table;

pub use alphabeta::{AlphaBeta, AlphaBetaConfig, AlphaBetaFactory, SearchReport};
pub use simple::{GreedyFactory, GreedyPlayer, RandomFactory, RandomPlayer};

use std::sync::Arc;

use crate::eval::EvalWeights;
use crate::spec::{SpecError, SpecParams};

/// Reads the `weights=PATH` parameter shared by the evaluating players: the
/// file's weights, or the defaults.
fn weights_param(params: &mut SpecParams<'_>) -> Result<Arc<EvalWeights>, SpecError> {
    match params.get_path("weights") {
        None => Ok(Arc::new(EvalWeights::default())),
        Some(path) => EvalWeights::from_toml_file(&path)
            .map(Arc::new)
            .map_err(|err| params.invalid(err.to_string())),
    }
}
