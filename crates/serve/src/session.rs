//! One page's game: the positions so far (general engine, so every variant
//! and 3–6 players), who plays each seat, the clocks, the shown ply, and the
//! answers to the page's messages: moves, undo, loading and saving, the
//! targets of the page's analyses and reviews; what the page shows of it is
//! `session/view.rs`. Seat players think outside this struct (the server takes a
//! seat's player out, runs it on a blocking thread and puts it back), so
//! nothing here blocks for long.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sumito_arena::match_start::default_layouts;
use sumito_arena::record::{Forfeit, ForfeitBy, GameRecord, Start, Variation};
use sumito_arena::record_format::format_of;
use sumito_engine::general::{
    GeneralLayout, GeneralMove, GeneralPosition, GeneralRules, SEAT_NAMES,
};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Position, Rules};
use sumito_game::GameKind;
use sumito_play::analysis::record_under_rules;
use sumito_play::review::Review;

use crate::menu::{
    CLASSICAL_THINK_LIMIT, MAX_GAME_PLIES, MAX_SIMULATIONS, MAX_VARIATION_PLIES, MAX_VARIATIONS,
    MODEL_SEARCH_MB, MODEL_THINK_LIMIT, PagePolicy, Reservation, page_player,
};
use crate::model::{
    DEFAULT_ANALYSIS_SIMULATIONS, DEFAULT_REVIEW_SIMULATIONS, DEFAULT_SEAT_SIMULATIONS, Model,
    ModelGame, Models, NO_MODEL, NoModel, PageAnalysis, ReviewTarget, check_model_rules,
    seat_budget,
};
use crate::protocol::{ClientMessage, ClockRequest, SeatRequest, ServerMessage};
use crate::seat_player::{PlayerMove, PlayerTurn, SeatPlayer};

/// Who plays a seat.
#[derive(Debug)]
enum Seat {
    Human(String),
    /// A program: a classical player or a model; `player` is `None` while
    /// it thinks on another thread.
    Player {
        name: String,
        /// The seat as `new_game` asks for it (its model named), for the
        /// page to seat the same player after a reload.
        request: SeatRequest,
        player: Option<SeatPlayer>,
        /// The longest it may think about a move.
        limit: Duration,
        /// Whether it searches (then it waits for a search slot).
        searches: bool,
        /// Whether it is a model (whose timed search is planned from its
        /// speed, so it aims below its limit).
        model: bool,
        /// Memory reserved while it searches (a model's tree; a classical
        /// player's table is held with the game).
        search_mb: u32,
    },
}

impl Seat {
    /// Who plays it, as the page and the record name the player.
    fn name(&self) -> String {
        match self {
            Seat::Human(name) | Seat::Player { name, .. } => name.clone(),
        }
    }

    /// The seat as `new_game` asks for it.
    fn request(&self) -> SeatRequest {
        match self {
            Seat::Human(name) => SeatRequest::Human {
                name: Some(name.clone()),
            },
            Seat::Player { request, .. } => request.clone(),
        }
    }
}

/// Each seat's time on `clock` in a game at `position`: the time control's
/// full time, or the milliseconds `left` that the page kept (a reload),
/// each at most what the clock can hold there (its full time and the
/// increments of the seat's push-offs). Refused where the time control is
/// out of range, or `left` is given without one, for another number of
/// seats, or above what a clock can hold.
fn clocks_left(
    clock: Option<ClockRequest>,
    left: Option<&[u64]>,
    position: &GeneralPosition,
    seats: usize,
) -> Result<Vec<Duration>, String> {
    let Some(clock) = clock else {
        return match left {
            Some(_) => Err("clock_ms: the time left is given without a clock".into()),
            None => Ok(vec![Duration::ZERO; seats]),
        };
    };
    if !(clock.minutes > 0.0
        && clock.minutes <= 600.0
        && (0.0..=3600.0).contains(&clock.increment_seconds))
    {
        return Err("clock: minutes must be in (0, 600] and increment_seconds in [0, 3600]".into());
    }
    let full = Duration::from_secs_f64(clock.minutes * 60.0);
    let Some(left) = left else {
        return Ok(vec![full; seats]);
    };
    if left.len() != seats {
        return Err(format!(
            "clock_ms: {} clocks given, the game seats {seats} players",
            left.len()
        ));
    }
    left.iter()
        .enumerate()
        .map(|(seat, &ms)| {
            let most = full
                + Duration::from_secs_f64(
                    clock.increment_seconds * f64::from(position.seat_score(seat)),
                );
            let time = Duration::from_millis(ms);
            if time > most {
                return Err(format!(
                    "clock_ms: seat {} has {ms} ms left, more than its clock holds ({} ms)",
                    seat + 1,
                    most.as_millis()
                ));
            }
            Ok(time)
        })
        .collect()
}

/// The game's last review and what it judged: the positions (under the
/// model's rules, the start first), the moves between them, and the
/// simulations of its searches.
#[derive(Debug)]
struct Reviewed {
    positions: Vec<GeneralPosition>,
    moves: Vec<GeneralMove>,
    simulations: u32,
    review: Review,
}

/// A game and everything the page asked for.
pub struct GameSession {
    /// Every model the server offers.
    models: Arc<Models>,
    /// The model of this game (its model seats' first, or the one that
    /// analyses its layout and rules): analysis, review and levels.
    model: Option<Arc<dyn Model>>,
    policy: Arc<PagePolicy>,
    /// Set when the page closes: every search of this page ends at once.
    stop: Arc<AtomicBool>,
    /// The memory the game's players hold, given back with the game.
    reservation: Option<Reservation>,
    reserved_mb: u32,
    record: GameRecord<GeneralPosition>,
    positions: Vec<GeneralPosition>,
    moves: Vec<GeneralMove>,
    wins: Vec<Option<f32>>,
    thinks: Vec<Option<Duration>>,
    seats: Vec<Seat>,
    cursor: usize,
    /// The variation shown: moves from the position after `cursor` moves
    /// of the game, and the position after each (empty on the game's line).
    line: Vec<GeneralMove>,
    line_positions: Vec<GeneralPosition>,
    /// The tree of variations the page has played (every line shown joins
    /// it), as the lines of its leaves: the page's move list draws it, and
    /// a saved record keeps it.
    variations: Vec<Variation<GeneralMove>>,
    clock: Option<ClockRequest>,
    clocks: Vec<Duration>,
    turn_started: Instant,
    /// The seat that gave the game up (resigned, or ran out of time).
    forfeit: Option<Forfeit>,
    /// The game's last review, for the exercises of learn mode; none after
    /// a new game or a loaded one.
    reviewed: Option<Reviewed>,
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
            None => {
                let layout = default_layouts(GameKind::TwoPlayer)[0];
                (layout.name(), layout.seats())
            }
        };
        let opponent = if let Some(name) = first.as_ref().and_then(|model| model.model_name()) {
            SeatRequest::Model {
                model: Some(name),
                simulations: Some(DEFAULT_SEAT_SIMULATIONS),
                time_ms: None,
                level: None,
            }
        } else {
            SeatRequest::Classical {
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
            line: Vec::new(),
            line_positions: Vec::new(),
            variations: Vec::new(),
            clock: None,
            clocks: Vec::new(),
            turn_started: Instant::now(),
            forfeit: None,
            reviewed: None,
            seed,
        };
        let seat_requests: Vec<SeatRequest> = std::iter::once(SeatRequest::Human { name: None })
            .chain(std::iter::repeat_n(opponent, seats - 1))
            .collect();
        // Every page gets a game: when its opponent's table does not fit
        // the memory the other pages hold, people play each other.
        if session
            .new_game(&layout, None, &seat_requests, None)
            .is_err()
        {
            let people = vec![SeatRequest::Human { name: None }; seats];
            session.new_game(&layout, None, &people, None)?;
        }
        Ok(session)
    }

    fn current(&self) -> &GeneralPosition {
        self.positions.last().expect("a game has its start")
    }

    /// The position the page shows: after `cursor` moves of the game and
    /// the variation's.
    fn shown(&self) -> &GeneralPosition {
        self.line_positions
            .last()
            .unwrap_or(&self.positions[self.cursor])
    }

    /// Whether the page shows the end of the game so far (not an earlier
    /// ply, not a variation).
    fn at_end(&self) -> bool {
        self.cursor == self.moves.len() && self.line.is_empty()
    }

    /// Shows the game's end (after a move of the game, an undo, a new
    /// game).
    fn show_end(&mut self) {
        self.cursor = self.moves.len();
        self.line.clear();
        self.line_positions.clear();
    }

    /// Shows the position after `ply` moves of the game and the moves of
    /// `line`, each read and checked in the position it is played in; the
    /// error names the move that is not legal there.
    fn show_line(&mut self, ply: usize, line: &[String]) -> Result<(), String> {
        if ply > self.moves.len() {
            return Err(format!(
                "ply {ply}: the game has {} moves",
                self.moves.len()
            ));
        }
        if line.len() > MAX_VARIATION_PLIES {
            return Err(format!(
                "a variation of {} moves: the server shows at most {MAX_VARIATION_PLIES}",
                line.len()
            ));
        }
        let mut position = self.positions[ply];
        let mut moves = Vec::with_capacity(line.len());
        let mut positions = Vec::with_capacity(line.len());
        for (index, text) in line.iter().enumerate() {
            let mv = self.variation_move(&position, text).map_err(|why| {
                format!(
                    "variation move {} ({}): {why}",
                    index + 1,
                    sumito_engine::excerpt(text)
                )
            })?;
            position = position.play(mv);
            moves.push(mv);
            positions.push(position);
        }
        self.note_variation(ply, &moves)?;
        self.cursor = ply;
        self.line = moves;
        self.line_positions = positions;
        Ok(())
    }

    /// Adds the line `line`, played from the position after `ply` moves of
    /// the game, to the tree of variations (nothing where it goes along the
    /// game or along a line there); refused when it would be a line more
    /// than [`MAX_VARIATIONS`].
    fn note_variation(&mut self, ply: usize, line: &[GeneralMove]) -> Result<(), String> {
        let Some(variation) = Variation::branching(&self.moves, ply, line) else {
            return Ok(());
        };
        let mut lines = self.variations.clone();
        Variation::add_to(&mut lines, variation);
        if lines.len() > MAX_VARIATIONS {
            return Err(format!(
                "the game has {MAX_VARIATIONS} variations, the most the server keeps"
            ));
        }
        self.variations = lines;
        Ok(())
    }

    /// Keeps the variations that still stand after the game's moves
    /// changed from `old` (an undo, a move of the game).
    fn keep_variations(&mut self, old: &[GeneralMove]) {
        self.variations = Variation::standing(&self.variations, old, &self.moves);
    }

    /// A move of a variation, checked in `position`.
    fn variation_move(
        &self,
        position: &GeneralPosition,
        text: &str,
    ) -> Result<GeneralMove, String> {
        if position.is_game_over() {
            return Err("the game is over in that position".into());
        }
        position.parse_move(text).map_err(|err| err.to_string())
    }

    /// Plays the person's move `text` in the shown position, which is not
    /// the game's end: the game's own next move moves along the game, any
    /// other extends the variation.
    fn play_in_variation(&mut self, text: &str) -> Result<(), String> {
        let position = *self.shown();
        let mv = self.variation_move(&position, text)?;
        if self.line.len() >= MAX_VARIATION_PLIES {
            return Err(format!(
                "the variation has {MAX_VARIATION_PLIES} moves, the most the server shows"
            ));
        }
        if self.line.is_empty() && self.moves.get(self.cursor) == Some(&mv) {
            self.cursor += 1;
            return Ok(());
        }
        let mut line = self.line.clone();
        line.push(mv);
        self.note_variation(self.cursor, &line)?;
        self.line = line;
        self.line_positions.push(position.play(mv));
        Ok(())
    }

    /// This game's model (none: [`NoModel`]).
    fn model(&self) -> &dyn Model {
        match &self.model {
            Some(model) => model.as_ref(),
            None => &NoModel,
        }
    }

    /// This game's model, for a search outside the session (analysis,
    /// review).
    pub fn shared_model(&self) -> Arc<dyn Model> {
        self.model
            .clone()
            .unwrap_or_else(|| Arc::new(NoModel) as Arc<dyn Model>)
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
        // The page's table is checked as a file's is (`RulesTable::read`):
        // values in range and every layout named a layout.
        let asked_table = rules
            .map(|value| {
                let table = RulesTable::from_json(value).map_err(|err| format!("rules: {err}"))?;
                table.validate().map_err(|err| err.to_string())?;
                Ok::<_, String>(table)
            })
            .transpose()?;
        let seat_models = self.seat_models(
            layout,
            asked_table.as_ref().unwrap_or(&RulesTable::default()),
            seats,
        )?;
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
        let game = GameKind::of(&table, &[layout], false);
        let clocks = clocks_left(clock, None, &start, seat_count)?;
        let (made, memory_mb) = self.seat_players(layout, &rules, game, seats, &seat_models)?;
        self.reserve(memory_mb)?;
        self.record = GameRecord {
            start: Start::Layout(layout),
            rules: table,
            players: made.iter().map(Seat::name).collect(),
            opening_plies: 0,
            moves: Vec::new(),
            variations: Vec::new(),
            result: None,
            forfeit: None,
        };
        self.variations.clear();
        self.seats = made;
        self.model = game_model.or_else(|| self.models.for_game(layout, &self.record.rules));
        self.positions = vec![start];
        self.moves.clear();
        self.wins.clear();
        self.thinks.clear();
        self.show_end();
        self.start_clocks(clock, clocks);
        Ok(())
    }

    /// Sets the time control and each seat's time on it, running from now,
    /// for a game starting or loaded: not over, and not reviewed yet.
    fn start_clocks(&mut self, clock: Option<ClockRequest>, clocks: Vec<Duration>) {
        self.clock = clock;
        self.clocks = clocks;
        self.turn_started = Instant::now();
        self.forfeit = None;
        self.reviewed = None;
    }

    /// The model of each model seat of `seats`: the one it names, else the
    /// first that plays on `layout` under `table` (else the server's first).
    fn seat_models(
        &self,
        layout: GeneralLayout,
        table: &RulesTable,
        seats: &[SeatRequest],
    ) -> Result<Vec<Option<Arc<dyn Model>>>, String> {
        seats
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
                    .for_game(layout, table)
                    .or_else(|| self.models.list().first().cloned())
                    .map(Some)
                    .ok_or_else(|| NO_MODEL.to_string()),
                _ => Ok(None),
            })
            .collect()
    }

    /// The players of `seats` in a game on `layout` under `rules` (`game`:
    /// the game its classical players play), each model seat's model taken
    /// from `seat_models`, and the memory their tables hold. Refused, naming the
    /// seat, where the seats are not the layout's number, a model does not
    /// play under `rules`, or a seat asks for what a page may not.
    fn seat_players(
        &self,
        layout: GeneralLayout,
        rules: &GeneralRules,
        game: GameKind,
        seats: &[SeatRequest],
        seat_models: &[Option<Arc<dyn Model>>],
    ) -> Result<(Vec<Seat>, u32), String> {
        let seat_count = rules.seating.seats();
        if seats.len() != seat_count {
            return Err(format!(
                "{} seats given, the layout {layout} seats {seat_count} players",
                seats.len()
            ));
        }
        // Every model seated plays under its own rules: the game's.
        for model in seat_models.iter().flatten() {
            check_model_rules(model.as_ref(), layout, rules)?;
        }
        let mut made = Vec::new();
        let mut memory_mb = 0;
        for (index, request) in seats.iter().enumerate() {
            let seed = self.seed ^ index as u64;
            made.push(match request {
                SeatRequest::Human { name } => {
                    Seat::Human(name.clone().unwrap_or_else(|| "you".into()))
                }
                SeatRequest::Classical { spec } => {
                    let in_seat = |err: String| format!("seat {}: {err}", index + 1);
                    let chosen = page_player(spec, game.is_two_player()).map_err(in_seat)?;
                    let mut player = SeatPlayer::classical(&chosen, game, &self.policy, seed)
                        .map_err(in_seat)?;
                    player.set_stop(self.stop.clone());
                    memory_mb += chosen.memory_mb;
                    Seat::Player {
                        name: chosen.spec,
                        request: request.clone(),
                        player: Some(player),
                        limit: CLASSICAL_THINK_LIMIT,
                        searches: chosen.searches,
                        model: false,
                        search_mb: 0,
                    }
                }
                SeatRequest::Model {
                    simulations,
                    time_ms,
                    level,
                    ..
                } => {
                    let model = seat_models.get(index).cloned().flatten().ok_or(NO_MODEL)?;
                    let level = level
                        .map(sumito_game::level::level)
                        .transpose()
                        .map_err(|err| format!("seat {}: {err}", index + 1))?;
                    let budget = seat_budget(*simulations, *time_ms);
                    let mut player = model.model_seat(budget, level, seed)?;
                    player.set_stop(self.stop.clone());
                    let name = model.model_name();
                    let shown = name.clone().unwrap_or_else(|| "model".into());
                    Seat::Player {
                        name: match level {
                            Some(level) => {
                                format!("{shown} (level {}, {})", level.number, level.name)
                            }
                            None => shown,
                        },
                        // The model named: a reload seats the same one.
                        request: SeatRequest::Model {
                            model: name,
                            simulations: *simulations,
                            time_ms: *time_ms,
                            level: level.map(|level| level.number),
                        },
                        player: Some(player),
                        limit: MODEL_THINK_LIMIT,
                        searches: true,
                        model: true,
                        // Its tree lives while it searches only (a model
                        // seat keeps none between moves).
                        search_mb: MODEL_SEARCH_MB,
                    }
                }
            });
        }
        Ok((made, memory_mb))
    }

    /// Holds `memory_mb` for the game's players beside the other pages':
    /// the old game's share is given back first, and taken again if the
    /// new one does not fit (the old game goes on).
    fn reserve(&mut self, memory_mb: u32) -> Result<(), String> {
        let old_mb = self.reserved_mb;
        self.reservation = None;
        match self.policy.memory.reserve(memory_mb) {
            Ok(reservation) => {
                self.reservation = Some(reservation);
                self.reserved_mb = memory_mb;
                Ok(())
            }
            Err(message) => {
                self.reservation = self.policy.memory.reserve(old_mb).ok();
                Err(message)
            }
        }
    }

    /// The result in words: the board's, or why the game is over where
    /// the board did not end it (a seat gave it up, or it reached the
    /// server's limit of moves); `None` while it goes on.
    fn result_words(&self) -> Option<String> {
        if let Some(forfeit) = self.forfeit {
            return Some(forfeit.describe());
        }
        let last = self.current();
        last.describe_outcome().or_else(|| {
            (self.moves.len() >= MAX_GAME_PLIES)
                .then(|| format!("the game reached the server's limit of {MAX_GAME_PLIES} moves"))
        })
    }

    /// Whether the game (so far) is over.
    pub fn is_over(&self) -> bool {
        self.forfeit.is_some()
            || self.current().is_game_over()
            || self.moves.len() >= MAX_GAME_PLIES
    }

    /// The seat to move, if a player (a program) plays it and the game
    /// goes on.
    pub fn player_to_move(&self) -> Option<usize> {
        if self.is_over() {
            return None;
        }
        let seat = self.current().seat_to_move();
        matches!(self.seats[seat], Seat::Player { .. }).then_some(seat)
    }

    /// Takes the player of `seat` out to think: the position, the player,
    /// the time it may take (its limit, or the clock's share if tighter) and
    /// the time it aims at.
    pub fn take_player(&mut self, seat: usize) -> Option<PlayerTurn> {
        let position = *self.current();
        let share = self.clock.map(|_| self.clocks[seat] / 20);
        match &mut self.seats[seat] {
            Seat::Player {
                player,
                limit,
                searches,
                model,
                search_mb,
                ..
            } => player.take().map(|player| {
                let deadline = share.map_or(*limit, |share| share.min(*limit));
                PlayerTurn::new(
                    seat, position, player, deadline, *model, *searches, *search_mb,
                )
            }),
            Seat::Human(_) => None,
        }
    }

    /// Puts the player of `turn` back without a move (its search was not
    /// run, or stopped).
    pub fn give_back(&mut self, turn: PlayerTurn) {
        if let Seat::Player { player: slot, .. } = &mut self.seats[turn.seat] {
            *slot = Some(turn.player);
        }
    }

    /// Puts the player back with its answer, and plays the move if the game
    /// is still at the position it thought about.
    pub fn player_done(
        &mut self,
        seat: usize,
        player: SeatPlayer,
        thought_about: GeneralPosition,
        answer: Result<PlayerMove, String>,
    ) -> Result<(), String> {
        if let Seat::Player { player: slot, .. } = &mut self.seats[seat] {
            *slot = Some(player);
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
                self.forfeit = Some(Forfeit::new(seat, ForfeitBy::Time));
                return;
            }
            self.clocks[seat] -= spent;
        }
        let after = before.play(mv);
        let old = self.moves.clone();
        if let Some(clock) = self.clock {
            let gained = after
                .seat_score(seat)
                .saturating_sub(before.seat_score(seat));
            self.clocks[seat] +=
                Duration::from_secs_f64(clock.increment_seconds * f64::from(gained));
        }
        for other in &mut self.seats {
            if let Seat::Player {
                player: Some(player),
                ..
            } = other
            {
                player.observe(&before, mv);
            }
        }
        self.positions.push(after);
        self.moves.push(mv);
        self.keep_variations(&old);
        self.wins.push(win);
        self.thinks.push(None);
        self.show_end();
        self.turn_started = Instant::now();
    }

    fn reset_players(&mut self) {
        for seat in &mut self.seats {
            if let Seat::Player {
                player: Some(player),
                ..
            } = seat
            {
                player.new_game();
            }
        }
        self.turn_started = Instant::now();
    }

    /// Answers a message; `None` when the answer is the new state. Players
    /// to move are then run by the caller ([`GameSession::player_to_move`]).
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
                // At an earlier ply or in a variation: a move of the
                // variation, checked in the shown position.
                if !self.at_end() {
                    self.play_in_variation(&text)?;
                    return Ok(None);
                }
                if self.is_over() {
                    return Err("the game is over".into());
                }
                let position = *self.current();
                if !matches!(self.seats[position.seat_to_move()], Seat::Human(_)) {
                    return Err("it is not a person's turn".into());
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
                let old = self.moves.clone();
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
                self.keep_variations(&old);
                self.show_end();
                self.forfeit = None;
                self.reset_players();
                Ok(None)
            }
            ClientMessage::Resign {} => {
                if self.is_over() {
                    return Err("the game is over".into());
                }
                let seat = self.current().seat_to_move();
                self.forfeit = Some(Forfeit::new(seat, ForfeitBy::Resignation));
                Ok(None)
            }
            ClientMessage::Goto { ply, line } => {
                self.show_line(ply, &line)?;
                Ok(None)
            }
            // Nothing runs between messages: a stop ends a search in
            // progress only (the server's search loops).
            ClientMessage::Stop {} => Ok(None),
            ClientMessage::Load {
                record,
                seats,
                clock,
                clock_ms,
            } => {
                self.load_seated(&record, seats.as_deref(), clock, clock_ms.as_deref())?;
                Ok(None)
            }
            ClientMessage::Save {} => Ok(Some(ServerMessage::Record { text: self.save() })),
            ClientMessage::Analyse { .. }
            | ClientMessage::Review { .. }
            | ClientMessage::TryMove { .. } => {
                Err("analysis is run by the server, not the session".into())
            }
        }
    }

    /// What a review by the model searches: every position of the game
    /// (the start first, to its last move, whatever is shown) under the
    /// model's rules, the moves between them, the simulations a position
    /// (default [`DEFAULT_REVIEW_SIMULATIONS`]) and the longest a
    /// position's search may take (`position_limit`).
    pub fn review_target(
        &self,
        simulations: Option<u32>,
        position_limit: Duration,
    ) -> Result<ReviewTarget, String> {
        let Some(game) = self.model().model_game() else {
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
            opening_plies: self.record.opening_plies as usize,
            simulations,
            position_limit,
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
        let Some(game) = self.model().model_game() else {
            return Err(NO_MODEL.into());
        };
        // The model judges positions under its own rules only: a position
        // under others (a record without them, a pasted text) is searched
        // under the model's, and the page says so.
        let target = match position {
            Some(text) => {
                game.table()
                    .position_from_text(text)
                    .map_err(|err| match err.column {
                        Some(column) => format!("the model's game: {err} (at character {column})"),
                        None => format!("the model's game: {err}"),
                    })?
            }
            None => {
                let (positions, _) = self
                    .under_model(&game)
                    .map_err(|why| format!("the model cannot analyse this game: {why}"))?;
                // The variation shown, played again under the model's rules.
                let mut position = positions[self.cursor];
                for &mv in &self.line {
                    if position.is_game_over() || !position.is_legal(mv) {
                        return Err(format!(
                            "the model cannot analyse this variation: {} is not a move under its rules",
                            mv.to_text()
                        ));
                    }
                    position = position.play(mv);
                }
                position
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
            .model()
            .model_game()
            .map(|game| self.under_model(&game))
        {
            Some(Ok((_, note))) => (true, note),
            _ => (false, None),
        }
    }

    /// Records the analysis's win probability at the shown ply (the graph):
    /// the expected score of the side that played the last move.
    pub fn note_analysis(&mut self, position: &GeneralPosition, analysis: &PageAnalysis) {
        if self.cursor > 0
            && self.line.is_empty()
            && self.positions[self.cursor].to_string().split(' ').next()
                == position.to_string().split(' ').next()
        {
            let mover = self.positions[self.cursor - 1].side_to_move();
            if let Some(value) = analysis.side_values.get(mover) {
                self.wins[self.cursor - 1] = Some((1.0 + value) / 2.0);
            }
        }
    }

    /// The game as a Sumito record (the one record format of both games),
    /// its variations included.
    pub fn save(&self) -> String {
        let mut record = self.record.clone();
        record.moves = self.moves.clone();
        record.variations = self.variations.clone();
        record.result = self.current().ending();
        record.forfeit = self.forfeit;
        record.to_text()
    }

    /// Replaces the game with a record: Sumito's record format (or an
    /// older one), or plain Aba-Pro moves from the Standard start. A loaded
    /// game is for reading and analysis: every seat a person, no clock.
    pub fn load(&mut self, text: &str) -> Result<(), String> {
        self.load_seated(text, None, None, None)
    }

    /// Replaces the game with a record (as [`GameSession::load`]), its
    /// seats played by `seats` (as `new_game` asks for them; every seat a
    /// person without them) on the time control `clock`, with the time
    /// `clock_ms` left on each seat's clock: how a reload restores its
    /// game. Everything is checked as `new_game` checks it, and nothing
    /// changes where anything is refused.
    pub fn load_seated(
        &mut self,
        text: &str,
        seats: Option<&[SeatRequest]>,
        clock: Option<ClockRequest>,
        clock_ms: Option<&[u64]>,
    ) -> Result<(), String> {
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
                variations: Vec::new(),
                result: None,
                forfeit: None,
            }
        };
        if record.moves.len() > MAX_GAME_PLIES {
            return Err(format!(
                "the record has {} moves; the server shows games of at most {MAX_GAME_PLIES}",
                record.moves.len()
            ));
        }
        if record.variations.len() > MAX_VARIATIONS {
            return Err(format!(
                "the record has {} variations; the server keeps at most {MAX_VARIATIONS}",
                record.variations.len()
            ));
        }
        if let Some(long) = record
            .variations
            .iter()
            .find(|variation| variation.moves.len() > MAX_VARIATION_PLIES)
        {
            return Err(format!(
                "the record's variation after ply {} has {} moves; the server shows at most {MAX_VARIATION_PLIES}",
                long.ply,
                long.moves.len()
            ));
        }
        let mut record = record;
        let positions = record.positions()?;
        let rules = *positions[0].rules();
        let seat_count = rules.seating.seats();
        let layout = match &record.start {
            Start::Layout(layout) => *layout,
            Start::Position(_) => GeneralLayout::Two(sumito_engine::Layout::Standard),
        };
        let last = *positions.last().expect("a game has its start");
        let clocks = clocks_left(clock, clock_ms, &last, seat_count)?;
        let (made, memory_mb, seat_model) = match seats {
            // Without players every seat is a person, holding no memory.
            None => (
                (0..seat_count)
                    .map(|s| {
                        Seat::Human(
                            record
                                .players
                                .get(s)
                                .cloned()
                                .unwrap_or_else(|| SEAT_NAMES[s].into()),
                        )
                    })
                    .collect(),
                0,
                None,
            ),
            Some(seats) => {
                let seat_models = self.seat_models(layout, &record.rules, seats)?;
                let game = GameKind::of(&record.rules, &[layout], false);
                let (made, memory_mb) =
                    self.seat_players(layout, &rules, game, seats, &seat_models)?;
                let seat_model = seat_models.into_iter().flatten().next();
                (made, memory_mb, seat_model)
            }
        };
        self.reserve(memory_mb)?;
        if seats.is_some() {
            record.players = made.iter().map(Seat::name).collect();
        }
        self.seats = made;
        // The players seated again have seen the game's moves, as players
        // seated from its start would have.
        for (before, &mv) in positions.iter().zip(&record.moves) {
            for seat in &mut self.seats {
                if let Seat::Player {
                    player: Some(player),
                    ..
                } = seat
                {
                    player.observe(before, mv);
                }
            }
        }
        self.moves = record.moves.clone();
        self.variations = std::mem::take(&mut record.variations);
        self.wins = vec![None; record.moves.len()];
        self.thinks = vec![None; record.moves.len()];
        self.positions = positions;
        self.show_end();
        self.start_clocks(clock, clocks);
        // A game a seat gave up stays over.
        self.forfeit = record.forfeit.take();
        // Analysed by its seats' model, else the model of its game, if the
        // server has one.
        self.model = seat_model.or_else(|| self.models.for_game(layout, &record.rules));
        self.record = record;
        Ok(())
    }
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

pub mod learn;
mod view;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod variation_tests;
