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

/// Spins of an idle libgomp thread before it sleeps (about 20 µs here).
const OPENMP_SPIN_COUNT: &str = "2000";

/// The OpenMP variables a `sumito` started with `policy` and `spin_count`
/// (the values of `OMP_WAIT_POLICY` and `GOMP_SPINCOUNT`) must add.
///
/// libgomp (torch's OpenMP) reads them when it is loaded, before `main`.
/// Unset, its idle threads spin for about 3 ms, and on a busy small machine
/// spinning threads starve the ones doing the work (several times slower
/// inference measured here). Pure `PASSIVE` puts them to sleep at once, which
/// costs a wake-up on every operation. A short spin is the best of both:
/// `sumito bench` on the 2-core machine, against `PASSIVE` alone, one run
/// each: self-play 1,344 against 738 positions/s, bf16 forward at batch 64
/// 4,132 against 2,720 evals/s, training 701 against 475 samples/s, and the
/// inference service with 128 callers still at 0.94 of a raw forward pass.
/// Values the user set are kept (`ACTIVE` gets no spin count).
fn openmp_variables_to_add(
    policy: Option<&std::ffi::OsStr>,
    spin_count: Option<&std::ffi::OsStr>,
) -> Vec<(&'static str, &'static str)> {
    let mut add = Vec::new();
    if policy.is_none() {
        add.push(("OMP_WAIT_POLICY", "PASSIVE"));
    }
    let passive = policy.is_none_or(|policy| policy.eq_ignore_ascii_case("passive"));
    if passive && spin_count.is_none() {
        add.push(("GOMP_SPINCOUNT", OPENMP_SPIN_COUNT));
    }
    add
}

/// Starts `sumito` again with the OpenMP variables it lacks (see
/// [`openmp_variables_to_add`]); returns at once if it lacks none.
#[cfg(unix)]
fn ensure_openmp_waiting() {
    use std::os::unix::process::CommandExt;
    let add = openmp_variables_to_add(
        std::env::var_os("OMP_WAIT_POLICY").as_deref(),
        std::env::var_os("GOMP_SPINCOUNT").as_deref(),
    );
    if add.is_empty() {
        return;
    }
    let Ok(program) = std::env::current_exe() else {
        return;
    };
    // `exec` returns only on failure; then run as we are.
    let _ = std::process::Command::new(program)
        .args(std::env::args_os().skip(1))
        .envs(add)
        .exec();
}

#[cfg(not(unix))]
fn ensure_openmp_waiting() {}

fn main() -> std::process::ExitCode {
    ensure_openmp_waiting();
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn openmp_gets_passive_waiting_with_a_short_spin_unless_the_user_chose() {
        let os = |value: &'static str| Some(OsStr::new(value));
        assert_eq!(
            openmp_variables_to_add(None, None),
            [("OMP_WAIT_POLICY", "PASSIVE"), ("GOMP_SPINCOUNT", "2000")]
        );
        // The scripts export PASSIVE: the spin is still added.
        assert_eq!(
            openmp_variables_to_add(os("passive"), None),
            [("GOMP_SPINCOUNT", "2000")]
        );
        assert_eq!(
            openmp_variables_to_add(None, os("0")),
            [("OMP_WAIT_POLICY", "PASSIVE")]
        );
        assert!(openmp_variables_to_add(os("PASSIVE"), os("0")).is_empty());
        assert!(openmp_variables_to_add(os("ACTIVE"), None).is_empty());
    }
}
