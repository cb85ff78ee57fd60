//! The arguments of `sumito review`: a game reviewed move by move by a
//! model, as lichess and KaTrain do (`sumito_play::review`). `sumito-torch`
//! runs it (`network/review.rs`).

use std::path::PathBuf;

use clap::Args as ClapArgs;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The game record to review, as `sumito play` saves it or a match
    /// writes it (either game, with a model of that game). It is judged
    /// under the model's training rules.
    pub record: PathBuf,
    /// The model bundle: a folder, or a name under models/ (default: the
    /// shipped model, models/quick).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Simulations per position (`--sims` is the same).
    #[arg(long, alias = "sims", default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub simulations: u32,
    /// Torch device: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Cores the search uses [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: Option<u32>,
    /// Print the review as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the expected score through the game, its inaccuracies,
    /// mistakes and blunders marked, as SVG into FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Do not draw a progress bar (`--quiet` is the same).
    #[arg(long = "no-progress", alias = "quiet")]
    pub quiet: bool,
}
