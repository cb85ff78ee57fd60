//! The arguments of `sumito analyse`: what a model's search thinks of a
//! position or of every position of a game. `sumito-torch` runs it
//! (`network/analyse.rs`).

use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::play::parse_seconds;
use super::source::SourceArgs;

#[derive(Debug, ClapArgs)]
#[command(
    mut_arg("fen", |arg| arg.help(
        "The position to analyse, in the text format (default: the start of \
         the Standard layout, or for a model of the general game the start of \
         the first layout it learned on). It is analysed under the model's \
         training rules; a model of the general game reads the general \
         game's text (holes, neutral marbles, more players)."
    )),
    mut_arg("record", |arg| arg.help(
        "A game record: the value after each move, under the record's rules \
         (for a model of the general game, a record saved by `sumito play` of \
         that game)."
    )),
)]
pub struct Args {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The model bundle: a folder, or a name under models/ (default: the
    /// shipped model, models/quick).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Simulations per position (`--sims` is the same).
    #[arg(long, alias = "sims", default_value_t = 800, value_parser = clap::value_parser!(u32).range(1..=10_000_000), conflicts_with = "time_per_position")]
    pub simulations: u32,
    /// Search each position for this many seconds instead.
    #[arg(long, value_parser = parse_seconds)]
    pub time_per_position: Option<std::time::Duration>,
    /// How many moves to list for a position.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Torch device: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Cores the search uses: that many copies of the network evaluate its
    /// leaves side by side (8 leaves a thread) [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: Option<u32>,
}
