//! A game as the network sees it, kZero's "mapper": [`NetGame`] says how a
//! batch of its searched positions is encoded for a network and how the
//! network's outputs become the search's priors and values; [`NetBoard`]
//! adds the rules a checkpoint of one of its runs records. Every network
//! evaluator ([`DirectEvaluator`], [`InferenceClient`], the
//! [`crate::ServiceEvaluator`] over it) evaluates every [`NetGame`] through
//! one implementation each, so that the layers above ask `B: NetBoard` and
//! nothing else of a game a network plays.

use sumito_engine::general::GeneralPosition;
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Position, Rules};
use sumito_game::{AbaloneGame, Board, GeneralGame};
use sumito_mcts::{EvalBatch, EvalError, Evaluator, Game};

use crate::checkpoint::CheckpointMeta;
use crate::config::SymmetryMode;
use crate::evaluate::{DirectEvaluator, PackedModel, Utilities};
use crate::search::ServiceEvaluator;
use crate::service::InferenceClient;
use crate::{NetError, general_search, search};

/// A network as an evaluator sees it: what it does with a batch of encoded
/// rows, and the settings that shape the encoding and the values.
pub trait NetworkForward {
    /// The symmetries averaged over (the two-player encoding only).
    fn symmetry(&self) -> SymmetryMode;

    /// Whether the network reads the push-off planes (the two-player
    /// encoding only).
    fn push_off_planes(&self) -> bool;

    /// The weights of marbles in the search's values.
    fn utilities(&self) -> Utilities;

    /// The network's packed outputs of `rows` encoded rows.
    fn forward(&self, inputs: &[f32], rows: usize) -> Result<Vec<f32>, NetError>;
}

/// A searched game a network evaluates.
pub trait NetGame: Game {
    /// Fills `batch`'s priors and values from `network`.
    fn evaluate_batch(
        batch: &mut EvalBatch<Self>,
        network: &impl NetworkForward,
    ) -> Result<(), EvalError>;
}

impl NetGame for AbaloneGame {
    fn evaluate_batch(
        batch: &mut EvalBatch<AbaloneGame>,
        network: &impl NetworkForward,
    ) -> Result<(), EvalError> {
        search::evaluate_batch(
            batch,
            network.symmetry(),
            network.push_off_planes(),
            network.utilities(),
            |inputs, rows| network.forward(inputs, rows),
        )
    }
}

/// The general encoding has one frame per position: no symmetries, no
/// push-off planes.
impl NetGame for GeneralGame {
    fn evaluate_batch(
        batch: &mut EvalBatch<GeneralGame>,
        network: &impl NetworkForward,
    ) -> Result<(), EvalError> {
        general_search::evaluate_general_batch(batch, network.utilities(), |inputs, rows| {
            network.forward(inputs, rows)
        })
    }
}

impl<M: PackedModel> NetworkForward for DirectEvaluator<M> {
    fn symmetry(&self) -> SymmetryMode {
        self.symmetry
    }

    fn push_off_planes(&self) -> bool {
        self.shape.push_off_planes
    }

    fn utilities(&self) -> Utilities {
        self.utilities
    }

    fn forward(&self, inputs: &[f32], rows: usize) -> Result<Vec<f32>, NetError> {
        self.run_encoded(inputs, rows)
    }
}

impl NetworkForward for InferenceClient {
    fn symmetry(&self) -> SymmetryMode {
        self.symmetry
    }

    fn push_off_planes(&self) -> bool {
        self.shape().push_off_planes
    }

    fn utilities(&self) -> Utilities {
        self.utilities
    }

    fn forward(&self, inputs: &[f32], rows: usize) -> Result<Vec<f32>, NetError> {
        self.run_encoded(inputs.to_vec(), rows)
    }
}

impl<S: NetGame, M: PackedModel> Evaluator<S> for DirectEvaluator<M> {
    fn evaluate(&self, batch: &mut EvalBatch<S>) -> Result<(), EvalError> {
        S::evaluate_batch(batch, self)
    }
}

impl<S: NetGame> Evaluator<S> for InferenceClient {
    fn evaluate(&self, batch: &mut EvalBatch<S>) -> Result<(), EvalError> {
        S::evaluate_batch(batch, self)
    }
}

/// A model of the general game takes no score utility there
/// (`crate::general_search`).
impl<S: NetGame> Evaluator<S> for ServiceEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<S>) -> Result<(), EvalError> {
        self.client.evaluate(batch)
    }
}

/// A game a network plays, as the layers above the network see it: its
/// searched positions are a [`NetGame`] (so every network evaluator
/// evaluates them), and its checkpoints say what rules their run learned.
/// The two-player [`Position`] and the general game's [`GeneralPosition`]
/// implement it.
pub trait NetBoard: Board<Searched: NetGame> {
    /// The rules a checkpoint says its run learned under, where it says.
    fn checkpoint_rules(meta: &CheckpointMeta) -> Option<Self::Rules>;
}

impl NetBoard for Position {
    fn checkpoint_rules(meta: &CheckpointMeta) -> Option<Rules> {
        meta.rules.map(Rules::from)
    }
}

impl NetBoard for GeneralPosition {
    /// A checkpoint holds no `[rules]` table (its run's configuration does).
    fn checkpoint_rules(_: &CheckpointMeta) -> Option<RulesTable> {
        None
    }
}
