//! `sumito selfplay`: a self-play worker on a shared run directory. Any number
//! may run at once, on any machine that mounts the directory; each plays with
//! the newest best model as it appears. Its arguments are those of every role
//! command (`sumito_cli::commands::selfplay::Args`).

use anyhow::Context;
use sumito_pipeline::run::{OpenRun, RunCommand, RunOptions, open_for_role, selfplay};

use sumito_cli::commands::selfplay::Args;
use sumito_pipeline::stop::stop_requested;

use super::interrupt::stop_flag_on_signal;

/// The role's options, with Ctrl-C (or SIGTERM) stopping it cleanly.
pub fn options(args: &Args) -> anyhow::Result<RunOptions> {
    Ok(RunOptions {
        progress: !args.no_progress,
        stop: stop_flag_on_signal()?,
        ..RunOptions::default()
    })
}

/// Prints what opening the run did to it (leftovers removed, configuration
/// updated); the run's log has it too.
pub fn print_notes(open: &OpenRun) {
    for note in &open.notes {
        println!("{note}");
    }
}

/// Opens the run for a role command, its signal handler installed first
/// (a signal while the start waits to take over the role stops it too);
/// `None`, said on standard output, when it was stopped before the role
/// began.
pub fn open_role(
    args: &Args,
    command: RunCommand,
) -> anyhow::Result<Option<(OpenRun, RunOptions)>> {
    let options = options(args)?;
    match open_for_role(&args.run_dir, args.config.as_deref(), command) {
        Ok(open) => {
            print_notes(&open);
            Ok(Some((open, options)))
        }
        Err(err) if stop_requested() => {
            println!("stopped on request before the role began ({err})");
            Ok(None)
        }
        Err(err) => Err(err.into()),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Some((open, options)) = open_role(&args, RunCommand::SelfPlay)? else {
        return Ok(());
    };
    selfplay(&open, &options).with_context(|| format!("self-play in {}", args.run_dir))
}
