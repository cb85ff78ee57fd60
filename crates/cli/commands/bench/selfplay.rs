//! The options of `sumito bench selfplay` (run by `sumito-torch`:
//! `network/bench/selfplay.rs` and `network/bench/selfplay_instant.rs`).

use clap::Args as ClapArgs;

#[derive(Debug, Default, ClapArgs)]
#[group(id = "selfplay")]
pub struct Args {
    /// `selfplay`: only the CPU side (the network replaced by an instant
    /// answer), without the measurement of the quick network.
    #[arg(long)]
    pub instant: bool,
    /// `selfplay`: the CPU side's scaling is measured from 1 to N threads
    /// [default: the cores this process may run on].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub scale_to: Option<u64>,
    /// `selfplay`: a fixed amount of work instead of a time: the CPU side
    /// plays, on every thread, N games of the same seeds to their end, once
    /// (repeatable, for profilers such as `valgrind --tool=callgrind`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub games: Option<u64>,
}

impl Args {
    /// Whether any option of this part is given (they are refused elsewhere).
    pub fn any_given(&self) -> bool {
        self.instant || self.scale_to.is_some() || self.games.is_some()
    }
}
