//! Training samples of the general game (variants, 3 to 6 players) for a
//! network of [`GameKind::General`]; [`crate::Trainer::train_step`] takes them
//! as it takes two-player samples.
//!
//! Targets, in the network's frame and relative to the mover
//! ([`crate::general_encoding`]): the search's policy over the moves' images;
//! the game's final shares by side turned relative to the mover's side
//! (the win outputs of sides the game lacks are left out of the softmax);
//! and each relative seat's marbles pushed off at the end of the game / 6
//! (only the seats the game has count).

use sumito_engine::Outcome;
use sumito_engine::Symmetry;
use sumito_engine::general::symmetry::{apply_move, apply_position};
use sumito_engine::general::{GeneralMove, GeneralPosition, MAX_SEATS};
use sumito_mcts::{MAX_SIDES, SideShares};
use tch::{Device, Kind, Tensor};

use crate::NetError;
use crate::config::NetShape;
use crate::encoding::GRID;
use crate::general_encoding::{
    GENERAL_INPUT_LEN, GENERAL_INPUT_PLANES, GENERAL_POLICY_LEN, GENERAL_VALUE_LEN,
    encode_general_position, general_policy_index, relative_seat, relative_value_target,
};
use crate::train::{Batch, Sample, check_distribution};
use sumito_game::GameKind;

/// Marble counts are scaled by this for the auxiliary head.
const MARBLE_SCALE: f32 = 6.0;

/// One position of a general-game self-play game with its targets.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralTrainingSample {
    pub position: GeneralPosition,
    /// The search's policy over legal moves of `position`; normalised when
    /// used.
    pub policy: Vec<(GeneralMove, f32)>,
    /// How the game ended, as shares by side ([`SideShares::of_outcome`]).
    pub shares: SideShares,
    /// Marbles each seat had pushed off when the game ended, by seat.
    pub final_scores: [u8; MAX_SEATS],
}

impl GeneralTrainingSample {
    /// A sample whose value targets come from how the game ended.
    pub fn from_game(
        position: GeneralPosition,
        policy: Vec<(GeneralMove, f32)>,
        outcome: Outcome,
        final_scores: [u8; MAX_SEATS],
    ) -> GeneralTrainingSample {
        let sides = position.rules().seating.sides();
        GeneralTrainingSample {
            position,
            policy,
            shares: SideShares::of_terminal(sumito_game::terminal_of(outcome, sides), sides),
            final_scores,
        }
    }

    /// The same sample seen through `symmetry` (for augmentation; use only
    /// the symmetries `sumito_engine::general::symmetry::kept_symmetries`
    /// keeps for its rules).
    pub fn transformed(&self, symmetry: Symmetry) -> GeneralTrainingSample {
        GeneralTrainingSample {
            position: apply_position(symmetry, &self.position),
            policy: self
                .policy
                .iter()
                .map(|&(mv, weight)| (apply_move(symmetry, mv), weight))
                .collect(),
            shares: self.shares,
            final_scores: self.final_scores,
        }
    }
}

impl Sample for GeneralTrainingSample {
    const KIND: GameKind = GameKind::General;

    fn build_batch(samples: &[Self], _shape: NetShape, device: Device) -> Result<Batch, NetError> {
        let n = samples.len();
        let mut inputs = vec![0.0f32; n * GENERAL_INPUT_LEN];
        let mut policy = vec![0.0f32; n * GENERAL_POLICY_LEN];
        let mut illegal = vec![true; n * GENERAL_POLICY_LEN];
        let mut value = vec![0.0f32; n * GENERAL_VALUE_LEN];
        let mut value_absent = vec![false; n * GENERAL_VALUE_LEN];
        let mut aux = vec![0.0f32; n * MAX_SEATS];
        let mut aux_weight = vec![0.0f32; n * MAX_SEATS];
        for (index, sample) in samples.iter().enumerate() {
            let invalid = |problem: String| NetError::InvalidSample { index, problem };
            let position = &sample.position;
            if position.ending().is_some() {
                return Err(invalid("the game is over in this position".to_owned()));
            }
            let rules = position.rules();
            let seating = rules.seating;
            encode_general_position(
                position,
                &mut inputs[index * GENERAL_INPUT_LEN..(index + 1) * GENERAL_INPUT_LEN],
            );
            let policy_index = |mv: GeneralMove| {
                mv.action(rules)
                    .and_then(|action| general_policy_index(position, action))
            };
            let row = index * GENERAL_POLICY_LEN;
            for mv in position.legal_moves() {
                let column = policy_index(mv).expect("a legal move has a policy index");
                illegal[row + column] = false;
            }
            let total: f32 = sample.policy.iter().map(|&(_, weight)| weight).sum();
            if !total.is_finite() || total <= 0.0 {
                return Err(invalid(format!("the policy target sums to {total}")));
            }
            for &(mv, weight) in &sample.policy {
                let column = policy_index(mv)
                    .filter(|&column| !illegal[row + column])
                    .ok_or_else(|| {
                        invalid(format!(
                            "the policy target names a move that is not legal: {mv:?}"
                        ))
                    })?;
                if !weight.is_finite() || weight < 0.0 {
                    return Err(invalid(format!(
                        "the policy target gives {mv:?} the weight {weight}"
                    )));
                }
                policy[row + column] += weight / total;
            }
            let sides = seating.sides();
            let mut shares = sample.shares.win[..sides].to_vec();
            shares.push(sample.shares.draw);
            check_distribution(&shares, "the value target").map_err(invalid)?;
            let target = relative_value_target(&sample.shares, position.side_to_move(), sides);
            let row = index * GENERAL_VALUE_LEN;
            value[row..row + GENERAL_VALUE_LEN].copy_from_slice(&target);
            value_absent[row + sides..row + MAX_SIDES].fill(true);
            for k in 0..seating.seats() {
                let seat = relative_seat(position, k);
                aux[index * MAX_SEATS + k] =
                    (f32::from(sample.final_scores[seat]) / MARBLE_SCALE).min(1.0);
                aux_weight[index * MAX_SEATS + k] = 1.0;
            }
        }
        let n = n as i64;
        let tensor = |values: &[f32], columns: usize| {
            Tensor::from_slice(values)
                .view([n, columns as i64])
                .to_device(device)
        };
        let mask = |values: &[bool], columns: usize| {
            Tensor::from_slice(values)
                .view([n, columns as i64])
                .to_device(device)
        };
        Ok(Batch {
            inputs: Tensor::from_slice(&inputs)
                .view([n, GENERAL_INPUT_PLANES as i64, GRID as i64, GRID as i64])
                .to_device(device)
                .to_kind(Kind::Float),
            policy: tensor(&policy, GENERAL_POLICY_LEN),
            illegal: mask(&illegal, GENERAL_POLICY_LEN),
            value: tensor(&value, GENERAL_VALUE_LEN),
            value_absent: Some(mask(&value_absent, GENERAL_VALUE_LEN)),
            aux: tensor(&aux, MAX_SEATS),
            aux_weight: tensor(&aux_weight, MAX_SEATS),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ModelConfig, NetTrainingConfig};
    use crate::general_search::general_shares;
    use crate::model::PolicyValueNet;
    use crate::model::tests::tiny_config;
    use crate::train::Trainer;
    use crate::{DirectEvaluator, SymmetryMode};
    use sumito_engine::general::symmetry::kept_symmetries;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
    use sumito_game::GeneralGame;
    use sumito_mcts::{EvalBatch, Evaluator, Game};

    fn start(layout: &str, seating: Seating) -> GeneralPosition {
        let rules = GeneralRules::plain(seating);
        let layout = GeneralLayout::from_name(layout).unwrap();
        GeneralSetup::layout(layout).start(&rules).unwrap()
    }

    /// The positions of a few plies from the start, each with the first
    /// legal move as its whole policy, and side 1 winning.
    fn samples(position: GeneralPosition, count: usize) -> Vec<GeneralTrainingSample> {
        let mut position = position;
        let mut out = Vec::new();
        for ply in 0..count {
            let moves = position.legal_moves();
            let chosen = moves[ply % moves.len()];
            out.push(GeneralTrainingSample::from_game(
                position,
                vec![(chosen, 1.0)],
                Outcome::Win(1),
                [2, 6, 0, 1, 0, 0],
            ));
            position = position.play(chosen);
        }
        out
    }

    fn general_trainer() -> Trainer {
        tch::manual_seed(11);
        let config = ModelConfig {
            game: GameKind::General,
            ..tiny_config()
        };
        let net = PolicyValueNet::new(&config, Device::Cpu).unwrap();
        let training = NetTrainingConfig {
            learning_rate: 0.01,
            schedule: crate::LrSchedule::Constant,
            warmup_steps: 0,
            ..NetTrainingConfig::default()
        };
        Trainer::new(net, &training).unwrap()
    }

    #[test]
    fn a_network_learns_a_three_player_result_and_policy() {
        let samples = samples(start("three-player", Seating::new(3, false).unwrap()), 6);
        let mut trainer = general_trainer();
        let first = trainer.evaluate(&samples).unwrap();
        let mut last = first;
        for _ in 0..60 {
            last = trainer.train_step(&samples).unwrap();
        }
        let after = trainer.evaluate(&samples).unwrap();
        assert!(
            after.value_loss < 0.5 * first.value_loss,
            "{first:?} → {after:?} ({last:?})"
        );
        assert!(
            after.policy_loss < 0.5 * first.policy_loss,
            "{first:?} → {after:?}"
        );
        assert!(after.aux_loss < first.aux_loss, "{first:?} → {after:?}");

        // What it learned reaches the search: side 1 wins from every
        // position, whoever moves.
        let evaluator = DirectEvaluator::new(trainer.into_net(), SymmetryMode::None);
        let mut batch = EvalBatch::new();
        let mut actions = Vec::new();
        for sample in &samples {
            let game = GeneralGame(sample.position);
            game.legal_actions(&mut actions);
            batch.push(game, &actions);
        }
        evaluator.evaluate(&mut batch).unwrap();
        for item in 0..samples.len() {
            let shares = batch.value(item);
            assert!(shares.win[1] > 0.6, "{shares:?}");
            assert_eq!(shares.win[3..], [0.0, 0.0]);
        }
    }

    #[test]
    fn targets_are_relative_to_the_mover_and_absent_sides_are_masked() {
        let samples = samples(start("three-player", Seating::new(3, false).unwrap()), 3);
        let batch =
            GeneralTrainingSample::build_batch(&samples, GameKind::General.into(), Device::Cpu)
                .unwrap();
        let value = Vec::<f32>::try_from(batch.value.flatten(0, -1)).unwrap();
        // Seat 0 moves first: side 1 is one side after it; then seat 1
        // moves: the winner is the mover; then seat 2: two sides after.
        for (item, winner_output) in [1, 0, 2].into_iter().enumerate() {
            let row = &value[item * GENERAL_VALUE_LEN..(item + 1) * GENERAL_VALUE_LEN];
            assert_eq!(row[winner_output], 1.0, "{row:?}");
            assert_eq!(row.iter().sum::<f32>(), 1.0);
        }
        let absent = Vec::<bool>::try_from(batch.value_absent.unwrap().flatten(0, -1)).unwrap();
        assert_eq!(
            &absent[..GENERAL_VALUE_LEN],
            &[false, false, false, true, true, false]
        );
        let aux = Vec::<f32>::try_from(batch.aux.flatten(0, -1)).unwrap();
        // The second sample's mover is seat 1, who pushed off 6.
        assert_eq!(aux[MAX_SEATS], 1.0);
        assert_eq!(aux[MAX_SEATS + 1], 0.0);
        assert_eq!(aux[MAX_SEATS + 2], 2.0 / 6.0);
        let weight = Vec::<f32>::try_from(batch.aux_weight.flatten(0, -1)).unwrap();
        assert_eq!(&weight[..MAX_SEATS], &[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
        // The value shares the search would read back from the target.
        let mut logits = [0.0f32; GENERAL_VALUE_LEN];
        for (logit, &p) in logits.iter_mut().zip(&value[..GENERAL_VALUE_LEN]) {
            *logit = if p > 0.0 { 20.0 } else { 0.0 };
        }
        let shares = general_shares(&logits, 0, 3);
        assert!(shares.win[1] > 0.99, "{shares:?}");
    }

    #[test]
    fn bad_targets_name_the_sample() {
        let mut samples = samples(start("three-player", Seating::new(3, false).unwrap()), 2);
        let other = start("three-player", Seating::new(3, false).unwrap())
            .legal_moves()
            .into_iter()
            .find(|mv| !samples[1].position.legal_moves().contains(mv))
            .unwrap();
        samples[1].policy = vec![(other, 1.0)];
        let message =
            GeneralTrainingSample::build_batch(&samples, GameKind::General.into(), Device::Cpu)
                .err()
                .unwrap()
                .to_string();
        assert!(message.contains("training sample 1"), "{message}");
        assert!(message.contains("not legal"), "{message}");
        // Two-player samples cannot train a network of the general game.
        let mut trainer = general_trainer();
        let two_player = crate::train::tests::random_samples(2, 3);
        let message = trainer.train_step(&two_player).unwrap_err().to_string();
        assert!(message.contains("TwoPlayer"), "{message}");
    }

    #[test]
    fn augmentation_keeps_the_targets_with_the_moves() {
        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.shield_moves = true;
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let position = GeneralSetup::layout(layout).start(&rules).unwrap();
        let sample = samples(position, 1).remove(0);
        let plain = GeneralTrainingSample::build_batch(
            std::slice::from_ref(&sample),
            GameKind::General.into(),
            Device::Cpu,
        )
        .unwrap();
        for symmetry in kept_symmetries(position.rules()) {
            let image = sample.transformed(symmetry);
            let batch =
                GeneralTrainingSample::build_batch(&[image], GameKind::General.into(), Device::Cpu)
                    .unwrap();
            // The value and auxiliary targets do not move with the board.
            assert!(batch.value.equal(&plain.value));
            assert!(batch.aux.equal(&plain.aux));
            // The policy target's one move is legal in the image.
            let policy = Vec::<f32>::try_from(batch.policy.flatten(0, -1)).unwrap();
            assert_eq!(policy.iter().filter(|&&p| p > 0.0).count(), 1);
        }
    }
}
