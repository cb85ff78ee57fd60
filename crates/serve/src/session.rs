//! One page's game: the positions so far (general engine, so every variant
//! and 3–6 players), who plays each seat, the clocks, the shown ply, and the
//! answers to the page's messages. Engines think outside this struct (the
//! server takes a seat's engine out, runs it on a blocking thread and puts
//! it back), so nothing here blocks for long.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sumito_arena::player::{Player, PlayerRegistry, SearchLimit};
use sumito_arena::players::general::seat_player;
use sumito_arena::players::network::{Analysis, SearchBudget};
use sumito_arena::record::{GameRecord, Start};
use sumito_arena::record_format::format_of;
use sumito_engine::general::{
    CellContent, GeneralLayout, GeneralMove, GeneralPosition, GeneralRules, MoveKind, SEAT_NAMES,
};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Cell, Position, Rules};
use sumito_game::{Board, GameKind, LEVELS, Level};
use sumito_play::analysis::record_under_rules;
use sumito_play::review::Review;
use sumito_play::session::SeatedPlayer;

use crate::menu::{
    ENGINE_THINK_LIMIT, MAX_GAME_PLIES, MAX_SIMULATIONS, MODEL_SEARCH_MB, MODEL_THINK_LIMIT,
    PagePolicy, Reservation, page_engine,
};
use crate::protocol::{
    AnalysisMove, CellView, ClientMessage, ClockRequest, LevelView, ModelView, MoveView, PlyView,
    SeatRequest, SeatView, ServerMessage, StateView,
};

/// Simulations of an analysis that names none.
pub const DEFAULT_ANALYSIS_SIMULATIONS: u32 = 800;

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
    /// of the general game that names none the Standard layout, where its
    /// first game starts.
    pub fn layouts(&self) -> Vec<String> {
        match (&self.table.layouts, self.kind) {
            (Some(layouts), _) => layouts.clone(),
            (None, GameKind::TwoPlayer) => sumito_engine::Layout::NAMED
                .iter()
                .map(|layout| layout.to_string())
                .collect(),
            (None, GameKind::General) => vec!["standard".to_string()],
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

/// Simulations a position of a review unless the page asks for others.
pub const DEFAULT_REVIEW_SIMULATIONS: u32 = 200;

/// A game to review: its positions (the start first), the moves between
/// them, and the simulations of each position's search.
#[derive(Clone, Debug)]
pub struct ReviewTarget {
    pub positions: Vec<GeneralPosition>,
    pub moves: Vec<GeneralMove>,
    pub simulations: u32,
}

/// What a network gives the server (`sumito-torch` provides it from a
/// model bundle; `sumito` alone has none).
pub trait Engines: Send + Sync {
    /// The model's name, if one is loaded.
    fn model_name(&self) -> Option<String>;
    /// The game and rules the model was trained under (its bundle's).
    fn model_game(&self) -> Option<ModelGame>;
    /// The model at a seat of a game of its rules (plain two-player games
    /// for a two-player model): within `budget`, or at strength `level` (its
    /// simulations and move choice).
    fn model_seat(
        &self,
        budget: SearchBudget,
        level: Option<Level>,
        seed: u64,
    ) -> Result<SeatEngine, String>;
    /// Reviews `target` with the model (each position searched, then each
    /// move judged: `sumito_play::review`), calling `on_progress(done,
    /// total)` after each position; it stops when that returns false or
    /// `stop` is set.
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
    /// `false` (a time limit), and at once, with an error, when `stop` is
    /// set (the page closed).
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

const NO_MODEL: &str =
    "no model is loaded: start `sumito serve --model NAME` to play or analyse with one";

/// No model: classical engines only.
#[derive(Debug)]
pub struct NoModel;

impl Engines for NoModel {
    fn model_name(&self) -> Option<String> {
        None
    }
    fn model_game(&self) -> Option<ModelGame> {
        None
    }
    fn model_seat(&self, _: SearchBudget, _: Option<Level>, _: u64) -> Result<SeatEngine, String> {
        Err(NO_MODEL.into())
    }
    fn analyse(
        &self,
        _: &GeneralPosition,
        _: u32,
        _: Arc<AtomicBool>,
        _: &mut dyn FnMut(&PageAnalysis) -> bool,
    ) -> Result<PageAnalysis, String> {
        Err("no model is loaded: start `sumito serve --model NAME` to analyse".into())
    }
}

/// The models a server offers (`sumito serve --model A --model B`), in
/// the order given: each plays and analyses the games its rules fit; none
/// when the server runs without a model.
#[derive(Clone, Default)]
pub struct Models(Vec<Arc<dyn Engines>>);

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|model| model.model_name()))
            .finish()
    }
}

impl Models {
    /// These models; their names must differ (the page picks one by name).
    pub fn new(models: Vec<Arc<dyn Engines>>) -> Result<Models, String> {
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

    /// No model: the classical engines only.
    pub fn none() -> Models {
        Models(Vec::new())
    }

    /// One model, or none for engines without one ([`NoModel`]).
    pub fn one(model: Arc<dyn Engines>) -> Models {
        match model.model_name() {
            Some(_) => Models(vec![model]),
            None => Models::none(),
        }
    }

    pub fn list(&self) -> &[Arc<dyn Engines>] {
        &self.0
    }

    /// The model named `name`; the error names the ones there are.
    fn named(&self, name: &str) -> Result<Arc<dyn Engines>, String> {
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
    fn for_game(&self, layout: GeneralLayout, table: &RulesTable) -> Option<Arc<dyn Engines>> {
        let fits = |model: &&Arc<dyn Engines>, same_rules: bool| {
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

/// An engine playing a seat: a player of any game, which sees the page's
/// positions (the general engine's) as positions of its own game.
pub struct SeatEngine(Box<dyn PageSeat + Send>);

impl std::fmt::Debug for SeatEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatEngine")
    }
}

/// An engine's answer: the move and, if it estimates it, its win probability.
#[derive(Clone, Copy, Debug)]
pub struct EngineMove {
    pub mv: GeneralMove,
    pub win: Option<f32>,
    /// Wall-clock time of the thinking.
    pub think: Duration,
}

impl SeatEngine {
    /// `player`, a player of game `B` (the two-player engine's players
    /// and models for plain two-player games, the general game's for the
    /// others), at a seat of the page.
    pub fn of<B: Board>(player: SeatedPlayer<'static, B>) -> SeatEngine {
        SeatEngine(Box::new(InGame(player)))
    }

    /// `player`, which searches within its own budget (a model), at a seat
    /// of the page.
    pub fn searching<B: Board>(player: impl Player<B> + 'static) -> SeatEngine {
        SeatEngine::of(SeatedPlayer::searching(player.name(), Box::new(player)))
    }

    /// Thinks about `position` (a seat's turn), at most `cap`.
    pub fn think(
        &mut self,
        position: &GeneralPosition,
        cap: Option<Duration>,
    ) -> Result<EngineMove, String> {
        let started = Instant::now();
        let mut answer = self.0.think(position, cap)?;
        answer.think = started.elapsed();
        Ok(answer)
    }

    fn observe(&mut self, before: &GeneralPosition, mv: GeneralMove) {
        self.0.observe(before, mv);
    }

    fn new_game(&mut self) {
        self.0.new_game();
    }

    /// Ends its searches when `stop` is set.
    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.0.set_stop(stop);
    }
}

/// A seat's engine as the page drives it, whatever its game.
trait PageSeat {
    fn think(
        &mut self,
        position: &GeneralPosition,
        cap: Option<Duration>,
    ) -> Result<EngineMove, String>;
    fn observe(&mut self, before: &GeneralPosition, mv: GeneralMove);
    fn new_game(&mut self);
    fn set_stop(&mut self, stop: Arc<AtomicBool>);
}

/// A player of game `B` at a seat of the page.
struct InGame<B: Board>(SeatedPlayer<'static, B>);

impl<B: Board> PageSeat for InGame<B> {
    fn think(
        &mut self,
        position: &GeneralPosition,
        cap: Option<Duration>,
    ) -> Result<EngineMove, String> {
        let thought = self
            .0
            .think(&B::of_general(position)?, cap)
            .map_err(|err| err.to_string())?;
        Ok(EngineMove {
            mv: B::general_move(thought.mv),
            win: thought.outlook.map(|o| o.win + 0.5 * o.draw),
            think: Duration::ZERO,
        })
    }

    fn observe(&mut self, before: &GeneralPosition, mv: GeneralMove) {
        if let (Ok(before), Some(mv)) = (B::of_general(before), B::move_of_general(mv)) {
            self.0.player.observe_move(&before, mv);
        }
    }

    fn new_game(&mut self) {
        self.0.player.new_game();
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.0.player.set_stop(stop);
    }
}

/// Who plays a seat.
#[derive(Debug)]
enum Seat {
    Human(String),
    /// `engine` is `None` while it thinks on another thread.
    Engine {
        name: String,
        engine: Option<SeatEngine>,
        /// The longest it may think about a move.
        limit: Duration,
        /// Whether it searches (then it waits for a search slot).
        searches: bool,
    },
}

/// An engine's turn, taken out of the session to think on another thread.
#[derive(Debug)]
pub struct EngineTurn {
    pub seat: usize,
    pub position: GeneralPosition,
    pub engine: SeatEngine,
    /// The longest it may think: its limit, or the clock's share if tighter.
    pub cap: Duration,
    /// Whether it needs one of the server's search slots.
    pub searches: bool,
}

/// A game and everything the page asked for.
pub struct GameSession {
    /// Every model the server offers.
    models: Arc<Models>,
    /// The model of this game (its model seats' first, or the one that
    /// analyses its layout and rules): analysis, review and levels.
    model: Option<Arc<dyn Engines>>,
    policy: Arc<PagePolicy>,
    /// Set when the page closes: every search of this page ends at once.
    stop: Arc<AtomicBool>,
    /// The memory the game's engines hold, given back with the game.
    reservation: Option<Reservation>,
    reserved_mb: u32,
    record: GameRecord<GeneralPosition>,
    positions: Vec<GeneralPosition>,
    moves: Vec<GeneralMove>,
    wins: Vec<Option<f32>>,
    thinks: Vec<Option<Duration>>,
    seats: Vec<Seat>,
    cursor: usize,
    clock: Option<ClockRequest>,
    clocks: Vec<Duration>,
    turn_started: Instant,
    /// Set when a seat ran out of time or resigned.
    ended: Option<String>,
    seed: u64,
}

impl std::fmt::Debug for GameSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GameSession({})",
            self.positions
                .last()
                .map(|p| p.to_string())
                .unwrap_or_default()
        )
    }
}

fn cell_names(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(Cell::to_string).collect()
}

/// The cells a move picks up and where each goes, for the page.
fn move_cells(position: &GeneralPosition, mv: GeneralMove) -> (Vec<String>, Vec<String>) {
    let _ = position;
    match mv.kind() {
        MoveKind::Group(group) => {
            let from: Vec<Cell> = group.cells().collect();
            let to: Vec<Cell> = from
                .iter()
                .filter_map(|c| c.neighbour(group.direction()))
                .collect();
            (cell_names(&from), cell_names(&to))
        }
        MoveKind::Shield(shield) => {
            let to: Vec<Cell> = shield
                .cells
                .iter()
                .filter_map(|c| c.neighbour(shield.dir))
                .collect();
            (cell_names(&shield.cells), cell_names(&to))
        }
        MoveKind::Rotation(rotation) => (cell_names(&rotation.ends), cell_names(&rotation.to)),
    }
}

fn content_name(position: &GeneralPosition, cell: Cell) -> &'static str {
    match position.at(cell) {
        CellContent::Empty => "empty",
        CellContent::Marble(_) if position.rules().one_colour => "common",
        CellContent::Marble(seat) => SEAT_NAMES[seat],
        CellContent::Neutral => "neutral",
        CellContent::Obstacle => "obstacle",
        CellContent::Hole => "hole",
    }
}

fn board_view(position: &GeneralPosition) -> Vec<CellView> {
    Cell::all()
        .map(|cell| CellView {
            cell: cell.to_string(),
            content: content_name(position, cell),
        })
        .collect()
}

impl GameSession {
    /// A first game: the Standard layout, the person as Black against
    /// `alphabeta:depth=2` (or the model, when one is loaded). Its searches
    /// stop when `stop` is set.
    pub fn new(
        models: Arc<Models>,
        policy: Arc<PagePolicy>,
        stop: Arc<AtomicBool>,
        seed: u64,
    ) -> Result<GameSession, String> {
        // Against the first model; one of the general game starts on the
        // first layout it learned.
        let first = models.list().first().cloned();
        let (layout, seats) = match first.as_ref().and_then(|model| model.model_game()) {
            Some(game) => {
                let layout = game.layouts().first().cloned().unwrap_or_default();
                let problem = |err: String| format!("the model's first layout {layout:?}: {err}");
                let start =
                    GeneralLayout::from_name(&layout).map_err(|err| problem(err.to_string()))?;
                let seats = game.rules_on(start).map_err(problem)?.seating.seats();
                (layout, seats)
            }
            None => ("standard".to_string(), 2),
        };
        let opponent = if let Some(name) = first.as_ref().and_then(|model| model.model_name()) {
            SeatRequest::Model {
                model: Some(name),
                simulations: Some(400),
                time_ms: None,
                level: None,
            }
        } else {
            SeatRequest::Engine {
                spec: "alphabeta:depth=2".into(),
            }
        };
        let mut session = GameSession {
            models,
            model: None,
            policy,
            stop,
            reservation: None,
            reserved_mb: 0,
            record: GameRecord::unplayed(
                Start::Layout(GeneralLayout::Two(sumito_engine::Layout::Standard)),
                RulesTable::default(),
            ),
            positions: Vec::new(),
            moves: Vec::new(),
            wins: Vec::new(),
            thinks: Vec::new(),
            seats: Vec::new(),
            cursor: 0,
            clock: None,
            clocks: Vec::new(),
            turn_started: Instant::now(),
            ended: None,
            seed,
        };
        let seat_requests: Vec<SeatRequest> = std::iter::once(SeatRequest::Human { name: None })
            .chain(std::iter::repeat_n(opponent, seats - 1))
            .collect();
        session.new_game(&layout, None, &seat_requests, None)?;
        Ok(session)
    }

    fn current(&self) -> &GeneralPosition {
        self.positions.last().expect("a game has its start")
    }

    /// The engines of this game's model (none: [`NoModel`]).
    fn engines(&self) -> &dyn Engines {
        match &self.model {
            Some(model) => model.as_ref(),
            None => &NoModel,
        }
    }

    /// This game's model, for a search outside the session (analysis,
    /// review).
    pub fn model_engines(&self) -> Arc<dyn Engines> {
        self.model
            .clone()
            .unwrap_or_else(|| Arc::new(NoModel) as Arc<dyn Engines>)
    }

    /// Starts a game.
    pub fn new_game(
        &mut self,
        layout: &str,
        rules: Option<&serde_json::Value>,
        seats: &[SeatRequest],
        clock: Option<ClockRequest>,
    ) -> Result<(), String> {
        let layout = GeneralLayout::from_name(layout).map_err(|err| err.to_string())?;
        // The model of each model seat: the one it names, else the first
        // that plays on this layout under the rules asked (or its own).
        let asked_table = rules
            .map(|value| RulesTable::from_json(value).map_err(|err| format!("rules: {err}")))
            .transpose()?;
        let seat_models = seats
            .iter()
            .enumerate()
            .map(|(index, seat)| match seat {
                SeatRequest::Model {
                    model: Some(name), ..
                } => self
                    .models
                    .named(name)
                    .map(Some)
                    .map_err(|err| format!("seat {}: {err}", index + 1)),
                SeatRequest::Model { model: None, .. } => self
                    .models
                    .for_game(
                        layout,
                        asked_table.as_ref().unwrap_or(&RulesTable::default()),
                    )
                    .or_else(|| self.models.list().first().cloned())
                    .map(Some)
                    .ok_or_else(|| NO_MODEL.to_string()),
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>, String>>()?;
        let game_model = seat_models.iter().flatten().next().cloned();
        let model_game = game_model.as_ref().and_then(|model| model.model_game());
        let table: RulesTable = match (asked_table, &model_game) {
            // (The table's own reader: its errors quote an excerpt of what
            // was sent.)
            (Some(table), _) => table,
            // A model plays under the rules it was trained with.
            (None, Some(game)) => game.table().clone(),
            (None, None) => RulesTable::default(),
        };
        let (rules, setup) = table.resolve(layout).map_err(|err| err.to_string())?;
        let start = setup.start(&rules).map_err(|err| err.to_string())?;
        let seat_count = rules.seating.seats();
        if seats.len() != seat_count {
            return Err(format!(
                "{} seats given, the layout {layout} seats {seat_count} players",
                seats.len()
            ));
        }
        let plain = !table.is_general() && matches!(layout, GeneralLayout::Two(_));
        // Every model seated plays under its own rules: the game's.
        for model in seat_models.iter().flatten() {
            check_model_rules(model.as_ref(), layout, &rules)?;
        }
        let mut made = Vec::new();
        if let Some(clock) = clock
            && !(clock.minutes > 0.0
                && clock.minutes <= 600.0
                && (0.0..=3600.0).contains(&clock.increment_seconds))
        {
            return Err(
                "clock: minutes must be in (0, 600] and increment_seconds in [0, 3600]".into(),
            );
        }
        let mut memory_mb = 0;
        for (index, request) in seats.iter().enumerate() {
            let seed = self.seed ^ index as u64;
            made.push(match request {
                SeatRequest::Human { name } => {
                    Seat::Human(name.clone().unwrap_or_else(|| "you".into()))
                }
                SeatRequest::Engine { spec } => {
                    let chosen = page_engine(spec, plain)
                        .map_err(|err| format!("seat {}: {err}", index + 1))?;
                    let mut engine = if plain {
                        let registry = PlayerRegistry::builtin();
                        let entrant = registry
                            .prepare_str(&self.policy.two_player_spec(&chosen))
                            .map_err(|err| format!("seat {}: {err}", index + 1))?;
                        SeatEngine::of::<Position>(SeatedPlayer::of_entrant(&entrant, seed))
                    } else {
                        let player = seat_player(&chosen.spec, seed)
                            .map_err(|err| format!("seat {}: {err}", index + 1))?;
                        // Its time limit (the two-player ones get theirs
                        // with each move).
                        SeatEngine::of::<GeneralPosition>(SeatedPlayer::new(
                            chosen.spec.clone(),
                            player,
                            SearchLimit::time(ENGINE_THINK_LIMIT),
                        ))
                    };
                    engine.set_stop(self.stop.clone());
                    memory_mb += chosen.memory_mb;
                    Seat::Engine {
                        name: chosen.spec,
                        engine: Some(engine),
                        limit: ENGINE_THINK_LIMIT,
                        searches: chosen.searches,
                    }
                }
                SeatRequest::Model {
                    simulations,
                    time_ms,
                    level,
                    ..
                } => {
                    let model = seat_models[index].clone().ok_or(NO_MODEL)?;
                    let level = level
                        .map(sumito_game::level::level)
                        .transpose()
                        .map_err(|err| format!("seat {}: {err}", index + 1))?;
                    let budget = match (simulations, time_ms) {
                        (_, Some(ms)) => SearchBudget::Time(
                            Duration::from_millis(*ms)
                                .clamp(Duration::from_millis(1), MODEL_THINK_LIMIT),
                        ),
                        (sims, None) => {
                            SearchBudget::Simulations(sims.unwrap_or(400).clamp(1, MAX_SIMULATIONS))
                        }
                    };
                    let mut engine = model.model_seat(budget, level, seed)?;
                    engine.set_stop(self.stop.clone());
                    memory_mb += MODEL_SEARCH_MB;
                    let model = model.model_name().unwrap_or_else(|| "model".into());
                    Seat::Engine {
                        name: match level {
                            Some(level) => {
                                format!("{model} (level {}, {})", level.number, level.name)
                            }
                            None => model,
                        },
                        engine: Some(engine),
                        limit: MODEL_THINK_LIMIT,
                        searches: true,
                    }
                }
            });
        }
        // The new game's engines must fit the server's budget beside the
        // other pages'; the old game's share is given back first, and taken
        // again if the new one does not fit (the old game goes on).
        let old_mb = self.reserved_mb;
        self.reservation = None;
        match self.policy.memory.reserve(memory_mb) {
            Ok(reservation) => {
                self.reservation = Some(reservation);
                self.reserved_mb = memory_mb;
            }
            Err(message) => {
                self.reservation = self.policy.memory.reserve(old_mb).ok();
                return Err(message);
            }
        }
        self.record = GameRecord {
            start: Start::Layout(layout),
            rules: table,
            players: made
                .iter()
                .map(|seat| match seat {
                    Seat::Human(name) => name.clone(),
                    Seat::Engine { name, .. } => name.clone(),
                })
                .collect(),
            opening_plies: 0,
            moves: Vec::new(),
            result: None,
        };
        self.seats = made;
        self.model = game_model.or_else(|| self.models.for_game(layout, &self.record.rules));
        self.positions = vec![start];
        self.moves.clear();
        self.wins.clear();
        self.thinks.clear();
        self.cursor = 0;
        self.clock = clock;
        self.clocks =
            vec![Duration::from_secs_f64(clock.map_or(0.0, |c| c.minutes * 60.0)); seat_count];
        self.turn_started = Instant::now();
        self.ended = None;
        Ok(())
    }

    /// Whether the game (so far) is over.
    pub fn is_over(&self) -> bool {
        self.ended.is_some() || self.current().is_game_over()
    }

    /// The seat to move, if an engine plays it and the game goes on.
    pub fn engine_to_move(&self) -> Option<usize> {
        if self.is_over() {
            return None;
        }
        let seat = self.current().seat_to_move();
        matches!(self.seats[seat], Seat::Engine { .. }).then_some(seat)
    }

    /// Takes the engine of `seat` out to think: the position, the engine,
    /// and the time it may take (its limit, or the clock's share if tighter).
    pub fn take_engine(&mut self, seat: usize) -> Option<EngineTurn> {
        let position = *self.current();
        let share = self.clock.map(|_| self.clocks[seat] / 20);
        match &mut self.seats[seat] {
            Seat::Engine {
                engine,
                limit,
                searches,
                ..
            } => engine.take().map(|engine| EngineTurn {
                seat,
                position,
                engine,
                cap: share.map_or(*limit, |share| share.min(*limit)),
                searches: *searches,
            }),
            Seat::Human(_) => None,
        }
    }

    /// Puts the engine back with its answer, and plays the move if the game
    /// is still at the position it thought about.
    pub fn engine_done(
        &mut self,
        seat: usize,
        engine: SeatEngine,
        thought_about: GeneralPosition,
        answer: Result<EngineMove, String>,
    ) -> Result<(), String> {
        if let Seat::Engine { engine: slot, .. } = &mut self.seats[seat] {
            *slot = Some(engine);
        }
        let answer = answer?;
        if *self.current() != thought_about || !thought_about.is_legal(answer.mv) {
            return Ok(()); // the game moved on (undo, new game): drop it
        }
        let played = self.moves.len();
        self.play(answer.mv, answer.win);
        if self.moves.len() > played
            && let Some(last) = self.thinks.last_mut()
        {
            *last = Some(answer.think);
        }
        Ok(())
    }

    fn play(&mut self, mv: GeneralMove, win: Option<f32>) {
        let before = *self.current();
        let seat = before.seat_to_move();
        // The clock of the seat that moved.
        if self.clock.is_some() {
            let spent = self.turn_started.elapsed();
            if spent >= self.clocks[seat] {
                self.clocks[seat] = Duration::ZERO;
                self.ended = Some(format!("{} ran out of time", SEAT_NAMES[seat]));
                return;
            }
            self.clocks[seat] -= spent;
        }
        let after = before.play(mv);
        if let Some(clock) = self.clock {
            let gained = after
                .seat_score(seat)
                .saturating_sub(before.seat_score(seat));
            self.clocks[seat] +=
                Duration::from_secs_f64(clock.increment_seconds * f64::from(gained));
        }
        for other in &mut self.seats {
            if let Seat::Engine {
                engine: Some(engine),
                ..
            } = other
            {
                engine.observe(&before, mv);
            }
        }
        self.positions.push(after);
        self.moves.push(mv);
        self.wins.push(win);
        self.thinks.push(None);
        self.cursor = self.moves.len();
        self.turn_started = Instant::now();
        if self.moves.len() >= MAX_GAME_PLIES && !after.is_game_over() {
            self.ended = Some(format!(
                "the game reached the server's limit of {MAX_GAME_PLIES} moves"
            ));
        }
    }

    fn reset_engines(&mut self) {
        for seat in &mut self.seats {
            if let Seat::Engine {
                engine: Some(engine),
                ..
            } = seat
            {
                engine.new_game();
            }
        }
        self.turn_started = Instant::now();
    }

    /// Answers a message; `None` when the answer is the new state. Engines
    /// to move are then run by the caller ([`GameSession::engine_to_move`]).
    pub fn handle(&mut self, message: ClientMessage) -> Result<Option<ServerMessage>, String> {
        match message {
            ClientMessage::NewGame {
                layout,
                rules,
                seats,
                clock,
            } => {
                self.new_game(&layout, rules.as_ref(), &seats, clock)?;
                Ok(None)
            }
            ClientMessage::Move { text } => {
                if self.is_over() {
                    return Err("the game is over".into());
                }
                let position = *self.current();
                if !matches!(self.seats[position.seat_to_move()], Seat::Human(_)) {
                    return Err("it is an engine's turn".into());
                }
                let mv = position.parse_move(&text).map_err(|err| err.to_string())?;
                self.play(mv, None);
                Ok(None)
            }
            ClientMessage::Undo {} => {
                let person = |session: &GameSession, index: usize| {
                    matches!(
                        session.seats[session.positions[index].seat_to_move()],
                        Seat::Human(_)
                    )
                };
                if self.moves.is_empty() {
                    return Err("nothing to undo".into());
                }
                self.positions.pop();
                self.moves.pop();
                self.wins.pop();
                self.thinks.pop();
                while !self.moves.is_empty() && !person(self, self.positions.len() - 1) {
                    self.positions.pop();
                    self.moves.pop();
                    self.wins.pop();
                    self.thinks.pop();
                }
                self.cursor = self.moves.len();
                self.ended = None;
                self.reset_engines();
                Ok(None)
            }
            ClientMessage::Resign {} => {
                if self.is_over() {
                    return Err("the game is over".into());
                }
                let seat = self.current().seat_to_move();
                self.ended = Some(format!("{} resigned", SEAT_NAMES[seat]));
                Ok(None)
            }
            ClientMessage::Goto { ply } => {
                if ply > self.moves.len() {
                    return Err(format!(
                        "ply {ply}: the game has {} moves",
                        self.moves.len()
                    ));
                }
                self.cursor = ply;
                Ok(None)
            }
            ClientMessage::Load { record } => {
                self.load(&record)?;
                Ok(None)
            }
            ClientMessage::Save {} => Ok(Some(ServerMessage::Record { text: self.save() })),
            ClientMessage::Analyse { .. } | ClientMessage::Review { .. } => {
                Err("analysis is run by the server, not the session".into())
            }
        }
    }

    /// What a review by the model searches: every position of the game
    /// (the start first, to its last move, whatever is shown) under the
    /// model's rules, the moves between them, and the simulations a
    /// position (default [`DEFAULT_REVIEW_SIMULATIONS`]).
    pub fn review_target(&self, simulations: Option<u32>) -> Result<ReviewTarget, String> {
        let Some(game) = self.engines().model_game() else {
            return Err("no model is loaded: start `sumito serve --model NAME` to review".into());
        };
        // Under the model's rules, as its analysis (and the page's rules
        // note) has it.
        let (positions, _) = self
            .under_model(&game)
            .map_err(|why| format!("the model cannot review this game: {why}"))?;
        if self.moves.is_empty() {
            return Err("there is no move to review yet".into());
        }
        let simulations = simulations
            .unwrap_or(DEFAULT_REVIEW_SIMULATIONS)
            .clamp(1, MAX_SIMULATIONS);
        Ok(ReviewTarget {
            positions,
            moves: self.moves.clone(),
            simulations,
        })
    }

    /// The position and budget of an analysis request: the shown position,
    /// or one given as text, under the model's rules (see
    /// [`GameSession::analysis_view`] for a game under others).
    pub fn analysis_target(
        &self,
        simulations: Option<u32>,
        position: Option<&str>,
    ) -> Result<(GeneralPosition, u32), String> {
        let Some(game) = self.engines().model_game() else {
            return Err("no model is loaded: start `sumito serve --model NAME` to analyse".into());
        };
        // The model judges positions under its own rules only: a position
        // under others (a record without them, a pasted text) is searched
        // under the model's, and the page says so.
        let target = match position {
            Some(text) => game
                .table()
                .position_from_text(text)
                .map_err(|err| format!("the model's game: {err}"))?,
            None => {
                let (positions, _) = self
                    .under_model(&game)
                    .map_err(|why| format!("the model cannot analyse this game: {why}"))?;
                positions[self.cursor]
            }
        };
        if target.is_game_over() {
            return Err("the game is over in that position".into());
        }
        let sims = simulations
            .unwrap_or(DEFAULT_ANALYSIS_SIMULATIONS)
            .clamp(1, MAX_SIMULATIONS);
        Ok((target, sims))
    }

    /// The layout this game started from (a game from a position: the
    /// Standard layout's).
    fn layout(&self) -> GeneralLayout {
        match self.record.start {
            Start::Layout(layout) => layout,
            Start::Position(_) => GeneralLayout::Two(sumito_engine::Layout::Standard),
        }
    }

    /// This game, every position of it, under `model`'s rules, with a note
    /// for the page where they are not the game's own; why not, where the
    /// model does not play its layout, or under the model's rules the game
    /// ends before its last move or a move is not legal. The one policy of
    /// every game and model, the terminal's (`record_under_rules`).
    fn under_model(
        &self,
        model: &ModelGame,
    ) -> Result<(Vec<GeneralPosition>, Option<String>), String> {
        let own = model.rules_on(self.layout())?;
        let rules = *self.positions[0].rules();
        if own == rules {
            return Ok((self.positions.clone(), None));
        }
        let record = GameRecord {
            moves: self.moves.clone(),
            ..self.record.clone()
        };
        let (taken, _) = record_under_rules(&record, model.table())?;
        let note = format!(
            "the model analyses under the rules it was trained with ({own}), not this game's ({rules})"
        );
        Ok((taken.positions()?, Some(note)))
    }

    /// Whether the page may analyse this game's positions, and what it is
    /// told when the model analyses them under other rules than the game's
    /// own (a loaded record, a game without the model): one taking of the
    /// game under the model's rules for both.
    fn analysis_view(&self) -> (bool, Option<String>) {
        match self
            .engines()
            .model_game()
            .map(|game| self.under_model(&game))
        {
            Some(Ok((_, note))) => (true, note),
            _ => (false, None),
        }
    }

    /// The analysis message for the page; `done` marks the last of a
    /// search's updates.
    pub fn analysis_message(
        position: &GeneralPosition,
        analysis: &PageAnalysis,
        done: bool,
    ) -> ServerMessage {
        let moves = analysis
            .moves
            .iter()
            .take(12)
            .map(|stats| {
                let (from, to) = move_cells(position, stats.mv);
                AnalysisMove {
                    text: stats.mv.to_text(),
                    from,
                    to,
                    visits: stats.visits,
                    prior: stats.prior,
                    q: stats.q,
                }
            })
            .collect();
        let mut pv_boards = Vec::new();
        let mut line = *position;
        for &mv in &analysis.principal_variation {
            if line.is_game_over() || !line.is_legal(mv) {
                break;
            }
            line = line.play(mv);
            pv_boards.push(board_view(&line));
        }
        let seating = position.rules().seating;
        ServerMessage::Analysis {
            position: position.to_string(),
            side: seating.side_name(position.side_to_move()),
            ply: position.ply(),
            wdl: [analysis.wdl.win, analysis.wdl.draw, analysis.wdl.loss],
            values_by_side: analysis.side_values.clone(),
            moves,
            pv: analysis
                .principal_variation
                .iter()
                .map(|mv| mv.to_text())
                .collect(),
            pv_boards,
            simulations: analysis.simulations,
            elapsed_ms: analysis.elapsed.as_millis() as u64,
            done,
        }
    }

    /// Records the analysis's win probability at the shown ply (the graph):
    /// the expected score of the side that played the last move.
    pub fn note_analysis(&mut self, position: &GeneralPosition, analysis: &PageAnalysis) {
        if self.cursor > 0
            && self.positions[self.cursor].to_string().split(' ').next()
                == position.to_string().split(' ').next()
        {
            let mover = self.positions[self.cursor - 1].side_to_move();
            if let Some(value) = analysis.side_values.get(mover) {
                self.wins[self.cursor - 1] = Some((1.0 + value) / 2.0);
            }
        }
    }

    /// The game as a Sumito record (the one record format of both games).
    pub fn save(&self) -> String {
        let mut record = self.record.clone();
        record.moves = self.moves.clone();
        record.result = self.current().outcome();
        record.to_text()
    }

    /// Replaces the game with a record: Sumito's record format (or an
    /// older one), or plain Aba-Pro moves from the Standard start.
    pub fn load(&mut self, text: &str) -> Result<(), String> {
        let text = text.trim_start();
        let record = if format_of(text).is_some() {
            GameRecord::<GeneralPosition>::parse(text).map_err(|err| err.to_string())?
        } else {
            // Aba-Pro moves, from the Standard start.
            let mut position = GeneralPosition::from_text(
                &Position::start(sumito_engine::Layout::Standard, Rules::default()).to_string(),
                None,
            )
            .map_err(|err| err.to_string())?;
            let mut moves = Vec::new();
            for (index, word) in text.split_whitespace().enumerate() {
                // Move numbers such as "1." are skipped.
                if word
                    .trim_end_matches('.')
                    .chars()
                    .all(|c| c.is_ascii_digit())
                {
                    continue;
                }
                let mv = position
                    .parse_move(word)
                    .map_err(|err| format!("move {} ({word}): {err}", index + 1))?;
                moves.push(mv);
                position = position.play(mv);
            }
            GameRecord {
                start: Start::Layout(GeneralLayout::Two(sumito_engine::Layout::Standard)),
                rules: RulesTable::default(),
                players: vec!["black".into(), "white".into()],
                opening_plies: 0,
                moves,
                result: None,
            }
        };
        if record.moves.len() > MAX_GAME_PLIES {
            return Err(format!(
                "the record has {} moves; the server shows games of at most {MAX_GAME_PLIES}",
                record.moves.len()
            ));
        }
        let positions = record.positions()?;
        let seats = positions[0].rules().seating.seats();
        let layout = match &record.start {
            Start::Layout(layout) => *layout,
            Start::Position(_) => GeneralLayout::Two(sumito_engine::Layout::Standard),
        };
        // A loaded game is for reading and analysis: every seat a person,
        // and no engine holds memory.
        self.reservation = None;
        self.reserved_mb = 0;
        self.seats = (0..seats)
            .map(|s| {
                Seat::Human(
                    record
                        .players
                        .get(s)
                        .cloned()
                        .unwrap_or_else(|| SEAT_NAMES[s].into()),
                )
            })
            .collect();
        self.moves = record.moves.clone();
        self.wins = vec![None; record.moves.len()];
        self.thinks = vec![None; record.moves.len()];
        self.positions = positions;
        self.cursor = self.moves.len();
        self.clock = None;
        self.clocks = vec![Duration::ZERO; seats];
        self.ended = None;
        // Analysed by the model of its game, if the server has one.
        self.model = self.models.for_game(layout, &record.rules);
        self.record = record;
        Ok(())
    }

    /// Everything the page shows.
    pub fn state(&self) -> StateView {
        let shown = &self.positions[self.cursor];
        let last = self.current();
        let rules = last.rules();
        let seating = rules.seating;
        let (can_analyse, rules_note) = self.analysis_view();
        let human_to_move =
            !self.is_over() && matches!(self.seats[last.seat_to_move()], Seat::Human(_));
        let running = self.clock.is_some() && !self.is_over();
        let legal = if self.cursor == self.moves.len() && human_to_move {
            last.legal_moves()
                .into_iter()
                .map(|mv| {
                    let (from, to) = move_cells(last, mv);
                    MoveView {
                        text: mv.to_text(),
                        comma: mv.to_comma(),
                        from,
                        to,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        StateView {
            layout: match &self.record.start {
                Start::Layout(layout) => layout.name(),
                Start::Position(_) => "position".into(),
            },
            rules: rules.to_string(),
            position: shown.to_string(),
            cursor: self.cursor,
            board: board_view(shown),
            seats: (0..seating.seats())
                .map(|seat| {
                    let side = seating.side_of(seat);
                    let clock_ms = self.clock.map(|_| {
                        let mut left = self.clocks[seat];
                        if running && last.seat_to_move() == seat {
                            left = left.saturating_sub(self.turn_started.elapsed());
                        }
                        left.as_millis() as u64
                    });
                    SeatView {
                        colour: SEAT_NAMES[seat],
                        player: match &self.seats[seat] {
                            Seat::Human(name) => name.clone(),
                            Seat::Engine { name, .. } => name.clone(),
                        },
                        human: matches!(self.seats[seat], Seat::Human(_)),
                        score: shown.seat_score(seat),
                        side_score: shown.side_score(side),
                        target: rules.target(side),
                        marbles: shown.marble_count(seat),
                        clock_ms,
                    }
                })
                .collect(),
            to_move: shown.seat_to_move(),
            human_to_move,
            legal,
            history: self
                .moves
                .iter()
                .enumerate()
                .map(|(index, mv)| PlyView {
                    ply: index + 1,
                    seat: self.positions[index].seat_to_move(),
                    text: mv.to_text(),
                    position: self.positions[index + 1].to_string(),
                    win: self.wins[index],
                    think_ms: self.thinks[index].map(|d| d.as_secs_f64() * 1000.0),
                })
                .collect(),
            result: self.ended.clone().or_else(|| last.describe_outcome()),
            can_analyse,
            model: self.engines().model_name(),
            levels: levels_of(self.engines()),
            models: self
                .models
                .list()
                .iter()
                .filter_map(|model| {
                    Some(ModelView {
                        name: model.model_name()?,
                        layouts: model.model_game()?.layouts(),
                        levels: levels_of(model.as_ref()),
                    })
                })
                .collect(),
            rules_note,
        }
    }
}

/// A model's strength levels for the page (none without a model).
fn levels_of(model: &dyn Engines) -> Vec<LevelView> {
    if model.model_name().is_none() {
        return Vec::new();
    }
    LEVELS
        .iter()
        .map(|level| LevelView {
            number: level.number,
            name: level.name,
            simulations: level.simulations,
            elo: model.level_elo(level.number),
        })
        .collect()
}

/// Refuses a game `model` does not play: a model plays only under the
/// rules it was trained with (`rules` for this `layout`).
fn check_model_rules(
    model: &dyn Engines,
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

/// The longest error message sent to a page: errors quote what was sent
/// (a move, a spec, a record line), and that is cut to a short excerpt.
pub const MAX_ERROR_CHARS: usize = 240;

/// The error message for the page, at most [`MAX_ERROR_CHARS`] characters.
pub fn error(message: impl Into<String>) -> ServerMessage {
    let message: String = message.into();
    let message = if message.chars().count() > MAX_ERROR_CHARS {
        let mut cut: String = message.chars().take(MAX_ERROR_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        message
    };
    ServerMessage::Error { message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::rules_table::Targets;

    fn session() -> GameSession {
        GameSession::new(
            Arc::new(Models::none()),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap()
    }

    fn people(n: usize) -> Vec<SeatRequest> {
        (0..n).map(|_| SeatRequest::Human { name: None }).collect()
    }

    /// Runs the engine to move, as the server does (on this thread).
    fn engine_turn(session: &mut GameSession) {
        let seat = session.engine_to_move().expect("an engine's turn");
        let mut turn = session.take_engine(seat).unwrap();
        let answer = turn.engine.think(&turn.position, Some(turn.cap));
        session
            .engine_done(seat, turn.engine, turn.position, answer)
            .unwrap();
    }

    #[test]
    fn a_game_against_an_engine_plays_undoes_and_refuses_illegal_moves() {
        let mut game = session();
        let state = game.state();
        assert_eq!(state.board.len(), 61);
        assert_eq!(state.legal.len(), 44, "Standard, Black to move");
        assert!(state.human_to_move && !state.can_analyse);
        let a1b2 = state.legal.iter().find(|m| m.text == "A1B2").unwrap();
        assert_eq!(a1b2.from, ["A1", "B2", "C3"]);
        assert_eq!(a1b2.to, ["B2", "C3", "D4"]);
        let err = game
            .handle(ClientMessage::Move {
                text: "I5H5".into(),
            })
            .unwrap_err();
        assert!(err.contains("not legal"), "{err}");
        game.handle(ClientMessage::Move {
            text: "A1B2".into(),
        })
        .unwrap();
        assert_eq!(game.engine_to_move(), Some(1));
        assert!(
            game.handle(ClientMessage::Move {
                text: "B1C2".into()
            })
            .is_err(),
            "the engine's turn"
        );
        engine_turn(&mut game);
        let state = game.state();
        assert_eq!(state.history.len(), 2);
        assert!(state.human_to_move);
        assert!(state.history[0].think_ms.is_none(), "a person's move");
        assert!(
            state.history[1].think_ms.is_some_and(|ms| ms > 0.0),
            "the engine's"
        );
        // Undo takes back the engine's reply and the person's move.
        game.handle(ClientMessage::Undo {}).unwrap();
        assert_eq!(game.state().history.len(), 0);
        game.handle(ClientMessage::Resign {}).unwrap();
        assert_eq!(game.state().result.as_deref(), Some("black resigned"));
    }

    #[test]
    fn every_layout_and_variant_starts_and_bad_requests_are_refused() {
        let mut game = session();
        game.handle(ClientMessage::NewGame {
            layout: "six-player".into(),
            rules: Some(serde_json::json!({"holes": ["E5"], "partners_in_a_row": true})),
            seats: people(6),
            clock: None,
        })
        .unwrap();
        let state = game.state();
        assert_eq!(state.seats.len(), 6);
        assert_eq!(
            state.board.iter().filter(|c| c.content == "hole").count(),
            1
        );
        assert!(!state.legal.is_empty());
        for (layout, rules, seats, expected) in [
            ("hexagon", None, people(2), "hexagon"),
            (
                "standard",
                Some(serde_json::json!({"holse": []})),
                people(2),
                "holse",
            ),
            ("four-player", None, people(2), "seats 4"),
            (
                "standard",
                None,
                vec![
                    SeatRequest::Engine {
                        spec: "grandmaster".into(),
                    },
                    SeatRequest::Human { name: None },
                ],
                "grandmaster",
            ),
            (
                "three-player",
                None,
                vec![
                    SeatRequest::Model {
                        model: None,
                        simulations: None,
                        time_ms: None,
                        level: None,
                    },
                    SeatRequest::Human { name: None },
                    SeatRequest::Human { name: None },
                ],
                "model",
            ),
        ] {
            let err = game
                .handle(ClientMessage::NewGame {
                    layout: layout.into(),
                    rules,
                    seats,
                    clock: None,
                })
                .unwrap_err();
            assert!(err.contains(expected), "{expected}: {err}");
        }
        assert!(game.handle(ClientMessage::Goto { ply: 5 }).is_err());
        assert!(
            game.analysis_target(None, None)
                .unwrap_err()
                .contains("no model")
        );
    }

    #[test]
    fn records_save_and_load_in_both_formats_and_as_aba_pro_lists() {
        let mut game = session();
        game.handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: people(2),
            clock: None,
        })
        .unwrap();
        for mv in ["A1B2", "I5H5", "B1C2"] {
            game.handle(ClientMessage::Move { text: mv.into() })
                .unwrap();
        }
        let Some(ServerMessage::Record { text }) = game.handle(ClientMessage::Save {}).unwrap()
        else {
            panic!("a record")
        };
        assert!(
            text.starts_with(sumito_arena::record_format::MAGIC),
            "{text}"
        );
        assert!(text.contains("seats: "), "{text}");
        let mut other = session();
        other.handle(ClientMessage::Load { record: text }).unwrap();
        assert_eq!(other.state().position, game.state().position);
        other.handle(ClientMessage::Goto { ply: 1 }).unwrap();
        assert_eq!(other.state().cursor, 1);
        // A plain list of Aba-Pro moves, with move numbers.
        other
            .handle(ClientMessage::Load {
                record: "1. A1B2 I5H5\n2. B1C2".into(),
            })
            .unwrap();
        assert_eq!(other.state().position, game.state().position);
        let err = other
            .handle(ClientMessage::Load {
                record: "A1B2 A1B2".into(),
            })
            .unwrap_err();
        assert!(err.contains("move 2"), "{err}");
        // An older two-player record loads too.
        other
            .handle(ClientMessage::Load {
                record: format!(
                    "{}\nlayout: standard\nmoves:\nA1B2\nI5H5\nB1C2\nresult: *\n",
                    sumito_arena::record_format::TWO_PLAYER_MAGIC_V1
                ),
            })
            .unwrap();
        assert_eq!(other.state().position, game.state().position);
        // A game of the general game saves in the same format.
        game.handle(ClientMessage::NewGame {
            layout: "three-player".into(),
            rules: None,
            seats: people(3),
            clock: None,
        })
        .unwrap();
        game.handle(ClientMessage::Move {
            text: "B1C2".into(),
        })
        .unwrap();
        let Some(ServerMessage::Record { text }) = game.handle(ClientMessage::Save {}).unwrap()
        else {
            panic!("a record")
        };
        assert!(
            text.starts_with(sumito_arena::record_format::MAGIC),
            "{text}"
        );
        other.handle(ClientMessage::Load { record: text }).unwrap();
        assert_eq!(other.state().seats.len(), 3);
        assert_eq!(other.state().history.len(), 1);
    }

    #[test]
    fn clocks_count_down_and_add_the_increment() {
        let mut game = session();
        game.handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: people(2),
            clock: Some(ClockRequest {
                minutes: 1.0,
                increment_seconds: 5.0,
            }),
        })
        .unwrap();
        let before = game.state().seats[0].clock_ms.unwrap();
        assert!(before <= 60_000 && before > 59_000);
        game.handle(ClientMessage::Move {
            text: "A1B2".into(),
        })
        .unwrap();
        assert!(game.state().seats[0].clock_ms.unwrap() <= before);
        let err = game
            .handle(ClientMessage::NewGame {
                layout: "standard".into(),
                rules: None,
                seats: people(2),
                clock: Some(ClockRequest {
                    minutes: -1.0,
                    increment_seconds: 0.0,
                }),
            })
            .unwrap_err();
        assert!(err.contains("clock"), "{err}");
    }

    #[test]
    fn errors_quote_a_short_excerpt_of_what_was_sent() {
        let mut game = session();
        let huge = "X".repeat(1 << 20);
        let err = game.handle(ClientMessage::Move { text: huge }).unwrap_err();
        let ServerMessage::Error { message } = error(err) else {
            unreachable!()
        };
        assert!(
            message.chars().count() <= MAX_ERROR_CHARS,
            "{}",
            message.len()
        );
        let ServerMessage::Error { message } = error(format!("bad: {}", "é".repeat(5000))) else {
            unreachable!()
        };
        assert_eq!(message.chars().count(), MAX_ERROR_CHARS);
        assert!(message.ends_with('…'));
        let ServerMessage::Error { message } = error("short") else {
            unreachable!()
        };
        assert_eq!(message, "short");
    }

    #[test]
    fn the_engines_of_all_pages_share_one_memory_budget() {
        let policy = Arc::new(PagePolicy::new(40, None));
        let page = |policy: &Arc<PagePolicy>| {
            GameSession::new(
                Arc::new(Models::none()),
                policy.clone(),
                Arc::new(AtomicBool::new(false)),
                1,
            )
        };
        let alphabeta = |spec: &str| SeatRequest::Engine { spec: spec.into() };
        let two_engines = |game: &mut GameSession| {
            game.handle(ClientMessage::NewGame {
                layout: "standard".into(),
                rules: None,
                seats: vec![
                    alphabeta("alphabeta:depth=1"),
                    alphabeta("alphabeta:depth=1"),
                ],
                clock: None,
            })
        };
        // The first page's default game holds one table (16 MB); two
        // engines of a second page's game (32 MB) do not fit beside it.
        let first = page(&policy).unwrap();
        let mut second = page(&policy).unwrap();
        let err = two_engines(&mut second).unwrap_err();
        assert!(err.contains("memory budget"), "{err}");
        // When the first page goes, its share comes back.
        drop(first);
        two_engines(&mut second).unwrap();
        // A loaded game holds none.
        second.load("A1B2 I5H5").unwrap();
        let mut third = page(&policy).unwrap();
        two_engines(&mut third).unwrap();
    }

    #[test]
    fn a_game_is_bounded_in_length() {
        let mut game = session();
        // A record one move too long, of moves that push nothing off.
        let mut position = GeneralPosition::from_text(
            &Position::start(sumito_engine::Layout::Standard, Rules::default()).to_string(),
            None,
        )
        .unwrap();
        let mut moves = Vec::new();
        for ply in 0..=MAX_GAME_PLIES {
            let quiet: Vec<GeneralMove> = position
                .legal_moves()
                .into_iter()
                .filter(|&mv| position.play(mv).scores() == position.scores())
                .collect();
            let mv = quiet[ply * 7 % quiet.len()];
            moves.push(mv.to_text());
            position = position.play(mv);
        }
        let err = game.load(&moves.join(" ")).unwrap_err();
        assert!(err.contains("at most"), "{err}");
        // Engines of a game without a move limit stop at the server's.
        game.handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![
                SeatRequest::Engine {
                    spec: "random".into(),
                },
                SeatRequest::Engine {
                    spec: "random".into(),
                },
            ],
            clock: None,
        })
        .unwrap();
        while game.engine_to_move().is_some() {
            engine_turn(&mut game);
        }
        let state = game.state();
        assert!(state.history.len() <= MAX_GAME_PLIES);
        assert!(state.result.is_some());
    }

    /// A model of `game` that plays with a uniform evaluator.
    #[derive(Debug)]
    struct UniformModel(ModelGame);

    /// A two-player model's rules (says its bundle): a 200-ply limit.
    const TRAINED: Rules = Rules {
        marbles_to_win: 6,
        max_plies: Some(200),
        no_push_off_plies: None,
    };

    fn uniform_search<B: sumito_game::Board>(
        budget: SearchBudget,
        level: Option<Level>,
        seed: u64,
    ) -> sumito_arena::players::network::NetworkSearch<B> {
        let search = sumito_arena::players::network::NetworkSearch::new(
            "uniform",
            Box::new(sumito_mcts::UniformEvaluator),
            budget,
            seed,
        );
        match level {
            Some(level) => search.with_level(level),
            None => search,
        }
    }

    impl Engines for UniformModel {
        fn model_name(&self) -> Option<String> {
            Some(match self.0.kind() {
                GameKind::TwoPlayer => "uniform".into(),
                GameKind::General => "uniform three".into(),
            })
        }
        fn model_game(&self) -> Option<ModelGame> {
            Some(self.0.clone())
        }
        fn model_seat(
            &self,
            budget: SearchBudget,
            level: Option<Level>,
            seed: u64,
        ) -> Result<SeatEngine, String> {
            Ok(
                sumito_game::with_board!(self.0.kind(), B => SeatEngine::searching::<B>(
                    uniform_search::<B>(budget, level, seed)
                )),
            )
        }
        fn level_elo(&self, number: u32) -> Option<f64> {
            (number == 3).then_some(412.0)
        }
        fn analyse(
            &self,
            _: &GeneralPosition,
            _: u32,
            _: Arc<AtomicBool>,
            _: &mut dyn FnMut(&PageAnalysis) -> bool,
        ) -> Result<PageAnalysis, String> {
            Err("not needed here".into())
        }
    }

    #[test]
    fn the_model_plays_and_analyses_only_under_its_training_rules() {
        let mut game = GameSession::new(
            Arc::new(Models::one(Arc::new(UniformModel(ModelGame::new(
                GameKind::TwoPlayer,
                RulesTable::of_two_player(TRAINED),
            ))))),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        // The first game, and any game with the model that names no rules,
        // is under the model's rules.
        let limit = |game: &GameSession| Position::of_general(game.current()).unwrap().rules();
        assert_eq!(limit(&game), TRAINED);
        assert!(game.state().rules_note.is_none());
        let model = SeatRequest::Model {
            model: None,
            simulations: Some(8),
            time_ms: None,
            level: None,
        };
        let with_model = |rules: Option<serde_json::Value>| ClientMessage::NewGame {
            layout: "belgian-daisy".into(),
            rules,
            seats: vec![SeatRequest::Human { name: None }, model.clone()],
            clock: None,
        };
        game.handle(with_model(None)).unwrap();
        assert_eq!(limit(&game), TRAINED);
        // Other rules with the model are refused, naming both.
        let err = game
            .handle(with_model(Some(serde_json::json!({"max_plies": 400}))))
            .unwrap_err();
        assert!(
            err.contains("200-ply limit") && err.contains("400-ply limit"),
            "{err}"
        );
        game.handle(with_model(Some(serde_json::json!({"max_plies": 200}))))
            .unwrap();
        // A record without rules is analysed under the model's, and the
        // page is told.
        game.load("A1B2 I5H5").unwrap();
        let note = game.state().rules_note.expect("a note");
        assert!(
            note.contains("200-ply limit") && note.contains("no move limit"),
            "{note}"
        );
        let (target, _) = game.analysis_target(Some(10), None).unwrap();
        assert_eq!(Position::of_general(&target).unwrap().rules(), TRAINED);
        let (pasted, _) = game
            .analysis_target(Some(10), Some("5/6/7/8/bb4bbw/w7/7/6/5 b 0 5"))
            .unwrap();
        assert_eq!(Position::of_general(&pasted).unwrap().rules(), TRAINED);
    }

    #[test]
    fn a_review_takes_the_whole_game_under_the_models_rules() {
        let mut game = GameSession::new(
            Arc::new(Models::one(Arc::new(UniformModel(ModelGame::new(
                GameKind::TwoPlayer,
                RulesTable::of_two_player(TRAINED),
            ))))),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        let err = game.review_target(None).unwrap_err();
        assert!(err.contains("no move"), "{err}");
        game.load("A1B2 I5H5").unwrap();
        game.handle(ClientMessage::Goto { ply: 1 }).unwrap();
        // The whole game, whatever is shown, under the model's rules.
        let target = game.review_target(Some(50_000_000)).unwrap();
        assert_eq!((target.positions.len(), target.moves.len()), (3, 2));
        assert_eq!(target.simulations, MAX_SIMULATIONS);
        for position in &target.positions {
            assert_eq!(Position::of_general(position).unwrap().rules(), TRAINED);
        }
        assert_eq!(
            game.review_target(None).unwrap().simulations,
            DEFAULT_REVIEW_SIMULATIONS
        );
        let plain = GameSession::new(
            Arc::new(Models::none()),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        assert!(plain.review_target(None).unwrap_err().contains("no model"));
    }

    #[test]
    fn the_model_plays_at_a_strength_level_the_page_offers() {
        let mut game = GameSession::new(
            Arc::new(Models::one(Arc::new(UniformModel(ModelGame::new(
                GameKind::TwoPlayer,
                RulesTable::of_two_player(TRAINED),
            ))))),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        // The page is offered the ten levels, with the Elo measured.
        let levels = game.state().levels;
        assert_eq!(levels.len(), LEVELS.len());
        assert_eq!((levels[2].number, levels[2].name), (3, "casual"));
        assert_eq!(levels[2].elo, Some(412.0));
        assert_eq!(levels[0].elo, None);
        let at = |level: u32| ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![
                SeatRequest::Model {
                    model: None,
                    simulations: None,
                    time_ms: None,
                    level: Some(level),
                },
                SeatRequest::Human { name: None },
            ],
            clock: None,
        };
        game.handle(at(3)).unwrap();
        assert_eq!(game.state().seats[0].player, "uniform (level 3, casual)");
        engine_turn(&mut game);
        assert_eq!(game.state().history.len(), 1);
        assert!(game.state().human_to_move);
        let err = game.handle(at(11)).unwrap_err();
        assert!(err.contains("seat 1") && err.contains("level 11"), "{err}");
        // Without a model, no levels.
        let plain = GameSession::new(
            Arc::new(Models::none()),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        assert!(plain.state().levels.is_empty());
    }

    /// A model of the general game's rules: three players with a 240-ply
    /// limit.
    fn three_player_table() -> RulesTable {
        RulesTable {
            layouts: Some(vec!["three-player".into()]),
            marbles_to_win: Some(Targets::All(6)),
            max_plies: Some(240),
            ..RulesTable::default()
        }
    }

    #[test]
    fn a_model_of_the_general_game_takes_the_seats_of_its_game() {
        let mut game = GameSession::new(
            Arc::new(Models::one(Arc::new(UniformModel(ModelGame::new(
                GameKind::General,
                three_player_table(),
            ))))),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        // The first game is the model's: its first layout, its rules, the
        // person first and the model at the other seats.
        let state = game.state();
        assert_eq!(state.seats.len(), 3);
        assert!(state.human_to_move && state.can_analyse);
        assert_eq!(game.current().rules().max_plies, Some(240));
        let first = state.legal[0].text.clone();
        game.handle(ClientMessage::Move { text: first }).unwrap();
        // Both model seats move, each a legal move of the game.
        for _ in 0..2 {
            engine_turn(&mut game);
        }
        assert_eq!(game.state().history.len(), 3);
        assert!(game.state().human_to_move);
        // Other rules with the model are refused, naming both.
        let model = SeatRequest::Model {
            model: None,
            simulations: Some(8),
            time_ms: None,
            level: None,
        };
        let seats = vec![SeatRequest::Human { name: None }, model.clone(), model];
        let err = game
            .handle(ClientMessage::NewGame {
                layout: "three-player".into(),
                rules: Some(serde_json::json!({"max_plies": 100})),
                seats: seats.clone(),
                clock: None,
            })
            .unwrap_err();
        assert!(err.contains("trained with"), "{err}");
        // The page analyses the game's position under the model's rules,
        // and may: the game is under them.
        let (target, sims) = game.analysis_target(Some(10), None).unwrap();
        assert_eq!((target, sims), (*game.current(), 10));
        assert!(game.state().can_analyse);
    }

    #[test]
    fn several_models_are_served_each_on_the_games_of_its_rules() {
        let two: Arc<dyn Engines> = Arc::new(UniformModel(ModelGame::new(
            GameKind::TwoPlayer,
            RulesTable::of_two_player(TRAINED),
        )));
        let three: Arc<dyn Engines> = Arc::new(UniformModel(ModelGame::new(
            GameKind::General,
            three_player_table(),
        )));
        // Two models of one name are refused.
        let err = Models::new(vec![two.clone(), two.clone()]).unwrap_err();
        assert!(err.contains("two models are named \"uniform\""), "{err}");
        let models = Arc::new(Models::new(vec![two, three]).unwrap());
        let mut game = GameSession::new(
            models,
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        // The first game is against the first model; the page is told of
        // both, with the layouts each plays.
        let state = game.state();
        assert_eq!(state.model.as_deref(), Some("uniform"));
        assert_eq!(state.seats[1].player, "uniform");
        let names: Vec<(&str, bool)> = state
            .models
            .iter()
            .map(|model| {
                (
                    model.name.as_str(),
                    model.layouts.contains(&"three-player".to_string()),
                )
            })
            .collect();
        assert_eq!(names, [("uniform", false), ("uniform three", true)]);
        assert_eq!(state.models[1].levels.len(), 10);
        let model = |name: Option<&str>| SeatRequest::Model {
            model: name.map(str::to_string),
            simulations: Some(8),
            time_ms: None,
            level: None,
        };
        let human = || SeatRequest::Human { name: None };
        // A three-player game without a name takes the model that plays it,
        // and that model analyses it.
        game.handle(ClientMessage::NewGame {
            layout: "three-player".into(),
            rules: None,
            seats: vec![human(), model(None), model(None)],
            clock: None,
        })
        .unwrap();
        let state = game.state();
        assert_eq!(state.model.as_deref(), Some("uniform three"));
        assert_eq!(state.seats[2].player, "uniform three");
        assert!(state.can_analyse);
        assert_eq!(game.current().rules().max_plies, Some(240));
        // A model named for a game it does not play is refused by name, and
        // so is a name the server does not have.
        let err = game
            .handle(ClientMessage::NewGame {
                layout: "three-player".into(),
                rules: None,
                seats: vec![human(), model(Some("uniform")), model(None)],
                clock: None,
            })
            .unwrap_err();
        assert!(
            err.contains("the model uniform does not play this game: it plays on standard,")
                && err.contains("not on three-player"),
            "{err}"
        );
        let err = game
            .handle(ClientMessage::NewGame {
                layout: "standard".into(),
                rules: None,
                seats: vec![human(), model(Some("other"))],
                clock: None,
            })
            .unwrap_err();
        assert!(
            err.contains(
                "seat 2: no model is named \"other\": this server has uniform, uniform three"
            ),
            "{err}"
        );
        // Back on a two-player layout: the two-player model, by name.
        game.handle(ClientMessage::NewGame {
            layout: "belgian-daisy".into(),
            rules: None,
            seats: vec![model(Some("uniform")), human()],
            clock: None,
        })
        .unwrap();
        assert_eq!(game.state().model.as_deref(), Some("uniform"));
        assert_eq!(game.current().rules().max_plies, Some(200));
        // A game of people on the three-player layout is analysed by the
        // model of that game.
        game.handle(ClientMessage::NewGame {
            layout: "three-player".into(),
            rules: None,
            seats: vec![human(), human(), human()],
            clock: None,
        })
        .unwrap();
        assert_eq!(game.state().model.as_deref(), Some("uniform three"));
    }
}
