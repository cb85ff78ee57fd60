//! `sumito train`: the whole training loop in one process (arguments:
//! `sumito_cli::commands::train`).

use std::path::PathBuf;

use anyhow::Context;
use sumito_pipeline::run::{Location, RunCommand, RunOptions, start_or_resume, train};

use sumito_cli::commands::train::Args;
use sumito_pipeline::models::seed_initial_model;
use sumito_pipeline::stop::stop_requested;

use super::interrupt::stop_flag_on_signal;

pub fn run(args: Args) -> anyhow::Result<()> {
    let run_dir = match args.run_dir {
        Some(location) => location,
        None => {
            let name = args
                .config
                .file_stem()
                .context("the config path has no file name")?;
            Location::Local(PathBuf::from("runs").join(name))
        }
    };
    // The handler first: a signal while the start waits to take over a role
    // stops it too.
    let options = RunOptions {
        progress: !args.no_progress,
        stop: stop_flag_on_signal()?,
        resume: Some(format!(
            "sumito train --config {} --run-dir {run_dir}",
            args.config.display()
        )),
        ..RunOptions::default()
    };
    // Found (a bundle verified) before the run is created or touched.
    let init_model = args
        .init_model
        .as_deref()
        .map(initial_model_folder)
        .transpose()?;
    let open = match start_or_resume(&run_dir, &args.config, args.fresh, RunCommand::Train) {
        Ok(open) => open,
        Err(err) if stop_requested() => {
            println!("stopped on request before the run began ({err})");
            return Ok(());
        }
        Err(err) => return Err(err.into()),
    };
    if let Some(from) = &init_model {
        let seeded = seed_initial_model(&open.run, &open.config, from)
            .with_context(|| format!("starting the run in {run_dir} from {}", from.display()))?;
        println!(
            "generation 0 is the model {} (trained {} steps{}{})",
            from.display(),
            seeded.training_step,
            seeded
                .grown_from
                .map(|model| format!(", {}", model.growth_into(&open.config.net.model)))
                .unwrap_or_default(),
            seeded
                .other_rules
                .map(|rules| format!(", trained under other rules: {rules}"))
                .unwrap_or_default()
        );
    }
    super::selfplay::print_notes(&open);
    println!(
        "{} {} (config {})",
        if open.resumed {
            "resuming the run in"
        } else {
            "starting a new run in"
        },
        run_dir,
        args.config.display()
    );
    train(&open, &options).with_context(|| format!("training in {run_dir}"))
}

/// The checkpoint folder `--init-model` names: a run's model folder as it
/// is, or a bundle (a path or a name), verified first.
fn initial_model_folder(given: &std::path::Path) -> anyhow::Result<PathBuf> {
    if given.join(sumito_net::checkpoint::MANIFEST_FILE).is_file()
        && !given.join(sumito_bundle::bundle::BUNDLE_FILE).exists()
    {
        return Ok(given.to_owned());
    }
    Ok(super::play::open_model(Some(given))?.dir)
}
