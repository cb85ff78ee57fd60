//! One page's game: the positions so far (general engine, so every variant
//! and 3–6 players), who plays each seat, the clocks, the shown ply, and the
//! answers to the page's messages: moves, undo, loading and saving, the
//! targets of the page's analyses and reviews, and the state the page
//! shows. Seat players think outside this struct (the server takes a
//! seat's player out, runs it on a blocking thread and puts it back), so
//! nothing here blocks for long.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sumito_arena::match_start::default_layouts;
use sumito_arena::record::{GameRecord, Start};
use sumito_arena::record_format::format_of;
use sumito_engine::general::{
    CellContent, GeneralLayout, GeneralMove, GeneralPosition, MoveKind, SEAT_NAMES,
};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Cell, Position, Rules};
use sumito_game::{GameKind, LEVELS};
use sumito_play::analysis::record_under_rules;

use crate::menu::{
    CLASSICAL_THINK_LIMIT, MAX_GAME_PLIES, MAX_SIMULATIONS, MODEL_SEARCH_MB, MODEL_THINK_LIMIT,
    PagePolicy, Reservation, page_player,
};
use crate::model::{
    DEFAULT_ANALYSIS_SIMULATIONS, DEFAULT_REVIEW_SIMULATIONS, DEFAULT_SEAT_SIMULATIONS, Model,
    ModelGame, Models, NO_MODEL, NoModel, PageAnalysis, ReviewTarget, check_model_rules,
    seat_budget,
};
use crate::protocol::{
    AnalysisMove, CellView, ClientMessage, ClockRequest, LevelView, ModelView, MoveView, PlyView,
    SeatRequest, SeatView, ServerMessage, StateView,
};
use crate::seat_player::{PlayerMove, PlayerTurn, SeatPlayer};

/// Who plays a seat.
#[derive(Debug)]
enum Seat {
    Human(String),
    /// A program: a classical player or a model; `player` is `None` while
    /// it thinks on another thread.
    Player {
        name: String,
        player: Option<SeatPlayer>,
        /// The longest it may think about a move.
        limit: Duration,
        /// Whether it searches (then it waits for a search slot).
        searches: bool,
    },
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
                SeatRequest::Classical { spec } => {
                    let in_seat = |err: String| format!("seat {}: {err}", index + 1);
                    let chosen = page_player(spec, plain).map_err(in_seat)?;
                    let mut player = SeatPlayer::classical(&chosen, plain, &self.policy, seed)
                        .map_err(in_seat)?;
                    player.set_stop(self.stop.clone());
                    memory_mb += chosen.memory_mb;
                    Seat::Player {
                        name: chosen.spec,
                        player: Some(player),
                        limit: CLASSICAL_THINK_LIMIT,
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
                    let budget = seat_budget(*simulations, *time_ms);
                    let mut player = model.model_seat(budget, level, seed)?;
                    player.set_stop(self.stop.clone());
                    memory_mb += MODEL_SEARCH_MB;
                    let model = model.model_name().unwrap_or_else(|| "model".into());
                    Seat::Player {
                        name: match level {
                            Some(level) => {
                                format!("{model} (level {}, {})", level.number, level.name)
                            }
                            None => model,
                        },
                        player: Some(player),
                        limit: MODEL_THINK_LIMIT,
                        searches: true,
                    }
                }
            });
        }
        // The new game's players must fit the server's budget beside the
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
                    Seat::Player { name, .. } => name.clone(),
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
    /// and the time it may take (its limit, or the clock's share if tighter).
    pub fn take_player(&mut self, seat: usize) -> Option<PlayerTurn> {
        let position = *self.current();
        let share = self.clock.map(|_| self.clocks[seat] / 20);
        match &mut self.seats[seat] {
            Seat::Player {
                player,
                limit,
                searches,
                ..
            } => player.take().map(|player| PlayerTurn {
                seat,
                position,
                player,
                cap: share.map_or(*limit, |share| share.min(*limit)),
                searches: *searches,
            }),
            Seat::Human(_) => None,
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
                self.reset_players();
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
            .model()
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
        // and no player holds memory.
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
                            Seat::Player { name, .. } => name.clone(),
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
            model: self.model().model_name(),
            levels: levels_of(self.model()),
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
fn levels_of(model: &dyn Model) -> Vec<LevelView> {
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
    use crate::model::testing::{TRAINED, UniformModel, three_player_table};
    use sumito_game::{Board, GameKind};

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

    /// Runs the player to move, as the server does (on this thread).
    fn player_turn(session: &mut GameSession) {
        let seat = session.player_to_move().expect("a player's turn");
        let mut turn = session.take_player(seat).unwrap();
        let answer = turn.player.think(&turn.position, Some(turn.cap));
        session
            .player_done(seat, turn.player, turn.position, answer)
            .unwrap();
    }

    #[test]
    fn a_game_against_a_player_plays_undoes_and_refuses_illegal_moves() {
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
        assert_eq!(game.player_to_move(), Some(1));
        assert!(
            game.handle(ClientMessage::Move {
                text: "B1C2".into()
            })
            .is_err(),
            "the player's turn"
        );
        player_turn(&mut game);
        let state = game.state();
        assert_eq!(state.history.len(), 2);
        assert!(state.human_to_move);
        assert!(state.history[0].think_ms.is_none(), "a person's move");
        assert!(
            state.history[1].think_ms.is_some_and(|ms| ms > 0.0),
            "the player's"
        );
        // Undo takes back the player's reply and the person's move.
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
                    SeatRequest::Classical {
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
            text.starts_with(sumito_arena::record_format::GAME_RECORD_MAGIC),
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
                    sumito_arena::record_format::TWO_PLAYER_RECORD_MAGIC_V1
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
            text.starts_with(sumito_arena::record_format::GAME_RECORD_MAGIC),
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
    fn the_players_of_all_pages_share_one_memory_budget() {
        let policy = Arc::new(PagePolicy::new(40, None));
        let page = |policy: &Arc<PagePolicy>| {
            GameSession::new(
                Arc::new(Models::none()),
                policy.clone(),
                Arc::new(AtomicBool::new(false)),
                1,
            )
        };
        let alphabeta = |spec: &str| SeatRequest::Classical { spec: spec.into() };
        let two_players = |game: &mut GameSession| {
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
        // players of a second page's game (32 MB) do not fit beside it.
        let first = page(&policy).unwrap();
        let mut second = page(&policy).unwrap();
        let err = two_players(&mut second).unwrap_err();
        assert!(err.contains("memory budget"), "{err}");
        // When the first page goes, its share comes back.
        drop(first);
        two_players(&mut second).unwrap();
        // A loaded game holds none.
        second.load("A1B2 I5H5").unwrap();
        let mut third = page(&policy).unwrap();
        two_players(&mut third).unwrap();
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
        // Players of a game without a move limit stop at the server's.
        game.handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![
                SeatRequest::Classical {
                    spec: "random".into(),
                },
                SeatRequest::Classical {
                    spec: "random".into(),
                },
            ],
            clock: None,
        })
        .unwrap();
        while game.player_to_move().is_some() {
            player_turn(&mut game);
        }
        let state = game.state();
        assert!(state.history.len() <= MAX_GAME_PLIES);
        assert!(state.result.is_some());
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
        // A pasted text it cannot read is refused with the character at fault.
        let refused = game
            .analysis_target(Some(10), Some("5/6/7/8/bb4bzw/w7/7/6/5 b 0 5"))
            .unwrap_err();
        assert!(
            refused.starts_with("the model's game:") && refused.contains("(at character "),
            "{refused}"
        );
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
        player_turn(&mut game);
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
            player_turn(&mut game);
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
        let two: Arc<dyn Model> = Arc::new(UniformModel(ModelGame::new(
            GameKind::TwoPlayer,
            RulesTable::of_two_player(TRAINED),
        )));
        let three: Arc<dyn Model> = Arc::new(UniformModel(ModelGame::new(
            GameKind::General,
            three_player_table(),
        )));
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
