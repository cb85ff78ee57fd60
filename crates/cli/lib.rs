//! The command line of `sumito`, without libtorch: what both binaries of the
//! root package share.
//!
//! - `sumito` (`main.rs`) parses every command line, runs the commands that
//!   need no network itself (perft, moves, render, classical play and arena,
//!   the engine and search benchmarks) and hands the rest to `sumito-torch`,
//!   as git hands `git <verb>` to `git-<verb>`.
//! - `sumito-torch` (`sumito_torch.rs`, with the network commands in
//!   `network/`) links libtorch and runs the commands that use a network.
//!
//! So a light command never loads libtorch, and a network command loads it
//! once, with the OpenMP settings in its environment from the start.

pub mod cli;
pub mod commands;
pub mod handoff;
pub mod openmp;
