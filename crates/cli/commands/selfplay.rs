//! `sumito selfplay`: a self-play worker on a shared run directory. Any number
//! may run at once, on any machine that mounts the directory; each plays with
//! the newest best model as it appears. Its arguments are those of every role
//! command (`trainer` and `evaluate` use this `Args`).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args as ClapArgs;
use sumito_pipeline::run::{OpenRun, RunCommand, RunOptions, open_for_role, selfplay};

use super::interrupt::stop_flag_on_signal;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The run directory (shared by every role; its config.toml is used).
    #[arg(long, value_name = "DIR")]
    pub run_dir: PathBuf,
    /// Create the run with this configuration if the directory holds none
    /// (or update the run's configuration, as `sumito train` does).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Do not draw progress bars.
    #[arg(long)]
    pub no_progress: bool,
}

impl Args {
    /// The role's options, with Ctrl-C (or SIGTERM) stopping it cleanly.
    pub fn options(&self) -> anyhow::Result<RunOptions> {
        Ok(RunOptions {
            progress: !self.no_progress,
            stop: stop_flag_on_signal()?,
            ..RunOptions::default()
        })
    }
}

/// Prints what opening the run did to it (leftovers removed, configuration
/// updated); the run's log has it too.
pub fn print_notes(open: &OpenRun) {
    for note in &open.notes {
        println!("{note}");
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let open = open_for_role(&args.run_dir, args.config.as_deref(), RunCommand::SelfPlay)?;
    print_notes(&open);
    selfplay(&open, &args.options()?)
        .with_context(|| format!("self-play in {}", args.run_dir.display()))
}
