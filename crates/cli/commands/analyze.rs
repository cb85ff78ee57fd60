//! `sumito analyze`: what a model's search thinks of a position (its value
//! and top moves with visits, Q and prior) or of every position of a game.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args as ClapArgs;
use sumito_engine::{Layout, Position};
use sumito_play::analysis::{analyse_game, format_game, format_position};
use sumito_play::network::SearchBudget;

use super::play::{load_model, parse_seconds};
use super::source::{Source, SourceArgs};

#[derive(Debug, ClapArgs)]
#[command(
    mut_arg("fen", |arg| arg.help(
        "The position to analyse, in the text format (default: the start of \
         the Standard layout). It is analysed under the model's training rules."
    )),
    mut_arg("record", |arg| arg.help(
        "A game record: the value after each move, under the record's rules."
    )),
)]
pub struct Args {
    #[command(flatten)]
    source: SourceArgs,
    /// The model bundle: a folder, or a name under models/ (default: the
    /// shipped model, models/quick).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Simulations per position.
    #[arg(long, default_value_t = 800, value_parser = clap::value_parser!(u32).range(1..=10_000_000), conflicts_with = "time_per_position")]
    sims: u32,
    /// Search each position for this many seconds instead.
    #[arg(long, value_parser = parse_seconds)]
    time_per_position: Option<std::time::Duration>,
    /// How many moves to list for a position.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Torch device: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    device: String,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let budget = match args.time_per_position {
        Some(time) => SearchBudget::Time(time),
        None => SearchBudget::Simulations(args.sims),
    };
    let (bundle, mut search) = load_model(args.model.as_deref(), budget, 0, &args.device)?;
    eprintln!("{}", bundle.summary());
    let position = match args.source.read()? {
        Source::Record { record, path } => {
            let started = Instant::now();
            let reports = analyse_game(&mut search, &record)
                .with_context(|| format!("analysing {}", path.display()))?;
            print!("{}", format_game(&reports, started.elapsed()));
            return Ok(());
        }
        Source::Position { position, .. } => position,
        Source::Neither => Position::start(Layout::Standard, bundle.meta.rules()),
    }
    .with_rules(bundle.meta.rules());
    if let Some((outcome, reason)) = position.outcome() {
        anyhow::bail!(
            "the game is over in that position ({outcome}: {reason}); there is nothing to analyse"
        );
    }
    let analysis = search
        .analyse(&position, None)
        .context("searching the position")?;
    print!("{}", format_position(&position, &analysis, args.top));
    Ok(())
}
