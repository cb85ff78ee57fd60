//! `sumito analyze`: what a model's search thinks of a position (its value
//! and top moves with visits, Q and prior) or of every position of a game
//! (arguments: `sumito_cli::commands::analyze`).

use std::time::Instant;

use anyhow::Context;
use sumito_cli::commands::analyze::Args;
use sumito_cli::commands::source::Source;
use sumito_engine::{Layout, Position};
use sumito_play::analysis::{analyse_game, format_game, format_position, record_under_rules};
use sumito_play::network::SearchBudget;

use sumito_arena::variant_record::VariantRecord;
use sumito_bundle::bundle::ModelBundle;
use sumito_engine::rules_table::RulesTable;
use sumito_engine::variant::{VariantLayout, VariantPosition};

use super::play::{model_search, open_model, search_device};

pub fn run(args: Args) -> anyhow::Result<()> {
    let bundle = open_model(args.model.as_deref());
    let budget = match args.time_per_position {
        Some(time) => SearchBudget::Time(time),
        None => SearchBudget::Simulations(args.simulations),
    };
    if let Ok(bundle) = &bundle
        && bundle.is_general()
    {
        return run_general(&args, bundle, budget);
    }
    // The position or record first: a mistake there is answered before the
    // model is loaded.
    let source = match args.source.read() {
        Ok(source) => source,
        // A record of the general game reads as a bad two-player record:
        // the reason is the model.
        Err(err) => match &args.source.record {
            Some(path) if VariantRecord::read(path).is_ok() => anyhow::bail!(
                "{}: a record of the general game (variants or 3-6 players), which {} cannot judge: it is a two-player model; analyse the game with a model of the general game (--model NAME_OR_DIR)",
                path.display(),
                match &bundle {
                    Ok(bundle) => bundle.meta.name.clone(),
                    Err(_) => "the model".to_string(),
                }
            ),
            _ => return Err(err),
        },
    };
    let bundle = bundle?;
    let mut search = model_search(&bundle, budget, 0, &args.device, args.threads)?;
    eprintln!("{}", bundle.summary());
    let position = match source {
        Source::Record { record, path } => {
            // The model judges under its training rules only.
            let (record, note) = record_under_rules(&record, bundle.meta.rules())
                .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            if let Some(note) = note {
                eprintln!("note: {}: {note}", path.display());
            }
            let started = Instant::now();
            let reports = analyse_game(
                &mut search,
                &record.positions(),
                &record.moves,
                &mut |_, _| {},
            )
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

/// A position of the general game given as text, read under `table` (the
/// model's rules, for as many players as the text seats).
fn general_position(table: &RulesTable, text: &str) -> anyhow::Result<VariantPosition> {
    let context = || format!("reading the position given by --fen {text:?}");
    let seats = VariantPosition::from_text(text, None)
        .with_context(context)?
        .rules()
        .seating
        .seats();
    let rules = table
        .rules_for_text(seats)
        .with_context(|| format!("{} under the model's rules", context()))?;
    VariantPosition::from_text(text, Some(&rules)).with_context(context)
}

/// `sumito analyze --model M` for a model of the general game: a position
/// given as the general game's text (default: the start of the first layout
/// the model learned on), or every position of a general game record; with
/// the budget, device and threads of the two-player game's analysis.
fn run_general(args: &Args, bundle: &ModelBundle, budget: SearchBudget) -> anyhow::Result<()> {
    let table = bundle
        .meta
        .general()
        .cloned()
        .context("the bundle has no rules of the general game")?;
    // The positions first: a mistake there is answered before the model loads.
    let positions: Vec<VariantPosition> = if let Some(text) = &args.source.fen {
        vec![general_position(&table, text)?]
    } else if let Some(path) = &args.source.record {
        let record = VariantRecord::read(path)?;
        record
            .positions()
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("replaying {}", path.display()))?
    } else {
        let first = bundle
            .meta
            .general_layouts()
            .first()
            .cloned()
            .unwrap_or_else(|| "standard".to_owned());
        let layout = VariantLayout::from_name(&first)
            .with_context(|| format!("the model's first layout {first:?}"))?;
        vec![table.start(layout)?]
    };
    let device = search_device(&args.device)?;
    let mut search = bundle.general_search(budget, 0, device, args.threads.unwrap_or(1))?;
    eprintln!("{}", bundle.summary());
    let whole_game = positions.len() > 1;
    for (ply, position) in positions.iter().enumerate() {
        if whole_game {
            println!("ply {ply}:");
        }
        if let Some(result) = position.describe_outcome() {
            if !whole_game {
                anyhow::bail!(
                    "the game is over in that position ({result}); there is nothing to analyse"
                );
            }
            println!("game over: {result}");
            continue;
        }
        let analysis = search
            .analyse(position, None)
            .context("searching the position")?;
        print!("{}", format_position(position, &analysis, args.top));
    }
    Ok(())
}
