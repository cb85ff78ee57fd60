//! The network replaced by an instant answer, for measuring everything of a
//! search but the network (`sumito bench selfplay`): the batch is encoded
//! and its answer decoded exactly as for a real network (the push-off
//! planes, the symmetries, the score and material utilities), and only the
//! forward pass is replaced by a fixed answer: every logit 0 (a uniform
//! policy), even WDL logits (value 0) and no predicted marble difference.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sumito_game::AbaloneGame;
use sumito_mcts::{EvalBatch, EvalError, Evaluator};

use crate::NetError;
use crate::config::SymmetryMode;
use crate::evaluate::Utilities;
use crate::model::PACKED_LEN;
use crate::net_board::{NetGame, NetworkForward};

/// An evaluator of the two-player game whose network answers at once; see
/// the module. It counts the time spent making those answers, so that a
/// measurement can tell the encoding's time from the (instant) network's.
#[derive(Debug)]
pub struct InstantEvaluator {
    symmetry: SymmetryMode,
    push_off_planes: bool,
    utilities: Utilities,
    answer_nanos: AtomicU64,
}

impl InstantEvaluator {
    /// Encodes as a network with (or without) the push-off planes does,
    /// under `symmetry`.
    pub fn new(push_off_planes: bool, symmetry: SymmetryMode) -> InstantEvaluator {
        InstantEvaluator {
            symmetry,
            push_off_planes,
            utilities: Utilities::default(),
            answer_nanos: AtomicU64::new(0),
        }
    }

    /// The same evaluator with values shifted by `weight` times the
    /// predicted marble difference (always 0 here, as a real network's
    /// could be), as `crate::DirectEvaluator::with_score_utility`.
    #[must_use]
    pub fn with_score_utility(mut self, weight: f32) -> InstantEvaluator {
        self.utilities.score = weight;
        self
    }

    /// The same evaluator with values shifted by `weight` times the marble
    /// difference on the board, as `crate::DirectEvaluator::with_material_utility`.
    #[must_use]
    pub fn with_material_utility(mut self, weight: f32) -> InstantEvaluator {
        self.utilities.material = weight;
        self
    }

    /// Time spent making the instant answers so far (the rest of the
    /// evaluator's time is encoding and decoding).
    pub fn answer_time(&self) -> Duration {
        Duration::from_nanos(self.answer_nanos.load(Ordering::Relaxed))
    }
}

impl NetworkForward for InstantEvaluator {
    fn symmetry(&self) -> SymmetryMode {
        self.symmetry
    }

    fn push_off_planes(&self) -> bool {
        self.push_off_planes
    }

    fn utilities(&self) -> Utilities {
        self.utilities
    }

    fn forward(&self, _inputs: &[f32], rows: usize) -> Result<Vec<f32>, NetError> {
        let started = Instant::now();
        let answer = vec![0.0; rows * PACKED_LEN];
        self.answer_nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Ok(answer)
    }
}

impl Evaluator<AbaloneGame> for InstantEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<AbaloneGame>) -> Result<(), EvalError> {
        AbaloneGame::evaluate_batch(batch, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::batch_of;
    use sumito_engine::{Layout, Position, Rules};

    #[test]
    fn the_answer_is_a_uniform_policy_and_an_even_value() {
        let start = Position::start(Layout::BelgianDaisy, Rules::default());
        let next = start.play(start.legal_moves()[3]);
        let mut batch = batch_of(&[start, next]);
        let evaluator = InstantEvaluator::new(true, SymmetryMode::None).with_score_utility(0.5);
        evaluator.evaluate(&mut batch).unwrap();
        for item in 0..2 {
            assert!(!batch.logits(item).is_empty());
            assert!(batch.logits(item).iter().all(|&logit| logit == 0.0));
            let wdl = batch.value(item);
            assert!((wdl.win - 1.0 / 3.0).abs() < 1e-6, "{wdl:?}");
            assert!((wdl.win - wdl.loss).abs() < 1e-6, "{wdl:?}");
        }
    }

    #[test]
    fn the_material_utility_still_counts_the_marbles_on_the_board() {
        // White to move, two black marbles off and one white one: +1/6 of
        // a win for White at weight 1.
        let position: Position = "wwww1/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbb2 w 2 1"
            .parse()
            .unwrap();
        let mut batch = batch_of(&[position]);
        InstantEvaluator::new(false, SymmetryMode::None)
            .with_material_utility(1.0)
            .evaluate(&mut batch)
            .unwrap();
        let wdl = batch.value(0);
        assert!((wdl.win - wdl.loss - 1.0 / 6.0).abs() < 1e-6, "{wdl:?}");
    }

    #[test]
    fn a_finished_game_is_refused_as_by_a_network() {
        let rules = Rules {
            max_plies: Some(1),
            ..Rules::default()
        };
        let start = Position::start(Layout::Standard, rules);
        let over = start.play(start.legal_moves()[0]);
        let mut batch = EvalBatch::new();
        batch.push(AbaloneGame(over), &[0]);
        assert!(
            InstantEvaluator::new(true, SymmetryMode::None)
                .evaluate(&mut batch)
                .is_err()
        );
    }
}
