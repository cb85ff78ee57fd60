//! `sumito`: the user's one command. It parses the command line, runs every
//! command that needs no network itself, and hands those that do to
//! `sumito-torch` (see `lib.rs`). It does not link libtorch, so it starts in
//! milliseconds.

use clap::Parser;
use sumito_cli::cli::{Cli, quiet_on_closed_stdout, report};
use sumito_cli::handoff::exec_torch;

/// Hidden switch for the documentation's tests (`tests/e2e/docs_commands.rs`):
/// with `SUMITO_PARSE_ONLY=1` the command line is only parsed, by the same
/// definitions that parse every command, network commands included (they are
/// parsed here before `sumito-torch` gets them); on success `sumito` prints
/// `parsed` and exits 0 without doing anything else.
const PARSE_ONLY: &str = "SUMITO_PARSE_ONLY";

fn main() -> std::process::ExitCode {
    quiet_on_closed_stdout();
    let cli = Cli::parse();
    if std::env::var_os(PARSE_ONLY).is_some_and(|value| value == "1") {
        println!("parsed");
        return std::process::ExitCode::SUCCESS;
    }
    if cli.command.needs_network() {
        return report(Err(exec_torch(std::env::args_os().skip(1))));
    }
    report(cli.command.run_light())
}
