//! The work that the network's speed measurements feed it, shared by the
//! criterion bench (`benches/net.rs`) and `sumito bench net`, so that both
//! measure the same thing.

use sumito_engine::{Outcome, Position};
use tch::nn::{self, Module, ModuleT, OptimizerConfig};
use tch::{Device, Kind, Tensor};

use crate::encoding::{GRID, INPUT_LEN, INPUT_PLANES, POLICY_LEN, encode_position};
use crate::train::TrainingSample;

/// The inputs of `positions` packed one after another ([`INPUT_LEN`] values
/// each), as [`crate::run_packed`] takes them.
pub fn encode_batch(positions: &[Position]) -> Vec<f32> {
    let mut inputs = vec![0.0; positions.len() * INPUT_LEN];
    for (position, chunk) in positions.iter().zip(inputs.chunks_exact_mut(INPUT_LEN)) {
        encode_position(position, false, chunk);
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
            TrainingSample::from_game(position, policy, Outcome::draw_of_all(2), [0, 0])
        })
        .collect()
}

/// The yardstick the network's speed is compared with: a plain ResNet as
/// written with libtorch's defaults (NCHW tensors, batch norm after every
/// convolution, no board mask), with `blocks` × `channels` residual blocks, a
/// small policy head (1×1 convolution to 2 planes, then a fully connected
/// layer to the 1734 actions) and a value head (global mean, 3 WDL logits).
/// `sumito bench net` runs it beside [`crate::PolicyValueNet`] so that the
/// ratio between the two is measured in one run, on the same machine load.
#[derive(Debug)]
pub struct ReferenceResNet {
    vars: nn::VarStore,
    stem: (nn::Conv2D, nn::BatchNorm),
    blocks: Vec<[(nn::Conv2D, nn::BatchNorm); 2]>,
    policy_conv: nn::Conv2D,
    policy_fc: nn::Linear,
    value_fc: nn::Linear,
}

impl ReferenceResNet {
    pub fn new(blocks: usize, channels: usize, device: Device) -> ReferenceResNet {
        let vars = nn::VarStore::new(device);
        let root = vars.root();
        let channels = channels as i64;
        let conv_bn = |path: nn::Path<'_>, inputs: i64| {
            let config = nn::ConvConfig {
                padding: 1,
                bias: false,
                ..Default::default()
            };
            (
                nn::conv2d(&path / "conv", inputs, channels, 3, config),
                nn::batch_norm2d(&path / "norm", channels, Default::default()),
            )
        };
        let stem = conv_bn(&root / "stem", INPUT_PLANES as i64);
        let blocks = (0..blocks)
            .map(|index| {
                let path = &root / "blocks" / index;
                [
                    conv_bn(&path / "first", channels),
                    conv_bn(&path / "second", channels),
                ]
            })
            .collect();
        let policy_conv = nn::conv2d(&root / "policy", channels, 2, 1, Default::default());
        let cells = (GRID * GRID) as i64;
        let policy_fc = nn::linear(
            &root / "policy_fc",
            2 * cells,
            POLICY_LEN as i64,
            Default::default(),
        );
        let value_fc = nn::linear(&root / "value_fc", channels, 3, Default::default());
        ReferenceResNet {
            vars,
            stem,
            blocks,
            policy_conv,
            policy_fc,
            value_fc,
        }
    }

    /// Policy logits `[batch, 1734]` and WDL logits `[batch, 3]`.
    pub fn forward(&self, input: &Tensor, train: bool) -> (Tensor, Tensor) {
        let apply = |(conv, norm): &(nn::Conv2D, nn::BatchNorm), x: &Tensor| {
            norm.forward_t(&conv.forward(x), train)
        };
        let mut x = apply(&self.stem, input).relu();
        for [first, second] in &self.blocks {
            let y = apply(first, &x).relu();
            x = (apply(second, &y) + x).relu();
        }
        let policy = self
            .policy_fc
            .forward(&self.policy_conv.forward(&x).relu().flatten(1, -1));
        let value = self
            .value_fc
            .forward(&x.mean_dim([2i64, 3].as_slice(), false, Kind::Float));
        (policy, value)
    }

    /// `inputs` as [`crate::run_packed`] takes them, as a tensor.
    pub fn input_tensor(&self, inputs: &[f32], rows: usize) -> Tensor {
        Tensor::from_slice(inputs)
            .view([rows as i64, INPUT_PLANES as i64, GRID as i64, GRID as i64])
            .to_device(self.vars.device())
    }

    /// An AdamW optimiser over the network's weights.
    pub fn optimizer(&self, learning_rate: f64) -> Result<nn::Optimizer, tch::TchError> {
        nn::AdamW::default().build(&self.vars, learning_rate)
    }

    /// A forward pass in evaluation mode, without gradients.
    pub fn infer(&self, input: &Tensor) -> (Tensor, Tensor) {
        tch::no_grad(|| self.forward(input, false))
    }

    /// One training step on `input`: cross-entropy against fixed policy and
    /// value classes (the cost does not depend on which).
    pub fn train_step(&self, optimizer: &mut nn::Optimizer, input: &Tensor) -> f64 {
        let rows = input.size()[0];
        let device = self.vars.device();
        let policy_target = Tensor::zeros([rows], (Kind::Int64, device));
        let value_target = Tensor::ones([rows], (Kind::Int64, device));
        let (policy, value) = self.forward(input, true);
        let loss = policy.cross_entropy_for_logits(&policy_target)
            + value.cross_entropy_for_logits(&value_target);
        optimizer.backward_step(&loss);
        loss.double_value(&[])
    }
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
            encode_position(position, false, &mut single);
            assert_eq!(chunk, &single[..]);
        }
    }

    #[test]
    fn the_reference_resnet_has_the_heads_shapes_and_learns() {
        tch::manual_seed(1);
        let net = ReferenceResNet::new(1, 8, Device::Cpu);
        let inputs = encode_batch(&midgame_positions());
        let rows = inputs.len() / INPUT_LEN;
        let input = net.input_tensor(&inputs, rows);
        let (policy, value) = net.infer(&input);
        assert_eq!(policy.size(), [rows as i64, POLICY_LEN as i64]);
        assert_eq!(value.size(), [rows as i64, 3]);
        let mut optimizer = net.optimizer(1e-2).unwrap();
        let first = net.train_step(&mut optimizer, &input);
        let mut last = first;
        for _ in 0..20 {
            last = net.train_step(&mut optimizer, &input);
        }
        assert!(last < first / 2.0, "{first} -> {last}");
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
