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
use sumito_mcts::{EvalBatch, EvalError, Evaluator, Wdl};

use crate::NetError;
use crate::config::SymmetryMode;
use crate::evaluate::{
    DirectEvaluator, PackedModel, decode_position, encode_batch, rows_by_position,
};
use crate::service::InferenceClient;

fn evaluate_batch(
    batch: &mut EvalBatch<AbaloneGame>,
    symmetry: SymmetryMode,
    forward: impl FnOnce(&[f32], usize) -> Result<Vec<f32>, NetError>,
) -> Result<(), EvalError> {
    if batch.is_empty() {
        return Ok(());
    }
    let positions: Vec<Position> = batch.states().iter().map(|game| game.0).collect();
    let encoded = encode_batch(&positions, symmetry)
        .map_err(|err| EvalError::Unsupported(err.to_string()))?;
    let packed = forward(&encoded.inputs, encoded.len())
        .map_err(|err| EvalError::backend("network forward pass", err))?;
    let rows = rows_by_position(&encoded, &packed, positions.len());
    for ((slot, position), rows) in batch.slots_mut().zip(&positions).zip(&rows) {
        let ([win, draw, loss], _) =
            decode_position(position, slot.legal_actions, rows, slot.logits);
        *slot.value = Wdl { win, draw, loss };
    }
    Ok(())
}

impl<M: PackedModel> Evaluator<AbaloneGame> for DirectEvaluator<M> {
    fn evaluate(&self, batch: &mut EvalBatch<AbaloneGame>) -> Result<(), EvalError> {
        evaluate_batch(batch, self.symmetry, |inputs, rows| {
            self.run_encoded(inputs, rows)
        })
    }
}

impl Evaluator<AbaloneGame> for InferenceClient {
    fn evaluate(&self, batch: &mut EvalBatch<AbaloneGame>) -> Result<(), EvalError> {
        evaluate_batch(batch, self.symmetry, |inputs, rows| {
            self.run_encoded(inputs.to_vec(), rows)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::InferenceConfig;
    use crate::encoding::tests::sample_positions;
    use crate::evaluate::PositionEvaluator;
    use crate::model::PolicyValueNet;
    use crate::model::tests::tiny_config;
    use crate::service::InferenceService;
    use sumito_engine::{Layout, Rules};
    use sumito_mcts::{Game, Search, SearchConfig};
    use tch::Device;

    fn batch_of(positions: &[Position]) -> EvalBatch<AbaloneGame> {
        let mut batch = EvalBatch::new();
        let mut actions = Vec::new();
        for &position in positions {
            let game = AbaloneGame(position);
            game.legal_actions(&mut actions);
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
