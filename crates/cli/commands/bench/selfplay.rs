//! The options of `sumito bench selfplay` (run by `sumito-torch`:
//! `network/bench/selfplay.rs` and `network/bench/selfplay_instant.rs`).

use clap::Args as ClapArgs;

#[derive(Debug, Default, ClapArgs)]
pub struct Args {
    /// Only the CPU side (the network replaced by an instant answer),
    /// without the measurement of the quick network.
    #[arg(long)]
    pub instant: bool,
    /// The CPU side's scaling is measured from 1 to N threads [default: the
    /// cores this process may run on].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub scale_to: Option<u64>,
    /// A fixed amount of work instead of a time: the CPU side plays, on
    /// every thread, N games of the same seeds to their end, once
    /// (repeatable, for profilers such as `valgrind --tool=callgrind`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub games: Option<u64>,
    /// Number format of the network (auto, f32 or bf16), in place of the
    /// quick config's (auto); `sumito bench net` measures both.
    #[arg(long, value_name = "PRECISION", conflicts_with = "instant")]
    pub precision: Option<String>,
}
