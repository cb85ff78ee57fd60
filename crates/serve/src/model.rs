//! The model interface and the page's policy on models: what a model gives
//! the server ([`Model`]: its name, its game and rules, a player for a
//! seat, an analysis, a review, the Elo of its levels), the models a server
//! offers ([`Models`]) and which of them takes a game, the rules a model
//! plays under ([`ModelGame`]; a game under other rules is refused), and
//! what a page may ask a model for (budgets, simulations of an analysis or
//! a review). `sumito-torch` implements [`Model`] with a model bundle;
//! [`NoModel`] is the server without one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sumito_arena::match_start::default_layouts;
use sumito_arena::player::Player;
use sumito_arena::players::network::{Analysis, NetworkSearch, SearchBudget};
use sumito_engine::general::{GeneralLayout, GeneralMove, GeneralPosition, GeneralRules};
use sumito_engine::rules_table::RulesTable;
use sumito_game::{Board, GameKind, Level};
use sumito_play::analysis::analyse_game;
use sumito_play::review::{Review, review_game};

use crate::menu::{MAX_SIMULATIONS, MODEL_THINK_LIMIT};
use crate::seat_player::SeatPlayer;

/// Simulations of an analysis that names none.
pub const DEFAULT_ANALYSIS_SIMULATIONS: u32 = 800;

/// Simulations a position of a review unless the page asks for others.
pub const DEFAULT_REVIEW_SIMULATIONS: u32 = 200;

/// Simulations a model seat searches a move unless the page asks for
/// others (or a time, or a level).
pub const DEFAULT_SEAT_SIMULATIONS: u32 = 400;

/// The game a model plays and the rules it learned (its bundle's): which
/// game, so which network and search, and its `[rules]` table (a
/// two-player model's holds its two-player rules). Everything the page
/// does with a model is written over these two, whatever the game.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelGame {
    kind: GameKind,
    table: RulesTable,
}

impl ModelGame {
    pub fn new(kind: GameKind, table: RulesTable) -> ModelGame {
        ModelGame { kind, table }
    }

    /// Which game the model plays.
    pub fn kind(&self) -> GameKind {
        self.kind
    }

    /// Its rules as a `[rules]` table.
    pub fn table(&self) -> &RulesTable {
        &self.table
    }

    /// The layouts it plays: those it learned, when its table names them;
    /// a two-player model every two-player layout (under its rules), a model
    /// of the general game that names none the default layout of its
    /// matches (Standard, `sumito_arena::match_start::default_layouts`),
    /// where its first game starts.
    pub fn layouts(&self) -> Vec<String> {
        match (&self.table.layouts, self.kind) {
            (Some(layouts), _) => layouts.clone(),
            (None, GameKind::TwoPlayer) => sumito_engine::Layout::NAMED
                .iter()
                .map(|layout| layout.to_string())
                .collect(),
            (None, GameKind::General) => default_layouts(GameKind::General)
                .iter()
                .map(GeneralLayout::name)
                .collect(),
        }
    }

    /// The rules it plays on `layout`; why not, where it does not play there.
    pub fn rules_on(&self, layout: GeneralLayout) -> Result<GeneralRules, String> {
        let layouts = self.layouts();
        if !layouts.contains(&layout.name()) {
            return Err(format!(
                "it plays on {}, not on {layout}",
                layouts.join(", ")
            ));
        }
        self.table
            .resolve(layout)
            .map(|(rules, _)| rules)
            .map_err(|err| format!("its rules for {layout}: {err}"))
    }
}

/// A game to review: its positions (the start first), the moves between
/// them, how many of its first moves were a random opening (shown, not
/// judged: a loaded match record's), and the simulations of each
/// position's search, which ends within `position_limit` whatever its
/// simulations.
#[derive(Clone, Debug)]
pub struct ReviewTarget {
    pub positions: Vec<GeneralPosition>,
    pub moves: Vec<GeneralMove>,
    pub opening_plies: usize,
    pub simulations: u32,
    pub position_limit: Duration,
}

/// What a model gives the server (`sumito-torch` provides it from a
/// model bundle; `sumito` alone has none).
pub trait Model: Send + Sync {
    /// The model's name, if one is loaded.
    fn model_name(&self) -> Option<String>;
    /// The game and rules the model was trained under (its bundle's).
    fn model_game(&self) -> Option<ModelGame>;
    /// The model at a seat of a game of its rules (plain two-player games
    /// for a two-player model): within `budget`, or at strength `level` (its
    /// simulations and move choice). It keeps no tree between its moves
    /// (the server reserves its memory only while it searches).
    fn model_seat(
        &self,
        budget: SearchBudget,
        level: Option<Level>,
        seed: u64,
    ) -> Result<SeatPlayer, String>;
    /// Reviews `target` with the model (each position searched, then each
    /// move judged: `sumito_play::review`), calling `on_progress(done,
    /// total)` before each position's search (`done` positions searched so
    /// far) and once at the end (`done == total`). `on_progress` may block:
    /// the server holds the next search there until it has a slot for it.
    /// The review stops with an error when `on_progress` returns false, and
    /// the search in progress at its next batch when `stop` is set.
    fn review(
        &self,
        target: &ReviewTarget,
        stop: Arc<AtomicBool>,
        on_progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Review, String> {
        let _ = (target, stop, on_progress);
        Err(NO_MODEL.into())
    }
    /// The measured Elo of the model's strength level `number` (its
    /// bundle's `levels.json`), if measured.
    fn level_elo(&self, number: u32) -> Option<f64> {
        let _ = number;
        None
    }
    /// Searches `position` (of the model's game, under its rules) with the
    /// model for `simulations`, calling `on_update` with the analysis so far
    /// several times on the way (the page shows the search as it grows);
    /// returns the last. The search ends early when `on_update` returns
    /// `false`, and at its next batch when `stop` is set (the page closed
    /// or moved on, or the time is up), with all it searched (an error if
    /// it had nothing yet).
    fn analyse(
        &self,
        position: &GeneralPosition,
        simulations: u32,
        stop: Arc<AtomicBool>,
        on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String>;
}

/// An analysis as the page gets it: moves of the general engine, which
/// draws both games.
pub type PageAnalysis = Analysis<GeneralMove>;

/// An analysis of a game `B` in the general engine's moves.
pub fn page_analysis<B: Board>(analysis: &Analysis<B::Move>) -> PageAnalysis {
    Analysis {
        best: B::general_move(analysis.best),
        wdl: analysis.wdl,
        side_values: analysis.side_values.clone(),
        solved: analysis.solved,
        visits: analysis.visits,
        simulations: analysis.simulations,
        moves: analysis
            .moves
            .iter()
            .map(|stats| sumito_arena::players::network::MoveStats {
                mv: B::general_move(stats.mv),
                visits: stats.visits,
                q: stats.q,
                prior: stats.prior,
                rating: stats.rating,
                line: stats.line.iter().map(|&mv| B::general_move(mv)).collect(),
            })
            .collect(),
        principal_variation: analysis
            .principal_variation
            .iter()
            .map(|&mv| B::general_move(mv))
            .collect(),
        elapsed: analysis.elapsed,
    }
}

/// Every position of a game searched by `search`, then each move judged
/// (the first `opening_plies`, a random opening, left unjudged); stops (an
/// error) once `on_progress` returns false or `stop` is set, the search in
/// progress at its next batch.
pub fn reviewed<B: Board>(
    search: &mut NetworkSearch<B>,
    positions: &[B],
    moves: &[B::Move],
    opening_plies: usize,
    stop: Arc<AtomicBool>,
    on_progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Review, String> {
    // The flag ends the search in progress and every later one at once.
    search.set_stop(stop.clone());
    let stopped = || "the review was stopped before its end".to_string();
    let reports = analyse_game(search, positions, moves, &mut |done, total| {
        if !on_progress(done, total) {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .map_err(|err| match stop.load(Ordering::Relaxed) {
        true => stopped(),
        false => err.to_string(),
    })?;
    if stop.load(Ordering::Relaxed) {
        return Err(stopped());
    }
    on_progress(positions.len(), positions.len());
    let start = positions.first().ok_or("a game has a start")?;
    Ok(review_game(start, &reports, opening_plies))
}

/// A model's analysis of a page's `position` (of the model's game `B`) by
/// `search`, as every model makes it: `simulations` in steps of about 100
/// (at most 10), calling `on_update` after each step; the search ends at
/// its next batch once `stop` is set, with all it searched
/// ([`Model::analyse`]; an error if stopped before anything).
pub fn analyse_for_page<B: Board>(
    search: &mut NetworkSearch<B>,
    position: &B,
    simulations: u32,
    stop: Arc<AtomicBool>,
    on_update: &mut dyn FnMut(&PageAnalysis) -> bool,
) -> Result<PageAnalysis, String> {
    let steps = (simulations / 100).clamp(1, 10);
    search.set_stop(stop);
    search
        .analyse_in_steps(position, simulations, steps, &mut |analysis| {
            on_update(&page_analysis::<B>(analysis))
        })
        .map(|analysis| page_analysis::<B>(&analysis))
        .map_err(|err| err.to_string())
}

pub(crate) const NO_MODEL: &str =
    "no model is loaded: start `sumito serve --model NAME` to play or analyse with one";

/// No model: classical players only.
#[derive(Debug)]
pub struct NoModel;

impl Model for NoModel {
    fn model_name(&self) -> Option<String> {
        None
    }
    fn model_game(&self) -> Option<ModelGame> {
        None
    }
    fn model_seat(&self, _: SearchBudget, _: Option<Level>, _: u64) -> Result<SeatPlayer, String> {
        Err(NO_MODEL.into())
    }
    fn analyse(
        &self,
        _: &GeneralPosition,
        _: u32,
        _: Arc<AtomicBool>,
        _: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        Err(NO_MODEL.into())
    }
}

/// The models a server offers (`sumito serve --model A --model B`), in
/// the order given: each plays and analyses the games its rules fit; none
/// when the server runs without a model.
#[derive(Clone, Default)]
pub struct Models(Vec<Arc<dyn Model>>);

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|model| model.model_name()))
            .finish()
    }
}

impl Models {
    /// These models; their names must differ (the page picks one by name).
    pub fn new(models: Vec<Arc<dyn Model>>) -> Result<Models, String> {
        let names: Vec<String> = models.iter().filter_map(|m| m.model_name()).collect();
        if let Some(twice) = names
            .iter()
            .enumerate()
            .find_map(|(index, name)| names[..index].contains(name).then_some(name))
        {
            return Err(format!(
                "two models are named {twice:?}: give each model once"
            ));
        }
        Ok(Models(models))
    }

    /// No model: the classical players only.
    pub fn none() -> Models {
        Models(Vec::new())
    }

    /// One model, or none for a server without one ([`NoModel`]).
    pub fn one(model: Arc<dyn Model>) -> Models {
        match model.model_name() {
            Some(_) => Models(vec![model]),
            None => Models::none(),
        }
    }

    pub fn list(&self) -> &[Arc<dyn Model>] {
        &self.0
    }

    /// The model named `name`; the error names the ones there are.
    pub(crate) fn named(&self, name: &str) -> Result<Arc<dyn Model>, String> {
        self.0
            .iter()
            .find(|model| model.model_name().as_deref() == Some(name))
            .cloned()
            .ok_or_else(|| {
                let names: Vec<String> = self.0.iter().filter_map(|m| m.model_name()).collect();
                match names.is_empty() {
                    true => NO_MODEL.to_string(),
                    false => format!(
                        "no model is named {:?}: this server has {}",
                        sumito_engine::excerpt(name),
                        names.join(", ")
                    ),
                }
            })
    }

    /// The model that analyses a game on `layout` under `table`: the first
    /// whose rules are the game's, else the first that plays on the layout.
    pub(crate) fn for_game(
        &self,
        layout: GeneralLayout,
        table: &RulesTable,
    ) -> Option<Arc<dyn Model>> {
        let fits = |model: &&Arc<dyn Model>, same_rules: bool| {
            model.model_game().is_some_and(|game| {
                game.rules_on(layout).is_ok_and(|own| {
                    !same_rules || table.resolve(layout).is_ok_and(|(asked, _)| asked == own)
                })
            })
        };
        let same = self.0.iter().find(|model| fits(model, true));
        same.or_else(|| self.0.iter().find(|model| fits(model, false)))
            .cloned()
    }
}

/// The budget of a model seat as the page asks for it: a time (at most
/// [`MODEL_THINK_LIMIT`]), else simulations (at most [`MAX_SIMULATIONS`];
/// [`DEFAULT_SEAT_SIMULATIONS`] when it names none).
pub fn seat_budget(simulations: Option<u32>, time_ms: Option<u64>) -> SearchBudget {
    match (simulations, time_ms) {
        (_, Some(ms)) => SearchBudget::Time(
            Duration::from_millis(ms).clamp(Duration::from_millis(1), MODEL_THINK_LIMIT),
        ),
        (sims, None) => SearchBudget::Simulations(
            sims.unwrap_or(DEFAULT_SEAT_SIMULATIONS)
                .clamp(1, MAX_SIMULATIONS),
        ),
    }
}

/// Refuses a game `model` does not play: a model plays only under the
/// rules it was trained with (`rules` for this `layout`).
pub(crate) fn check_model_rules(
    model: &dyn Model,
    layout: GeneralLayout,
    rules: &GeneralRules,
) -> Result<(), String> {
    let Some(game) = model.model_game() else {
        return Ok(());
    };
    let name = model.model_name().unwrap_or_default();
    let learned = game.rules_on(layout).map_err(|why| {
        format!("the model {name} does not play this game: {why}; start it without the model")
    })?;
    if learned != *rules {
        return Err(format!(
            "the model plays only under the rules it was trained with ({learned}); this \
             game's are {rules}: start it without rules, or without the model {name}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_model::{TRAINED, TestModel, three_player_table};

    fn two_player() -> Arc<dyn Model> {
        Arc::new(TestModel::uniform(ModelGame::new(
            GameKind::TwoPlayer,
            RulesTable::of_two_player(TRAINED),
        )))
    }

    fn three_player() -> Arc<dyn Model> {
        Arc::new(TestModel::uniform(ModelGame::new(
            GameKind::General,
            three_player_table(),
        )))
    }

    #[test]
    fn a_model_plays_the_layouts_of_its_rules_and_no_others() {
        let two = ModelGame::new(GameKind::TwoPlayer, RulesTable::of_two_player(TRAINED));
        assert!(two.layouts().contains(&"belgian-daisy".to_string()));
        let standard = GeneralLayout::from_name("standard").unwrap();
        let three_player = GeneralLayout::from_name("three-player").unwrap();
        assert_eq!(two.rules_on(standard).unwrap().max_plies, Some(200));
        let err = two.rules_on(three_player).unwrap_err();
        assert!(err.contains("not on three-player"), "{err}");
        let three = ModelGame::new(GameKind::General, three_player_table());
        assert_eq!(three.layouts(), ["three-player"]);
        assert_eq!(three.rules_on(three_player).unwrap().max_plies, Some(240));
        assert!(three.rules_on(standard).is_err());
        // A model of the general game that names no layouts plays the
        // Standard one.
        let unnamed = ModelGame::new(GameKind::General, RulesTable::default());
        assert_eq!(unnamed.layouts(), ["standard"]);
    }

    #[test]
    fn models_are_found_by_name_and_by_the_game_they_play() {
        // Two models of one name are refused.
        let err = Models::new(vec![two_player(), two_player()]).unwrap_err();
        assert!(err.contains("two models are named \"uniform\""), "{err}");
        let models = Models::new(vec![two_player(), three_player()]).unwrap();
        let name = |model: Option<Arc<dyn Model>>| model.and_then(|model| model.model_name());
        let three_player = GeneralLayout::from_name("three-player").unwrap();
        assert_eq!(
            name(models.for_game(three_player, &RulesTable::default())),
            Some("uniform three".into())
        );
        let err = models.named("other").err().unwrap();
        assert!(
            err.contains("this server has uniform, uniform three"),
            "{err}"
        );
        assert!(
            Models::none()
                .named("uniform")
                .err()
                .unwrap()
                .contains("no model")
        );
        assert!(Models::one(Arc::new(NoModel)).list().is_empty());
    }

    #[test]
    fn a_model_seat_searches_within_the_page_limits() {
        assert!(matches!(
            seat_budget(None, None),
            SearchBudget::Simulations(DEFAULT_SEAT_SIMULATIONS)
        ));
        assert!(matches!(
            seat_budget(Some(50_000_000), None),
            SearchBudget::Simulations(MAX_SIMULATIONS)
        ));
        assert!(matches!(
            seat_budget(Some(8), Some(3_600_000)),
            SearchBudget::Time(limit) if limit == MODEL_THINK_LIMIT
        ));
    }
}
