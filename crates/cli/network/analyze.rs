//! `sumito analyze`: what a model's search thinks of a position (its value
//! and top moves with visits, Q and prior) or of every position of a game
//! (arguments: `sumito_cli::commands::analyze`).

use std::time::Instant;

use anyhow::Context;
use sumito_cli::commands::analyze::Args;
use sumito_cli::commands::source::Source;
use sumito_engine::{Layout, Position};
use sumito_play::analysis::{analyse_game, format_game, format_position};
use sumito_play::network::SearchBudget;

use super::play::load_model;

pub fn run(args: Args) -> anyhow::Result<()> {
    let budget = match args.time_per_position {
        Some(time) => SearchBudget::Time(time),
        None => SearchBudget::Simulations(args.sims),
    };
    // The position or record first: a mistake there is answered before the
    // model is loaded.
    let source = args.source.read()?;
    let (bundle, mut search) =
        load_model(args.model.as_deref(), budget, 0, &args.device, args.threads)?;
    eprintln!("{}", bundle.summary());
    let position = match source {
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
