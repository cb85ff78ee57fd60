//! A game at a terminal: people and players ([`SeatedPlayer`]s) at the seats of
//! either game (the two-player game, or the general game of variants and 3
//! to 6 players), written once over [`Board`]: a session is given its game's drawing
//! ([`SessionConfig::draw`]).
//!
//! The session reads lines from any [`BufRead`] and writes to any [`Write`],
//! so a script can drive it through a pipe exactly as a person would type.
//! Each line is a move (Aba-Pro `A1B2`, `C3C5D4`, or the comma form `b2,c2`;
//! shield and rotation moves where the rules have them) or one of the
//! commands of [`HELP`]. An illegal move is refused with the reason and the
//! prompt comes back. Several people may share a seat and take its turns in
//! order (four people at two colours: two names per colour).
//!
//! Time control: the clock of the seat to move runs from the start of its
//! turn, including time spent on commands and hints; a player whose clock
//! runs out loses, checked when the person's line arrives or when the
//! player's move is back. With an increment, each marble pushed off adds it
//! to the pusher's clock. A player thinks at most [`Clocks::move_budget`]
//! per move.
//!
//! Every game ends with one line starting with `result:`, e.g.
//! `result: Black wins (enough marbles pushed off)`,
//! `result: White wins (Black resigned)`, or
//! `result: unfinished (quit after 12 moves)`.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use sumito_arena::player::{Entrant, Player, PlayerError, SearchLimit, Thought, tighter_time};
use sumito_game::Board;

use crate::board_text::BoardStyle;
use crate::clock::{Clocks, TimeControl};
use crate::drawing::{DrawBoard, SeatNotes};
use sumito_arena::record::{Forfeit, ForfeitBy, GameRecord};

/// The commands a person can type instead of a move.
pub const HELP: &str = "\
Enter a move in Aba-Pro notation (A1B2 moves the line from A1 towards B2;
C3C5D4 moves C3-C5 sideways, C3 going to D4; shield A1A2B2B1 and rotation
C3D4E5+ where the rules have them) or in the comma form (b2,c2  g5-h6,f4
g5-h6,g4-h5). Commands:
  undo       take back your last move (and the replies to it)
  hint       a player's suggestion for you
  moves      list your legal moves
  board      draw the board again
  save FILE  write the game so far as a game record
  load FILE  continue a saved game (the clocks keep their time)
  resign     give up the game
  quit       stop without a result
  help       this text";

/// Who plays a seat.
pub enum SeatControl<'a, B: Board> {
    /// People at the keyboard, taking this seat's turns in order (no
    /// names: "you").
    People(Vec<String>),
    /// A player (a classical player or a network).
    Player(SeatedPlayer<'a, B>),
}

/// A player at a seat: the player, how the board and records name it (its
/// spec, or a model's name), and its own limit a move, which a clock's
/// share, if tighter, overrides.
pub struct SeatedPlayer<'a, B: Board> {
    pub name: String,
    pub player: Box<dyn Player<B> + 'a>,
    pub limit: SearchLimit,
}

impl<B: Board> std::fmt::Debug for SeatedPlayer<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeatedPlayer")
            .field("name", &self.name)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl<'a, B: Board> SeatedPlayer<'a, B> {
    /// `player`, named `name`, thinking within `limit`.
    pub fn new(
        name: impl Into<String>,
        player: Box<dyn Player<B> + 'a>,
        limit: SearchLimit,
    ) -> Self {
        SeatedPlayer {
            name: name.into(),
            player,
            limit,
        }
    }

    /// A player of `entrant`, seeded with `seed`, named and limited as the
    /// entrant is.
    pub fn of_entrant(entrant: &Entrant<B>, seed: u64) -> SeatedPlayer<'static, B> {
        SeatedPlayer::new(entrant.name.clone(), entrant.build(seed), entrant.limit)
    }

    /// A player with its own budget (a model's search): named `name`, no
    /// limit but the clock's.
    pub fn searching(name: impl Into<String>, player: Box<dyn Player<B> + 'a>) -> Self {
        SeatedPlayer::new(name, player, SearchLimit::default())
    }

    /// Its move in `position` (not over), thinking within its limit and at
    /// most `cap` if given (a clock's share, a page's limit).
    pub fn think(
        &mut self,
        position: &B,
        cap: Option<std::time::Duration>,
    ) -> Result<Thought<B::Move>, PlayerError> {
        let mut limit = self.limit;
        limit.time = tighter_time(limit.time, cap);
        self.player.think(position, &limit)
    }
}

impl<B: Board> std::fmt::Debug for SeatControl<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeatControl({})", self.label())
    }
}

impl<B: Board> SeatControl<'_, B> {
    /// How the board names the seat's player.
    fn label(&self) -> String {
        match self {
            SeatControl::People(names) if names.is_empty() => "you".into(),
            SeatControl::People(names) => names.join("/"),
            SeatControl::Player(seated) => seated.name.clone(),
        }
    }

    /// How a saved game names the seat's player.
    fn record_name(&self) -> String {
        match self {
            SeatControl::People(names) if names.is_empty() => "human".into(),
            other => other.label(),
        }
    }
}

/// How a session is set up.
#[derive(Clone, Debug)]
pub struct SessionConfig<B: Board> {
    /// Where the game starts and under which rules (its moves, if any, are
    /// not played: a session starts at the record's start).
    pub record: GameRecord<B>,
    /// Whether the record's rules are those of a model at the board (its
    /// training rules, the only ones it plays under): a loaded game then
    /// goes on under them, whatever its own record says.
    pub keep_rules: bool,
    pub time_control: Option<TimeControl>,
    pub style: BoardStyle,
    /// Repeat each input line after the prompt: for transcripts of piped
    /// input, which the terminal does not show.
    pub echo_input: bool,
    /// Draw the board turned half round, the second seat's side at the
    /// bottom (for a person playing White).
    pub flipped: bool,
    /// Where the game is saved when the session ends, however it ends.
    pub save_to: Option<std::path::PathBuf>,
}

/// How a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The rules ended the game (the last position is over): its result
    /// in words.
    Finished(String),
    /// A seat gave the game up: its people resigned, or its clock ran out.
    Forfeit(Forfeit),
    /// Quit, or the input ended, before the game was over.
    Unfinished,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    // The cause follows in the error's chain (`source`).
    #[error("terminal input/output failed")]
    Io(#[from] std::io::Error),
    #[error("the opponent {name} failed: {cause}")]
    Opponent { name: String, cause: PlayerError },
    #[error("the game cannot start: {0}")]
    Start(String),
    #[error("the game was not saved to {path}: {cause}")]
    Save { path: String, cause: String },
}

/// The next line of `input` without its line ending, as bytes (it need not
/// be UTF-8: a line that is not is refused like any bad line, rather than
/// ending the session as `BufRead::read_line` would); `None` at the end of
/// the input.
pub(crate) fn read_line(input: &mut (impl BufRead + ?Sized)) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    if input.read_until(b'\n', &mut line)? == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    Ok(Some(line))
}

/// What the session says to a line that is not UTF-8 text.
pub(crate) const NOT_UTF8: &str =
    "that line is not valid UTF-8 text: type a move or a command (help lists them)";

/// One move of the game with what it did to the clocks.
#[derive(Clone, Copy, Debug)]
struct Played<B: Board> {
    before: B,
    mv: B::Move,
    push_offs: u32,
}

struct Session<'a, B: Board, W: Write> {
    config: SessionConfig<B>,
    seats: Vec<SeatControl<'a, B>>,
    out: W,
    /// The game's start and rules (what `save` writes with the moves).
    record: GameRecord<B>,
    start: B,
    history: Vec<Played<B>>,
    position: B,
    clocks: Option<Clocks>,
    /// When the seat to move's clock was last charged.
    clock_since: Instant,
}

/// Plays one game; `seats[s]` plays seat `s`. Returns how it ended. All
/// output, including the final `result:` line, goes to `out`.
pub fn run_session<B: DrawBoard, R: BufRead, W: Write>(
    config: SessionConfig<B>,
    seats: Vec<SeatControl<'_, B>>,
    input: R,
    out: W,
) -> Result<SessionEnd, SessionError> {
    let (start, _) = replay(&config.record).map_err(SessionError::Start)?;
    if seats.len() != start.seats() {
        return Err(SessionError::Start(format!(
            "{} players given for a game of {} seats",
            seats.len(),
            start.seats()
        )));
    }
    let mut session = Session {
        record: config.record.clone(),
        clocks: config
            .time_control
            .map(|control| Clocks::new(control, start.seats())),
        config,
        seats,
        out,
        start,
        history: Vec::new(),
        position: start,
        clock_since: Instant::now(),
    };
    let end = session.run(input);
    if let Some(path) = session.config.save_to.clone() {
        let moves = session
            .write_record(&path)
            .map_err(|err| SessionError::Save {
                path: path.display().to_string(),
                cause: err.to_string(),
            })?;
        writeln!(session.out, "saved {moves} moves to {}", path.display())?;
    }
    end
}

impl<'a, B: DrawBoard, W: Write> Session<'a, B, W> {
    fn is_person(&self, seat: usize) -> bool {
        matches!(self.seats[seat], SeatControl::People(_))
    }

    fn labels(&self) -> Vec<String> {
        self.seats.iter().map(SeatControl::label).collect()
    }

    /// Who is at the board, in one line.
    fn introduce(&mut self) -> Result<(), SessionError> {
        let people: Vec<usize> = (0..self.seats.len())
            .filter(|&seat| self.is_person(seat))
            .collect();
        let labels = self.labels();
        let line = match people.as_slice() {
            [you] if matches!(&self.seats[*you], SeatControl::People(names) if names.is_empty()) => {
                let others: Vec<&str> = (0..labels.len())
                    .filter(|seat| seat != you)
                    .map(|seat| labels[seat].as_str())
                    .collect();
                format!(
                    "You play {} against {}.",
                    B::seat_title(*you),
                    others.join(" and ")
                )
            }
            _ => {
                let seats: Vec<String> = labels
                    .iter()
                    .enumerate()
                    .map(|(seat, label)| format!("{} {label}", B::seat_title(seat)))
                    .collect();
                format!("Players: {}.", seats.join(", "))
            }
        };
        writeln!(self.out, "{line} Type help for the commands.")?;
        Ok(())
    }

    fn run<R: BufRead>(&mut self, mut input: R) -> Result<SessionEnd, SessionError> {
        self.show_players_the_game();
        self.introduce()?;
        writeln!(self.out, "Rules: {}.", self.position.rules_text())?;
        if let Some(clocks) = &self.clocks {
            writeln!(self.out, "Time control: {}.", clocks.control())?;
        }
        let mut redraw = true;
        self.clock_since = Instant::now();
        loop {
            if let Some(result) = self.position.result_text() {
                self.draw()?;
                if let Some(ply) = self.first_repetition() {
                    writeln!(
                        self.out,
                        "The game first returned to an earlier position after move {ply}."
                    )?;
                }
                writeln!(self.out, "result: {result}")?;
                return Ok(SessionEnd::Finished(result));
            }
            let seat = self.position.seat_to_move();
            let names = match &self.seats[seat] {
                SeatControl::Player(_) => {
                    if let Some(end) = self.player_move(seat)? {
                        return Ok(end);
                    }
                    redraw = true;
                    continue;
                }
                SeatControl::People(names) => names.clone(),
            };
            if redraw {
                self.draw()?;
                redraw = false;
            }
            // The seat's turns so far decide whose turn it is.
            let who = if names.is_empty() {
                "you".to_string()
            } else {
                let turns = self
                    .history
                    .iter()
                    .filter(|played| played.before.seat_to_move() == seat)
                    .count();
                names[turns % names.len()].clone()
            };
            write!(
                self.out,
                "move {}, {} ({who})> ",
                self.position.ply() + 1,
                B::seat_title(seat)
            )?;
            self.out.flush()?;
            let line = match read_line(&mut input) {
                Ok(Some(line)) => line,
                Ok(None) => {
                    writeln!(self.out)?;
                    return self.unfinished("input ended");
                }
                Err(err) => {
                    // The game still ends with its result line.
                    writeln!(self.out)?;
                    self.unfinished("input failed")?;
                    return Err(err.into());
                }
            };
            if self.config.echo_input {
                writeln!(self.out, "{}", String::from_utf8_lossy(&line))?;
            }
            if let Some(end) = self.charge_clock(seat)? {
                return Ok(end);
            }
            // Refused like any other line that is not a move or a command.
            let Ok(line) = String::from_utf8(line) else {
                writeln!(self.out, "{NOT_UTF8}")?;
                continue;
            };
            let line = line.trim();
            let (command, argument) = match line.split_once(char::is_whitespace) {
                Some((command, argument)) => (command, argument.trim()),
                None => (line, ""),
            };
            match command.to_ascii_lowercase().as_str() {
                "" => {}
                "help" | "?" => writeln!(self.out, "{HELP}")?,
                "board" => redraw = true,
                "moves" => self.list_moves()?,
                "undo" => redraw = self.undo()?,
                "hint" => self.hint(seat)?,
                "save" => self.save(argument)?,
                "load" => redraw = self.load(argument)?,
                "resign" => {
                    let why = format!("{} resigned", B::seat_title(seat));
                    self.lost(seat, &why)?;
                    return Ok(SessionEnd::Forfeit(Forfeit::new(
                        seat,
                        ForfeitBy::Resignation,
                    )));
                }
                "quit" | "exit" => return self.unfinished("quit"),
                _ => match self.position.parse_move(line) {
                    Ok(mv) => {
                        self.play(mv);
                        redraw = true;
                    }
                    Err(err) => writeln!(self.out, "{err}")?,
                },
            }
        }
    }

    fn unfinished(&mut self, why: &str) -> Result<SessionEnd, SessionError> {
        writeln!(
            self.out,
            "result: unfinished ({why} after {} moves)",
            self.history.len()
        )?;
        Ok(SessionEnd::Unfinished)
    }

    /// The result line of a game `seat` lost for `why` (resigned, out of
    /// time): the other side wins a game of two sides; a game of more has
    /// no winner and ends unfinished.
    fn lost(&mut self, seat: usize, why: &str) -> Result<(), SessionError> {
        match self.position.winner_after_resigning(seat) {
            Some(winner) => writeln!(self.out, "result: {winner} ({why})")?,
            None => {
                self.unfinished(why)?;
            }
        }
        Ok(())
    }

    /// Charges the time since the last charge to `seat`; the end of the
    /// game if that was more than `seat` had.
    fn charge_clock(&mut self, seat: usize) -> Result<Option<SessionEnd>, SessionError> {
        let now = Instant::now();
        let used = now - self.clock_since;
        self.clock_since = now;
        let Some(clocks) = &mut self.clocks else {
            return Ok(None);
        };
        if clocks.charge(seat, used) {
            return Ok(None);
        }
        self.draw()?;
        let why = format!("{}'s time ran out", B::seat_title(seat));
        self.lost(seat, &why)?;
        Ok(Some(SessionEnd::Forfeit(Forfeit::new(
            seat,
            ForfeitBy::Time,
        ))))
    }

    /// The number of moves after which the game first stood in a position it
    /// had been in before (the same marbles, marbles off and seat to move).
    fn first_repetition(&self) -> Option<usize> {
        let mut seen = std::collections::HashSet::new();
        self.history
            .iter()
            .map(|played| played.before)
            .chain([self.position])
            .position(|position| !seen.insert(position.repetition_hash()))
    }

    /// Every player at the board.
    fn players(&mut self) -> impl Iterator<Item = &mut SeatedPlayer<'a, B>> + '_ {
        self.seats.iter_mut().filter_map(|seat| match seat {
            SeatControl::Player(seated) => Some(seated),
            SeatControl::People(_) => None,
        })
    }

    /// Plays a legal move for the seat to move and starts the next clock.
    fn play(&mut self, mv: B::Move) {
        let before = self.position;
        let push_offs = before.push_offs(mv);
        if let Some(clocks) = &mut self.clocks {
            clocks.reward_push_offs(before.seat_to_move(), push_offs);
        }
        for seated in self.players() {
            seated.player.observe_move(&before, mv);
        }
        self.position = before.play(mv);
        self.history.push(Played {
            before,
            mv,
            push_offs,
        });
        self.clock_since = Instant::now();
    }

    fn player_move(&mut self, seat: usize) -> Result<Option<SessionEnd>, SessionError> {
        let cap = self.clocks.map(|clocks| clocks.move_budget(seat));
        let SeatControl::Player(seated) = &mut self.seats[seat] else {
            unreachable!("a player's seat");
        };
        let name = seated.name.clone();
        let thought =
            seated
                .think(&self.position, cap)
                .map_err(|cause| SessionError::Opponent {
                    name: name.clone(),
                    cause,
                })?;
        if let Some(end) = self.charge_clock(seat)? {
            return Ok(Some(end));
        }
        if !self.position.is_legal(thought.mv) {
            return Err(SessionError::Opponent {
                name,
                cause: PlayerError::Failed(
                    format!(
                        "it chose {}, which is not legal here",
                        B::move_text(thought.mv)
                    )
                    .into(),
                ),
            });
        }
        let summary = describe::<B>(&thought);
        writeln!(
            self.out,
            "{} ({name}) plays {}{summary}",
            B::seat_title(seat),
            B::move_text(thought.mv)
        )?;
        self.play(thought.mv);
        Ok(None)
    }

    fn draw(&mut self) -> Result<(), SessionError> {
        let labels = self.labels();
        let clocks = self.clocks.map(|clocks| clocks.all().to_vec());
        let notes = SeatNotes {
            labels: &labels,
            clocks: clocks.as_deref(),
            last_move: self.history.last().map(|last| (last.before, last.mv)),
            flipped: self.config.flipped,
        };
        writeln!(self.out)?;
        write!(
            self.out,
            "{}",
            self.position.draw(self.config.style, &notes)
        )?;
        if let Some(last) = self.history.last() {
            writeln!(
                self.out,
                "last move: {} {}",
                B::seat_title(last.before.seat_to_move()),
                B::move_text(last.mv)
            )?;
        }
        Ok(())
    }

    fn list_moves(&mut self) -> Result<(), SessionError> {
        let moves: Vec<String> = self
            .position
            .legal_moves()
            .into_iter()
            .map(B::move_text)
            .collect();
        writeln!(self.out, "{} legal moves: {}", moves.len(), moves.join(" "))?;
        Ok(())
    }

    /// Takes back moves up to and including the last one people played (the
    /// players' replies since go too). Returns whether anything changed.
    fn undo(&mut self) -> Result<bool, SessionError> {
        let Some(index) = self
            .history
            .iter()
            .rposition(|played| self.is_person(played.before.seat_to_move()))
        else {
            writeln!(self.out, "nothing to undo: you have not moved yet")?;
            return Ok(false);
        };
        for played in self.history.drain(index..).rev() {
            if let Some(clocks) = &mut self.clocks {
                clocks.revoke_push_offs(played.before.seat_to_move(), played.push_offs);
            }
        }
        self.position = self.history_position(index);
        self.show_players_the_game();
        writeln!(self.out, "undone: back to move {}", self.position.ply() + 1)?;
        Ok(true)
    }

    /// At the start, after an undo or a load: every player forgets what it
    /// saw and is shown the moves of the game as it now stands, so that its
    /// knowledge of the game's positions (which it uses to step out of
    /// cycles) is that of this game, neither the undone moves nor nothing.
    fn show_players_the_game(&mut self) {
        let history = std::mem::take(&mut self.history);
        for seated in self.players() {
            seated.player.new_game();
            for played in &history {
                seated.player.observe_move(&played.before, played.mv);
            }
        }
        self.history = history;
    }

    /// The position before move `index` of the history (or the current one
    /// when `index` is the history's length).
    fn history_position(&self, index: usize) -> B {
        match self.history.get(index) {
            Some(played) => played.before,
            None => self
                .history
                .last()
                .map_or(self.start, |last| last.before.play(last.mv)),
        }
    }

    /// A player's suggestion for the people at `seat`, with their clock's
    /// budget: the first player at the board gives it.
    fn hint(&mut self, seat: usize) -> Result<(), SessionError> {
        let cap = self.clocks.map(|clocks| clocks.move_budget(seat));
        let position = self.position;
        let Some(seated) = self.players().next() else {
            writeln!(self.out, "no hint: only people play in this game")?;
            return Ok(());
        };
        match seated.think(&position, cap) {
            Ok(thought) => writeln!(
                self.out,
                "hint: {}{}",
                B::move_text(thought.mv),
                describe::<B>(&thought)
            )?,
            Err(err) => writeln!(self.out, "no hint: {err}")?,
        }
        Ok(())
    }

    fn save(&mut self, file: &str) -> Result<(), SessionError> {
        if file.is_empty() {
            writeln!(self.out, "save needs a file name: save FILE")?;
            return Ok(());
        }
        match self.write_record(Path::new(file)) {
            Ok(moves) => writeln!(self.out, "saved {moves} moves to {file}")?,
            Err(err) => writeln!(self.out, "not saved: {err}")?,
        }
        Ok(())
    }

    /// Writes the game so far to `path` (atomically); the number of moves.
    fn write_record(&self, path: &Path) -> Result<usize, crate::record::RecordFileError> {
        let names: Vec<String> = self.seats.iter().map(SeatControl::record_name).collect();
        let moves: Vec<B::Move> = self.history.iter().map(|played| played.mv).collect();
        let record = record_of(&self.record, &names, &moves, &self.position);
        record.write(path)?;
        Ok(moves.len())
    }

    /// Replaces the game by a saved one. Returns whether it did.
    fn load(&mut self, file: &str) -> Result<bool, SessionError> {
        if file.is_empty() {
            writeln!(self.out, "load needs a file name: load FILE")?;
            return Ok(false);
        }
        let record = match GameRecord::<B>::read(Path::new(file)) {
            Ok(record) => record,
            Err(err) => {
                writeln!(self.out, "not loaded: {err}")?;
                return Ok(false);
            }
        };
        let record = if self.config.keep_rules {
            match crate::analysis::record_under_rules(&record, &self.config.record.rules) {
                Ok((record, note)) => {
                    if let Some(note) = note {
                        writeln!(self.out, "note: {file}: {note}")?;
                    }
                    record
                }
                Err(why) => {
                    writeln!(self.out, "not loaded: {file}: {why}")?;
                    return Ok(false);
                }
            }
        } else {
            record
        };
        let (start, moves) = match replay(&record) {
            Ok(replayed) => replayed,
            Err(why) => {
                writeln!(self.out, "not loaded: {file}: {why}")?;
                return Ok(false);
            }
        };
        if start.seats() != self.seats.len() {
            writeln!(
                self.out,
                "not loaded: the game in {file} has {} seats, this one {}",
                start.seats(),
                self.seats.len()
            )?;
            return Ok(false);
        }
        let mut history = Vec::with_capacity(moves.len());
        let mut last = start;
        for &mv in &moves {
            history.push(Played {
                before: last,
                mv,
                push_offs: last.push_offs(mv),
            });
            last = last.play(mv);
        }
        if let Some(result) = last.result_text() {
            writeln!(
                self.out,
                "not loaded: the game in {file} is over ({result})"
            )?;
            return Ok(false);
        }
        self.record = record;
        self.start = start;
        self.history = history;
        self.position = last;
        self.show_players_the_game();
        writeln!(
            self.out,
            "loaded {} moves from {file}; {} to move",
            moves.len(),
            B::seat_title(last.seat_to_move())
        )?;
        Ok(true)
    }
}

/// The start and the moves of `record`; an error when they do not replay.
fn replay<B: Board>(record: &GameRecord<B>) -> Result<(B, Vec<B::Move>), String> {
    let positions = record.positions()?;
    Ok((positions[0], record.moves.clone()))
}

/// The record of a game from `template`'s start and rules: `names` by seat,
/// `moves` from the start, ending in `last`.
fn record_of<B: Board>(
    template: &GameRecord<B>,
    names: &[String],
    moves: &[B::Move],
    last: &B,
) -> GameRecord<B> {
    GameRecord {
        players: names.to_vec(),
        opening_plies: 0,
        moves: moves.to_vec(),
        // (A loaded game's variations, where the game still leads to them.)
        variations: template.variations_on(moves),
        result: last.ending(),
        // (A loaded game that a seat gave up goes on here.)
        forfeit: None,
        ..template.clone()
    }
}

/// ", win probability 43% (draw 2%), expected line: I5H5 A1B2 [800
/// simulations, 1.2 s]"
pub fn describe<B: Board>(thought: &Thought<B::Move>) -> String {
    let mut text = String::new();
    if let Some(outlook) = thought.outlook {
        text.push_str(&format!(
            ", win probability {:.0}% (draw {:.0}%)",
            100.0 * outlook.win,
            100.0 * outlook.draw
        ));
    }
    if thought.principal_variation.len() > 1 {
        let line: Vec<String> = thought
            .principal_variation
            .iter()
            .map(|&mv| B::move_text(mv))
            .collect();
        text.push_str(&format!(", expected line: {}", line.join(" ")));
    }
    let seconds = format!("{:.1} s", thought.elapsed.as_secs_f64());
    if thought.effort.is_empty() {
        text.push_str(&format!(" [{seconds}]"));
    } else {
        text.push_str(&format!(" [{}, {seconds}]", thought.effort));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board_text::{BoardAnnotations, draw_board};
    use crate::record::{GameRecord, Start};
    use std::time::Duration;
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_arena::player::WinProbability;
    use sumito_arena::players::general::seat_player;
    use sumito_engine::general::GeneralLayout;
    use sumito_engine::general::GeneralPosition;
    use sumito_engine::rules_table::RulesTable;
    use sumito_engine::{Color, Layout, Move, Position, Rules};

    /// Plays the first legal move, optionally slowly, and reports a fixed
    /// outlook and a two-move line.
    struct FirstMove {
        delay: Duration,
        games: u32,
    }

    impl Player for FirstMove {
        fn name(&self) -> String {
            "first-move".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            limit: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            self.think(position, limit).map(|thought| thought.mv)
        }
        fn think(&mut self, position: &Position, _: &SearchLimit) -> Result<Thought, PlayerError> {
            std::thread::sleep(self.delay);
            let mv = position.legal_moves()[0];
            let reply = position.play(mv).legal_moves().first().copied();
            Ok(Thought {
                mv,
                outlook: Some(WinProbability {
                    win: 0.25,
                    draw: 0.5,
                    loss: 0.25,
                }),
                principal_variation: std::iter::once(mv).chain(reply).collect(),
                effort: "no search".into(),
                elapsed: self.delay,
            })
        }
        fn new_game(&mut self) {
            self.games += 1;
        }
        fn observe_move(&mut self, _: &Position, _: Move) {}
    }

    /// A person plays `human` on the Standard layout under the rule
    /// sheets' rules.
    fn config(human: Color) -> (SessionConfig<Position>, Color) {
        let config = SessionConfig {
            record: GameRecord::unplayed(Start::Layout(Layout::Standard), Rules::default()),
            keep_rules: false,
            time_control: None,
            style: BoardStyle::Ascii,
            echo_input: true,
            flipped: false,
            save_to: None,
        };
        (config, human)
    }

    /// The seats of a person at `human` and `opponent` at the other colour.
    fn seats(human: Color, opponent: &mut dyn Player) -> Vec<SeatControl<'_, Position>> {
        let name = opponent.name();
        let mut seats = vec![
            SeatControl::People(Vec::new()),
            SeatControl::Player(SeatedPlayer::searching(name, Box::new(opponent))),
        ];
        if human == Color::White {
            seats.reverse();
        }
        seats
    }

    fn play(
        (config, human): (SessionConfig<Position>, Color),
        opponent: &mut dyn Player,
        input: &str,
    ) -> (SessionEnd, String) {
        let mut out = Vec::new();
        let end = run_session(config, seats(human, opponent), input.as_bytes(), &mut out).unwrap();
        (end, String::from_utf8(out).unwrap())
    }

    /// Plays the moves of `script` in turn (Aba-Pro notation).
    struct Scripted {
        script: Vec<&'static str>,
        next: usize,
    }

    impl Player for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            limit: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            self.think(position, limit).map(|thought| thought.mv)
        }
        fn think(&mut self, position: &Position, _: &SearchLimit) -> Result<Thought, PlayerError> {
            let text = self.script[self.next % self.script.len()];
            self.next += 1;
            Ok(Thought {
                mv: position.parse_move(text).unwrap(),
                outlook: None,
                principal_variation: Vec::new(),
                effort: "scripted".into(),
                elapsed: Duration::ZERO,
            })
        }
        fn new_game(&mut self) {}
        fn observe_move(&mut self, _: &Position, _: Move) {}
    }

    #[test]
    fn a_game_that_cycles_says_when_it_first_repeated() {
        // Both sides move one marble out and back until the move limit.
        let mut player = Scripted {
            script: vec!["G5F4", "F4G5"],
            next: 0,
        };
        let (mut limited, human) = config(Color::Black);
        limited.record.rules = Rules {
            max_plies: Some(8),
            ..Rules::default()
        };
        let limited = (limited, human);
        let (_, out) = play(limited, &mut player, "C3D3\nD3C3\nC3D3\nD3C3\n");
        assert!(
            out.contains("The game first returned to an earlier position after move 4."),
            "{out}"
        );
        // A game without a repetition says nothing of it.
        let (_, out) = play(config(Color::Black), &mut opponent(), "quit\n");
        assert!(!out.contains("returned to an earlier position"), "{out}");
    }

    /// Plays the first legal move and keeps the moves it was shown.
    #[derive(Default)]
    struct Watcher {
        seen: Vec<(Position, Move)>,
    }

    impl Player for Watcher {
        fn name(&self) -> String {
            "watcher".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            _: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            Ok(position.legal_moves()[0])
        }
        fn new_game(&mut self) {
            self.seen.clear();
        }
        fn observe_move(&mut self, before: &Position, mv: Move) {
            self.seen.push((*before, mv));
        }
    }

    #[test]
    fn after_an_undo_the_opponent_knows_the_game_as_it_stands() {
        let mut watcher = Watcher::default();
        let (_, out) = play(
            config(Color::Black),
            &mut watcher,
            "C3D3
C4D4
undo
quit
",
        );
        assert!(out.contains("undone: back to move 3"), "{out}");
        // Two moves stand (the person's first and the reply), in order.
        let start = Position::start(Layout::Standard, Rules::default());
        assert_eq!(watcher.seen.len(), 2, "{:?}", watcher.seen);
        assert_eq!(watcher.seen[0].0, start);
        assert_eq!(watcher.seen[0].1, start.parse_move("C3D3").unwrap());
        assert_eq!(watcher.seen[1].0, start.play(watcher.seen[0].1));
    }

    fn opponent() -> FirstMove {
        FirstMove {
            delay: Duration::ZERO,
            games: 0,
        }
    }

    #[test]
    fn illegal_moves_are_refused_with_the_reason_and_legal_ones_answered() {
        let mut player = opponent();
        let (end, out) = play(
            config(Color::Black),
            &mut player,
            "A1A2\nI5H5\nA1B2\nresign\n",
        );
        assert_eq!(
            end,
            SessionEnd::Forfeit(Forfeit::new(0, ForfeitBy::Resignation))
        );
        assert!(
            out.contains("move \"A1A2\" is illegal: blocked by own marble on A4"),
            "{out}"
        );
        assert!(
            out.contains("the marble on I5 is white but black is to move"),
            "{out}"
        );
        assert!(
            out.contains("White (first-move) plays G5G4, win probability 25% (draw 50%), expected line: G5G4 A2A1"),
            "{out}"
        );
        assert!(out.contains("[no search, 0.0 s]"), "{out}");
        assert!(out.contains("last move: White G5G4"), "{out}");
        assert_eq!(
            out.lines().last(),
            Some("result: White wins (Black resigned)")
        );
        // The prompt came back after each refused move.
        assert_eq!(out.matches("move 1, Black (you)> ").count(), 3);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_refused_and_the_game_goes_on() {
        let mut player = opponent();
        let mut out = Vec::new();
        let input: &[u8] = b"\xff\xfe A1B2\r\nA1B2\r\nquit\n";
        let end = run_session(
            config(Color::Black).0,
            seats(Color::Black, &mut player),
            input,
            &mut out,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(end, SessionEnd::Unfinished);
        assert!(out.contains("that line is not valid UTF-8 text"), "{out}");
        // The next line (with a CRLF ending) is played, and the game ends
        // with its result line.
        assert!(
            out.contains("last move: Black A1B2") || out.contains("plays"),
            "{out}"
        );
        assert_eq!(
            out.lines().last(),
            Some("result: unfinished (quit after 2 moves)")
        );
    }

    #[test]
    fn undo_takes_back_the_move_and_its_reply() {
        let mut player = opponent();
        let (end, out) = play(
            config(Color::Black),
            &mut player,
            "undo\nA1B2\nundo\nboard\nquit\n",
        );
        assert_eq!(end, SessionEnd::Unfinished);
        assert!(
            out.contains("nothing to undo: you have not moved yet"),
            "{out}"
        );
        assert!(out.contains("undone: back to move 1"), "{out}");
        let boards: Vec<&str> = out
            .split("\n\n")
            .filter(|b| b.contains("1 2 3 4 5"))
            .collect();
        let last_board = boards.last().unwrap();
        let start = Position::start(Layout::Standard, Rules::default());
        let expected = draw_board(
            &start,
            BoardStyle::Ascii,
            &BoardAnnotations {
                players: ["you".into(), "first-move".into()],
                ..BoardAnnotations::default()
            },
        );
        assert!(
            last_board.starts_with(&expected),
            "{last_board}\n---\n{expected}"
        );
        assert_eq!(
            out.lines().last(),
            Some("result: unfinished (quit after 0 moves)")
        );
        // new_game at the start and after the undo.
        assert_eq!(player.games, 2);
    }

    #[test]
    fn the_opponent_opens_when_the_person_plays_white() {
        let mut player = opponent();
        let (end, out) = play(config(Color::White), &mut player, "");
        assert_eq!(end, SessionEnd::Unfinished);
        assert!(out.contains("Black (first-move) plays"), "{out}");
        assert!(out.contains("move 2, White (you)> "), "{out}");
        assert_eq!(
            out.lines().last(),
            Some("result: unfinished (input ended after 1 moves)")
        );
    }

    #[test]
    fn a_player_that_overruns_its_clock_loses_on_time() {
        let mut player = FirstMove {
            delay: Duration::from_millis(150),
            games: 0,
        };
        let mut setup = config(Color::White);
        // 0.002 minutes = 120 ms for the whole game.
        setup.0.time_control = Some("0.002".parse().unwrap());
        let (end, out) = play(setup, &mut player, "");
        assert_eq!(end, SessionEnd::Forfeit(Forfeit::new(0, ForfeitBy::Time)));
        assert_eq!(
            out.lines().last(),
            Some("result: White wins (Black's time ran out)")
        );
    }

    #[test]
    fn saved_games_load_and_go_on() {
        let dir = std::env::temp_dir().join(format!("sumito-session-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("game.txt");
        let file = file.to_str().unwrap();
        let mut player = opponent();
        let script = format!("A1B2\nsave {file}\nquit\n");
        let (_, out) = play(config(Color::Black), &mut player, &script);
        assert!(out.contains(&format!("saved 2 moves to {file}")), "{out}");
        let record = GameRecord::<Position>::read(Path::new(file)).unwrap();
        assert_eq!(record.player(0), "human");
        assert_eq!(record.player(1), "first-move");
        assert_eq!(record.moves.len(), 2);

        let script = format!(
            "load {dir}/missing.txt\nload {file}\nmoves\nquit\n",
            dir = dir.display()
        );
        let (_, out) = play(config(Color::Black), &mut player, &script);
        assert!(out.contains("not loaded: cannot read game record"), "{out}");
        assert!(
            out.contains(&format!("loaded 2 moves from {file}; Black to move")),
            "{out}"
        );
        assert!(out.contains("move 3, Black (you)> "), "{out}");
        assert_eq!(
            out.lines().last(),
            Some("result: unfinished (quit after 2 moves)")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_model_goes_on_with_a_loaded_game_under_its_own_rules() {
        let dir = std::env::temp_dir().join(format!("sumito-rules-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("game.txt");
        let file = file.to_str().unwrap();
        // Saved by a classical game without a move limit.
        let mut player = opponent();
        let (_, out) = play(
            config(Color::Black),
            &mut player,
            &format!("A1B2\nsave {file}\nquit\n"),
        );
        assert!(out.contains("saved 2 moves"), "{out}");
        // The model's session keeps its 200-ply limit and says so.
        let model_rules = Rules {
            max_plies: Some(200),
            ..Rules::default()
        };
        let model = |max_plies| {
            let (mut model, human) = config(Color::Black);
            model.record.rules = Rules {
                max_plies: Some(max_plies),
                ..Rules::default()
            };
            model.keep_rules = true;
            (model, human)
        };
        let (_, out) = play(model(200), &mut player, &format!("load {file}\nquit\n"));
        assert!(
            out.contains("note: ") && out.contains("are not the model's"),
            "{out}"
        );
        assert!(out.contains("loaded 2 moves"), "{out}");
        let (saved, _) = crate::analysis::record_under_rules(
            &GameRecord::<Position>::read(Path::new(file)).unwrap(),
            &model_rules,
        )
        .unwrap();
        assert_eq!(saved.positions().unwrap()[2].rules(), model_rules);
        // Under a limit the record passes, it is refused.
        let (_, out) = play(model(1), &mut player, &format!("load {file}\nquit\n"));
        assert!(
            out.contains("not loaded") && out.contains("ends after move 1"),
            "{out}"
        );
        // A classical session takes the record's rules, as before.
        let (_, out) = play(
            config(Color::Black),
            &mut player,
            &format!("load {file}\nquit\n"),
        );
        assert!(!out.contains("note: "), "{out}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_game_played_to_the_end_gets_its_result() {
        // One push-off from the end: Black pushes E9 off for the sixth marble.
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5").unwrap();
        let mut setup = config(Color::Black);
        setup.0.record.start = Start::Position(position);
        setup.0.time_control = Some("1+30".parse().unwrap());
        let mut player = opponent();
        let (end, out) = play(setup, &mut player, "E7E8\n");
        assert_eq!(
            end,
            SessionEnd::Finished("Black wins (enough marbles pushed off)".into())
        );
        assert_eq!(
            out.lines().last(),
            Some("result: Black wins (enough marbles pushed off)")
        );
        // The push-off earned Black 30 seconds: 1:30 minus a moment.
        assert!(out.contains("Black  off 0/6   1:29"), "{out}");
    }

    #[test]
    fn hints_come_from_the_opponent_and_help_lists_the_commands() {
        let entrant = Position::classical_players().prepare_str("greedy").unwrap();
        let mut player = entrant.build(1);
        let (_, out) = play(
            config(Color::Black),
            player.as_mut(),
            "help\nhint\nsave\nquit\n",
        );
        assert!(out.contains("undo       take back"), "{out}");
        assert!(out.contains("hint: "), "{out}");
        assert!(out.contains("save needs a file name"), "{out}");
    }

    /// A general game from `layout` under `rules`.
    fn general(layout: &str, rules: RulesTable) -> SessionConfig<GeneralPosition> {
        SessionConfig {
            record: GameRecord::unplayed(
                Start::Layout(GeneralLayout::from_name(layout).unwrap()),
                rules,
            ),
            keep_rules: false,
            time_control: None,
            style: BoardStyle::Ascii,
            echo_input: true,
            flipped: false,
            save_to: None,
        }
    }

    fn player_seat(spec: &str, seat: usize) -> SeatControl<'static, GeneralPosition> {
        SeatControl::Player(SeatedPlayer::new(
            spec,
            seat_player(spec, seat as u64).unwrap(),
            SearchLimit::default(),
        ))
    }

    fn play_general(
        config: SessionConfig<GeneralPosition>,
        seats: Vec<SeatControl<'_, GeneralPosition>>,
        input: &[u8],
    ) -> (SessionEnd, String) {
        let mut out = Vec::new();
        let end = run_session(config, seats, input, &mut out).unwrap();
        (end, String::from_utf8(out).unwrap())
    }

    #[test]
    fn people_share_seats_players_reply_and_undo_goes_back_to_a_person() {
        let saved =
            std::env::temp_dir().join(format!("sumito-variant-session-{}.txt", std::process::id()));
        let seats = vec![
            SeatControl::People(vec!["Ann".into(), "Cid".into()]),
            player_seat("greedy", 1),
        ];
        let script = format!(
            "A1B2\nZ9Z8\nI5H5\nB1C2\nundo\nmoves\nsave {}\nquit\n",
            saved.display()
        );
        let (end, text) = play_general(
            general("standard", RulesTable::default()),
            seats,
            script.as_bytes(),
        );
        assert_eq!(end, SessionEnd::Unfinished);
        assert!(
            text.contains("Players: Black Ann/Cid, White greedy."),
            "{text}"
        );
        assert!(text.contains("move 1, Black (Ann)> "), "{text}");
        assert!(text.contains("White (greedy) plays"), "{text}");
        // Ann moved, so Cid has the next black turn.
        assert!(text.contains("move 3, Black (Cid)> "), "{text}");
        assert!(
            text.contains("is not a move") || text.contains("not a cell"),
            "{text}"
        );
        assert!(
            text.contains("not legal here"),
            "I5H5 is White's marble: {text}"
        );
        // Cid: two refused moves, B1C2, then (Ann's turn came and was
        // undone with the player's reply) Cid again, after `moves` and
        // after `save`.
        assert_eq!(text.matches("Black (Cid)> ").count(), 6, "{text}");
        assert_eq!(text.matches("Black (Ann)> ").count(), 2, "{text}");
        assert!(text.contains("legal moves:"), "{text}");
        assert_eq!(
            text.lines().last(),
            Some("result: unfinished (quit after 2 moves)")
        );
        // The saved record replays to the position on the board.
        let game = GameRecord::<GeneralPosition>::read(&saved).unwrap();
        std::fs::remove_file(&saved).unwrap();
        assert_eq!(game.moves.len(), 2, "A1B2 and the reply; B1C2 was undone");
        assert_eq!(game.players, ["Ann/Cid", "greedy"]);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_refused_in_the_general_game_too() {
        let mut seats = vec![SeatControl::People(Vec::new())];
        for seat in 1..3 {
            seats.push(player_seat("random", seat));
        }
        let config = general("three-player", RulesTable::default());
        let (end, text) = play_general(config, seats, b"A5B5\n\xff\xfe bad\nmoves\nquit\n");
        assert_eq!(end, SessionEnd::Unfinished, "{text}");
        assert!(text.contains(NOT_UTF8), "{text}");
        // The lines after it are still read: `moves` answered, then `quit`.
        assert!(text.contains("legal moves:"), "{text}");
    }

    #[test]
    fn a_three_player_game_between_players_runs_to_its_end() {
        let rules = RulesTable {
            max_plies: Some(60),
            ..RulesTable::default()
        };
        let seats = (0..3).map(|seat| player_seat("greedy", seat)).collect();
        let (end, text) = play_general(general("three-player", rules), seats, b"");
        assert!(matches!(end, SessionEnd::Finished(_)), "{end:?}");
        let SessionEnd::Finished(result) = end else {
            unreachable!()
        };
        assert_eq!(
            text.lines().last(),
            Some(format!("result: {result}").as_str())
        );
    }

    #[test]
    fn the_general_game_has_hints_saves_loads_and_result_lines() {
        let dir = std::env::temp_dir().join(format!("sumito-general-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("three.txt");
        let file = file.display();
        let three = || {
            let mut seats = vec![SeatControl::People(Vec::new())];
            for seat in 1..3 {
                seats.push(player_seat("greedy", seat));
            }
            seats
        };
        // `hint` is a command, not a move; the game is saved.
        let script = format!("hint\nA5B5\nsave {file}\nquit\n");
        let (_, text) = play_general(
            general("three-player", RulesTable::default()),
            three(),
            script.as_bytes(),
        );
        assert!(
            text.contains("You play Black against greedy and greedy."),
            "{text}"
        );
        assert!(text.contains("hint: "), "{text}");
        assert!(!text.contains("not a cell"), "{text}");
        assert!(text.contains("saved 3 moves to"), "{text}");
        // Loaded, the game goes on at move 4; resigning one of three sides
        // names no winner.
        let script = format!("load {file}\nresign\n");
        let (end, text) = play_general(
            general("three-player", RulesTable::default()),
            three(),
            script.as_bytes(),
        );
        assert!(text.contains("loaded 3 moves from"), "{text}");
        assert!(text.contains("move 4, Black (you)> "), "{text}");
        assert_eq!(
            end,
            SessionEnd::Forfeit(Forfeit::new(0, ForfeitBy::Resignation))
        );
        assert_eq!(
            text.lines().last(),
            Some("result: unfinished (Black resigned after 3 moves)")
        );
        // A two-player record does not load into a three-player game.
        let two = dir.join("two.txt");
        let (_, _) = play(
            config(Color::Black),
            &mut opponent(),
            &format!("save {}\nquit\n", two.display()),
        );
        let script = format!("load {}\nquit\n", two.display());
        let (_, text) = play_general(
            general("three-player", RulesTable::default()),
            three(),
            script.as_bytes(),
        );
        assert!(text.contains("not loaded: "), "{text}");
        // Between two teams, the other team wins a resigned game.
        let teams = vec![
            SeatControl::People(Vec::new()),
            player_seat("greedy", 1),
            player_seat("greedy", 2),
            player_seat("greedy", 3),
        ];
        let (_, text) = play_general(
            general("four-player", RulesTable::default()),
            teams,
            b"resign\n",
        );
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("result: ") && last.ends_with(" wins (Black resigned)"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_general_game_keeps_clocks() {
        let mut config = general("three-player", RulesTable::default());
        // 0.002 minutes = 120 ms a seat: the person's line comes too late.
        config.time_control = Some("0.002".parse().unwrap());
        let mut seats = vec![SeatControl::People(Vec::new())];
        for seat in 1..3 {
            seats.push(player_seat("random", seat));
        }
        struct Slow<'a>(&'a [u8]);
        impl std::io::Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                std::thread::sleep(Duration::from_millis(200));
                self.0.read(buf)
            }
        }
        let mut out = Vec::new();
        let input = std::io::BufReader::new(Slow(b"A5B5\n"));
        let end = run_session(config, seats, input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Time control: "), "{text}");
        assert!(text.contains("0:00.1") || text.contains("0:00.0"), "{text}");
        assert_eq!(
            end,
            SessionEnd::Forfeit(Forfeit::new(0, ForfeitBy::Time)),
            "{text}"
        );
        assert_eq!(
            text.lines().last(),
            Some("result: unfinished (Black's time ran out after 0 moves)")
        );
    }
}
