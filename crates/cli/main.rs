//! `sumito`: the user's verbs. Each subcommand lives in its own module under
//! `commands/` with an `Args` struct and a `run` function; this file only
//! parses the command line and reports errors.

use clap::{Parser, Subcommand};

mod commands;

#[derive(Debug, Parser)]
#[command(
    name = "sumito",
    version,
    about = "Teach a neural network to play Abalone by self-play, then play against it."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print `name: value unit` lines measuring one part of the system.
    Bench(commands::bench::Args),
    /// Play a round-robin match between players and rate them (Elo).
    Arena(commands::arena::Args),
    /// Train a network from scratch: self-play, training, evaluation, promotion, again.
    Train(commands::train::Args),
    /// Self-play worker on a shared run directory (any number, any machine).
    Selfplay(commands::selfplay::Args),
    /// Trainer of a shared run directory: trains as games arrive, writes candidates.
    Trainer(commands::trainer::Args),
    /// Evaluator of a shared run directory: gates and rates every new candidate.
    Evaluate(commands::evaluate::Args),
    /// Export a trained model as a bundle for play, or a checkpoint as TorchScript.
    Export(commands::export::Args),
    /// Count the leaves of the game tree to a depth (move generator check).
    Perft(commands::perft::Args),
    /// List the legal moves of a position in Aba-Pro notation.
    Moves(commands::moves::Args),
    /// Draw a position, or each position of a game record, as SVG.
    Render(commands::render::Args),
    /// Play a game in the terminal against a model or a classical opponent.
    Play(commands::play::Args),
    /// Show what a model's search thinks of a position or of each move of a game.
    Analyze(commands::analyze::Args),
}

/// libgomp (torch's OpenMP) reads `OMP_WAIT_POLICY` when it is loaded,
/// before `main`; without `PASSIVE` its idle threads spin, and on a busy
/// small machine spinning threads starve the ones doing the work (several
/// times slower inference measured here). So a `sumito` started without the
/// variable starts itself again with it; the user's own value is kept.
#[cfg(unix)]
fn ensure_passive_openmp() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("OMP_WAIT_POLICY").is_some() {
        return;
    }
    let Ok(program) = std::env::current_exe() else {
        return;
    };
    // `exec` returns only on failure; then run as we are.
    let _ = std::process::Command::new(program)
        .args(std::env::args_os().skip(1))
        .env("OMP_WAIT_POLICY", "PASSIVE")
        .exec();
}

#[cfg(not(unix))]
fn ensure_passive_openmp() {}

fn main() -> std::process::ExitCode {
    ensure_passive_openmp();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => commands::bench::run(args),
        Command::Arena(args) => commands::arena::run(args),
        Command::Train(args) => commands::train::run(args),
        Command::Selfplay(args) => commands::selfplay::run(args),
        Command::Trainer(args) => commands::trainer::run(args),
        Command::Evaluate(args) => commands::evaluate::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Perft(args) => commands::perft::run(args),
        Command::Moves(args) => commands::moves::run(args),
        Command::Render(args) => commands::render::run(args),
        Command::Play(args) => commands::play::run(args),
        Command::Analyze(args) => commands::analyze::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
