//! `sumito review RECORD`: every position of a game searched by a model,
//! then each move judged (`sumito_play::review`): a table or JSON on
//! standard output, the graph as SVG with `--svg`.

use std::path::Path;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use sumito_arena::record::{GameRecord, write_atomic};
use sumito_arena::variant_record::VariantRecord;
use sumito_cli::commands::review::Args;
use sumito_engine::Move;
use sumito_play::analysis::{analyse_game, record_under_rules};
use sumito_play::network::SearchBudget;
use sumito_play::review::{Judgement, Phase, Review, render_review_svg, review};

use super::play::{model_search, open_model};

pub fn run(args: Args) -> anyhow::Result<()> {
    // The record first: a mistake there is answered before the model loads.
    let path = args.record.as_path();
    let record = match GameRecord::read(path) {
        Ok(record) => record,
        Err(err) if VariantRecord::read(path).is_ok() => {
            return Err(anyhow::Error::new(err).context(format!(
                "{}: a record of the general game (variants or 3-6 players): review takes two-player games so far",
                path.display()
            )));
        }
        Err(err) => return Err(err.into()),
    };
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    if bundle.is_general() {
        anyhow::bail!(
            "{}: a model of the general game; review takes two-player models so far",
            bundle.dir.display()
        );
    }
    let (record, note) = record_under_rules(&record, bundle.meta.rules())
        .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
    if let Some(note) = note {
        eprintln!("note: {}: {note}", path.display());
    }
    let budget = SearchBudget::Simulations(args.simulations);
    let mut search = model_search(&bundle, budget, 0, &args.device, args.threads)?;
    eprintln!("{}", bundle.summary());
    let bar = ProgressBar::with_draw_target(
        Some(record.moves.len() as u64 + 1),
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
    let reports = analyse_game(&mut search, &record, &mut |done, _| {
        bar.set_position(done as u64)
    })
    .with_context(|| format!("analysing {}", path.display()))?;
    bar.finish_and_clear();
    let review = review(&reports);
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

fn line_json(line: &[Move]) -> Vec<String> {
    line.iter().map(Move::to_string).collect()
}

/// The review as JSON: every move, Black's expected score at every
/// position, and each side's summary.
fn review_json(review: &Review) -> serde_json::Value {
    let moves: Vec<serde_json::Value> = review
        .moves
        .iter()
        .map(|mv| {
            json!({
                "ply": mv.ply,
                "color": mv.color.to_string(),
                "move": mv.played.to_string(),
                "before": mv.before,
                "after": mv.after,
                "loss": mv.loss,
                "judgement": mv.judgement.map(Judgement::name),
                "better": mv.better.as_ref().map(|(best, line)| json!({
                    "move": best.to_string(),
                    "line": line_json(line),
                })),
            })
        })
        .collect();
    let side = |index: usize| {
        let side = &review.sides[index];
        let phases: serde_json::Map<String, serde_json::Value> = Phase::ALL
            .iter()
            .map(|&phase| {
                let [inaccuracies, mistakes, blunders] = side.judgements[phase as usize];
                (
                    phase.name().to_string(),
                    json!({"inaccuracies": inaccuracies, "mistakes": mistakes, "blunders": blunders}),
                )
            })
            .collect();
        json!({
            "moves": side.moves,
            "accuracy": side.accuracy,
            "mean_loss": side.mean_loss,
            "inaccuracies": side.count(Judgement::Inaccuracy),
            "mistakes": side.count(Judgement::Mistake),
            "blunders": side.count(Judgement::Blunder),
            "by_phase": phases,
        })
    };
    json!({
        "moves": moves,
        "black_expected_score": review.black_score,
        "black": side(0),
        "white": side(1),
    })
}
