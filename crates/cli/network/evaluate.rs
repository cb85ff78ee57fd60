//! `sumito evaluate`: the evaluator of a shared run directory (one at a
//! time): gates and rates every new candidate.

use anyhow::Context;
use sumito_pipeline::run::{RunCommand, evaluate};

use sumito_cli::commands::selfplay::Args;

use super::selfplay::open_role;

pub fn run(args: Args) -> anyhow::Result<()> {
    let Some((open, options)) = open_role(&args, RunCommand::Evaluate)? else {
        return Ok(());
    };
    evaluate(&open, &options).with_context(|| format!("the evaluator in {}", args.run_dir))
}
