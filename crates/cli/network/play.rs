//! `sumito play` against a model: loads the bundle and plays the session of
//! `sumito_cli::commands::play` with the model's search as the opponent.

use std::path::Path;

use anyhow::Context;
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::play::{Args, GeneralModel, play_session, run_classical, run_general};
use sumito_engine::general::GeneralPosition;
use sumito_game::Level;
use sumito_net::{Device, DeviceSpec, ThreadsConfig, configure_threads};
use sumito_play::network::{NetworkSearch, SearchBudget};
use sumito_play::opponent::Opponent;

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

/// The two-player search of an opened `bundle`, on `device`, using
/// `threads` cores (default one: see `--threads`).
pub fn model_search(
    bundle: &ModelBundle,
    budget: SearchBudget,
    seed: u64,
    device: &str,
    threads: Option<u32>,
) -> anyhow::Result<NetworkSearch> {
    let device = search_device(device)?;
    Ok(bundle.search(budget, seed, device, threads.unwrap_or(1))?)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.model.is_none() && (!args.needs_network() || args.is_general()) {
        // The general game: classical engines and networks of the general
        // game by seat.
        return run_classical(args, &super::arena::GENERAL_SEATS);
    }
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    if bundle.is_general() {
        // A model of the general game: it takes the seats the game gives it.
        println!("{}", bundle.summary());
        return run_general_model(&args, &bundle);
    }
    if args.is_general() {
        // Variants and more players need a model of the general game.
        let given = args.model.as_deref().unwrap_or(Path::new(""));
        let problem = bundle
            .require_general("the many-player games and the variants need a model trained on them")
            .unwrap_err();
        anyhow::bail!("--model {}: {problem}", given.display());
    }
    let mut search = model_search(
        &bundle,
        args.model_budget(),
        args.seed,
        &args.device,
        args.threads,
    )
    .context("loading the model")?;
    if let Some(level) = args.model_level()? {
        search = search
            .with_level(level)
            .named(level_label(&bundle.meta.name, level));
    }
    println!("{}", bundle.summary());
    let rules = bundle.meta.rules();
    // The model plays under its training rules only, a loaded game too.
    play_session(&args, &mut search, rules, true)
}

/// How the board names a model at a strength level.
fn level_label(model: &str, level: Level) -> String {
    format!("{model} (level {}, {})", level.number, level.name)
}

/// `sumito play --model M` for a model of the general game: the game it
/// learned, the model at every seat but yours (or at the `--seat model`
/// seats), each seat its own search of `--simulations` simulations or
/// `--time-per-move` a move, on `--device` with `--threads` cores.
fn run_general_model(args: &Args, bundle: &ModelBundle) -> anyhow::Result<()> {
    let table = bundle
        .meta
        .general()
        .cloned()
        .context("the bundle has no rules of the general game")?;
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
    let make = |seed: u64| -> anyhow::Result<Box<dyn Opponent<GeneralPosition>>> {
        let mut search = bundle
            .general_search(budget, seed, device, threads)?
            .named(label.clone());
        if let Some(level) = level {
            search = search.with_level(level);
        }
        Ok(Box::new(search))
    };
    let model = GeneralModel {
        spec: format!("bundle:model={}", bundle.dir.display()),
        label: label.clone(),
        table,
        make: &make,
    };
    run_general(args, &super::arena::GENERAL_SEATS, Some(&model))
}
