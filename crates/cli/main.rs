//! `sumito`: the user's one command. It parses the command line, runs every
//! command that needs no network itself, and hands those that do to
//! `sumito-torch` (see `lib.rs`). It does not link libtorch, so it starts in
//! milliseconds.

use clap::Parser;
use sumito_cli::cli::{Cli, quiet_on_closed_stdout, report};
use sumito_cli::handoff::exec_torch;

fn main() -> std::process::ExitCode {
    quiet_on_closed_stdout();
    let cli = Cli::parse();
    if cli.command.needs_network() {
        return report(Err(exec_torch(std::env::args_os().skip(1))));
    }
    report(cli.command.run_light())
}
