//! `sumito review RECORD`: every position of a game searched by a model,
//! then each move judged (`sumito_play::review`): a table or JSON on
//! standard output, the graph as SVG with `--svg`, the HTML report with
//! `--html`, and the mistakes set again as exercises with `--learn`.

use std::io::IsTerminal as _;
use std::path::Path;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_arena::record::{GameRecord, Start, write_atomic};
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::command_board::CommandBoard;
use sumito_cli::commands::review::Args;
use sumito_game::Board;
use sumito_game::board::capitalised;
use sumito_game::with_board;
use sumito_net::NetBoard;
use sumito_play::analysis::{PlyReport, analyse_game};
use sumito_play::board_text::BoardStyle;
use sumito_play::review::{
    LearnView, MoveJudge, ReviewMeta, format_review, learn, render_review_html, render_review_svg,
    review_game, review_json,
};

use super::model_game::{model_table, positions_of, record_for_model};
use super::play::{open_model, search_device};

pub fn run(args: Args) -> anyhow::Result<()> {
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    // The one choice of game: the model's.
    with_board!(bundle.meta.kind(), review_with(&args, &bundle))
}

/// The review of the record by the model `bundle` of game `B`, under the
/// rules it learned, written as asked.
fn review_with<B: NetBoard + CommandBoard>(
    args: &Args,
    bundle: &ModelBundle,
) -> anyhow::Result<()> {
    // The record first: a mistake there is answered before the network loads.
    let path = args.record.as_path();
    let table = model_table::<B>(bundle)?;
    let record = record_for_model::<B>(path, bundle, &table)?;
    let positions = positions_of(&record, path)?;
    let learner = if args.learn {
        Some(learner_sides(args, &record, &positions[0])?)
    } else {
        None
    };
    let device = search_device(&args.device)?;
    let budget = SearchBudget::Simulations(args.simulations);
    let mut search = bundle.search::<B>(budget, 0, device, args.threads.unwrap_or(1))?;
    eprintln!("{}", bundle.summary());
    let reports = analysed(args, &mut search, &positions, &record.moves)?;
    let mut review = review_game(&positions[0], &reports, record.opening_plies as usize);
    review.meta = meta(args, bundle, &record, &positions);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&review_json(&review))?);
    } else {
        print!("{}", format_review(&review));
    }
    let title = format!(
        "Review of {}",
        review.meta.record.as_deref().unwrap_or("the game")
    );
    if let Some(out) = &args.svg {
        write_report(out, render_review_svg(&review, &title).as_bytes())?;
    }
    if let Some(out) = &args.html {
        write_report(
            out,
            render_review_html(&review, &positions, &title).as_bytes(),
        )?;
    }
    if let Some(sides) = learner {
        let mut judge = SearchJudge {
            search: &mut search,
            positions: &positions,
            reports: &reports,
        };
        let no_color = std::env::var("NO_COLOR").ok();
        let stdout = std::io::stdout();
        let style = BoardStyle::detect(stdout.is_terminal(), no_color.as_deref());
        let view = LearnView {
            style,
            labels: &record.players,
            flipped: !args.no_flip && positions[0].seats() == 2 && sides == [1],
        };
        learn(
            &review,
            &positions,
            &sides,
            &mut judge,
            &view,
            std::io::stdin().lock(),
            &mut stdout.lock(),
        )
        .context("learning from the mistakes")?;
    }
    Ok(())
}

/// What the review is of: the record's name, the model and its budget, the
/// players, the result, the layout, and now.
fn meta<B: Board>(
    args: &Args,
    bundle: &ModelBundle,
    record: &GameRecord<B>,
    positions: &[B],
) -> ReviewMeta {
    let path = &args.record;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    ReviewMeta {
        record: Some(name),
        model: Some(bundle.meta.name.clone()),
        simulations: Some(args.simulations),
        players: record.players.clone(),
        result: positions.last().and_then(Board::result_text),
        layout: Some(match &record.start {
            Start::Layout(layout) => B::general_layout(*layout).to_string(),
            Start::Position(_) => "a given position".to_string(),
        }),
        date: Some(humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()),
    }
}

/// The sides whose mistakes `--learn` sets: `--side`'s, else those of the
/// seats people played (`human` in the record), else every side.
fn learner_sides<B: Board>(
    args: &Args,
    record: &GameRecord<B>,
    start: &B,
) -> anyhow::Result<Vec<usize>> {
    let names: Vec<String> = (0..start.sides())
        .map(|side| start.side_name(side))
        .collect();
    if !args.sides.is_empty() {
        return args
            .sides
            .iter()
            .map(|given| {
                names
                    .iter()
                    .position(|name| name.eq_ignore_ascii_case(given.trim()))
                    .with_context(|| {
                        format!(
                            "--side {given:?}: this game's sides are {}",
                            names.join(", ")
                        )
                    })
            })
            .collect();
    }
    let mut people: Vec<usize> = record
        .players
        .iter()
        .enumerate()
        .filter(|(_, player)| *player == "human" || player.starts_with("human:"))
        .map(|(seat, _)| start.side_of(seat))
        .collect();
    people.dedup();
    if people.is_empty() {
        eprintln!(
            "no seat of {} was played by a person: learning from every side's mistakes ({})",
            args.record.display(),
            names
                .iter()
                .map(|name| capitalised(name))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok((0..start.sides()).collect());
    }
    Ok(people)
}

/// The model's judgement of a move tried in an exercise: the review's own
/// search of that position where it visited the move (the scores the
/// review compared), else a search of the position the move leads to.
struct SearchJudge<'a, B: Board> {
    search: &'a mut NetworkSearch<B>,
    positions: &'a [B],
    reports: &'a [PlyReport<B>],
}

impl<B: Board> MoveJudge<B> for SearchJudge<'_, B> {
    fn score_after(&mut self, position: &B, mv: B::Move) -> Result<f32, String> {
        let side = position.mover_side();
        let searched = self
            .positions
            .iter()
            .position(|known| known == position)
            .and_then(|index| self.reports.get(index))
            .and_then(|report| report.move_values.iter().find(|(m, _)| *m == mv));
        if let Some(&(_, q)) = searched {
            return Ok(50.0 * (1.0 + q));
        }
        let after = position.play(mv);
        if let Some(result) = after.result_for(side) {
            return Ok(50.0 * (1.0 + result));
        }
        let analysis = self
            .search
            .analyse(&after, None)
            .map_err(|err| err.to_string())?;
        let value = analysis.side_values.get(side).copied().unwrap_or(0.0);
        Ok(50.0 * (1.0 + value))
    }
}

/// Every position of a game searched (with a progress bar unless quiet).
fn analysed<B: Board>(
    args: &Args,
    search: &mut NetworkSearch<B>,
    positions: &[B],
    moves: &[B::Move],
) -> anyhow::Result<Vec<PlyReport<B>>> {
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
    Ok(reports)
}

/// Writes a report file atomically, making its folder first.
fn write_report(out: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(folder) = out.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("creating the folder {}", folder.display()))?;
    }
    write_atomic(out, bytes).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
