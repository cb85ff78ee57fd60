//! `sumito analyze`: what a model's search thinks of a position (its value
//! and top moves with visits, Q and prior) or of every position of a game
//! (arguments: `sumito_cli::commands::analyze`), in the model's game: what
//! to analyse is read for the model's game, then analysed by one generic
//! path ([`analyse_target`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use sumito_arena::record::AnyRecord;
use sumito_arena::record::GameRecord;
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::analyze::Args;
use sumito_cli::commands::source::Source;
use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Layout, Position};
use sumito_game::ChoicePosition;
use sumito_play::analysis::{
    analyse_game, format_game, format_position, general_rules_note, record_under_rules,
};
use sumito_play::network::{NetworkSearch, SearchBudget};

use super::play::{model_search, open_model, search_device};

/// What `analyze` looks at: one position, or every position of a game.
enum Target<B: ChoicePosition> {
    Position(B),
    Game {
        positions: Vec<B>,
        moves: Vec<B::Move>,
        path: PathBuf,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bundle = open_model(args.model.as_deref());
    let budget = match args.time_per_position {
        Some(time) => SearchBudget::Time(time),
        None => SearchBudget::Simulations(args.simulations),
    };
    if let Ok(bundle) = &bundle
        && bundle.is_general()
    {
        // The positions first: a mistake there is answered before the
        // model loads.
        let target = general_target(&args, bundle)?;
        let device = search_device(&args.device)?;
        let mut search = bundle.general_search(budget, 0, device, args.threads.unwrap_or(1))?;
        eprintln!("{}", bundle.summary());
        return analyse_target(&mut search, target, args.top);
    }
    // The position or record first: a mistake there is answered before the
    // model is loaded.
    let source = match args.source.read() {
        Ok(source) => source,
        // A record of the general game reads as a bad two-player record:
        // the reason is the model.
        Err(err) => match &args.source.record {
            Some(path) if matches!(AnyRecord::read(path), Ok(AnyRecord::General(_))) => {
                anyhow::bail!(
                    "{}: a record of the general game (variants or 3-6 players), which {} cannot judge: it is a two-player model; analyse the game with a model of the general game (--model NAME_OR_DIR)",
                    path.display(),
                    match &bundle {
                        Ok(bundle) => bundle.meta.name.clone(),
                        Err(_) => "the model".to_string(),
                    }
                )
            }
            _ => return Err(err),
        },
    };
    let bundle = bundle?;
    let rules = bundle.meta.rules();
    let target = match source {
        Source::Record { record, path } => {
            // The model judges under its training rules only.
            let (record, note) = record_under_rules(&record, rules)
                .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            if let Some(note) = note {
                eprintln!("note: {}: {note}", path.display());
            }
            Target::Game {
                positions: record
                    .positions()
                    .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?,
                moves: record.moves,
                path: path.to_path_buf(),
            }
        }
        Source::Position { position, .. } => Target::Position(position.with_rules(rules)),
        Source::Neither => Target::Position(Position::start(Layout::Standard, rules)),
    };
    let mut search = model_search(&bundle, budget, 0, &args.device, args.threads)?;
    eprintln!("{}", bundle.summary());
    analyse_target(&mut search, target, args.top)
}

/// Analyses `target` with `search` and prints the report: a position's
/// value and `top` moves, or a game's table.
fn analyse_target<B: ChoicePosition>(
    search: &mut NetworkSearch<B>,
    target: Target<B>,
    top: usize,
) -> anyhow::Result<()> {
    match target {
        Target::Position(position) => {
            if let Some(result) = position.result_text() {
                anyhow::bail!(
                    "the game is over in that position ({result}); there is nothing to analyse"
                );
            }
            let analysis = search
                .analyse(&position, None)
                .context("searching the position")?;
            print!("{}", format_position(&position, &analysis, top));
        }
        Target::Game {
            positions,
            moves,
            path,
        } => {
            let started = Instant::now();
            let reports = analyse_game(search, &positions, &moves, &mut |_, _| {})
                .with_context(|| format!("analysing {}", path.display()))?;
            print!(
                "{}",
                format_game(&positions[0], &reports, started.elapsed())
            );
        }
    }
    Ok(())
}

/// What to analyse with a model of the general game: a position given as
/// the general game's text, every position of a general game record (under
/// the model's rules), or the start of the first layout it learned on.
fn general_target(args: &Args, bundle: &ModelBundle) -> anyhow::Result<Target<GeneralPosition>> {
    let table = bundle
        .meta
        .general()
        .cloned()
        .context("the bundle has no rules of the general game")?;
    if let Some(text) = &args.source.fen {
        return Ok(Target::Position(general_position(&table, text)?));
    }
    if let Some(path) = &args.source.record {
        // A two-player record reads as a bad general one: the reason is the
        // model.
        let record = match AnyRecord::read(path)? {
            AnyRecord::General(record) => *record,
            AnyRecord::TwoPlayer(_) => anyhow::bail!(
                "{}: a record of the two-player game, which {} cannot judge: it is a model of the general game; analyse the game with a two-player model (--model quick)",
                path.display(),
                bundle.meta.name
            ),
        };
        // The model judges under its own rules only.
        if let Some(note) = general_rules_note(&record.rules, &table) {
            eprintln!("note: {}: {note}", path.display());
        }
        let record = GameRecord {
            rules: table,
            ..record
        };
        let positions = record
            .positions()
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("replaying {} under the model's rules", path.display()))?;
        return Ok(Target::Game {
            positions,
            moves: record.moves,
            path: path.clone(),
        });
    }
    Ok(Target::Position(first_layout_start(bundle, &table)?))
}

/// The start of the first layout a model of the general game learned on,
/// under its rules `table`.
pub fn first_layout_start(
    bundle: &ModelBundle,
    table: &RulesTable,
) -> anyhow::Result<GeneralPosition> {
    let first = bundle
        .meta
        .general_layouts()
        .first()
        .cloned()
        .unwrap_or_else(|| "standard".to_owned());
    let layout = GeneralLayout::from_name(&first)
        .with_context(|| format!("the model's first layout {first:?}"))?;
    Ok(table.start(layout)?)
}

/// A position of the general game given as text, read under `table` (the
/// model's rules, for as many players as the text seats).
pub fn general_position(table: &RulesTable, text: &str) -> anyhow::Result<GeneralPosition> {
    table
        .position_from_text(text)
        .map_err(anyhow::Error::msg)
        .with_context(|| {
            format!("reading the position given by --fen {text:?} under the model's rules")
        })
}
