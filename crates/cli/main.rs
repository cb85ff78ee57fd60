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
    /// Count the leaves of the game tree to a depth (move generator check).
    Perft(commands::perft::Args),
    /// List the legal moves of a position in Aba-Pro notation.
    Moves(commands::moves::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => commands::bench::run(args),
        Command::Arena(args) => commands::arena::run(args),
        Command::Perft(args) => commands::perft::run(args),
        Command::Moves(args) => commands::moves::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
