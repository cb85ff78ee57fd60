//! `sumito play` against a model: loads the bundle and plays the session of
//! `sumito_cli::commands::play` with the model's search as the opponent.

use std::path::Path;

use anyhow::Context;
use sumito_arena::player::Player;
use sumito_arena::players::network::SearchBudget;
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::command_board::CommandBoard;
use sumito_cli::commands::play::{Args, Model, run_classical, run_game};
use sumito_game::with_board;
use sumito_game::{GameKind, Level};
use sumito_net::NetBoard;
use sumito_net::{Device, DeviceSpec, ThreadsConfig, configure_threads};

use super::arena::NETWORK_PLAYERS;

/// Finds and opens (verifies) the bundle `given`, or the shipped one.
pub fn open_model(given: Option<&Path>) -> anyhow::Result<ModelBundle> {
    let program = std::env::current_exe().ok();
    let folders = model_folders(
        program.as_deref(),
        std::env::var_os("SUMITO_MODELS").map(Into::into),
    );
    Ok(ModelBundle::open(&locate_bundle(given, &folders)?)?)
}

/// The device of `--device` for a model's search, with torch's threads set
/// up for play (one search's threads are its own: see `--threads`).
pub fn search_device(device: &str) -> anyhow::Result<Device> {
    let device = device
        .parse::<DeviceSpec>()
        .map_err(anyhow::Error::msg)?
        .resolve()?;
    configure_threads(&ThreadsConfig::default())?;
    Ok(device)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.model.is_none() && !args.plays_shipped_model() {
        // No --model: the seats' players, networks among them.
        return run_classical(args, &NETWORK_PLAYERS);
    }
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    println!("{}", bundle.summary());
    if bundle.meta.kind().is_two_player() && args.wants_general_game() {
        // Variants and more players need a model trained on them.
        let given = args.model.as_deref().unwrap_or(Path::new(""));
        let problem = bundle
            .require_game(
                GameKind::General,
                "the many-player games and the variants need a model trained on them",
            )
            .unwrap_err();
        anyhow::bail!("--model {}: {problem}", given.display());
    }
    // The one choice of game: the model's.
    with_board!(bundle.meta.kind(), run_model(&args, &bundle))
}

/// How the board names a model at a strength level.
fn level_label(model: &str, level: Level) -> String {
    format!("{model} (level {}, {})", level.number, level.name)
}

/// `sumito play --model M`: the game it learned, under its rules, the
/// model at every seat but yours (or at the `--seat model` seats), each seat
/// its own search of `--simulations` simulations or `--time-per-move` a
/// move (or of `--level`), on `--device` with `--threads` cores.
fn run_model<B>(args: &Args, bundle: &ModelBundle) -> anyhow::Result<()>
where
    B: NetBoard + CommandBoard,
{
    let table = B::rules_table(&bundle.trained_rules::<B>()?);
    let budget = args.model_budget();
    let effort = match budget {
        SearchBudget::Simulations(simulations) => format!("{simulations} simulations"),
        SearchBudget::Time(time) => format!("{:.1} s a move", time.as_secs_f64()),
    };
    let device = search_device(&args.device)?;
    let level = args.model_level()?;
    let label = match level {
        Some(level) => level_label(&bundle.meta.name, level),
        None => format!("{} ({effort})", bundle.meta.name),
    };
    let threads = args.threads.unwrap_or(1);
    let make = |seed: u64| -> anyhow::Result<Box<dyn Player<B>>> {
        let mut search = bundle
            .search::<B>(budget, seed, device, threads)?
            .named(label.clone());
        if let Some(level) = level {
            search = search.with_level(level);
        }
        Ok(Box::new(search))
    };
    let model = Model {
        spec: format!("bundle:model={}", bundle.dir.display()),
        label: label.clone(),
        table,
        make: &make,
    };
    run_game(args, &NETWORK_PLAYERS, Some(&model))
}
