//! The training pipeline: self-play with the current best model, a replay
//! store over the newest games, training, candidate checkpoints, gating and
//! rating, all kept in one run directory that several processes (and
//! machines) can share.

pub mod config;
pub use sumito_store::crc;
pub mod curve;
pub mod error;
pub mod evaluation;
pub mod fsutil;
pub mod matches;
pub mod models;
pub mod players;
pub mod ratings;
pub mod replay;
pub mod run;
pub mod run_board;
pub mod rundir;
pub mod selfplay;
pub mod starts;
pub mod stop;
pub mod tensorboard;
pub mod trainer;
pub mod uploader;
pub mod value_target;

/// A whole run on an object store (in the library's tests, so that it runs
/// beside the other tests of the crate instead of alone in a binary of its
/// own).
#[cfg(test)]
mod object_store_run_tests;
