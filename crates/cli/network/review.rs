//! `sumito review RECORD`: every position of a game searched by a model,
//! then each move judged (`sumito_play::review`): a table or JSON on
//! standard output, the graph as SVG with `--svg`.

use std::path::Path;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_arena::record::write_atomic;
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::command_board::CommandBoard;
use sumito_cli::commands::review::Args;
use sumito_game::Board;
use sumito_game::with_board;
use sumito_net::NetBoard;
use sumito_play::analysis::analyse_game;
use sumito_play::review::{Review, render_review_svg, review, review_json};

use super::model_game::{model_table, positions_of, record_for_model};
use super::play::{open_model, search_device};

pub fn run(args: Args) -> anyhow::Result<()> {
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    // The one choice of game: the model's.
    let review = with_board!(bundle.meta.kind(), review_with(&args, &bundle))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&review_json(&review))?);
    } else {
        print!("{}", sumito_play::review::format_review(&review));
    }
    if let Some(out) = &args.svg {
        write_svg(out, &review, &args.record)?;
    }
    Ok(())
}

/// The review of the record by the model `bundle` of game `B`, under the
/// rules it learned.
fn review_with<B: NetBoard + CommandBoard>(
    args: &Args,
    bundle: &ModelBundle,
) -> anyhow::Result<Review> {
    // The record first: a mistake there is answered before the network loads.
    let path = args.record.as_path();
    let table = model_table::<B>(bundle)?;
    let record = record_for_model::<B>(path, bundle, &table)?;
    let positions = positions_of(&record, path)?;
    let device = search_device(&args.device)?;
    let budget = SearchBudget::Simulations(args.simulations);
    let mut search = bundle.search::<B>(budget, 0, device, args.threads.unwrap_or(1))?;
    eprintln!("{}", bundle.summary());
    reviewed(args, &mut search, &positions, &record.moves)
}

/// Every position of a game searched (with a progress bar unless quiet),
/// then reviewed.
fn reviewed<B: Board>(
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
