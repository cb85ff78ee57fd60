//! `sumito serve` with a model: the bundle's network plays its game in the
//! page (a two-player model the plain two-player game, which it also
//! analyses; a model of the general game the games of its rules); one loaded
//! network is shared by every search (`Arc` of the evaluator).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::serve::{Args, run as run_classical};
use sumito_engine::general::GeneralPosition;
use sumito_game::{Board, FULL_STRENGTH, Level, with_board};
use sumito_net::NetBoard;
use sumito_net::{DeviceSpec, ThreadsConfig, configure_threads};
use sumito_net::{DirectEvaluator, TorchScriptModel};
use sumito_play::review::Review;
use sumito_serve::model::{PageAnalysis, ReviewTarget, analyse_for_page, reviewed};
use sumito_serve::seat_player::SeatPlayer;
use sumito_serve::{Model, ModelGame, Models, serve_blocking};

/// The model's side of the server: a model bundle's network.
pub struct BundleModel {
    name: String,
    game: ModelGame,
    evaluator: Arc<DirectEvaluator<TorchScriptModel>>,
    /// The Elo of each strength level, where measured (the bundle's).
    level_elo: Vec<(u32, f64)>,
}

impl Model for BundleModel {
    fn model_name(&self) -> Option<String> {
        Some(self.name.clone())
    }

    fn model_game(&self) -> Option<ModelGame> {
        Some(self.game.clone())
    }

    fn level_elo(&self, number: u32) -> Option<f64> {
        self.level_elo
            .iter()
            .find(|(level, _)| *level == number)
            .map(|(_, elo)| *elo)
    }

    fn model_seat(
        &self,
        budget: SearchBudget,
        level: Option<Level>,
        seed: u64,
    ) -> Result<SeatPlayer, String> {
        // A seat keeps no tree between its moves: the server reserves a
        // search's memory only while it searches.
        Ok(
            with_board!(self.game.kind(), B => SeatPlayer::searching::<B>(at_level(
                self.search::<B>(budget, seed).keeping_tree(false),
                level
            ))),
        )
    }

    fn review(
        &self,
        target: &ReviewTarget,
        stop: Arc<AtomicBool>,
        on_progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Review, String> {
        with_board!(self.game.kind(), B => self.review_in::<B>(target, stop, on_progress))
    }

    fn analyse(
        &self,
        position: &GeneralPosition,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        with_board!(self.game.kind(), B => self.analyse_in::<B>(position, simulations, stop, on_update))
    }
}

impl BundleModel {
    /// The model's search of its game `B`, seeded with `seed`.
    fn search<B: NetBoard>(&self, budget: SearchBudget, seed: u64) -> NetworkSearch<B> {
        NetworkSearch::<B>::new(
            self.name.clone(),
            Box::new(self.evaluator.clone()),
            budget,
            seed,
        )
    }

    /// The page's game in the model's game `B`, under the model's rules.
    fn in_model_game<B: Board>(&self, position: &GeneralPosition) -> Result<B, String> {
        B::position_from_text(&position.to_string(), self.game.table())
            .map_err(|err| err.to_string())
    }

    /// [`Model::review`] in the model's game `B`.
    fn review_in<B: NetBoard>(
        &self,
        target: &ReviewTarget,
        stop: Arc<AtomicBool>,
        on_progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Review, String> {
        let positions = target
            .positions
            .iter()
            .map(|position| self.in_model_game::<B>(position))
            .collect::<Result<Vec<B>, String>>()?;
        let moves = target
            .moves
            .iter()
            .map(|&mv| {
                B::move_of_general(mv)
                    .ok_or_else(|| format!("{} is no move of the model's game", mv.to_text()))
            })
            .collect::<Result<Vec<B::Move>, String>>()?;
        // Each position a bounded search.
        let mut search = self
            .search::<B>(SearchBudget::Simulations(target.simulations), 0)
            .capped(target.position_limit);
        reviewed(
            &mut search,
            &positions,
            &moves,
            target.opening_plies,
            stop,
            on_progress,
        )
    }

    /// [`Model::analyse`] in the model's game `B`.
    fn analyse_in<B: NetBoard>(
        &self,
        position: &GeneralPosition,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        let position = self.in_model_game::<B>(position)?;
        let mut search = self.search::<B>(SearchBudget::Simulations(simulations), 0);
        analyse_for_page(&mut search, &position, simulations, stop, on_update)
    }
}

/// Loads the bundle `given` (or the shipped one) as a model of the server.
pub fn bundle_model(given: Option<&std::path::Path>, device: &str) -> anyhow::Result<BundleModel> {
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
    let game = ModelGame::new(bundle.meta.kind(), bundle.meta.rules_table());
    Ok(BundleModel {
        game,
        name: format!(
            "{} (gen {})",
            bundle.meta.name, bundle.meta.training.generation
        ),
        evaluator: Arc::new(evaluator),
        level_elo: (1..=FULL_STRENGTH)
            .filter_map(|number| Some((number, bundle.level_elo(number)?)))
            .collect(),
    })
}

/// `search` at strength `level`, if given.
fn at_level<B: Board>(search: NetworkSearch<B>, level: Option<Level>) -> NetworkSearch<B> {
    match level {
        Some(level) => search.with_level(level),
        None => search,
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if !args.needs_network() {
        return run_classical(args);
    }
    // Each model given (none: the shipped one), loaded once.
    let given: Vec<Option<&std::path::Path>> = match args.model.as_slice() {
        [] => vec![None],
        models => models.iter().map(|model| Some(model.as_path())).collect(),
    };
    let mut models: Vec<Arc<dyn Model>> = Vec::new();
    for model in given {
        models.push(Arc::new(bundle_model(model, &args.device)?));
    }
    let models = Models::new(models).map_err(anyhow::Error::msg)?;
    serve_blocking(args.options(), Arc::new(models))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use sumito_engine::Layout;
    use sumito_engine::Position;
    use sumito_engine::rules_table::RulesTable;
    use sumito_serve::model::page_analysis;

    /// The page and the terminal play and analyse one model alike: the same
    /// rules and the same values (score utility included), so one search
    /// of each reads the same.
    #[test]
    fn the_page_and_the_terminal_search_the_shipped_model_alike() {
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/quick");
        let model = bundle_model(Some(&shipped), "cpu").unwrap();
        let bundle = ModelBundle::open(&shipped).unwrap();
        assert!(bundle.meta.score_utility > 0.0, "a test of the utility");
        assert_eq!(
            model.game,
            ModelGame::new(bundle.meta.kind(), bundle.meta.rules_table())
        );
        let start = Position::start(Layout::BelgianDaisy, bundle.meta.rules());
        let shown = RulesTable::of_two_player(start.rules())
            .position_from_text(&start.to_string())
            .unwrap();
        let page = model
            .analyse(&shown, 32, Arc::new(AtomicBool::new(false)), &mut |_| true)
            .unwrap();
        let mut terminal = bundle
            .search(SearchBudget::Simulations(32), 0, sumito_net::Device::Cpu, 1)
            .unwrap();
        let analysis = page_analysis::<Position>(&terminal.analyse(&start, None).unwrap());
        assert_eq!(page.wdl, analysis.wdl);
        assert_eq!(page.best, analysis.best);
        assert_eq!(page.moves, analysis.moves);
    }

    /// A model of the general game reviews and analyses the page's game
    /// through the same generic path as a two-player one.
    #[test]
    fn a_model_of_the_general_game_reviews_and_analyses_the_pages_game() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/three-player");
        let model = bundle_model(Some(&dir), "cpu").unwrap();
        let table = model.game.table();
        let layout = sumito_engine::general::GeneralLayout::from_name("three-player").unwrap();
        let mut positions = vec![table.start(layout).unwrap()];
        let mut moves = Vec::new();
        for _ in 0..3 {
            let last = *positions.last().unwrap();
            let mv = last.legal_moves()[0];
            moves.push(mv);
            positions.push(last.play(mv));
        }
        let target = ReviewTarget {
            positions: positions.clone(),
            moves,
            opening_plies: 1,
            simulations: 8,
            position_limit: std::time::Duration::from_secs(5),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let review = model
            .review(&target, stop.clone(), &mut |_, _| true)
            .unwrap();
        assert_eq!(review.moves.len(), 3);
        assert_eq!(review.sides.len(), 3);
        // The random opening's move is shown, not judged.
        assert!(review.moves[0].random_opening && review.moves[0].judgement.is_none());
        assert!(!review.moves[1].random_opening);
        let analysis = model
            .analyse(&positions[3], 16, stop, &mut |_| true)
            .unwrap();
        assert!(positions[3].is_legal(analysis.best));
        assert_eq!(analysis.side_values.len(), 3);
    }
}
