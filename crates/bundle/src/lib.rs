//! Exported models. A bundle is one self-contained folder per trained model:
//! what `sumito export` writes from a run and what `sumito play --model`,
//! `sumito analyse` and `bundle:` arena players load, verified.
//!
//! A bundle's network reaches play only through the `mcts::Evaluator` and
//! arena's `Player`: `sumito-play` (the terminal session and the analysis)
//! knows nothing of torch or bundles, so that the light `sumito` binary
//! plays classical opponents without loading libtorch.

pub mod arena_player;
pub mod bundle;
pub mod error;
pub mod export;
pub mod load;
pub mod meta;
pub mod onnx;
