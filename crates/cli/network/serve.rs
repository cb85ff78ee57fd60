//! `sumito serve` with a model: the bundle's network plays and analyses the
//! plain two-player game in the page; one loaded network is shared by every
//! search (`Arc` of the evaluator).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::serve::{Args, run as run_classical};
use sumito_engine::{Position, Rules};
use sumito_game::AbaloneGame;
use sumito_mcts::Evaluator;
use sumito_net::{DeviceSpec, DirectEvaluator, SymmetryMode, ThreadsConfig, configure_threads};
use sumito_play::network::{Analysis, NetworkSearch, SearchBudget};
use sumito_play::opponent::Opponent;
use sumito_serve::{Engines, serve_blocking};

/// The model's side of the server.
pub struct ModelEngines {
    name: String,
    rules: Rules,
    evaluator: Arc<dyn Evaluator<AbaloneGame>>,
}

impl Engines for ModelEngines {
    fn model_name(&self) -> Option<String> {
        Some(self.name.clone())
    }

    fn model_rules(&self) -> Option<Rules> {
        Some(self.rules)
    }

    fn model_opponent(
        &self,
        budget: SearchBudget,
        seed: u64,
    ) -> Result<Box<dyn Opponent + Send>, String> {
        Ok(Box::new(NetworkSearch::new(
            self.name.clone(),
            Box::new(self.evaluator.clone()),
            budget,
            seed,
        )))
    }

    fn analyse(
        &self,
        position: &Position,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&Analysis) -> bool,
    ) -> Result<Analysis, String> {
        let mut search = NetworkSearch::new(
            self.name.clone(),
            Box::new(self.evaluator.clone()),
            SearchBudget::Simulations(simulations),
            0,
        );
        search.set_stop(stop);
        // An update about every 100 simulations, at most 10.
        let steps = (simulations / 100).clamp(1, 10);
        search
            .analyse_in_steps(position, simulations, steps, on_update)
            .map_err(|err| err.to_string())
    }
}

/// Loads the bundle `given` (or the shipped one) as the server's engines.
pub fn model_engines(
    given: Option<&std::path::Path>,
    device: &str,
) -> anyhow::Result<ModelEngines> {
    let device = device
        .parse::<DeviceSpec>()
        .map_err(anyhow::Error::msg)?
        .resolve()?;
    let program = std::env::current_exe().ok();
    let folders = model_folders(
        program.as_deref(),
        std::env::var_os("SUMITO_MODELS").map(Into::into),
    );
    let dir = locate_bundle(given, &folders)?;
    let bundle = ModelBundle::open(&dir).context("loading the model")?;
    configure_threads(&ThreadsConfig::default())?;
    let model = bundle.load_torchscript(device)?;
    println!("{}", bundle.summary());
    Ok(ModelEngines {
        rules: bundle.meta.rules(),
        name: format!(
            "{} (gen {})",
            bundle.meta.name, bundle.meta.training.generation
        ),
        evaluator: Arc::new(DirectEvaluator::new(model, SymmetryMode::None)),
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if !args.needs_network() {
        return run_classical(args);
    }
    let engines = model_engines(args.model.as_deref(), &args.device)?;
    serve_blocking(args.options(), Arc::new(engines))?;
    Ok(())
}
