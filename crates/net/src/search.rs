//! The network as the search's evaluator: `sumito_mcts::Evaluator` for
//! `sumito_game::AbaloneGame`, on the same-thread [`DirectEvaluator`] and on
//! the batched service's [`InferenceClient`].
//!
//! The search hands over a whole batch (the multi-game driver's leaves);
//! it is encoded at once, run as one forward pass (or one service request),
//! and each item gets the raw policy logits of its legal actions (the search
//! applies the softmax) and the WDL probabilities for its side to move.

use sumito_engine::Position;
use sumito_game::AbaloneGame;
use sumito_mcts::{EvalBatch, EvalError, Wdl};

use crate::NetError;
use crate::config::SymmetryMode;
use crate::evaluate::{PackedModel, Utilities, decode_position, encode_batch, rows_by_position};
use crate::service::{InferenceClient, InferenceService};

/// The value the search gets for a position: the network's WDL, with the
/// expected result shifted by `weight` times the predicted final marble
/// difference (KataGo's score utility). A positive weight makes the search
/// prefer, among moves of equal winning chances, those that push off more
/// marbles and lose fewer: under the move-limit rule a one-marble lead wins,
/// and without it the network's play settles for that lead.
///
/// The shift moves probability between win and loss (the draw share stays),
/// and is clamped so that both stay in `[0, 1]`; `win - loss` grows by
/// `weight * marble_diff` unless clamped.
pub fn with_score_utility(wdl: [f32; 3], marble_diff: f32, weight: f32) -> Wdl {
    let [win, draw, loss] = wdl;
    let shift = (weight * marble_diff / 2.0).clamp(-win, loss);
    Wdl {
        win: win + shift,
        draw,
        loss: loss - shift,
    }
}

/// The search's values under [`Utilities`].
impl Utilities {
    /// The search's value of a position with the network's `wdl` and
    /// predicted marble difference `predicted`.
    pub fn value(&self, position: &Position, wdl: [f32; 3], predicted: f32) -> Wdl {
        let mover = position.side_to_move();
        let actual = (f32::from(position.marbles_off(mover.opponent()))
            - f32::from(position.marbles_off(mover)))
            / 6.0;
        with_score_utility(wdl, self.score * predicted + self.material * actual, 1.0)
    }
}

pub(crate) fn evaluate_batch(
    batch: &mut EvalBatch<AbaloneGame>,
    symmetry: SymmetryMode,
    push_off_planes: bool,
    utilities: Utilities,
    forward: impl FnOnce(&[f32], usize) -> Result<Vec<f32>, NetError>,
) -> Result<(), EvalError> {
    if batch.is_empty() {
        return Ok(());
    }
    let positions: Vec<Position> = batch.states().iter().map(|game| game.0).collect();
    let encoded = encode_batch(&positions, symmetry, push_off_planes)
        .map_err(|err| EvalError::Unsupported(err.to_string()))?;
    let packed = forward(&encoded.inputs, encoded.len())
        .map_err(|err| EvalError::backend("network forward pass", err))?;
    let rows = rows_by_position(&encoded, &packed, positions.len());
    for ((slot, position), rows) in batch.slots_mut().zip(&positions).zip(&rows) {
        let (wdl, marble_diff) = decode_position(position, slot.legal_actions, rows, slot.logits);
        *slot.value = utilities.value(position, wdl, marble_diff);
    }
    Ok(())
}

/// An inference service with one client, owned together: the evaluator of a
/// single search (play, analysis) whose leaf batches are split among the
/// service's workers, so that one search uses several cores.
#[derive(Debug)]
pub struct ServiceEvaluator {
    // Dropped first: the service stops after its last client is gone.
    pub(crate) client: InferenceClient,
    service: InferenceService,
}

impl ServiceEvaluator {
    /// Starts a worker per copy of the network in `replicas`, and a client
    /// that splits each batch into as many requests.
    pub fn start<M: PackedModel + 'static>(
        replicas: Vec<M>,
        symmetry: SymmetryMode,
    ) -> Result<ServiceEvaluator, NetError> {
        let device = replicas
            .first()
            .map_or(tch::Device::Cpu, PackedModel::device);
        let config = crate::InferenceConfig {
            device: match device {
                tch::Device::Cuda(index) => crate::DeviceSpec::Cuda(index),
                _ => crate::DeviceSpec::Cpu,
            },
            symmetry,
            ..crate::InferenceConfig::default()
        };
        let service = InferenceService::start_replicas(replicas, &config)?;
        let client = service.client().with_parallel_requests(service.workers());
        Ok(ServiceEvaluator { client, service })
    }

    /// The same evaluator with values shifted by `weight` times the
    /// predicted marble difference ([`with_score_utility`]).
    pub fn with_score_utility(mut self, weight: f32) -> ServiceEvaluator {
        self.client = self.client.with_score_utility(weight);
        self
    }

    /// Copies of the network evaluating side by side.
    pub fn workers(&self) -> usize {
        self.service.workers()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::DirectEvaluator;
    use crate::config::InferenceConfig;
    use crate::encoding::tests::sample_positions;
    use crate::evaluate::PositionEvaluator;
    use crate::model::PolicyValueNet;
    use crate::model::tests::tiny_config;
    use crate::service::InferenceService;
    use sumito_engine::{Layout, Rules};
    use sumito_mcts::Evaluator;
    use sumito_mcts::{Game, Search, SearchConfig};
    use tch::Device;

    /// A batch of `positions`, each with its legal actions in action order.
    pub(crate) fn batch_of(positions: &[Position]) -> EvalBatch<AbaloneGame> {
        let mut batch = EvalBatch::new();
        let mut actions = Vec::new();
        for &position in positions {
            let game = AbaloneGame(position);
            game.legal_actions(&mut actions);
            // In action order, the order of `NetOutput::logits` that the
            // tests compare with (the search's own order does not matter to
            // the evaluator).
            actions.sort_unstable();
            batch.push(game, &actions);
        }
        batch
    }

    #[test]
    fn search_batches_get_the_same_outputs_as_positions() {
        let positions = sample_positions(12, 41);
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let direct = DirectEvaluator::new(net, SymmetryMode::None);
        let expected = direct.evaluate_positions(&positions).unwrap();
        let mut batch = batch_of(&positions);
        direct.evaluate(&mut batch).unwrap();
        for (item, output) in expected.iter().enumerate() {
            assert_eq!(batch.logits(item), output.logits.as_slice());
            let wdl = batch.value(item);
            assert_eq!([wdl.win, wdl.draw, wdl.loss], output.wdl);
        }
        // Through the service: the same numbers (up to batch-size rounding).
        let service =
            InferenceService::start(direct.into_inner(), &InferenceConfig::default()).unwrap();
        let mut served = batch_of(&positions);
        service.client().evaluate(&mut served).unwrap();
        for item in 0..positions.len() {
            for (a, b) in served.logits(item).iter().zip(batch.logits(item)) {
                assert!((a - b).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn the_score_utility_shifts_values_by_the_marble_difference() {
        let positions = sample_positions(6, 7);
        let plain = DirectEvaluator::new(
            PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap(),
            SymmetryMode::None,
        );
        let outputs = plain.evaluate_positions(&positions).unwrap();
        let scored =
            DirectEvaluator::new(plain.into_inner(), SymmetryMode::None).with_score_utility(0.5);
        let mut batch = batch_of(&positions);
        scored.evaluate(&mut batch).unwrap();
        for (item, output) in outputs.iter().enumerate() {
            let wdl = batch.value(item);
            let expected = (output.value() + 0.5 * output.marble_diff).clamp(
                output.value() - 2.0 * output.wdl[0],
                output.value() + 2.0 * output.wdl[2],
            );
            assert!((wdl.win - wdl.loss - expected).abs() < 1e-5);
            assert!((wdl.draw - output.wdl[1]).abs() < 1e-6);
            assert!(wdl.win >= 0.0 && wdl.loss >= 0.0);
            assert_eq!(batch.logits(item), output.logits.as_slice());
        }
        // Clamped: a certain loss with the best marble outlook stays a loss.
        let clamped = with_score_utility([0.0, 0.2, 0.8], 1.0, 4.0);
        assert_eq!((clamped.win, clamped.draw, clamped.loss), (0.8, 0.2, 0.0));
        // The material weight counts the marbles on the board, from the
        // side to move's view: White to move, two black marbles off and
        // one white one is +1/6 for White.
        let position: Position = "wwww1/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbb2 w 2 1"
            .parse()
            .unwrap();
        let even = [0.4, 0.2, 0.4];
        let material = Utilities {
            score: 0.0,
            material: 0.6,
        };
        let shifted = material.value(&position, even, -1.0);
        assert!(
            (shifted.win - shifted.loss - 0.1).abs() < 1e-6,
            "{shifted:?}"
        );
        assert_eq!(Utilities::default().value(&position, even, -1.0).win, 0.4);
        let lower = with_score_utility([0.3, 0.0, 0.7], -1.0, 4.0);
        assert_eq!((lower.win, lower.loss), (0.0, 1.0));
    }

    #[test]
    fn a_search_runs_on_the_network() {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let evaluator = DirectEvaluator::new(net, SymmetryMode::None);
        let start = Position::start(Layout::BelgianDaisy, Rules::default());
        let config = SearchConfig {
            simulations: 32,
            ..SearchConfig::default()
        };
        let mut search = Search::new(AbaloneGame(start), config, 3).unwrap();
        let result = search.search(&evaluator).unwrap();
        let mv = AbaloneGame::move_of(result.action).unwrap();
        assert!(start.is_legal(mv));
        assert!((-1.0..=1.0).contains(&result.value));
    }
}
