//! `sumito serve` with a model: the bundle's network plays its game in the
//! page (a two-player model the plain two-player game, which it also
//! analyses; a model of the general game the games of its rules); one loaded
//! network is shared by every search (`Arc` of the evaluator).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::serve::{Args, run as run_classical};
use sumito_engine::variant::VariantPosition;
use sumito_net::{DeviceSpec, ThreadsConfig, configure_threads};
use sumito_net::{DirectEvaluator, TorchScriptModel};
use sumito_play::network::{NetworkSearch, SearchBudget};
use sumito_play::opponent::Opponent;
use sumito_serve::session::{PageAnalysis, page_analysis, to_classic};
use sumito_serve::{Engines, ModelGame, serve_blocking};

/// The model's side of the server.
pub struct ModelEngines {
    name: String,
    game: ModelGame,
    evaluator: Arc<DirectEvaluator<TorchScriptModel>>,
}

impl Engines for ModelEngines {
    fn model_name(&self) -> Option<String> {
        Some(self.name.clone())
    }

    fn model_game(&self) -> Option<ModelGame> {
        Some(self.game.clone())
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

    fn general_model_opponent(
        &self,
        budget: SearchBudget,
        seed: u64,
    ) -> Result<Box<dyn Opponent<VariantPosition> + Send>, String> {
        Ok(Box::new(NetworkSearch::<VariantPosition>::new(
            self.name.clone(),
            Box::new(self.evaluator.clone()),
            budget,
            seed,
        )))
    }

    fn analyse(
        &self,
        position: &VariantPosition,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        // An update about every 100 simulations, at most 10.
        let steps = (simulations / 100).clamp(1, 10);
        match &self.game {
            ModelGame::TwoPlayer(_) => {
                let classic = to_classic(position)?;
                let mut search = NetworkSearch::new(
                    self.name.clone(),
                    Box::new(self.evaluator.clone()),
                    SearchBudget::Simulations(simulations),
                    0,
                );
                search.set_stop(stop);
                search
                    .analyse_in_steps(&classic, simulations, steps, &mut |analysis| {
                        on_update(&page_analysis(analysis))
                    })
                    .map(|analysis| page_analysis(&analysis))
                    .map_err(|err| err.to_string())
            }
            ModelGame::General(_) => {
                let mut search = NetworkSearch::<VariantPosition>::new(
                    self.name.clone(),
                    Box::new(self.evaluator.clone()),
                    SearchBudget::Simulations(simulations),
                    0,
                );
                search.set_stop(stop);
                search
                    .analyse_in_steps(position, simulations, steps, on_update)
                    .map_err(|err| err.to_string())
            }
        }
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
    // The evaluator of the terminal's and the arena's searches, score
    // utility included: the page plays and analyses the same model.
    let evaluator = bundle.play_evaluator(device)?;
    println!("{}", bundle.summary());
    let game = match bundle.meta.general() {
        Some(table) => ModelGame::General(table.clone()),
        None => ModelGame::TwoPlayer(bundle.meta.rules()),
    };
    Ok(ModelEngines {
        game,
        name: format!(
            "{} (gen {})",
            bundle.meta.name, bundle.meta.training.generation
        ),
        evaluator: Arc::new(evaluator),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use sumito_engine::Layout;
    use sumito_engine::Position;

    /// The page and the terminal play and analyse one model alike: the same
    /// rules and the same values (score utility included), so one search
    /// of each reads the same.
    #[test]
    fn the_page_and_the_terminal_search_the_shipped_model_alike() {
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/quick");
        let engines = model_engines(Some(&shipped), "cpu").unwrap();
        let bundle = ModelBundle::open(&shipped).unwrap();
        assert!(bundle.meta.score_utility > 0.0, "a test of the utility");
        assert_eq!(engines.model_rules(), Some(bundle.meta.rules()));
        let start = Position::start(Layout::BelgianDaisy, bundle.meta.rules());
        let shown = sumito_serve::session::to_general(&start).unwrap();
        let page = engines
            .analyse(&shown, 32, Arc::new(AtomicBool::new(false)), &mut |_| true)
            .unwrap();
        let mut terminal = bundle
            .search(SearchBudget::Simulations(32), 0, sumito_net::Device::Cpu, 1)
            .unwrap();
        let analysis = page_analysis(&terminal.analyse(&start, None).unwrap());
        assert_eq!(page.wdl, analysis.wdl);
        assert_eq!(page.best, analysis.best);
        assert_eq!(page.moves, analysis.moves);
    }
}
