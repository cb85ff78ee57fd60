//! `sumito evaluate`: the evaluator of a shared run directory (one at a
//! time): gates and rates every new candidate.

use anyhow::Context;
use sumito_pipeline::run::{evaluate, open_for_role};

use sumito_cli::commands::selfplay::Args;

use super::selfplay::options;

pub fn run(args: Args) -> anyhow::Result<()> {
    let (run, config) = open_for_role(&args.run_dir, args.config.as_deref())?;
    evaluate(&run, &config, &options(&args)?)
        .with_context(|| format!("the evaluator in {}", args.run_dir.display()))
}
