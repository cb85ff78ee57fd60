//! The training pipeline: self-play with the current best model, a replay
//! store over the newest games, training, candidate checkpoints, gating and
//! rating, all kept in one run directory that several processes (and
//! machines) can share.

pub mod crc;
pub mod fsutil;
pub mod replay;
pub mod rundir;
pub mod tensorboard;
