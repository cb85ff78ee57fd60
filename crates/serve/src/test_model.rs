//! The model the crate's tests serve: one [`Model`] whose seats, reviews
//! and analyses search as a bundle's do, on an evaluator a test chooses
//! (instant and uniform, or sleeping so that its time holds on a busy
//! machine), and the rules the tests' models were trained under.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_engine::Rules;
use sumito_engine::general::GeneralPosition;
use sumito_engine::rules_table::{RulesTable, Targets};
use sumito_game::{Board, GameKind, Level};
use sumito_mcts::toy::SlowingEvaluator;
use sumito_mcts::{Evaluator, Game, UniformEvaluator};
use sumito_play::review::Review;

use crate::model::{
    Model, ModelGame, NO_MODEL, PageAnalysis, ReviewTarget, analyse_for_page, reviewed,
};
use crate::seat_player::SeatPlayer;

/// A two-player model's rules (says its bundle): a 200-ply limit.
pub(crate) const TRAINED: Rules = Rules {
    marbles_to_win: 6,
    max_plies: Some(200),
    no_push_off_plies: None,
};

/// A model of the general game's rules: three players with a 240-ply
/// limit.
pub(crate) fn three_player_table() -> RulesTable {
    RulesTable {
        layouts: Some(vec!["three-player".into()]),
        marbles_to_win: Some(Targets::All(6)),
        max_plies: Some(240),
        ..RulesTable::default()
    }
}

/// The evaluator of a test model's searches.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Evaluations {
    /// Every move alike, at once.
    Uniform,
    /// [`SlowingEvaluator`]: `each` a position (asleep), slowing by
    /// `slowdown` after the first `fast` evaluations.
    Slowing {
        each: Duration,
        fast: usize,
        slowdown: f64,
    },
}

impl Evaluations {
    /// The evaluator, of a game `G`.
    pub(crate) fn evaluator<G: Game>(self) -> Box<dyn Evaluator<G>> {
        match self {
            Evaluations::Uniform => Box::new(UniformEvaluator),
            Evaluations::Slowing {
                each,
                fast,
                slowdown,
            } => Box::new(SlowingEvaluator::new(each, fast, slowdown)),
        }
    }
}

/// A model of its game whose seats search with one evaluator and whose
/// reviews and analyses with another (none: it refuses them). A review
/// searches each position as a bundle's does (its simulations, capped at
/// the position's limit, stopped by its flag at every batch), an analysis
/// too (its simulations in steps, stopped by its flag at every batch). It
/// counts its reviews and analyses whose thread still runs. Its level 3
/// was measured at 412 Elo.
#[derive(Debug)]
pub(crate) struct TestModel {
    game: ModelGame,
    name: String,
    seats: Evaluations,
    searches: Option<Evaluations>,
    /// Its reviews and analyses under way.
    pub(crate) running: Arc<AtomicUsize>,
    /// A limit of its own on each reviewed position's search, below the
    /// server's, for tests of what comes after a review.
    position_limit: Option<Duration>,
}

impl TestModel {
    /// A model of `game` that plays with a uniform evaluator and neither
    /// reviews nor analyses.
    pub(crate) fn uniform(game: ModelGame) -> TestModel {
        let name = match game.kind() {
            GameKind::TwoPlayer => "uniform",
            GameKind::General => "uniform three",
        };
        TestModel {
            game,
            name: name.into(),
            seats: Evaluations::Uniform,
            searches: None,
            running: Arc::default(),
            position_limit: None,
        }
    }

    /// A two-player model (named `name`, of [`TRAINED`] rules) that plays,
    /// reviews and analyses with `evaluations`.
    pub(crate) fn two_player(name: &str, evaluations: Evaluations) -> TestModel {
        TestModel {
            name: name.into(),
            seats: evaluations,
            searches: Some(evaluations),
            ..TestModel::uniform(ModelGame::new(
                GameKind::TwoPlayer,
                RulesTable::of_two_player(TRAINED),
            ))
        }
    }

    /// The model, reviewing and analysing with `evaluations`.
    pub(crate) fn searching_with(self, evaluations: Evaluations) -> TestModel {
        TestModel {
            searches: Some(evaluations),
            ..self
        }
    }

    /// The model, searching each reviewed position for `limit` at most.
    pub(crate) fn with_position_limit(self, limit: Duration) -> TestModel {
        TestModel {
            position_limit: Some(limit),
            ..self
        }
    }

    fn search<B: Board>(
        &self,
        evaluations: Evaluations,
        budget: SearchBudget,
        seed: u64,
    ) -> NetworkSearch<B> {
        NetworkSearch::new(self.name.clone(), evaluations.evaluator(), budget, seed)
    }

    /// Counts a review or an analysis while its thread lives.
    fn running(&self) -> Running {
        self.running.fetch_add(1, Ordering::SeqCst);
        Running(self.running.clone())
    }

    fn analyse_in<B: Board>(
        &self,
        evaluations: Evaluations,
        position: &GeneralPosition,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        let position = B::position_from_text(&position.to_string(), self.game.table())
            .map_err(|err| err.to_string())?;
        let mut search = self.search::<B>(evaluations, SearchBudget::Simulations(simulations), 0);
        analyse_for_page(&mut search, &position, simulations, stop, on_update)
    }
}

/// Counts a review's or an analysis's thread while it lives.
struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Model for TestModel {
    fn model_name(&self) -> Option<String> {
        Some(self.name.clone())
    }
    fn model_game(&self) -> Option<ModelGame> {
        Some(self.game.clone())
    }
    fn model_seat(
        &self,
        budget: SearchBudget,
        level: Option<Level>,
        seed: u64,
    ) -> Result<SeatPlayer, String> {
        Ok(sumito_game::with_board!(self.game.kind(), B => {
            let search = self.search::<B>(self.seats, budget, seed).keeping_tree(false);
            SeatPlayer::searching::<B>(match level {
                Some(level) => search.with_level(level),
                None => search,
            })
        }))
    }
    fn level_elo(&self, number: u32) -> Option<f64> {
        (number == 3).then_some(412.0)
    }
    fn review(
        &self,
        target: &ReviewTarget,
        stop: Arc<AtomicBool>,
        on_progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Review, String> {
        let Some(evaluations) = self.searches else {
            return Err(NO_MODEL.into());
        };
        let _running = self.running();
        let mut search = self
            .search::<GeneralPosition>(
                evaluations,
                SearchBudget::Simulations(target.simulations),
                0,
            )
            .keeping_tree(false)
            .capped(
                self.position_limit
                    .map_or(target.position_limit, |own| own.min(target.position_limit)),
            );
        reviewed(
            &mut search,
            &target.positions,
            &target.moves,
            target.opening_plies,
            stop,
            on_progress,
        )
    }
    fn analyse(
        &self,
        position: &GeneralPosition,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        let Some(evaluations) = self.searches else {
            return Err("not needed here".into());
        };
        let _running = self.running();
        sumito_game::with_board!(self.game.kind(), B => self.analyse_in::<B>(
            evaluations, position, simulations, stop, on_update
        ))
    }
}
