//! `sumito train`: the whole training loop in one process.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args as ClapArgs;
use sumito_pipeline::run::{RunCommand, RunOptions, start_or_resume, train};

use super::interrupt::stop_flag_on_signal;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The run configuration, e.g. configs/quick.toml.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The run directory [default: runs/<config file name>]. Re-running the
    /// same command resumes the run in it.
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
    /// Delete the run already in the run directory and start over.
    #[arg(long)]
    pub fresh: bool,
    /// Do not draw progress bars.
    #[arg(long)]
    pub no_progress: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let run_dir = match args.run_dir {
        Some(dir) => dir,
        None => {
            let name = args
                .config
                .file_stem()
                .context("the config path has no file name")?;
            PathBuf::from("runs").join(name)
        }
    };
    let open = start_or_resume(&run_dir, &args.config, args.fresh, RunCommand::Train)?;
    super::selfplay::print_notes(&open);
    println!(
        "{} {} (config {})",
        if open.resumed {
            "resuming the run in"
        } else {
            "starting a new run in"
        },
        run_dir.display(),
        args.config.display()
    );
    let options = RunOptions {
        progress: !args.no_progress,
        stop: stop_flag_on_signal()?,
        ..RunOptions::default()
    };
    train(&open, &options).with_context(|| format!("training in {}", run_dir.display()))
}
