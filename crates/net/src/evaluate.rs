//! Turning positions into network inputs and network outputs into per-move
//! logits and values: shared by the direct (same-thread) path, the batched
//! inference service and the TorchScript model.

use std::sync::Mutex;

use rand::Rng;
use sumito_engine::{Position, Symmetry};
use tch::{Device, Kind, Tensor};

use crate::NetError;
use crate::config::{NetShape, SymmetryMode};
use crate::encoding::{
    GRID, check_evaluable, encode_position_zeroed, input_len, policy_index, symmetries_for,
};
use crate::model::OutputColumns;
use crate::model::{PACKED_AUX, PACKED_LEN, PACKED_WDL, PolicyValueNet};
use sumito_game::GameKind;

/// How much the search's values weigh marbles, beside who wins: in `win -
/// loss`, `score` times the predicted marble difference and `material`
/// times the difference on the board of the position evaluated (both from
/// the side to move's view, in sixths of the marbles to win a standard
/// game, so one marble is worth `weight / 6`), clamped as
/// `crate::search::with_score_utility` clamps. The material weight is a self-play lever
/// (`[selfplay] material_utility`): a search that sees the marble a
/// push-off wins puts that move in the policy target the network learns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Utilities {
    pub score: f32,
    pub material: f32,
}

/// What the network says about one position, from the side to move's view.
#[derive(Clone, Debug, PartialEq)]
pub struct NetOutput {
    /// One logit per legal move, in the order of `position.legal_moves()`
    /// (unnormalised; [`NetOutput::priors`] applies the softmax).
    pub logits: Vec<f32>,
    /// Probabilities of win, draw and loss for the side to move.
    pub wdl: [f32; 3],
    /// Predicted final marble difference (opponent's marbles off minus own)
    /// divided by 6, in `[-1, 1]`.
    pub marble_diff: f32,
}

impl NetOutput {
    /// Expected result `win - loss` in `[-1, 1]`.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }

    /// Move probabilities (softmax of the logits), aligned with the logits.
    pub fn priors(&self) -> Vec<f32> {
        softmax(&self.logits)
    }
}

pub(crate) fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// A model that maps encoded positions `[batch, 11, 9, 9]` to the packed output
/// `[batch, PACKED_LEN]` (see [`crate::model`]): the trained network itself or
/// a TorchScript export.
pub trait PackedModel: Send {
    fn device(&self) -> Device;
    fn forward_packed(&self, input: &Tensor) -> Result<Tensor, NetError>;
    /// The inputs it takes and the outputs it packs.
    fn shape(&self) -> NetShape {
        NetShape::default()
    }
    /// The game whose inputs it takes and outputs it packs.
    fn game(&self) -> GameKind {
        self.shape().game
    }
}

impl PackedModel for PolicyValueNet {
    fn device(&self) -> Device {
        PolicyValueNet::device(self)
    }

    fn shape(&self) -> NetShape {
        PolicyValueNet::shape(self)
    }

    fn forward_packed(&self, input: &Tensor) -> Result<Tensor, NetError> {
        Ok(PolicyValueNet::forward_packed(self, input))
    }
}

/// Runs `model` on `rows` encoded positions (`inputs.len() == rows *
/// model.shape().input_len()`) and returns the packed outputs, `rows *
/// model.game().packed_len()` floats.
pub fn run_packed<M: PackedModel + ?Sized>(
    model: &M,
    inputs: &[f32],
    rows: usize,
) -> Result<Vec<f32>, NetError> {
    let shape = model.shape();
    let game = shape.game;
    if inputs.len() != rows * shape.input_len() {
        return Err(NetError::Service(format!(
            "{} input floats for {rows} positions, but a network of the {game:?} game takes {} per position",
            inputs.len(),
            shape.input_len()
        )));
    }
    let planes = shape.input_planes() as i64;
    let input = Tensor::from_slice(inputs)
        .view([rows as i64, planes, GRID as i64, GRID as i64])
        .to_device(model.device());
    let output = model.forward_packed(&input)?;
    let columns = game.packed_len();
    if output.size() != [rows as i64, columns as i64] {
        return Err(NetError::Service(format!(
            "the model returned shape {:?}, expected [{rows}, {columns}]",
            output.size()
        )));
    }
    let output = output
        .to_device(Device::Cpu)
        .to_kind(Kind::Float)
        .contiguous()
        .view([-1]);
    Vec::<f32>::try_from(&output).map_err(NetError::torch("copying the network output"))
}

/// The rows one batch of positions becomes: which position and symmetry each
/// row encodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct EncodedBatch {
    pub(crate) inputs: Vec<f32>,
    /// For every row: the position it belongs to and the symmetry applied.
    pub(crate) rows: Vec<(usize, Symmetry)>,
}

impl EncodedBatch {
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }
}

/// Encodes `positions` under `mode` (one row each, or one per allowed
/// symmetry for [`SymmetryMode::All`]), with the push-off planes if asked.
pub(crate) fn encode_batch(
    positions: &[Position],
    mode: SymmetryMode,
    push_off_planes: bool,
) -> Result<EncodedBatch, NetError> {
    let len = input_len(push_off_planes);
    let mut rng = rand::rng();
    let mut rows = Vec::with_capacity(positions.len());
    for (index, position) in positions.iter().enumerate() {
        check_evaluable(index, position)?;
        match mode {
            SymmetryMode::None => rows.push((index, Symmetry::IDENTITY)),
            SymmetryMode::Random => {
                let allowed = symmetries_for(position.rules());
                rows.push((index, allowed[rng.random_range(0..allowed.len())]));
            }
            SymmetryMode::All => rows.extend(
                symmetries_for(position.rules())
                    .iter()
                    .map(|&symmetry| (index, symmetry)),
            ),
        }
    }
    // Zeroed once, in one allocation, and written only where not 0.
    let mut inputs = vec![0.0; rows.len() * len];
    for (&(index, symmetry), out) in rows.iter().zip(inputs.chunks_exact_mut(len)) {
        let position = &positions[index];
        if symmetry == Symmetry::IDENTITY {
            encode_position_zeroed(position, push_off_planes, out);
        } else {
            encode_position_zeroed(&symmetry.apply_position(position), push_off_planes, out);
        }
    }
    Ok(EncodedBatch { inputs, rows })
}

/// Reads the outputs of one position from its rows of packed outputs.
/// `legal_actions` are its legal engine actions; `logits` gets one per action.
/// Returns (WDL probabilities, marble difference).
pub(crate) fn decode_position(
    position: &Position,
    legal_actions: &[usize],
    rows: &[(Symmetry, &[f32])],
    logits: &mut [f32],
) -> ([f32; 3], f32) {
    debug_assert_eq!(legal_actions.len(), logits.len());
    let wdl_of = |row: &[f32]| {
        let probabilities = softmax(&row[PACKED_WDL..PACKED_WDL + 3]);
        [probabilities[0], probabilities[1], probabilities[2]]
    };
    if let [(symmetry, row)] = rows {
        for (logit, &action) in logits.iter_mut().zip(legal_actions) {
            *logit = row[policy_index(position, symmetry.apply_action(action))];
        }
        return (wdl_of(row), row[PACKED_AUX]);
    }
    // Several symmetries: average the probabilities, return log-probabilities.
    let mut probabilities = vec![0.0f32; legal_actions.len()];
    let mut wdl = [0.0f32; 3];
    let mut marble_diff = 0.0;
    let mut row_logits = vec![0.0f32; legal_actions.len()];
    for (symmetry, row) in rows {
        for (logit, &action) in row_logits.iter_mut().zip(legal_actions) {
            *logit = row[policy_index(position, symmetry.apply_action(action))];
        }
        for (sum, p) in probabilities.iter_mut().zip(softmax(&row_logits)) {
            *sum += p;
        }
        for (sum, p) in wdl.iter_mut().zip(wdl_of(row)) {
            *sum += p;
        }
        marble_diff += row[PACKED_AUX];
    }
    let count = rows.len() as f32;
    for (logit, p) in logits.iter_mut().zip(probabilities) {
        *logit = (p / count).ln();
    }
    (wdl.map(|p| p / count), marble_diff / count)
}

/// The packed rows of every position of a batch made by [`encode_batch`],
/// with the symmetry each row was encoded under, indexed by position.
pub(crate) fn rows_by_position<'a>(
    batch: &EncodedBatch,
    packed: &'a [f32],
    positions: usize,
) -> Vec<Vec<(Symmetry, &'a [f32])>> {
    let mut rows = vec![Vec::new(); positions];
    for (row, &(index, symmetry)) in batch.rows.iter().enumerate() {
        rows[index].push((symmetry, &packed[row * PACKED_LEN..(row + 1) * PACKED_LEN]));
    }
    rows
}

/// The legal engine actions of a position, in `legal_moves()` order.
pub(crate) fn legal_actions_of(position: &Position) -> Vec<usize> {
    position
        .legal_moves()
        .iter()
        .map(|mv| mv.action())
        .collect()
}

/// Evaluates positions; implemented by the same-thread [`DirectEvaluator`] and
/// by the batched [`crate::InferenceClient`].
pub trait PositionEvaluator: Send + Sync {
    /// One [`NetOutput`] per position; a position whose game is over is an
    /// error.
    fn evaluate_positions(&self, positions: &[Position]) -> Result<Vec<NetOutput>, NetError>;
}

/// Evaluates on the calling thread, one forward pass per call: the path for a
/// caller that batches by itself (the MCTS multi-game driver). The model sits
/// behind a mutex, so the evaluator can be shared, but concurrent callers take
/// turns; many threads should share an [`crate::InferenceService`] instead.
#[derive(Debug)]
pub struct DirectEvaluator<M> {
    model: Mutex<M>,
    pub(crate) symmetry: SymmetryMode,
    /// The model's inputs and outputs.
    pub(crate) shape: NetShape,
    /// Weights of the predicted and of the actual marble difference in the
    /// values the search gets ([`Utilities`]); 0 by default.
    pub(crate) utilities: Utilities,
}

impl<M: PackedModel> DirectEvaluator<M> {
    pub fn new(model: M, symmetry: SymmetryMode) -> DirectEvaluator<M> {
        DirectEvaluator {
            shape: model.shape(),
            model: Mutex::new(model),
            symmetry,
            utilities: Utilities::default(),
        }
    }

    /// The same evaluator with the search's values shifted by `weight` times
    /// the predicted marble difference (see `crate::search`).
    #[must_use]
    pub fn with_score_utility(mut self, weight: f32) -> DirectEvaluator<M> {
        self.utilities.score = weight;
        self
    }

    /// The same evaluator with the search's values shifted by `weight` times
    /// the marble difference of the position evaluated (see
    /// `crate::search`).
    #[must_use]
    pub fn with_material_utility(mut self, weight: f32) -> DirectEvaluator<M> {
        self.utilities.material = weight;
        self
    }

    pub fn into_inner(self) -> M {
        self.model
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs the model on already encoded rows; see [`run_packed`].
    pub fn run_encoded(&self, inputs: &[f32], rows: usize) -> Result<Vec<f32>, NetError> {
        let model = self
            .model
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        run_packed(&*model, inputs, rows)
    }
}

/// Shared by every evaluator: encode, run `forward` on the rows, decode.
pub(crate) fn evaluate_with(
    positions: &[Position],
    symmetry: SymmetryMode,
    push_off_planes: bool,
    forward: impl FnOnce(&[f32], usize) -> Result<Vec<f32>, NetError>,
) -> Result<Vec<NetOutput>, NetError> {
    if positions.is_empty() {
        return Ok(Vec::new());
    }
    let batch = encode_batch(positions, symmetry, push_off_planes)?;
    let packed = forward(&batch.inputs, batch.len())?;
    let rows = rows_by_position(&batch, &packed, positions.len());
    Ok(positions
        .iter()
        .zip(rows)
        .map(|(position, rows)| {
            let actions = legal_actions_of(position);
            let mut logits = vec![0.0; actions.len()];
            let (wdl, marble_diff) = decode_position(position, &actions, &rows, &mut logits);
            NetOutput {
                logits,
                wdl,
                marble_diff,
            }
        })
        .collect())
}

impl<M: PackedModel> PositionEvaluator for DirectEvaluator<M> {
    fn evaluate_positions(&self, positions: &[Position]) -> Result<Vec<NetOutput>, NetError> {
        evaluate_with(
            positions,
            self.symmetry,
            self.shape.push_off_planes,
            |inputs, rows| self.run_encoded(inputs, rows),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::tests::sample_positions;
    use crate::model::tests::tiny_config;
    use sumito_engine::{Layout, Rules};

    fn evaluator(symmetry: SymmetryMode) -> DirectEvaluator<PolicyValueNet> {
        tch::manual_seed(17);
        DirectEvaluator::new(
            PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap(),
            symmetry,
        )
    }

    #[test]
    fn outputs_cover_the_legal_moves_and_are_distributions() {
        let positions = sample_positions(10, 5);
        let outputs = evaluator(SymmetryMode::None)
            .evaluate_positions(&positions)
            .unwrap();
        for (position, output) in positions.iter().zip(&outputs) {
            assert_eq!(output.logits.len(), position.legal_moves().len());
            assert!((output.priors().iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!((output.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!((-1.0..=1.0).contains(&output.marble_diff));
            assert!((-1.0..=1.0).contains(&output.value()));
        }
    }

    #[test]
    fn direct_outputs_read_the_right_policy_entries() {
        let evaluator = evaluator(SymmetryMode::None);
        let positions = sample_positions(6, 6);
        let outputs = evaluator.evaluate_positions(&positions).unwrap();
        let batch = encode_batch(&positions, SymmetryMode::None, false).unwrap();
        let packed = evaluator.run_encoded(&batch.inputs, batch.len()).unwrap();
        for (index, (position, output)) in positions.iter().zip(&outputs).enumerate() {
            let row = &packed[index * PACKED_LEN..(index + 1) * PACKED_LEN];
            for (logit, mv) in output.logits.iter().zip(position.legal_moves().iter()) {
                assert_eq!(*logit, row[policy_index(position, mv.action())]);
            }
        }
    }

    #[test]
    fn averaging_over_all_symmetries_is_invariant() {
        let evaluator = evaluator(SymmetryMode::All);
        let positions: Vec<Position> = sample_positions(12, 8)
            .into_iter()
            .filter(|position| position.rules().no_push_off_plies.is_none())
            .take(3)
            .collect();
        assert!(!positions.is_empty());
        for position in &positions {
            let base = &evaluator
                .evaluate_positions(std::slice::from_ref(position))
                .unwrap()[0];
            let moves = position.legal_moves();
            for &symmetry in &Symmetry::ALL {
                let image = symmetry.apply_position(position);
                let output = &evaluator.evaluate_positions(&[image]).unwrap()[0];
                let image_moves = image.legal_moves();
                for (j, &mv) in moves.iter().enumerate() {
                    let k = image_moves
                        .iter()
                        .position(|&m| m == symmetry.apply_move(mv))
                        .unwrap();
                    assert!((base.logits[j] - output.logits[k]).abs() < 1e-4);
                }
                for (a, b) in base.wdl.iter().zip(&output.wdl) {
                    assert!((a - b).abs() < 1e-5);
                }
            }
        }
    }

    #[test]
    fn finished_games_are_refused() {
        let rules = Rules {
            max_plies: Some(1),
            ..Rules::default()
        };
        let start = Position::start(Layout::Standard, rules);
        let over = start.play(start.legal_moves()[0]);
        assert!(over.ending().is_some());
        let message = evaluator(SymmetryMode::None)
            .evaluate_positions(&[start, over])
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("position 1 of the batch: the game is over"),
            "{message}"
        );
    }
}
