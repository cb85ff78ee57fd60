//! The arguments of `sumito review`: a game reviewed move by move by a
//! model, as lichess and KaTrain do (`sumito_play::review`), written as a
//! table or JSON, an SVG graph and an HTML report, and replayed as
//! exercises (`--learn`). `sumito-torch` runs it (`network/review.rs`).

use std::path::PathBuf;

use clap::Args as ClapArgs;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The game record to review, as `sumito play` saves it or a match
    /// writes it (either game, with a model of that game). It is judged
    /// under the model's training rules; a match's random opening moves
    /// are shown but not judged.
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
    /// Print the review as JSON (with what was reviewed: model,
    /// simulations, players, result, layout, date) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the expected score through the game, its phases,
    /// push-offs, inaccuracies, mistakes and blunders marked, as SVG into
    /// FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write the review as one self-contained HTML page into FILE:
    /// the graph (click a point to go there), the key moments, every judged
    /// move with its reason and the better line drawn on the board, and
    /// next/previous mistake.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// After the review, learn from the mistakes: each mistake and blunder
    /// of your side is set again, and you look for a better move, which
    /// the model judges.
    #[arg(long, conflicts_with = "json")]
    pub learn: bool,
    /// Whose mistakes --learn sets: a side as the review names it (black,
    /// white, red, black+red...), given once per side [default: the seats
    /// a person played, `human` in the record, else every side].
    #[arg(long = "side", value_name = "SIDE", requires = "learn")]
    pub sides: Vec<String>,
    /// With --learn, keep Black at the bottom when you learn White's
    /// moves (by default the board is turned half round).
    #[arg(long, requires = "learn")]
    pub no_flip: bool,
    /// Do not draw a progress bar (`--quiet` is the same).
    #[arg(long = "no-progress", alias = "quiet")]
    pub quiet: bool,
}
