//! `sumito evaluate`: the evaluator of a shared run directory (one at a
//! time): gates and rates every new candidate.

use anyhow::Context;
use sumito_pipeline::run::{RunCommand, evaluate, open_for_role};

use sumito_cli::commands::selfplay::Args;

use super::selfplay::options;

pub fn run(args: Args) -> anyhow::Result<()> {
    let open = open_for_role(&args.run_dir, args.config.as_deref(), RunCommand::Evaluate)?;
    super::selfplay::print_notes(&open);
    evaluate(&open, &options(&args)?).with_context(|| format!("the evaluator in {}", args.run_dir))
}
