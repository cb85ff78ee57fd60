//! The network's configuration: architecture, inference batching, training
//! hyper-parameters and torch threads. Presets live in `configs/net-*.toml`.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Mutex;
use sumito_game::GameKind;

use serde::{Deserialize, Serialize};

use crate::NetError;

/// A whole network preset (`configs/net-small.toml`, `configs/net-large.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    pub model: ModelConfig,
    #[serde(default)]
    pub inference: InferenceConfig,
    #[serde(default)]
    pub training: NetTrainingConfig,
    #[serde(default)]
    pub threads: ThreadsConfig,
}

/// The shape of the residual network. Everything a checkpoint needs to
/// rebuild the same network; stored in its metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Residual blocks in the trunk (two 3×3 convolutions each).
    pub blocks: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Channels of the policy head (and of its global-pooling branch).
    pub policy_channels: usize,
    /// Channels of the value head before global pooling.
    pub value_channels: usize,
    /// Width of the value head's hidden fully-connected layer.
    pub value_hidden: usize,
    /// The game the network plays, which fixes its inputs and outputs;
    /// chosen from the rules by whoever builds the network, not in presets.
    #[serde(default, skip_serializing_if = "GameKind::is_two_player")]
    pub game: GameKind,
    /// Two more input planes: the opponent's marbles the mover can push off
    /// with one move, and the mover's marbles the opponent could push off if
    /// it were its turn (`crate::encoding`, version 2). Two-player game only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub push_off_planes: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// What a network reads and writes: its game (which fixes the outputs and
/// the basic input planes) and whether it also reads the push-off planes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NetShape {
    pub game: GameKind,
    pub push_off_planes: bool,
}

impl From<GameKind> for NetShape {
    fn from(game: GameKind) -> Self {
        NetShape {
            game,
            push_off_planes: false,
        }
    }
}

/// Where inference runs and how requests of many threads are batched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InferenceConfig {
    /// `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceSpec,
    /// The inference service runs a forward pass once it holds this many
    /// positions (a single larger request still runs whole).
    pub max_batch: usize,
    /// How long the service waits for more requests after the first one of a
    /// batch, in milliseconds (it stops waiting early when every client is
    /// waiting for it).
    pub max_wait_ms: f64,
    /// Averaging over the hexagon's symmetries at inference.
    pub symmetry: SymmetryMode,
    /// Number format of inference (training is always 32-bit).
    pub precision: Precision,
}

impl Default for InferenceConfig {
    fn default() -> Self {
        InferenceConfig {
            device: DeviceSpec::Cpu,
            max_batch: 64,
            max_wait_ms: 1.0,
            symmetry: SymmetryMode::None,
            precision: Precision::Auto,
        }
    }
}

/// The number format an inference network computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    /// `bf16` on a CPU that computes bfloat16 natively (x86 with AVX-512
    /// BF16), `f32` everywhere else (a CUDA device included, until bfloat16
    /// there is measured).
    Auto,
    /// 32-bit floats.
    F32,
    /// bfloat16 weights and feature maps: about twice the speed of `f32` on a
    /// CPU with AVX-512 BF16 (`sumito bench net`), outputs within about 1 %
    /// of `f32`'s. Elsewhere libtorch emulates bfloat16, which `auto` avoids.
    Bf16,
}

impl Precision {
    /// The libtorch kind this precision computes in on `device`.
    pub fn kind_on(self, device: tch::Device) -> tch::Kind {
        match self {
            Precision::F32 => tch::Kind::Float,
            Precision::Bf16 => tch::Kind::BFloat16,
            Precision::Auto if device == tch::Device::Cpu && cpu_has_native_bf16() => {
                tch::Kind::BFloat16
            }
            Precision::Auto => tch::Kind::Float,
        }
    }
}

impl Precision {
    /// The names `FromStr` accepts (and configuration files use).
    pub const NAMES: &'static str = "auto, f32 or bf16";

    /// `F32` or `Bf16`: what this precision computes in on `device`.
    pub fn resolved(self, device: tch::Device) -> Precision {
        match self.kind_on(device) {
            tch::Kind::BFloat16 => Precision::Bf16,
            _ => Precision::F32,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Auto => "auto",
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
        })
    }
}

impl FromStr for Precision {
    type Err = String;

    fn from_str(name: &str) -> Result<Precision, String> {
        match name {
            "auto" => Ok(Precision::Auto),
            "f32" => Ok(Precision::F32),
            "bf16" => Ok(Precision::Bf16),
            other => Err(format!(
                "unknown precision `{other}`: expected {}",
                Precision::NAMES
            )),
        }
    }
}

/// Whether this CPU has bfloat16 dot-product instructions, which oneDNN's
/// bfloat16 convolutions use.
pub fn cpu_has_native_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// How the hexagon's symmetries are used at inference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SymmetryMode {
    /// Evaluate each position as it is (deterministic).
    None,
    /// Evaluate each position under one symmetry drawn at random (among those
    /// its rules allow), mapped back.
    Random,
    /// Evaluate every allowed symmetry and average (policy probabilities,
    /// WDL probabilities and marble difference); up to 12 times the work.
    All,
}

/// Optimisation settings of the training step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetTrainingConfig {
    /// Samples per training step (the pipeline draws batches of this size).
    pub batch_size: usize,
    pub optimizer: OptimizerKind,
    /// Peak learning rate (after warm-up).
    pub learning_rate: f64,
    pub schedule: LrSchedule,
    /// Steps of linear warm-up from 0 to `learning_rate`.
    pub warmup_steps: u64,
    /// `cosine`: the step at which the rate reaches
    /// `learning_rate * final_lr_fraction` (and stays).
    pub total_steps: u64,
    pub final_lr_fraction: f64,
    /// Decoupled weight decay (AdamW) or L2 added to the gradient (SGD), on
    /// convolution and linear weights only (not on biases or batch norm).
    pub weight_decay: f64,
    /// SGD momentum (Nesterov).
    pub momentum: f64,
    pub adam_beta1: f64,
    pub adam_beta2: f64,
    pub adam_epsilon: f64,
    /// Gradients are scaled down to this global L2 norm; 0 turns it off.
    pub grad_clip_norm: f64,
    /// Weight of the WDL cross-entropy against the policy cross-entropy.
    pub value_loss_weight: f64,
    /// Weight of the marble-difference regression.
    pub aux_loss_weight: f64,
}

impl Default for NetTrainingConfig {
    fn default() -> Self {
        NetTrainingConfig {
            batch_size: 256,
            optimizer: OptimizerKind::AdamW,
            learning_rate: 1e-3,
            schedule: LrSchedule::Cosine,
            warmup_steps: 200,
            total_steps: 100_000,
            final_lr_fraction: 0.05,
            weight_decay: 1e-4,
            momentum: 0.9,
            adam_beta1: 0.9,
            adam_beta2: 0.999,
            adam_epsilon: 1e-8,
            grad_clip_norm: 5.0,
            value_loss_weight: 1.0,
            aux_loss_weight: 0.25,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptimizerKind {
    /// Adam with decoupled weight decay.
    #[serde(rename = "adamw")]
    AdamW,
    /// SGD with Nesterov momentum.
    Sgd,
}

impl OptimizerKind {
    pub fn name(self) -> &'static str {
        match self {
            OptimizerKind::AdamW => "adamw",
            OptimizerKind::Sgd => "sgd",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LrSchedule {
    /// `learning_rate` after warm-up.
    Constant,
    /// Half a cosine from `learning_rate` down to
    /// `learning_rate * final_lr_fraction` at `total_steps`.
    Cosine,
}

/// libtorch's thread pools. They are process-wide, so the first
/// [`configure_threads`] call of a process decides the inter-op pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThreadsConfig {
    /// Threads inside one operation (convolutions); 0 = one per core.
    pub intra_op: usize,
    /// Threads running independent operations in parallel; 0 = libtorch's
    /// default. This program runs no such graphs, so 1 is plenty.
    pub inter_op: usize,
}

impl Default for ThreadsConfig {
    fn default() -> Self {
        ThreadsConfig {
            intra_op: 0,
            inter_op: 1,
        }
    }
}

/// Where tensors live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceSpec {
    #[default]
    Cpu,
    Cuda(usize),
}

impl FromStr for DeviceSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(DeviceSpec::Cpu),
            "cuda" | "gpu" => Ok(DeviceSpec::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|index| index.parse().ok())
                .map(DeviceSpec::Cuda)
                .ok_or_else(|| format!("unknown device '{text}' (expected cpu, cuda or cuda:N)")),
        }
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Cpu => write!(f, "cpu"),
            DeviceSpec::Cuda(index) => write!(f, "cuda:{index}"),
        }
    }
}

impl Serialize for DeviceSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DeviceSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl DeviceSpec {
    /// The torch device, after checking that it can be used: asking for CUDA
    /// on a machine or build without it is an error, never a silent fallback
    /// to the CPU.
    pub fn resolve(self) -> Result<tch::Device, NetError> {
        match self {
            DeviceSpec::Cpu => Ok(tch::Device::Cpu),
            DeviceSpec::Cuda(index) => {
                let unavailable = |reason: String| NetError::DeviceUnavailable {
                    requested: self.to_string(),
                    reason,
                };
                if !tch::Cuda::is_available() {
                    let reason = if cfg!(feature = "cuda") {
                        "libtorch finds no usable CUDA device (no GPU, no NVIDIA driver, \
                         or a CPU-only libtorch in LIBTORCH)"
                    } else {
                        "this program was built without CUDA support: rebuild with \
                         `--features cuda` against a CUDA libtorch (README, \"libtorch and GPU\")"
                    };
                    return Err(unavailable(reason.to_owned()));
                }
                let count = tch::Cuda::device_count() as usize;
                if index >= count {
                    return Err(unavailable(format!("only {count} CUDA device(s) exist")));
                }
                Ok(tch::Device::Cuda(index))
            }
        }
    }
}

/// The presets of `configs/`, built into the program: (name, TOML text).
pub const PRESETS: [(&str, &str); 2] = [
    ("small", include_str!("../../../configs/net-small.toml")),
    ("large", include_str!("../../../configs/net-large.toml")),
];

impl NetConfig {
    /// A built-in preset by name (`small`: 6 × 64 for a CPU, `large`:
    /// 15 × 192 for a GPU).
    pub fn preset(name: &str) -> Result<NetConfig, NetError> {
        let (_, text) = PRESETS
            .iter()
            .find(|(preset, _)| *preset == name)
            .ok_or_else(|| NetError::Config {
                key: "preset",
                problem: format!("'{name}' is unknown (expected small or large)"),
            })?;
        NetConfig::from_toml(text)
    }

    /// Reads and validates a preset; errors name the file, line and key.
    pub fn load(path: &Path) -> Result<NetConfig, NetError> {
        let text = std::fs::read_to_string(path).map_err(NetError::io(path))?;
        NetConfig::from_toml(&text).map_err(|err| match err {
            NetError::ConfigFile { message, .. } => NetError::ConfigFile {
                path: path.to_owned(),
                message,
            },
            other => NetError::ConfigFile {
                path: path.to_owned(),
                message: other.to_string(),
            },
        })
    }

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<NetConfig, NetError> {
        let config: NetConfig = toml::from_str(text).map_err(|err| NetError::ConfigFile {
            path: "<text>".into(),
            message: err.to_string().trim_end().to_owned(),
        })?;
        config.validate()?;
        Ok(config)
    }

    pub fn validate(&self) -> Result<(), NetError> {
        self.model.validate()?;
        self.inference.validate()?;
        self.training.validate()
    }
}

fn invalid(key: &'static str, problem: impl Into<String>) -> NetError {
    NetError::Config {
        key,
        problem: problem.into(),
    }
}

fn check_range(
    key: &'static str,
    value: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<(), NetError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(invalid(
            key,
            format!(
                "is {value}, must be between {} and {}",
                range.start(),
                range.end()
            ),
        ))
    }
}

impl ModelConfig {
    /// Whether `wanted` is this network with the push-off planes added and
    /// nothing else changed: the one change of a network a run takes
    /// ([`crate::checkpoint::add_push_off_planes`]).
    pub fn gains_push_off_planes(&self, wanted: &ModelConfig) -> bool {
        !self.push_off_planes
            && wanted.push_off_planes
            && *wanted
                == ModelConfig {
                    push_off_planes: true,
                    ..*self
                }
    }

    pub fn validate(&self) -> Result<(), NetError> {
        check_range("model.blocks", self.blocks, 1..=64)?;
        check_range("model.channels", self.channels, 1..=1024)?;
        check_range("model.policy_channels", self.policy_channels, 1..=1024)?;
        check_range("model.value_channels", self.value_channels, 1..=1024)?;
        check_range("model.value_hidden", self.value_hidden, 1..=4096)?;
        if self.push_off_planes && self.game == GameKind::General {
            return Err(invalid(
                "model.push_off_planes",
                "is for the two-player game; the general game's network has no push-off planes"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// Its inputs and outputs.
    pub fn shape(&self) -> NetShape {
        NetShape {
            game: self.game,
            push_off_planes: self.push_off_planes,
        }
    }
}

impl fmt::Display for ModelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} blocks × {} channels (policy head {}, value head {}→{})",
            self.blocks,
            self.channels,
            self.policy_channels,
            self.value_channels,
            self.value_hidden
        )?;
        match self.game {
            GameKind::TwoPlayer => Ok(()),
            GameKind::General => write!(f, ", for the general game"),
        }?;
        if self.push_off_planes {
            write!(f, ", with push-off planes")?;
        }
        Ok(())
    }
}

impl InferenceConfig {
    pub fn validate(&self) -> Result<(), NetError> {
        check_range("inference.max_batch", self.max_batch, 1..=65_536)?;
        if !(0.0..=1000.0).contains(&self.max_wait_ms) {
            return Err(invalid(
                "inference.max_wait_ms",
                format!("is {}, must be between 0 and 1000", self.max_wait_ms),
            ));
        }
        Ok(())
    }
}

fn check_positive(key: &'static str, value: f64) -> Result<(), NetError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(invalid(key, format!("is {value}, must be > 0")))
    }
}

fn check_unit(key: &'static str, value: f64) -> Result<(), NetError> {
    if (0.0..1.0).contains(&value) {
        Ok(())
    } else {
        Err(invalid(key, format!("is {value}, must be in [0, 1)")))
    }
}

fn check_non_negative(key: &'static str, value: f64) -> Result<(), NetError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(key, format!("is {value}, must be >= 0")))
    }
}

impl NetTrainingConfig {
    pub fn validate(&self) -> Result<(), NetError> {
        check_range("training.batch_size", self.batch_size, 1..=65_536)?;
        check_positive("training.learning_rate", self.learning_rate)?;
        check_non_negative("training.weight_decay", self.weight_decay)?;
        check_unit("training.momentum", self.momentum)?;
        check_unit("training.adam_beta1", self.adam_beta1)?;
        check_unit("training.adam_beta2", self.adam_beta2)?;
        check_positive("training.adam_epsilon", self.adam_epsilon)?;
        check_non_negative("training.grad_clip_norm", self.grad_clip_norm)?;
        check_non_negative("training.value_loss_weight", self.value_loss_weight)?;
        check_non_negative("training.aux_loss_weight", self.aux_loss_weight)?;
        if !(0.0..=1.0).contains(&self.final_lr_fraction) {
            return Err(invalid(
                "training.final_lr_fraction",
                format!("is {}, must be in [0, 1]", self.final_lr_fraction),
            ));
        }
        match self.schedule {
            LrSchedule::Cosine if self.total_steps <= self.warmup_steps => Err(invalid(
                "training.total_steps",
                format!(
                    "is {}, must exceed warmup_steps ({}) for the cosine schedule",
                    self.total_steps, self.warmup_steps
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The learning rate of optimiser step `step` (counting from 0).
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match self.schedule {
            LrSchedule::Constant => self.learning_rate,
            LrSchedule::Cosine => {
                let span = self.total_steps.saturating_sub(self.warmup_steps).max(1) as f64;
                let progress = ((step - self.warmup_steps) as f64 / span).min(1.0);
                let floor = self.learning_rate * self.final_lr_fraction;
                floor
                    + (self.learning_rate - floor)
                        * 0.5
                        * (1.0 + (std::f64::consts::PI * progress).cos())
            }
        }
    }
}

/// Threads libtorch uses inside one operation (as set by [`configure_threads`]).
pub fn intra_op_threads() -> usize {
    usize::try_from(tch::get_num_threads()).unwrap_or(1)
}

/// The inter-op pool size the first call of this process asked for.
static INTER_OP_THREADS: Mutex<Option<usize>> = Mutex::new(None);

/// Applies `config` to libtorch's thread pools. Call it early, before the
/// first forward pass: libtorch fixes its inter-op pool once it has been used,
/// so a later call asking for a different inter-op size is an error.
pub fn configure_threads(config: &ThreadsConfig) -> Result<(), NetError> {
    let intra_op = match config.intra_op {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    tch::set_num_threads(i32::try_from(intra_op).unwrap_or(i32::MAX));
    let mut inter_op = INTER_OP_THREADS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match *inter_op {
        None => {
            if config.inter_op > 0 {
                tch::set_num_interop_threads(i32::try_from(config.inter_op).unwrap_or(i32::MAX));
            }
            *inter_op = Some(config.inter_op);
            Ok(())
        }
        Some(first) if first == config.inter_op => Ok(()),
        Some(first) => Err(invalid(
            "threads.inter_op",
            format!(
                "is {}, but this process already set libtorch's inter-op pool to {first} \
                 (it can be set only once)",
                config.inter_op
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(name: &str) -> NetConfig {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../configs/{name}"));
        NetConfig::load(&path).unwrap()
    }

    #[test]
    fn presets_load_and_validate() {
        let small = preset("net-small.toml");
        assert_eq!((small.model.blocks, small.model.channels), (6, 64));
        let large = preset("net-large.toml");
        assert_eq!((large.model.blocks, large.model.channels), (15, 192));
        assert_eq!(large.inference.device, DeviceSpec::Cuda(0));
        assert_eq!(NetConfig::preset("small").unwrap(), small);
        assert_eq!(NetConfig::preset("large").unwrap(), large);
        assert!(
            NetConfig::preset("huge")
                .unwrap_err()
                .to_string()
                .contains("'huge' is unknown")
        );
    }

    #[test]
    fn unknown_keys_are_named_with_their_line() {
        let text = "[model]\nblocks = 2\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\nchanels = 3\n";
        let message = NetConfig::from_toml(text).unwrap_err().to_string();
        assert!(message.contains("chanels"), "{message}");
        assert!(message.contains("line 7"), "{message}");
    }

    #[test]
    fn out_of_range_values_name_the_key() {
        let text = "[model]\nblocks = 0\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n";
        let message = NetConfig::from_toml(text).unwrap_err().to_string();
        assert!(message.contains("model.blocks"), "{message}");
        let text = "[model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n[inference]\ndevice = \"tpu\"\n";
        let message = NetConfig::from_toml(text).unwrap_err().to_string();
        assert!(message.contains("unknown device 'tpu'"), "{message}");
    }

    #[test]
    fn device_names_parse_and_print() {
        assert_eq!("cpu".parse(), Ok(DeviceSpec::Cpu));
        assert_eq!("CUDA".parse(), Ok(DeviceSpec::Cuda(0)));
        assert_eq!("cuda:2".parse(), Ok(DeviceSpec::Cuda(2)));
        assert!("cuda:x".parse::<DeviceSpec>().is_err());
        assert_eq!(DeviceSpec::Cuda(1).to_string(), "cuda:1");
    }

    #[test]
    fn precision_names_parse_in_files_and_specs() {
        for precision in [Precision::Auto, Precision::F32, Precision::Bf16] {
            assert_eq!(precision.to_string().parse(), Ok(precision));
            let text = format!(
                "[model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n[inference]\nprecision = \"{precision}\"\n"
            );
            assert_eq!(
                NetConfig::from_toml(&text).unwrap().inference.precision,
                precision
            );
        }
        assert_eq!(InferenceConfig::default().precision, Precision::Auto);
        let message = "fp8".parse::<Precision>().unwrap_err();
        assert!(
            message.contains("`fp8`") && message.contains("bf16"),
            "{message}"
        );
        let text = "[model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n[inference]\nprecision = \"fp8\"\n";
        let message = NetConfig::from_toml(text).unwrap_err().to_string();
        assert!(
            message.contains("fp8") && message.contains("line 8"),
            "{message}"
        );
        assert_eq!(
            Precision::Auto.resolved(tch::Device::Cuda(0)),
            Precision::F32
        );
    }

    #[test]
    fn cuda_request_without_cuda_is_a_clear_error() {
        if tch::Cuda::is_available() {
            return;
        }
        let message = DeviceSpec::Cuda(0).resolve().unwrap_err().to_string();
        assert!(
            message.starts_with("device cuda:0 requested, but"),
            "{message}"
        );
    }

    #[test]
    fn learning_rate_schedules() {
        let mut config = NetTrainingConfig {
            learning_rate: 1.0,
            warmup_steps: 10,
            total_steps: 110,
            final_lr_fraction: 0.1,
            ..NetTrainingConfig::default()
        };
        assert!((config.learning_rate_at(0) - 0.1).abs() < 1e-12);
        assert!((config.learning_rate_at(9) - 1.0).abs() < 1e-12);
        assert!((config.learning_rate_at(10) - 1.0).abs() < 1e-12);
        assert!((config.learning_rate_at(60) - 0.55).abs() < 1e-12);
        assert!((config.learning_rate_at(500) - 0.1).abs() < 1e-12);
        config.schedule = LrSchedule::Constant;
        assert!((config.learning_rate_at(1000) - 1.0).abs() < 1e-12);
    }
}
