//! `sumito trainer`: the trainer of a shared run directory (one at a time):
//! trains as games arrive and writes candidates.

use anyhow::Context;
use sumito_pipeline::run::{RunCommand, open_for_role, trainer};

use sumito_cli::commands::selfplay::Args;

use super::selfplay::options;

pub fn run(args: Args) -> anyhow::Result<()> {
    let open = open_for_role(&args.run_dir, args.config.as_deref(), RunCommand::Trainer)?;
    super::selfplay::print_notes(&open);
    trainer(&open, &options(&args)?).with_context(|| format!("the trainer in {}", args.run_dir))
}
