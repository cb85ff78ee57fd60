//! `sumito review RECORD`: every position of a game searched by a model,
//! then each move judged (`sumito_play::review`): a table or JSON on
//! standard output, the graph as SVG with `--svg`.

use std::path::Path;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sumito_arena::record::GameRecord;
use sumito_arena::record::{AnyRecord, write_atomic};
use sumito_cli::commands::review::Args;
use sumito_game::ChoicePosition;
use sumito_play::analysis::{analyse_game, general_rules_note, record_under_rules};
use sumito_play::network::{NetworkSearch, SearchBudget};
use sumito_play::review::{Review, render_review_svg, review, review_json};

use super::play::{model_search, open_model, search_device};

pub fn run(args: Args) -> anyhow::Result<()> {
    // The record first: a mistake there is answered before the model loads.
    let path = args.record.as_path();
    let record = AnyRecord::read(path)?;
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    let budget = SearchBudget::Simulations(args.simulations);
    let review = match record {
        AnyRecord::TwoPlayer(record) => {
            bundle.require_two_player(
                "review a game of the general game with it (this record is a two-player game)",
            )?;
            let (record, note) = record_under_rules(&record, bundle.meta.rules())
                .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            if let Some(note) = note {
                eprintln!("note: {}: {note}", path.display());
            }
            let mut search = model_search(&bundle, budget, 0, &args.device, args.threads)?;
            eprintln!("{}", bundle.summary());
            let positions = record
                .positions()
                .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            reviewed(&args, &mut search, &positions, &record.moves)?
        }
        AnyRecord::General(record) => {
            bundle.require_general(
                "review a two-player game with it (this record is a game of the general game)",
            )?;
            let table = bundle
                .meta
                .general()
                .cloned()
                .context("the bundle has no rules of the general game")?;
            // The model judges under its own rules only.
            let replayed = GameRecord {
                rules: table.clone(),
                ..(*record).clone()
            };
            if let Some(note) = general_rules_note(&record.rules, &table) {
                eprintln!("note: {}: {note}", path.display());
            }
            let positions = replayed.positions().map_err(|why| {
                anyhow::anyhow!("{}: under the model's rules: {why}", path.display())
            })?;
            let device = search_device(&args.device)?;
            let mut search = bundle.general_search(budget, 0, device, args.threads.unwrap_or(1))?;
            eprintln!("{}", bundle.summary());
            reviewed(&args, &mut search, &positions, &replayed.moves)?
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&review_json(&review))?);
    } else {
        print!("{}", sumito_play::review::format_review(&review));
    }
    if let Some(out) = &args.svg {
        write_svg(out, &review, path)?;
    }
    Ok(())
}

/// Every position of a game searched (with a progress bar unless quiet),
/// then reviewed.
fn reviewed<B: ChoicePosition>(
    args: &Args,
    search: &mut NetworkSearch<B>,
    positions: &[B],
    moves: &[B::Move],
) -> anyhow::Result<Review> {
    let path = args.record.as_path();
    let bar = ProgressBar::with_draw_target(
        Some(positions.len() as u64),
        if args.quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("reviewing {bar:30} {pos}/{len} positions, {eta} left")
            .expect("a valid template"),
    );
    let reports = analyse_game(search, positions, moves, &mut |done, _| {
        bar.set_position(done as u64)
    })
    .with_context(|| format!("analysing {}", path.display()))?;
    bar.finish_and_clear();
    let start = positions.first().context("a game has a start")?;
    Ok(review(start, &reports))
}

fn write_svg(out: &Path, review: &Review, record: &Path) -> anyhow::Result<()> {
    if let Some(folder) = out.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("creating the folder {}", folder.display()))?;
    }
    let name = record.file_name().map_or_else(
        || record.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let title = format!("Review of {name}");
    write_atomic(out, render_review_svg(review, &title).as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
