//! The policy-value network on libtorch (through `tch`).
//!
//! * [`encoding`]: positions → input planes seen by the side to move, engine
//!   actions ⇄ policy indices, and the 12 hexagon symmetries on both.
//! * [`model`]: the residual network ([`PolicyValueNet`]) with policy, WDL
//!   value and marble-difference heads; `for_inference` folds batch norm and
//!   converts it to the configured [`Precision`] (bf16 on CPUs that have it).
//! * [`config`]: [`NetConfig`] presets (`configs/net-*.toml`), devices, torch
//!   threads.
//! * Evaluation: [`DirectEvaluator`] (same thread, for callers that batch by
//!   themselves) and the batched [`InferenceService`] (many threads), both
//!   [`PositionEvaluator`]s and `sumito_mcts::Evaluator`s for
//!   `sumito_game::AbaloneGame` (module `search`).
//! * [`train`]: [`TrainingSample`], [`Trainer::train_step`].
//! * [`checkpoint`]: safetensors weights + optimiser state + JSON metadata,
//!   written atomically, checked on load.
//! * [`export`]: TorchScript for play ([`TorchScriptModel`]).
//! * [`onnx`]: the network as an ONNX graph with its metadata, for
//!   runtimes without libtorch (the protobuf messages in `onnx_proto`).
//! * [`InstantEvaluator`]: everything of an evaluator but the network, whose
//!   answer is instant (`sumito bench selfplay`'s CPU side).
//! * [`bench_support`]: the inputs that the speed measurements feed the
//!   network (criterion bench and `sumito bench net`), and the plain
//!   reference ResNet they compare it with.
//! * `cuda_checks` (tests only): GPU tests, ignored unless run by
//!   `scripts/check-gpu.sh` on a machine with a GPU.
//!
//! libtorch comes from `scripts/setup-libtorch.sh`; see the README section
//! "libtorch and GPU".

pub mod bench_support;
pub mod checkpoint;
pub mod config;
#[cfg(test)]
mod cuda_checks;
pub mod encoding;
mod error;
mod evaluate;
pub mod export;
mod fsutil;
pub mod general_encoding;
pub mod general_search;
pub mod general_train;
mod grow;
mod instant;
pub mod model;
mod net_board;
pub mod onnx;
mod onnx_proto;
mod search;
mod service;
pub mod train;

pub use checkpoint::{CheckpointMeta, RulesMeta, read_checkpoint_meta};
pub use config::{
    DeviceSpec, InferenceConfig, LrSchedule, ModelConfig, NetConfig, NetShape, NetTrainingConfig,
    OptimizerKind, Precision, SymmetryMode, ThreadsConfig, configure_threads, intra_op_threads,
};
pub use encoding::{ENCODING_VERSION, policy_index, symmetries_for};
pub use error::NetError;
pub use evaluate::{DirectEvaluator, NetOutput, PackedModel, PositionEvaluator, run_packed};
pub use export::{ExportMeta, TorchScriptModel};
pub use general_train::GeneralTrainingSample;
pub use instant::InstantEvaluator;
pub use model::PolicyValueNet;
pub use net_board::{NetBoard, NetGame, NetworkForward};
pub use search::ServiceEvaluator;
pub use service::{InferenceClient, InferenceService, ServiceStats};
pub use train::{Sample, TrainMetrics, Trainer, TrainingSample};

/// The torch device type, re-exported so that callers need not depend on
/// `tch` themselves.
pub use tch::Device;

use sumito_engine::CELL_COUNT;
