//! The training step: losses, optimiser (AdamW or SGD with Nesterov
//! momentum, written with plain tensors so that its state can be saved),
//! learning-rate schedule and gradient clipping.
//!
//! Loss = policy cross-entropy against the search's policy (softmax over the
//! legal moves only) + `value_loss_weight` × WDL cross-entropy against the game
//! result + `aux_loss_weight` × squared error of the marble-difference head;
//! weight decay is applied by the optimiser to convolution and linear weights.
//! The general game's samples (`crate::general_train`) train the same way:
//! the value cross-entropy over the sides the game has and the draw, the
//! auxiliary error over the seats it has.

use std::collections::BTreeMap;

use sumito_engine::{Color, Move, Outcome, Position, Symmetry};
use tch::{Device, Kind, Tensor};

use crate::NetError;
use crate::config::{NetShape, NetTrainingConfig, OptimizerKind};
use crate::encoding::{
    GRID, POLICY_LEN, encode_policy_target, encode_position, input_len, policy_index,
};
use crate::model::PolicyValueNet;
use sumito_game::GameKind;

/// Marble differences are scaled by this for the `tanh` head.
pub const MARBLE_DIFF_SCALE: f32 = 6.0;
/// Logit given to illegal moves before the softmax: exp() of it is 0.
const ILLEGAL_LOGIT: f64 = -1e9;

/// One position of a self-play game with its training targets.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingSample {
    pub position: Position,
    /// The search's policy over legal moves of `position` (e.g. visit counts or
    /// the Gumbel improved policy); normalised when used.
    pub policy: Vec<(Move, f32)>,
    /// Target probabilities of win, draw, loss for the side to move.
    pub wdl: [f32; 3],
    /// Final marble difference from the side to move's view: opponent's
    /// marbles pushed off minus own, in marbles.
    pub marble_diff: f32,
}

impl TrainingSample {
    /// A sample whose value targets come from how the game ended:
    /// `final_marbles_off[color.index()]` is the number of `color`'s marbles
    /// pushed off at the end.
    pub fn from_game(
        position: Position,
        policy: Vec<(Move, f32)>,
        outcome: Outcome,
        final_marbles_off: [u8; 2],
    ) -> TrainingSample {
        let me = position.side_to_move();
        let wdl = match outcome {
            Outcome::Draw(_) => [0.0, 1.0, 0.0],
            Outcome::Win(winner) if winner == me.index() => [1.0, 0.0, 0.0],
            Outcome::Win(_) => [0.0, 0.0, 1.0],
        };
        let lost = |color: Color| f32::from(final_marbles_off[color.index()]);
        TrainingSample {
            position,
            policy,
            wdl,
            marble_diff: lost(me.opponent()) - lost(me),
        }
    }

    /// The same sample seen through `symmetry` (for augmentation; use only
    /// the symmetries [`crate::symmetries_for`] allows for its rules).
    pub fn transformed(&self, symmetry: Symmetry) -> TrainingSample {
        TrainingSample {
            position: symmetry.apply_position(&self.position),
            policy: self
                .policy
                .iter()
                .map(|&(mv, weight)| (symmetry.apply_move(mv), weight))
                .collect(),
            wdl: self.wdl,
            marble_diff: self.marble_diff,
        }
    }
}

/// What one training step (or an evaluation of the losses) measured; every
/// value is a mean over the batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainMetrics {
    /// Optimiser steps done before this one.
    pub step: u64,
    pub samples: usize,
    pub learning_rate: f64,
    /// The weighted total that is minimised.
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub aux_loss: f64,
    /// Entropy of the network's policy over the legal moves.
    pub policy_entropy: f64,
    /// Fraction of samples whose most likely WDL class is the target's.
    pub value_accuracy: f64,
    /// Global L2 norm of the gradient before clipping (0 when only evaluating).
    pub grad_norm: f64,
}

/// One trainable variable with its optimiser state.
#[derive(Debug)]
pub(crate) struct ParameterState {
    pub(crate) name: String,
    pub(crate) parameter: Tensor,
    /// Weight decay applies (convolution and linear weights).
    pub(crate) decays: bool,
    /// AdamW: first moment; SGD: momentum buffer.
    pub(crate) first: Tensor,
    /// AdamW: second moment; SGD: unused (empty).
    pub(crate) second: Tensor,
}

/// The optimiser state of every trainable variable, by name.
#[derive(Debug)]
pub(crate) struct Optimizer {
    pub(crate) kind: OptimizerKind,
    pub(crate) parameters: Vec<ParameterState>,
}

impl Optimizer {
    pub(crate) fn new(net: &PolicyValueNet, kind: OptimizerKind) -> Optimizer {
        let named: BTreeMap<String, Tensor> = net.vars().variables().into_iter().collect();
        let parameters = named
            .into_iter()
            .filter(|(_, tensor)| tensor.requires_grad())
            .map(|(name, parameter)| {
                let decays = name.ends_with("weight") && parameter.dim() > 1;
                let first = parameter.zeros_like();
                let second = match kind {
                    OptimizerKind::AdamW => parameter.zeros_like(),
                    OptimizerKind::Sgd => Tensor::zeros([0], (Kind::Float, parameter.device())),
                };
                ParameterState {
                    name,
                    parameter,
                    decays,
                    first,
                    second,
                }
            })
            .collect();
        Optimizer { kind, parameters }
    }

    /// The state tensors by their checkpoint names (sharing storage with the
    /// optimiser, so loading into them restores it): `first.<variable>`, and
    /// `second.<variable>` for AdamW.
    pub(crate) fn named_state(&self) -> BTreeMap<String, Tensor> {
        let mut state = BTreeMap::new();
        for parameter in &self.parameters {
            state.insert(
                format!("first.{}", parameter.name),
                parameter.first.shallow_clone(),
            );
            if self.kind == OptimizerKind::AdamW {
                state.insert(
                    format!("second.{}", parameter.name),
                    parameter.second.shallow_clone(),
                );
            }
        }
        state
    }

    fn zero_grad(&mut self) {
        for state in &mut self.parameters {
            state.parameter.zero_grad();
        }
    }

    /// Clips the gradients to `max_norm` (if positive); returns the norm
    /// before clipping.
    fn clip_gradients(&mut self, max_norm: f64) -> f64 {
        tch::no_grad(|| {
            let squares: Vec<Tensor> = self
                .parameters
                .iter()
                .map(|state| state.parameter.grad())
                .filter(|grad| grad.defined())
                .map(|grad| grad.square().sum(Kind::Float))
                .collect();
            if squares.is_empty() {
                return 0.0;
            }
            let norm = Tensor::stack(&squares, 0)
                .sum(Kind::Float)
                .sqrt()
                .double_value(&[]);
            if max_norm > 0.0 && norm > max_norm {
                let scale = max_norm / (norm + 1e-6);
                for state in &self.parameters {
                    let mut grad = state.parameter.grad();
                    if grad.defined() {
                        let _ = grad.g_mul_scalar_(scale);
                    }
                }
            }
            norm
        })
    }

    /// One update with learning rate `lr`; `step` counts from 0.
    fn update(&mut self, config: &NetTrainingConfig, lr: f64, step: u64) {
        let t = (step + 1) as i32;
        tch::no_grad(|| {
            for state in &mut self.parameters {
                let grad = state.parameter.grad();
                if !grad.defined() {
                    continue;
                }
                match self.kind {
                    OptimizerKind::AdamW => {
                        let (beta1, beta2) = (config.adam_beta1, config.adam_beta2);
                        let bias1 = 1.0 - beta1.powi(t);
                        let bias2 = 1.0 - beta2.powi(t);
                        let _ = state.first.lerp_(&grad, 1.0 - beta1);
                        let _ = state.second.g_mul_scalar_(beta2);
                        let _ = state.second.addcmul_(&(&grad * (1.0 - beta2)), &grad);
                        let denominator = (&state.second / bias2).sqrt() + config.adam_epsilon;
                        if state.decays && config.weight_decay > 0.0 {
                            let _ = state
                                .parameter
                                .g_mul_scalar_(1.0 - lr * config.weight_decay);
                        }
                        let _ = state
                            .parameter
                            .addcdiv_(&(&state.first * (-lr / bias1)), &denominator);
                    }
                    OptimizerKind::Sgd => {
                        let grad = if state.decays && config.weight_decay > 0.0 {
                            &grad + &state.parameter * config.weight_decay
                        } else {
                            grad
                        };
                        let _ = state.first.g_mul_scalar_(config.momentum);
                        let _ = state.first.g_add_(&grad);
                        let nesterov = &grad + &state.first * config.momentum;
                        let _ = state.parameter.g_add_(&(nesterov * -lr));
                    }
                }
            }
        });
    }
}

/// A batch of samples as tensors on the training device (opaque outside
/// this crate: [`Sample`] builds it).
#[doc(hidden)]
#[derive(Debug)]
pub struct Batch {
    pub(crate) inputs: Tensor,
    /// Target policy `[n, policy_len]`, and the moves that are not legal.
    pub(crate) policy: Tensor,
    pub(crate) illegal: Tensor,
    /// Target distribution over the value outputs `[n, value_len]`.
    pub(crate) value: Tensor,
    /// Value outputs the sample's game does not have (the win outputs of
    /// absent sides), left out of the softmax; `None` if every output counts.
    pub(crate) value_absent: Option<Tensor>,
    /// Targets of the auxiliary head `[n, aux_len]`, and a weight per target
    /// (0 for the seats a game does not have).
    pub(crate) aux: Tensor,
    pub(crate) aux_weight: Tensor,
}

/// What a trainer can learn from: the samples of one game (the two-player
/// [`TrainingSample`], the general game's
/// [`crate::general_train::GeneralTrainingSample`]).
pub trait Sample: Sized {
    /// The game of the networks it trains.
    const KIND: GameKind;
    /// The batch of `samples` for a network of `shape` on `device`; a
    /// sample with an impossible target is an [`NetError::InvalidSample`]
    /// naming it.
    #[doc(hidden)]
    fn build_batch(samples: &[Self], shape: NetShape, device: Device) -> Result<Batch, NetError>;
}

impl Sample for TrainingSample {
    const KIND: GameKind = GameKind::TwoPlayer;

    fn build_batch(samples: &[Self], shape: NetShape, device: Device) -> Result<Batch, NetError> {
        build_batch(samples, shape.push_off_planes, device)
    }
}

/// Checks that a value target is a probability distribution.
pub(crate) fn check_distribution(target: &[f32], what: &str) -> Result<(), String> {
    let total: f32 = target.iter().sum();
    if target.iter().any(|p| !p.is_finite() || *p < 0.0) || (total - 1.0).abs() > 1e-3 {
        return Err(format!("{what} {target:?} is not a distribution"));
    }
    Ok(())
}

fn build_batch(
    samples: &[TrainingSample],
    push_off_planes: bool,
    device: Device,
) -> Result<Batch, NetError> {
    let n = samples.len();
    let len = input_len(push_off_planes);
    let mut inputs = vec![0.0f32; n * len];
    let mut policy = vec![0.0f32; n * POLICY_LEN];
    let mut illegal = vec![true; n * POLICY_LEN];
    let mut wdl = Vec::with_capacity(n * 3);
    let mut marble_diff = Vec::with_capacity(n);
    for (index, sample) in samples.iter().enumerate() {
        let invalid = |problem: String| NetError::InvalidSample { index, problem };
        let position = &sample.position;
        if position.ending().is_some() {
            return Err(invalid("the game is over in this position".to_owned()));
        }
        encode_position(
            position,
            push_off_planes,
            &mut inputs[index * len..(index + 1) * len],
        );
        encode_policy_target(
            position,
            &sample.policy,
            &mut policy[index * POLICY_LEN..(index + 1) * POLICY_LEN],
        )
        .map_err(invalid)?;
        for mv in position.legal_moves().iter() {
            illegal[index * POLICY_LEN + policy_index(position, mv.action())] = false;
        }
        check_distribution(&sample.wdl, "WDL target").map_err(invalid)?;
        wdl.extend_from_slice(&sample.wdl);
        if !sample.marble_diff.is_finite() {
            return Err(invalid(format!(
                "marble difference {} is not finite",
                sample.marble_diff
            )));
        }
        marble_diff.push((sample.marble_diff / MARBLE_DIFF_SCALE).clamp(-1.0, 1.0));
    }
    let n = n as i64;
    Ok(Batch {
        inputs: Tensor::from_slice(&inputs)
            .view([n, -1, GRID as i64, GRID as i64])
            .to_device(device),
        policy: Tensor::from_slice(&policy)
            .view([n, POLICY_LEN as i64])
            .to_device(device),
        illegal: Tensor::from_slice(&illegal)
            .view([n, POLICY_LEN as i64])
            .to_device(device),
        value: Tensor::from_slice(&wdl).view([n, 3]).to_device(device),
        value_absent: None,
        aux: Tensor::from_slice(&marble_diff)
            .view([n, 1])
            .to_device(device),
        aux_weight: Tensor::ones([n, 1], (Kind::Float, device)),
    })
}

/// The loss terms of a forward pass, as scalar tensors.
struct Losses {
    total: Tensor,
    policy: Tensor,
    value: Tensor,
    aux: Tensor,
    entropy: Tensor,
    accuracy: Tensor,
}

fn losses(net: &PolicyValueNet, batch: &Batch, config: &NetTrainingConfig, train: bool) -> Losses {
    let (policy_logits, wdl_logits, aux) = net.forward_heads(&batch.inputs, train);
    let log_policy = policy_logits
        .masked_fill(&batch.illegal, ILLEGAL_LOGIT)
        .log_softmax(1, Kind::Float);
    let policy = -(&batch.policy * &log_policy)
        .sum_dim_intlist(1, false, Kind::Float)
        .mean(Kind::Float);
    let entropy = -(log_policy.exp() * &log_policy)
        .sum_dim_intlist(1, false, Kind::Float)
        .mean(Kind::Float);
    let value_logits = match &batch.value_absent {
        Some(absent) => wdl_logits.masked_fill(absent, ILLEGAL_LOGIT),
        None => wdl_logits,
    };
    let log_value = value_logits.log_softmax(1, Kind::Float);
    let value = -(&batch.value * &log_value)
        .sum_dim_intlist(1, false, Kind::Float)
        .mean(Kind::Float);
    // The mean squared error over the targets that count (all of them in
    // the two-player game: the mean over the batch).
    let aux = ((aux - &batch.aux).square() * &batch.aux_weight).sum(Kind::Float)
        / batch.aux_weight.sum(Kind::Float).clamp_min(1.0);
    let accuracy = value_logits
        .argmax(1, false)
        .eq_tensor(&batch.value.argmax(1, false))
        .to_kind(Kind::Float)
        .mean(Kind::Float);
    let total = &policy + &value * config.value_loss_weight + &aux * config.aux_loss_weight;
    Losses {
        total,
        policy,
        value,
        aux,
        entropy,
        accuracy,
    }
}

/// Owns a network being trained and its optimiser.
#[derive(Debug)]
pub struct Trainer {
    net: PolicyValueNet,
    optimizer: Optimizer,
    config: NetTrainingConfig,
    step: u64,
}

impl Trainer {
    /// Starts training `net` from step 0 with fresh optimiser state.
    pub fn new(net: PolicyValueNet, config: &NetTrainingConfig) -> Result<Trainer, NetError> {
        config.validate()?;
        if net.is_folded() {
            return Err(NetError::FoldedNetwork);
        }
        let optimizer = Optimizer::new(&net, config.optimizer);
        Ok(Trainer {
            net,
            optimizer,
            config: config.clone(),
            step: 0,
        })
    }

    /// A trainer resumed from its parts.
    pub(crate) fn from_parts(
        net: PolicyValueNet,
        optimizer: Optimizer,
        config: &NetTrainingConfig,
        step: u64,
    ) -> Trainer {
        Trainer {
            net,
            optimizer,
            config: config.clone(),
            step,
        }
    }

    pub(crate) fn optimizer(&self) -> &Optimizer {
        &self.optimizer
    }

    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    pub fn into_net(self) -> PolicyValueNet {
        self.net
    }

    pub fn config(&self) -> &NetTrainingConfig {
        &self.config
    }

    /// Optimiser steps done so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The batch of `samples`, after checking that they are of this
    /// network's game.
    fn batch_of<S: Sample>(&self, samples: &[S]) -> Result<Batch, NetError> {
        if S::KIND != self.net.game() {
            return Err(NetError::InvalidSample {
                index: 0,
                problem: format!(
                    "samples of the {:?} game cannot train a network of the {:?} game",
                    S::KIND,
                    self.net.game()
                ),
            });
        }
        S::build_batch(samples, self.net.shape(), self.net.device())
    }

    /// One optimiser step on `samples` (batch norm in training mode).
    pub fn train_step<S: Sample>(&mut self, samples: &[S]) -> Result<TrainMetrics, NetError> {
        if samples.is_empty() {
            return Err(NetError::InvalidSample {
                index: 0,
                problem: "a training batch needs at least one sample".to_owned(),
            });
        }
        let batch = self.batch_of(samples)?;
        let lr = self.config.learning_rate_at(self.step);
        self.optimizer.zero_grad();
        let losses = losses(&self.net, &batch, &self.config, true);
        losses
            .total
            .f_backward()
            .map_err(NetError::torch("backward pass"))?;
        let grad_norm = self.optimizer.clip_gradients(self.config.grad_clip_norm);
        self.optimizer.update(&self.config, lr, self.step);
        let metrics = metrics_of(&losses, self.step, samples.len(), lr, grad_norm);
        self.step += 1;
        Ok(metrics)
    }

    /// The losses on `samples` without changing anything (batch norm in
    /// evaluation mode), e.g. on held-out samples.
    pub fn evaluate<S: Sample>(&self, samples: &[S]) -> Result<TrainMetrics, NetError> {
        let batch = self.batch_of(samples)?;
        let losses = tch::no_grad(|| losses(&self.net, &batch, &self.config, false));
        Ok(metrics_of(
            &losses,
            self.step,
            samples.len(),
            self.config.learning_rate_at(self.step),
            0.0,
        ))
    }
}

fn metrics_of(losses: &Losses, step: u64, samples: usize, lr: f64, grad_norm: f64) -> TrainMetrics {
    let value = |tensor: &Tensor| tensor.double_value(&[]);
    TrainMetrics {
        step,
        samples,
        learning_rate: lr,
        loss: value(&losses.total),
        policy_loss: value(&losses.policy),
        value_loss: value(&losses.value),
        aux_loss: value(&losses.aux),
        policy_entropy: value(&losses.entropy),
        value_accuracy: value(&losses.accuracy),
        grad_norm,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::LrSchedule;
    use crate::encoding::tests::sample_positions;
    use crate::model::tests::tiny_config;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Samples with random (but fixed) targets.
    pub(crate) fn random_samples(count: usize, seed: u64) -> Vec<TrainingSample> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        sample_positions(count, seed)
            .into_iter()
            .map(|position| {
                let moves = position.legal_moves();
                let policy = moves
                    .iter()
                    .take(4)
                    .map(|&mv| (mv, rng.random_range(0.1f32..1.0)))
                    .collect();
                let winner = if rng.random_bool(0.5) {
                    Color::Black
                } else {
                    Color::White
                };
                let outcome = if rng.random_bool(0.2) {
                    Outcome::draw_of_all(2)
                } else {
                    Outcome::win_of(winner)
                };
                let off = [rng.random_range(0..6), rng.random_range(0..6)];
                TrainingSample::from_game(position, policy, outcome, off)
            })
            .collect()
    }

    fn fast_config(optimizer: OptimizerKind, learning_rate: f64) -> NetTrainingConfig {
        NetTrainingConfig {
            optimizer,
            learning_rate,
            schedule: LrSchedule::Constant,
            warmup_steps: 0,
            weight_decay: 1e-4,
            ..NetTrainingConfig::default()
        }
    }

    fn overfits(optimizer: OptimizerKind, learning_rate: f64) {
        tch::manual_seed(5);
        let samples = random_samples(32, 11);
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let mut trainer = Trainer::new(net, &fast_config(optimizer, learning_rate)).unwrap();
        let first = trainer.train_step(&samples).unwrap();
        let mut last = first;
        for _ in 0..150 {
            last = trainer.train_step(&samples).unwrap();
        }
        assert_eq!(trainer.step(), 151);
        let evaluated = trainer.evaluate(&samples).unwrap();
        assert!(
            last.loss * 3.0 < first.loss,
            "{optimizer:?}: loss went from {} to {}",
            first.loss,
            last.loss
        );
        assert!(evaluated.value_accuracy > 0.9, "{evaluated:?}");
        assert!(last.policy_entropy < first.policy_entropy);
    }

    #[test]
    fn adamw_overfits_a_small_batch() {
        overfits(OptimizerKind::AdamW, 3e-3);
    }

    #[test]
    fn sgd_overfits_a_small_batch() {
        overfits(OptimizerKind::Sgd, 0.05);
    }

    #[test]
    fn sample_targets_follow_the_side_to_move() {
        let position = sample_positions(1, 4)[0];
        let me = position.side_to_move();
        let mut off = [0u8; 2];
        off[me.index()] = 1;
        off[me.opponent().index()] = 4;
        let sample = TrainingSample::from_game(position, vec![], Outcome::win_of(me), off);
        assert_eq!(sample.wdl, [1.0, 0.0, 0.0]);
        assert_eq!(sample.marble_diff, 3.0);
        let sample =
            TrainingSample::from_game(position, vec![], Outcome::win_of(me.opponent()), off);
        assert_eq!(sample.wdl, [0.0, 0.0, 1.0]);
    }

    #[test]
    fn bad_samples_are_rejected_with_their_index() {
        let mut samples = random_samples(3, 12);
        samples[1].wdl = [0.5, 0.0, 0.0];
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let mut trainer = Trainer::new(net, &NetTrainingConfig::default()).unwrap();
        let message = trainer.train_step(&samples).unwrap_err().to_string();
        assert!(message.starts_with("training sample 1:"), "{message}");
        samples[1].wdl = [0.0, 0.0, 1.0];
        samples[2].policy.clear();
        let message = trainer.train_step(&samples).unwrap_err().to_string();
        assert!(message.starts_with("training sample 2:"), "{message}");
        assert_eq!(trainer.step(), 0);
    }

    #[test]
    fn transformed_samples_keep_legal_targets() {
        let samples = random_samples(8, 13);
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let trainer = Trainer::new(net, &NetTrainingConfig::default()).unwrap();
        let original = trainer.evaluate(&samples).unwrap();
        // A fresh network is not equivariant, but targets and legality must
        // still line up after a symmetry: the loss stays finite and the batch
        // is accepted.
        for &symmetry in &Symmetry::ALL {
            let transformed: Vec<TrainingSample> = samples
                .iter()
                .filter(|sample| crate::symmetries_for(sample.position.rules()).contains(&symmetry))
                .map(|sample| sample.transformed(symmetry))
                .collect();
            if transformed.is_empty() {
                continue;
            }
            let metrics = trainer.evaluate(&transformed).unwrap();
            assert!(metrics.loss.is_finite());
        }
        assert!(original.loss.is_finite());
    }
}
