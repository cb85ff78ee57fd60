//! `sumito-torch`: the half of `sumito` that links libtorch. `sumito` hands it
//! the commands that use a network, with the same arguments (see `lib.rs`);
//! it can also be run by hand, and then runs any command.

use clap::Parser;
use sumito_cli::cli::{Cli, report};
use sumito_cli::handoff::{BUILD_ID_VARIABLE, check_build};

mod network;

/// Started by hand without the OpenMP settings (`sumito` always passes
/// them), starts itself again with them, since libgomp has read the
/// environment before `main`; returns at once when nothing is missing.
#[cfg(unix)]
fn ensure_openmp_settings() {
    use std::os::unix::process::CommandExt;
    let add = sumito_cli::openmp::missing_variables();
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
fn ensure_openmp_settings() {}

fn main() -> std::process::ExitCode {
    sumito_cli::cli::quiet_on_closed_stdout();
    ensure_openmp_settings();
    if let Err(err) = check_build(std::env::var_os(BUILD_ID_VARIABLE).as_deref()) {
        return report(Err(err));
    }
    let cli = Cli::parse();
    if cli.command.needs_network() {
        report(network::run(cli.command))
    } else {
        report(cli.command.run_light())
    }
}
