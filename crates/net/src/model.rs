//! The policy-value network: a residual tower with a policy head, a WDL value
//! head and an auxiliary marble-difference head.
//!
//! # Shape
//! * **Trunk**: a 3×3 convolution from the [`INPUT_PLANES`] planes to
//!   `channels`, then `blocks` residual blocks (two 3×3 convolutions with batch
//!   norm, the second one's scale starting at 0 so each block starts as the
//!   identity). After every layer the 20 grid points off the hexagon are zeroed.
//! * **Policy head** (per cell, gathered into the action space): a 1×1
//!   convolution to `policy_channels`, biased per channel by a global-pooling
//!   branch (mean and max over the board, KataGo-style), then a 1×1 convolution
//!   to [`POLICY_CELL_CHANNELS`] = 42 logits at every grid point. Each of the
//!   1734 actions owns one of those (point, channel) logits: the point of its
//!   group's lowest cell and a channel for (group line, group length,
//!   direction) — see [`policy_slot`]. So the head is as translation-equivariant
//!   as the trunk, with few parameters.
//! * **Value head**: a 1×1 convolution to `value_channels`, global mean and max
//!   pooling, a hidden layer of `value_hidden`, then 3 WDL logits (win, draw,
//!   loss for the side to move) and one `tanh` output predicting the final
//!   marble difference (opponent's marbles off minus own, / 6, clamped to ±1).
//!
//! # Packed output
//! [`PolicyValueNet::forward_packed`] (and the TorchScript export) returns one
//! tensor `[batch, PACKED_LEN]`: columns `0..1734` the policy logits (network
//! frame, unmasked), `1734..1737` the WDL logits, `1737` the marble-difference
//! prediction in `[-1, 1]`.

use std::sync::OnceLock;

use sumito_engine::general::MAX_SEATS;
use sumito_engine::general::moves::ANTICLOCKWISE;
use sumito_engine::general::{GeneralMove, MoveKind};
use sumito_engine::{Cell, Direction, Move};
use tch::nn::{self, Module, ModuleT};
use tch::{Device, Kind, Tensor};

use crate::config::{ModelConfig, NetShape, Precision};
use crate::encoding::{
    ENCODING_VERSION, GRID, GRID_POINTS, INPUT_PLANES, POLICY_LEN, PUSH_OFF_ENCODING_VERSION,
    PUSH_OFF_INPUT_PLANES, grid_point_of,
};
use crate::general_encoding::{
    GENERAL_ENCODING_VERSION, GENERAL_INPUT_PLANES, GENERAL_POLICY_LEN, GENERAL_VALUE_LEN,
};
use crate::{CELL_COUNT, NetError};
use sumito_game::GameKind;

/// Logit channels per grid point of the policy head: 6 directions for a single
/// marble, plus 3 lines × 2 lengths × 6 directions for groups of 2 and 3.
pub const POLICY_CELL_CHANNELS: usize = 6 + 3 * 2 * 6;
/// Logit channels per grid point of the general game's policy head: the
/// group moves' [`POLICY_CELL_CHANNELS`], then 2 triangles × 6 directions
/// for shield moves, then 9 shapes × 2 turns for rotations (see
/// [`general_policy_slot`]).
pub const GENERAL_POLICY_CELL_CHANNELS: usize = POLICY_CELL_CHANNELS + 2 * 6 + 9 * 2;
/// Column of the first WDL logit in the packed output.
pub const PACKED_WDL: usize = POLICY_LEN;
/// Column of the marble-difference prediction in the packed output.
pub const PACKED_AUX: usize = POLICY_LEN + 3;
/// Columns of the packed output.
pub const PACKED_LEN: usize = POLICY_LEN + 4;

/// The sizes of a network's inputs and the version of their encoding.
impl NetShape {
    pub fn input_planes(self) -> usize {
        match self.game {
            GameKind::TwoPlayer if self.push_off_planes => PUSH_OFF_INPUT_PLANES,
            GameKind::TwoPlayer => INPUT_PLANES,
            GameKind::General => GENERAL_INPUT_PLANES,
        }
    }

    /// Floats of one encoded position.
    pub fn input_len(self) -> usize {
        self.input_planes() * GRID_POINTS
    }

    /// The version of the encoding its inputs and outputs follow.
    pub fn encoding_version(self) -> u32 {
        match self.game {
            GameKind::TwoPlayer if self.push_off_planes => PUSH_OFF_ENCODING_VERSION,
            GameKind::TwoPlayer => ENCODING_VERSION,
            GameKind::General => GENERAL_ENCODING_VERSION,
        }
    }
}

/// The sizes a network's game fixes: the columns of its packed output
/// (policy, value logits, auxiliary predictions). The network's mapper of
/// each game, beside its encoding.
pub trait OutputColumns: Copy {
    fn policy_len(self) -> usize;

    /// Value logits: win, draw, loss; or a win per side (relative to the
    /// mover's side) and a draw.
    fn value_len(self) -> usize;

    /// Auxiliary predictions: the final marble difference (`tanh`), or the
    /// marbles each relative seat will have pushed off, / 6 (`sigmoid`).
    fn aux_len(self) -> usize;

    /// Column of the first value logit in the packed output.
    fn packed_value(self) -> usize {
        self.policy_len()
    }

    /// Column of the first auxiliary prediction in the packed output.
    fn packed_aux(self) -> usize {
        self.policy_len() + self.value_len()
    }

    /// Columns of the packed output.
    fn packed_len(self) -> usize {
        self.packed_aux() + self.aux_len()
    }

    /// Channels of the policy head per grid point.
    fn policy_cell_channels(self) -> usize;

    /// For every policy column, its index into the flattened `[channel,
    /// point]` logits of the policy head.
    fn policy_gather_index(self) -> &'static [i64];
}

impl OutputColumns for GameKind {
    fn policy_len(self) -> usize {
        match self {
            GameKind::TwoPlayer => POLICY_LEN,
            GameKind::General => GENERAL_POLICY_LEN,
        }
    }

    fn value_len(self) -> usize {
        match self {
            GameKind::TwoPlayer => 3,
            GameKind::General => GENERAL_VALUE_LEN,
        }
    }

    fn aux_len(self) -> usize {
        match self {
            GameKind::TwoPlayer => 1,
            GameKind::General => MAX_SEATS,
        }
    }

    fn policy_cell_channels(self) -> usize {
        match self {
            GameKind::TwoPlayer => POLICY_CELL_CHANNELS,
            GameKind::General => GENERAL_POLICY_CELL_CHANNELS,
        }
    }

    fn policy_gather_index(self) -> &'static [i64] {
        match self {
            GameKind::TwoPlayer => policy_gather_index(),
            GameKind::General => general_policy_gather_index(),
        }
    }
}

/// The (channel, grid point) logit of the policy head that belongs to a move:
/// the point of the group's lowest cell (lowest row, then lowest diagonal),
/// and a channel for the line the group lies on (E, NE or NW from that cell),
/// its length and the direction of the move.
pub fn policy_slot(mv: Move) -> (usize, usize) {
    let mut cells: Vec<Cell> = mv.cells().collect();
    cells.sort();
    let anchor = cells[0];
    let direction = mv.direction().index();
    let channel = if cells.len() == 1 {
        direction
    } else {
        let line = [Direction::E, Direction::NE, Direction::NW]
            .iter()
            .position(|&line| anchor.neighbour(line) == Some(cells[1]))
            .expect("a group lies on a line through its lowest cell");
        6 + (line * 2 + cells.len() - 2) * 6 + direction
    };
    (channel, grid_point_of(anchor))
}

/// The (channel, grid point) logit of the general game's policy head that
/// belongs to a move. Group moves as in [`policy_slot`]; a shield move at
/// the point of its triangle's lowest cell, with a channel for the triangle
/// (`{c, c+E, c+NE}` or `{c, c+NW, c+NE}`) and the direction; a rotation at
/// its middle cell, with a channel for the shape (3 lances, 6 arcs) and the
/// turn. Like the group moves', these slots move with the board, so the
/// head stays translation-equivariant.
pub fn general_policy_slot(mv: GeneralMove) -> (usize, usize) {
    let turn_index = |direction: Direction| {
        ANTICLOCKWISE
            .iter()
            .position(|&d| d == direction)
            .expect("every direction is in ANTICLOCKWISE")
    };
    match mv.kind() {
        MoveKind::Group(group) => policy_slot(group),
        MoveKind::Shield(shield) => {
            let anchor = shield.cells[0];
            let triangle = usize::from(anchor.neighbour(Direction::E) != Some(shield.cells[1]));
            let channel = POLICY_CELL_CHANNELS + triangle * 6 + shield.dir.index();
            (channel, grid_point_of(anchor))
        }
        MoveKind::Rotation(rotation) => {
            let [a, b] = rotation.ends.map(|end| {
                turn_index(
                    rotation
                        .middle
                        .direction_to(end)
                        .expect("a rotation's ends neighbour its middle"),
                )
            });
            let shape = if (a + 3) % 6 == b {
                a.min(b)
            } else if (a + 2) % 6 == b {
                3 + a
            } else {
                3 + b
            };
            let channel =
                POLICY_CELL_CHANNELS + 12 + shape * 2 + usize::from(rotation.anticlockwise);
            (channel, grid_point_of(rotation.middle))
        }
    }
}

/// For every move of the general game, its index into the flattened
/// `[channel, point]` logits.
fn general_policy_gather_index() -> &'static [i64] {
    static INDEX: OnceLock<Vec<i64>> = OnceLock::new();
    INDEX.get_or_init(|| {
        (0..GENERAL_POLICY_LEN)
            .map(|index| {
                let mv = GeneralMove::from_index(index).expect("every index is a move");
                let (channel, point) = general_policy_slot(mv);
                (channel * GRID_POINTS + point) as i64
            })
            .collect()
    })
}

/// For every action, its index into the flattened `[channel, point]` logits.
fn policy_gather_index() -> &'static [i64] {
    static INDEX: OnceLock<Vec<i64>> = OnceLock::new();
    INDEX.get_or_init(|| {
        (0..POLICY_LEN)
            .map(|action| {
                let mv = Move::from_action(action).expect("every action index is a move");
                let (channel, point) = policy_slot(mv);
                (channel * GRID_POINTS + point) as i64
            })
            .collect()
    })
}

/// `[GRID_POINTS]`: 1 on the hexagon's cells, 0 on the grid points off it.
pub(crate) fn board_mask() -> Vec<f32> {
    let mut mask = vec![0.0; GRID_POINTS];
    for cell in Cell::all() {
        mask[grid_point_of(cell)] = 1.0;
    }
    mask
}

/// Batch norm's epsilon, set explicitly so that folding uses the same value.
pub(crate) const BATCH_NORM_EPS: f64 = 1e-5;

#[derive(Debug)]
struct ConvBn {
    conv: nn::Conv2D,
    norm: nn::BatchNorm,
    padding: i64,
    /// The convolution with the batch norm's evaluation-mode affine map
    /// folded in (see [`PolicyValueNet::fold_batch_norm`]): one convolution
    /// with a bias instead of a convolution and a normalisation pass.
    folded: Option<(Tensor, Tensor)>,
}

impl ConvBn {
    fn new(path: nn::Path<'_>, inputs: usize, outputs: usize, kernel: i64, scale: f64) -> ConvBn {
        let conv_config = nn::ConvConfig {
            padding: kernel / 2,
            bias: false,
            ..Default::default()
        };
        let norm_config = nn::BatchNormConfig {
            ws_init: nn::Init::Const(scale),
            eps: BATCH_NORM_EPS,
            ..Default::default()
        };
        let mut conv = nn::conv2d(
            &path / "conv",
            inputs as i64,
            outputs as i64,
            kernel,
            conv_config,
        );
        tch::no_grad(|| {
            let weight = channels_last(&conv.ws);
            conv.ws.set_data(&weight);
        });
        ConvBn {
            conv,
            norm: nn::batch_norm2d(&path / "norm", outputs as i64, norm_config),
            padding: kernel / 2,
            folded: None,
        }
    }

    fn forward(&self, input: &Tensor, train: bool) -> Tensor {
        match &self.folded {
            Some((weight, bias)) if !train => {
                input.conv2d(weight, Some(bias), [1, 1], [self.padding; 2], [1, 1], 1)
            }
            _ => self.norm.forward_t(&self.conv.forward(input), train),
        }
    }

    /// In evaluation mode the batch norm is `y = (x - mean) * scale + beta`
    /// with `scale = gamma / sqrt(var + eps)`: a per-channel affine map that
    /// the (bias-free) convolution absorbs.
    fn fold(&mut self) {
        let folded = tch::no_grad(|| {
            let norm = &self.norm;
            let gamma = norm.ws.as_ref().expect("batch norm is affine");
            let beta = norm.bs.as_ref().expect("batch norm is affine");
            let scale = gamma / (&norm.running_var + BATCH_NORM_EPS).sqrt();
            let weight = &self.conv.ws * scale.view([-1, 1, 1, 1]);
            let bias = beta - &norm.running_mean * &scale;
            (channels_last(&weight), bias)
        });
        self.folded = Some(folded);
    }
}

/// `tensor` (`[n, c, h, w]`) with the same values stored channels-last
/// (NHWC strides). libtorch then keeps every feature map in that layout
/// through convolutions and element-wise ops, and oneDNN's convolutions run
/// without reordering their inputs and outputs. Three alternating runs of
/// `sumito bench net` on the 2-core development CPU, against the same code
/// with NCHW tensors: folded forward at batch 64 1.2× faster, training step
/// at batch 256 1.3× faster. Weights are stored channels-last too.
fn channels_last(tensor: &Tensor) -> Tensor {
    tensor
        .permute([0, 2, 3, 1])
        .contiguous()
        .permute([0, 3, 1, 2])
}

#[derive(Debug)]
struct ResidualBlock {
    first: ConvBn,
    second: ConvBn,
}

/// The network. Its variables live in a [`nn::VarStore`] on one device.
///
/// `Send` but not `Sync` (torch tensors are not): share it between threads
/// through the inference service or a mutex ([`crate::DirectEvaluator`]).
#[derive(Debug)]
pub struct PolicyValueNet {
    vars: nn::VarStore,
    config: ModelConfig,
    stem: ConvBn,
    blocks: Vec<ResidualBlock>,
    policy: ConvBn,
    policy_pool: ConvBn,
    policy_pool_bias: nn::Linear,
    policy_out: nn::Conv2D,
    value: ConvBn,
    value_hidden: nn::Linear,
    value_wdl: nn::Linear,
    value_aux: nn::Linear,
    /// `[1, 1, 9, 9]`: 1 on the hexagon.
    mask: Tensor,
    /// `[1734]`: see [`policy_gather_index`].
    gather: Tensor,
}

impl PolicyValueNet {
    /// A freshly initialised network on `device`.
    pub fn new(config: &ModelConfig, device: Device) -> Result<PolicyValueNet, NetError> {
        config.validate()?;
        let vars = nn::VarStore::new(device);
        let root = vars.root();
        let channels = config.channels;
        let game = config.game;
        let stem = ConvBn::new(
            &root / "stem",
            config.shape().input_planes(),
            channels,
            3,
            1.0,
        );
        let blocks = (0..config.blocks)
            .map(|index| {
                let path = &root / "blocks" / index;
                ResidualBlock {
                    first: ConvBn::new(&path / "first", channels, channels, 3, 1.0),
                    second: ConvBn::new(&path / "second", channels, channels, 3, 0.0),
                }
            })
            .collect();
        let head = &root / "policy";
        let pc = config.policy_channels;
        let policy = ConvBn::new(&head / "main", channels, pc, 1, 1.0);
        let policy_pool = ConvBn::new(&head / "pool", channels, pc, 1, 1.0);
        let policy_pool_bias = nn::linear(
            &head / "pool_bias",
            2 * pc as i64,
            pc as i64,
            Default::default(),
        );
        let policy_out = nn::conv2d(
            &head / "out",
            pc as i64,
            game.policy_cell_channels() as i64,
            1,
            Default::default(),
        );
        let head = &root / "value";
        let vc = config.value_channels as i64;
        let hidden = config.value_hidden as i64;
        let value = ConvBn::new(&head / "main", channels, config.value_channels, 1, 1.0);
        let value_hidden = nn::linear(&head / "hidden", 2 * vc, hidden, Default::default());
        let value_wdl = nn::linear(
            &head / "wdl",
            hidden,
            game.value_len() as i64,
            Default::default(),
        );
        let value_aux = nn::linear(
            &head / "aux",
            hidden,
            game.aux_len() as i64,
            Default::default(),
        );
        let mask = Tensor::from_slice(&board_mask())
            .view([1, 1, GRID as i64, GRID as i64])
            .to_device(device);
        let gather = Tensor::from_slice(game.policy_gather_index()).to_device(device);
        Ok(PolicyValueNet {
            vars,
            config: *config,
            stem,
            blocks,
            policy,
            policy_pool,
            policy_pool_bias,
            policy_out,
            value,
            value_hidden,
            value_wdl,
            value_aux,
            mask,
            gather,
        })
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    pub fn device(&self) -> Device {
        self.vars.device()
    }

    /// The game it plays (its inputs and outputs).
    pub fn game(&self) -> GameKind {
        self.config.game
    }

    /// Its inputs and outputs.
    pub fn shape(&self) -> NetShape {
        self.config.shape()
    }

    pub fn vars(&self) -> &nn::VarStore {
        &self.vars
    }

    pub(crate) fn vars_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vars
    }

    /// Copies every variable's value from `other` (same architecture).
    pub(crate) fn copy_values_from(&mut self, other: &PolicyValueNet) -> Result<(), NetError> {
        self.vars
            .copy(&other.vars)
            .map_err(NetError::torch("copying the network's variables"))
    }

    /// The network for inference only: every convolution with its batch norm
    /// folded into it, which saves a pass over every feature map (`sumito
    /// bench net` prints the speed of both forms and their ratio).
    /// Outputs equal [`Self::forward_packed`]'s up to float rounding. The
    /// variables are kept as they are, so the checkpoint it came from is
    /// unchanged, but training must start from an unfolded network:
    /// [`crate::Trainer::new`] refuses a folded one.
    pub fn fold_batch_norm(mut self) -> PolicyValueNet {
        for layer in self.conv_bn_layers_mut() {
            layer.fold();
        }
        self
    }

    fn conv_bn_layers(&self) -> impl Iterator<Item = &ConvBn> {
        std::iter::once(&self.stem)
            .chain(
                self.blocks
                    .iter()
                    .flat_map(|block| [&block.first, &block.second]),
            )
            .chain([&self.policy, &self.policy_pool, &self.value])
    }

    fn conv_bn_layers_mut(&mut self) -> impl Iterator<Item = &mut ConvBn> {
        std::iter::once(&mut self.stem)
            .chain(
                self.blocks
                    .iter_mut()
                    .flat_map(|block| [&mut block.first, &mut block.second]),
            )
            .chain([&mut self.policy, &mut self.policy_pool, &mut self.value])
    }

    /// Whether [`Self::fold_batch_norm`] made this an inference-only network
    /// (it folds every layer, the stem included).
    pub fn is_folded(&self) -> bool {
        self.stem.folded.is_some()
    }

    /// The network as inference runs it: batch norm folded
    /// ([`Self::fold_batch_norm`]), and every weight and feature map in the
    /// number format `precision` gives on this network's device. Inputs are
    /// converted on the way in; [`Self::forward_packed`]'s output is in that
    /// format too ([`crate::run_packed`] returns 32-bit floats either way).
    pub fn for_inference(self, precision: Precision) -> PolicyValueNet {
        let net = self.fold_batch_norm();
        let kind = precision.kind_on(net.device());
        net.with_kind(kind)
    }

    fn with_kind(mut self, kind: Kind) -> PolicyValueNet {
        if kind != self.kind() {
            self.vars.set_kind(kind);
            for layer in self.conv_bn_layers_mut() {
                if let Some((weight, bias)) = &mut layer.folded {
                    *weight = weight.to_kind(kind);
                    *bias = bias.to_kind(kind);
                }
            }
            self.mask = self.mask.to_kind(kind);
        }
        self
    }

    /// An independent copy on the same device, in the same form (folded or
    /// not, the same number format): for a second inference worker, since a
    /// network is not `Sync`.
    pub fn replica(&self) -> Result<PolicyValueNet, NetError> {
        let mut copy = PolicyValueNet::new(&self.config, self.device())?.with_kind(self.kind());
        copy.copy_values_from(self)?;
        let originals: Vec<_> = self.conv_bn_layers().map(|layer| &layer.folded).collect();
        for (layer, folded) in copy.conv_bn_layers_mut().zip(originals) {
            layer.folded = folded
                .as_ref()
                .map(|(weight, bias)| (weight.copy(), bias.copy()));
        }
        Ok(copy)
    }

    /// The number format the network computes in: 32-bit floats unless
    /// [`Self::for_inference`] chose another.
    pub fn kind(&self) -> Kind {
        self.mask.kind()
    }

    /// Number of trainable parameters.
    pub fn parameter_count(&self) -> usize {
        self.vars
            .trainable_variables()
            .iter()
            .map(|tensor| tensor.numel())
            .sum()
    }

    /// Mean and max over the hexagon of non-negative, masked features:
    /// `[batch, 2 * channels]`. Written without any size taken from the input,
    /// so that a traced module accepts any batch size.
    fn pool(features: &Tensor) -> Tensor {
        let mean = features.sum_dim_intlist([2i64, 3].as_slice(), false, features.kind())
            / CELL_COUNT as f64;
        let max = features.amax([2i64, 3].as_slice(), false);
        Tensor::cat(&[mean, max], 1)
    }

    /// The three heads: policy logits `[batch, 1734]`, WDL logits
    /// `[batch, 3]`, marble difference `[batch, 1]` (after `tanh`); for the
    /// general game policy logits `[batch, 2916]`, value logits `[batch,
    /// MAX_SIDES + 1]` and each relative seat's marbles pushed off / 6
    /// `[batch, 6]` (after a sigmoid). See [`GameKind`].
    ///
    /// With `train` false (batch norm in evaluation mode) intermediate
    /// tensors are updated in place, so call it under `tch::no_grad`, as
    /// [`Self::forward_packed`] does; nothing can be backpropagated then.
    pub fn forward_heads(&self, input: &Tensor, train: bool) -> (Tensor, Tensor, Tensor) {
        // ReLU, then zero the points off the hexagon. Out of training the
        // tensors are updated in place (fewer allocations: about 10% faster
        // on a small CPU); training keeps them, since backward needs them.
        let activate = |features: Tensor| {
            if train {
                features.relu() * &self.mask
            } else {
                let mut features = features;
                let _ = features.relu_();
                let _ = features.g_mul_(&self.mask);
                features
            }
        };
        let input = channels_last(&input.to_kind(self.kind()));
        let mut x = activate(self.stem.forward(&input, train));
        for block in &self.blocks {
            let y = activate(block.first.forward(&x, train));
            let mut y = block.second.forward(&y, train);
            x = if train {
                activate(x + y)
            } else {
                let _ = y.g_add_(&x);
                activate(y)
            };
        }
        let pooled = Self::pool(&activate(self.policy_pool.forward(&x, train)));
        let bias = self
            .policy_pool_bias
            .forward(&pooled)
            .unsqueeze(-1)
            .unsqueeze(-1);
        let policy = activate(self.policy.forward(&x, train) + bias);
        let policy = self
            .policy_out
            .forward(&policy)
            .flatten(1, -1)
            .index_select(1, &self.gather);
        let value = activate(self.value.forward(&x, train));
        let hidden = self.value_hidden.forward(&Self::pool(&value)).relu();
        let wdl = self.value_wdl.forward(&hidden);
        let aux = self.value_aux.forward(&hidden);
        let aux = match self.config.game {
            GameKind::TwoPlayer => aux.tanh(),
            GameKind::General => aux.sigmoid(),
        };
        (policy, wdl, aux)
    }

    /// Inference: the packed output `[batch, PACKED_LEN]` (see the module
    /// documentation), without gradients, batch norm in evaluation mode.
    pub fn forward_packed(&self, input: &Tensor) -> Tensor {
        tch::no_grad(|| self.forward_packed_traceable(input))
    }

    /// [`Self::forward_packed`] without the `no_grad` wrapper, for tracing.
    pub(crate) fn forward_packed_traceable(&self, input: &Tensor) -> Tensor {
        let (policy, wdl, aux) = self.forward_heads(input, false);
        Tensor::cat(&[policy, wdl, aux], 1)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A network small enough for fast tests.
    pub(crate) fn tiny_config() -> ModelConfig {
        ModelConfig {
            blocks: 2,
            channels: 16,
            policy_channels: 8,
            value_channels: 8,
            value_hidden: 16,
            game: GameKind::TwoPlayer,
            push_off_planes: false,
        }
    }

    #[test]
    fn channels_last_keeps_values_and_stores_channels_innermost() {
        let tensor = Tensor::rand([2, 3, 4, 5], (Kind::Float, Device::Cpu));
        let converted = channels_last(&tensor);
        assert_eq!(converted.size(), tensor.size());
        assert_eq!(converted.stride(), [4 * 5 * 3, 1, 5 * 3, 3]);
        assert!(converted.equal(&tensor));
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        assert_eq!(net.stem.conv.ws.stride()[1], 1, "weights are channels-last");
    }

    #[test]
    fn every_move_of_the_general_game_owns_its_own_policy_logit() {
        let index = GameKind::General.policy_gather_index();
        let slots: HashSet<i64> = index.iter().copied().collect();
        assert_eq!(slots.len(), GENERAL_POLICY_LEN);
        assert!(
            slots
                .iter()
                .all(|&slot| (slot as usize) < GENERAL_POLICY_CELL_CHANNELS * GRID_POINTS)
        );
        // The group moves keep the two-player game's slots, and every
        // channel is used.
        assert_eq!(&index[..POLICY_LEN], policy_gather_index());
        let channels: HashSet<i64> = index
            .iter()
            .map(|&slot| slot / GRID_POINTS as i64)
            .collect();
        assert_eq!(channels.len(), GENERAL_POLICY_CELL_CHANNELS);
    }

    #[test]
    fn a_general_game_network_has_its_shapes() {
        let config = ModelConfig {
            game: GameKind::General,
            ..tiny_config()
        };
        let net = PolicyValueNet::new(&config, Device::Cpu).unwrap();
        let input = Tensor::rand(
            [
                3,
                config.shape().input_planes() as i64,
                GRID as i64,
                GRID as i64,
            ],
            (Kind::Float, Device::Cpu),
        );
        let (policy, value, aux) = tch::no_grad(|| net.forward_heads(&input, false));
        assert_eq!(policy.size(), [3, GENERAL_POLICY_LEN as i64]);
        assert_eq!(value.size(), [3, GENERAL_VALUE_LEN as i64]);
        assert_eq!(aux.size(), [3, MAX_SEATS as i64]);
        let aux = Vec::<f32>::try_from(aux.flatten(0, -1)).unwrap();
        assert!(aux.iter().all(|&x| (0.0..=1.0).contains(&x)));
        let packed = net.forward_packed(&input);
        assert_eq!(packed.size(), [3, config.game.packed_len() as i64]);
        assert_eq!(config.game.packed_len(), 2916 + 6 + 6);
        assert_eq!(GameKind::TwoPlayer.packed_len(), PACKED_LEN);
        assert_eq!(GameKind::TwoPlayer.packed_aux(), PACKED_AUX);
        assert_eq!(GameKind::TwoPlayer.packed_value(), PACKED_WDL);
    }

    #[test]
    fn every_action_owns_its_own_policy_logit() {
        let slots: HashSet<i64> = policy_gather_index().iter().copied().collect();
        assert_eq!(slots.len(), POLICY_LEN);
        assert!(
            slots
                .iter()
                .all(|&slot| (slot as usize) < POLICY_CELL_CHANNELS * GRID_POINTS)
        );
    }

    /// A network with random statistics and affine parameters everywhere (a
    /// fresh net's are 0 and 1, which would hide a wrong fold).
    fn randomised_net() -> PolicyValueNet {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        tch::no_grad(|| {
            for (name, mut variable) in net.vars().variables() {
                let noise = Tensor::rand_like(&variable) + 0.5;
                let noise = if name.contains("running_mean") || name.ends_with("norm.bias") {
                    noise - 1.0
                } else {
                    noise
                };
                variable.copy_(&noise);
            }
        });
        net
    }

    fn random_input(batch: i64) -> Tensor {
        Tensor::rand(
            [batch, INPUT_PLANES as i64, GRID as i64, GRID as i64],
            (Kind::Float, Device::Cpu),
        )
    }

    #[test]
    fn folding_batch_norm_keeps_the_outputs() {
        let net = randomised_net();
        let input = random_input(7);
        let expected = net.forward_packed(&input);
        let folded = net.fold_batch_norm();
        assert!(folded.is_folded());
        let actual = folded.forward_packed(&input);
        let difference = (&actual - &expected).abs().max().double_value(&[]);
        let size = expected.abs().max().double_value(&[]);
        assert!(difference <= 1e-4 * size.max(1.0), "{difference} vs {size}");
        assert!(
            difference > 0.0 || size == 0.0,
            "the folded path was not taken"
        );
        let refused = crate::Trainer::new(folded, &crate::config::NetTrainingConfig::default());
        assert!(matches!(refused, Err(NetError::FoldedNetwork)));
    }

    #[test]
    fn a_replica_computes_exactly_what_its_original_does() {
        let input = random_input(5);
        for precision in [Precision::F32, Precision::Bf16] {
            let original = randomised_net();
            let plain = original.replica().unwrap();
            let expected = original.forward_packed(&input);
            assert!(!plain.is_folded());
            assert!(plain.forward_packed(&input).equal(&expected));
            let fast = original.for_inference(precision);
            let copy = fast.replica().unwrap();
            assert!(copy.is_folded());
            assert_eq!(copy.kind(), fast.kind());
            assert!(
                copy.forward_packed(&input)
                    .equal(&fast.forward_packed(&input))
            );
        }
        // Independent: changing the copy leaves the original as it was.
        let original = randomised_net();
        let expected = original.forward_packed(&input);
        let copy = original.replica().unwrap();
        tch::no_grad(|| {
            for (_, mut variable) in copy.vars().variables() {
                let _ = variable.zero_();
            }
        });
        assert!(!copy.forward_packed(&input).equal(&expected));
        assert!(original.forward_packed(&input).equal(&expected));
    }

    #[test]
    fn bfloat16_inference_stays_close_to_f32() {
        tch::manual_seed(3);
        // Trained-like scales: default weights, batch norms near identity.
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        tch::no_grad(|| {
            for (name, mut variable) in net.vars().variables() {
                let noise = Tensor::rand_like(&variable) - 0.5;
                if name.contains("running_var") || name.ends_with("norm.weight") {
                    variable.copy_(&(noise + 1.0));
                } else if name.contains("norm") {
                    variable.copy_(&noise);
                }
            }
        });
        let input = random_input(9);
        let expected = net.forward_packed(&input);
        let fast = net.for_inference(Precision::Bf16);
        assert_eq!(fast.kind(), Kind::BFloat16);
        assert!(fast.is_folded());
        let actual = fast.forward_packed(&input).to_kind(Kind::Float);
        assert_eq!(actual.size(), expected.size());
        // Policy logits: within 3 % of their range.
        let policy = |t: &Tensor| t.narrow(1, 0, POLICY_LEN as i64);
        let difference = (policy(&actual) - policy(&expected)).abs().max();
        let range = policy(&expected).abs().max();
        let (difference, range) = (difference.double_value(&[]), range.double_value(&[]));
        assert!(difference <= 0.03 * range, "{difference} vs {range}");
        assert!(difference > 0.0, "bfloat16 rounds somewhere");
        // Win/draw/loss probabilities: within 0.03.
        let wdl = |t: &Tensor| t.narrow(1, PACKED_WDL as i64, 3).softmax(1, Kind::Float);
        let difference = (wdl(&actual) - wdl(&expected))
            .abs()
            .max()
            .double_value(&[]);
        assert!(difference <= 0.03, "{difference}");

        let dir = crate::fsutil::fresh_test_path("bf16-save");
        let refused = fast.save_checkpoint(&dir, 0, None);
        assert!(
            matches!(refused, Err(NetError::FoldedNetwork)),
            "{refused:?}"
        );
        assert!(!dir.exists(), "nothing is written");
    }

    #[test]
    fn precision_resolves_per_device() {
        let native = crate::config::cpu_has_native_bf16();
        let auto = Precision::Auto.kind_on(Device::Cpu);
        assert_eq!(auto == Kind::BFloat16, native);
        assert_eq!(Precision::Auto.kind_on(Device::Cuda(0)), Kind::Float);
        assert_eq!(Precision::F32.kind_on(Device::Cpu), Kind::Float);
        assert_eq!(Precision::Bf16.kind_on(Device::Cpu), Kind::BFloat16);
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        assert_eq!(net.for_inference(Precision::F32).kind(), Kind::Float);
    }

    #[test]
    fn forward_shapes_and_packed_layout() {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let input = Tensor::rand(
            [5, INPUT_PLANES as i64, GRID as i64, GRID as i64],
            (Kind::Float, Device::Cpu),
        );
        let (policy, wdl, aux) = net.forward_heads(&input, false);
        assert_eq!(policy.size(), [5, POLICY_LEN as i64]);
        assert_eq!(wdl.size(), [5, 3]);
        assert_eq!(aux.size(), [5, 1]);
        let packed = net.forward_packed(&input);
        assert_eq!(packed.size(), [5, PACKED_LEN as i64]);
        let packed_policy = packed.narrow(1, 0, POLICY_LEN as i64);
        assert!(packed_policy.allclose(&policy, 0.0, 0.0, false));
        assert!(
            packed
                .narrow(1, PACKED_WDL as i64, 3)
                .allclose(&wdl, 0.0, 0.0, false)
        );
        assert!(
            packed
                .narrow(1, PACKED_AUX as i64, 1)
                .allclose(&aux, 0.0, 0.0, false)
        );
        assert!(net.parameter_count() > 10_000);
    }
}
