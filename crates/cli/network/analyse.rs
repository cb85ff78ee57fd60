//! `sumito analyse`: what a model's search thinks of a position (its value
//! and top moves with visits, Q and prior) or of every position of a game
//! (arguments: `sumito_cli::commands::analyse`), in the model's game: what
//! to analyse is read for the model's game, then analysed by one generic
//! path ([`analyse_target`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::analyse::Args;
use sumito_cli::commands::command_board::{CommandBoard, first_layout, position_given, start_of};
use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;
use sumito_engine::rules_table::RulesTable;
use sumito_game::Board;
use sumito_game::with_board;
use sumito_net::NetBoard;
use sumito_play::analysis::{analyse_game, format_game, format_position};

use super::model_game::{model_table, positions_of, record_for_model};
use super::play::{open_model, search_device};

/// What `analyse` looks at: one position, or every position of a game.
enum Target<B: Board> {
    Position(B),
    Game {
        positions: Vec<B>,
        moves: Vec<B::Move>,
        path: PathBuf,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bundle = match open_model(args.model.as_deref()) {
        Ok(bundle) => bundle,
        Err(err) => {
            // A position that reads in neither game is the first mistake to
            // mend: it is named before the missing model.
            if let Some(text) = &args.source.fen {
                let plain = RulesTable::default();
                if let Err(bad) = position_given::<Position>(text, &plain)
                    && position_given::<GeneralPosition>(text, &plain).is_err()
                {
                    return Err(bad);
                }
            }
            return Err(err.context("loading the model"));
        }
    };
    // The one choice of game: the model's.
    with_board!(bundle.meta.kind(), analyse(&args, &bundle))
}

/// `analyse` with the model `bundle` of game `B`, under the rules it
/// learned: the position of --fen, every position of --record, or the start
/// of the first layout it learned.
fn analyse<B: NetBoard + CommandBoard>(args: &Args, bundle: &ModelBundle) -> anyhow::Result<()> {
    let table = model_table::<B>(bundle)?;
    // The positions first: a mistake there is answered before the network
    // loads.
    let target = match (&args.source.fen, &args.source.record) {
        (Some(text), _) => Target::Position(position_given::<B>(text, &table)?),
        (None, Some(path)) => {
            let record = record_for_model::<B>(path, bundle, &table)?;
            Target::Game {
                positions: positions_of(&record, path)?,
                moves: record.moves,
                path: path.clone(),
            }
        }
        (None, None) => {
            Target::Position(start_of(first_layout(&bundle.meta.name, &table)?, &table)?)
        }
    };
    let budget = match args.time_per_position {
        Some(time) => SearchBudget::Time(time),
        None => SearchBudget::Simulations(args.simulations),
    };
    let device = search_device(&args.device)?;
    let mut search = bundle.search::<B>(budget, 0, device, args.threads.unwrap_or(1))?;
    eprintln!("{}", bundle.summary());
    analyse_target(&mut search, target, args.top)
}

/// Analyses `target` with `search` and prints the report: a position's
/// value and `top` moves, or a game's table.
fn analyse_target<B: Board>(
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
