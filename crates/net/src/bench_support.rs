//! The work that the network's speed measurements feed it, shared by the
//! criterion bench (`benches/net.rs`) and `sumito bench net`, so that both
//! measure the same thing.

use sumito_engine::{Outcome, Position};

use crate::encoding::{INPUT_LEN, encode_position};
use crate::train::TrainingSample;

/// The inputs of `positions` packed one after another ([`INPUT_LEN`] values
/// each), as [`crate::run_packed`] takes them.
pub fn encode_batch(positions: &[Position]) -> Vec<f32> {
    let mut inputs = vec![0.0; positions.len() * INPUT_LEN];
    for (position, chunk) in positions.iter().zip(inputs.chunks_exact_mut(INPUT_LEN)) {
        encode_position(position, chunk);
    }
    inputs
}

/// One training sample per position: the first 8 legal moves as equally
/// likely policy targets, and a draw. The values of the targets do not change
/// the cost of a training step, only their number does.
pub fn training_samples(positions: &[Position]) -> Vec<TrainingSample> {
    positions
        .iter()
        .map(|&position| {
            let policy = position
                .legal_moves()
                .iter()
                .take(8)
                .map(|&mv| (mv, 1.0))
                .collect();
            TrainingSample::from_game(position, policy, Outcome::Draw, [0, 0])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::midgame_positions;

    #[test]
    fn a_batch_is_each_position_encoded_in_turn() {
        let positions = midgame_positions();
        let inputs = encode_batch(&positions);
        assert_eq!(inputs.len(), positions.len() * INPUT_LEN);
        let mut single = vec![0.0; INPUT_LEN];
        for (position, chunk) in positions.iter().zip(inputs.chunks_exact(INPUT_LEN)) {
            encode_position(position, &mut single);
            assert_eq!(chunk, &single[..]);
        }
    }

    #[test]
    fn samples_have_up_to_eight_legal_policy_moves() {
        let positions = midgame_positions();
        let samples = training_samples(&positions);
        assert_eq!(samples.len(), positions.len());
        for (sample, position) in samples.iter().zip(&positions) {
            assert_eq!(sample.position, *position);
            assert_eq!(sample.policy.len(), position.legal_moves().len().min(8));
            assert!(sample.policy.iter().all(|&(mv, _)| position.is_legal(mv)));
        }
    }
}
