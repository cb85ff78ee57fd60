//! `sumito trainer`: the trainer of a shared run directory (one at a time):
//! trains as games arrive and writes candidates.

use anyhow::Context;
use sumito_pipeline::run::{RunCommand, trainer};

use sumito_cli::commands::selfplay::Args;

use super::selfplay::open_role;

pub fn run(args: Args) -> anyhow::Result<()> {
    let Some((open, options)) = open_role(&args, RunCommand::Trainer)? else {
        return Ok(());
    };
    trainer(&open, &options).with_context(|| format!("the trainer in {}", args.run_dir))
}
