//! A game between a person at a terminal and an [`Opponent`].
//!
//! The session reads lines from any [`BufRead`] and writes to any [`Write`],
//! so a script can drive it through a pipe exactly as a person would type.
//! Each line is a move (Aba-Pro `A1B2`, `C3C5D4`, or the comma form `b2,c2`)
//! or one of the commands of [`HELP`]. An illegal move is refused with the
//! reason and the prompt comes back.
//!
//! Time control: the clock of the side to move runs from the start of its
//! turn, including time spent on commands and hints; a player whose clock
//! runs out loses, checked when the person's line arrives or when the
//! engine's move is back. With an increment, each marble pushed off adds it
//! to the pusher's clock. The engine thinks at most
//! [`Clocks::move_budget`] per move.
//!
//! Every game ends with one line starting with `result:`, e.g.
//! `result: Black wins (enough marbles pushed off)`,
//! `result: White wins (Black resigned)`, or
//! `result: unfinished (quit after 12 moves)`.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use sumito_arena::player::PlayerError;
use sumito_arena::record::{GameRecord, Start};
use sumito_engine::{Color, Move, Position, Rules};

use crate::board_text::{BoardAnnotations, BoardStyle, draw_board};
use crate::clock::{Clocks, TimeControl};
use crate::motion::marble_steps;
use crate::opponent::{Opponent, Thought};
use crate::{color_title, outcome_title};

/// The commands a person can type instead of a move.
pub const HELP: &str = "\
Enter a move in Aba-Pro notation (A1B2 moves the line from A1 towards B2;
C3C5D4 moves C3-C5 sideways, C3 going to D4) or in the comma form
(b2,c2  g5-h6,f4  g5-h6,g4-h5). Commands:
  undo       take back your last move (and the reply to it)
  hint       the engine's suggestion for you
  moves      list your legal moves
  board      draw the board again
  save FILE  write the game so far as a game record
  load FILE  continue a saved game (the clocks keep their time)
  resign     give up the game
  quit       stop without a result
  help       this text";

/// How a session is set up.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The colour the person plays; the opponent has the other.
    pub human: Color,
    /// Where the game starts (a layout, or a position).
    pub start: Start,
    pub rules: Rules,
    /// Whether `rules` are the opponent's own (a model's training rules,
    /// the only ones it plays under): a loaded game then goes on under them,
    /// whatever its record says.
    pub keep_rules: bool,
    pub time_control: Option<TimeControl>,
    pub style: BoardStyle,
    /// Repeat each input line after the prompt: for transcripts of piped
    /// input, which the terminal does not show.
    pub echo_input: bool,
    /// The person's name in game records.
    pub human_name: String,
}

/// How a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The rules ended the game (the last position is over).
    Finished(sumito_engine::Outcome),
    Resigned(Color),
    /// This colour's clock ran out.
    OutOfTime(Color),
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
}

/// The next line of `input` without its line ending, as bytes (it need not
/// be UTF-8: a line that is not is refused like any bad line, rather than
/// ending the session as `BufRead::read_line` would); `None` at the end of
/// the input. Both terminal sessions read their lines with it.
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

/// What both sessions say to a line that is not UTF-8 text.
pub(crate) const NOT_UTF8: &str =
    "that line is not valid UTF-8 text: type a move or a command (help lists them)";

/// One move of the game with what it did to the clocks.
#[derive(Clone, Copy, Debug)]
struct Played {
    before: Position,
    mv: Move,
    pushed_off: bool,
}

struct Session<'a, W: Write> {
    config: SessionConfig,
    opponent: &'a mut dyn Opponent,
    out: W,
    start: Start,
    rules: Rules,
    history: Vec<Played>,
    position: Position,
    clocks: Option<Clocks>,
    /// When the side to move's clock was last charged.
    clock_since: Instant,
}

/// Plays one game; returns how it ended. All output, including the final
/// `result:` line, goes to `out`.
pub fn run_session<R: BufRead, W: Write>(
    config: SessionConfig,
    opponent: &mut dyn Opponent,
    input: R,
    out: W,
) -> Result<SessionEnd, SessionError> {
    let start_position = match config.start {
        Start::Layout(layout) => Position::start(layout, config.rules),
        Start::Position(position) => position.with_rules(config.rules),
    };
    let mut session = Session {
        start: config.start,
        rules: config.rules,
        clocks: config.time_control.map(Clocks::new),
        config,
        opponent,
        out,
        history: Vec::new(),
        position: start_position,
        clock_since: Instant::now(),
    };
    session.run(input)
}

impl<W: Write> Session<'_, W> {
    fn engine_color(&self) -> Color {
        self.config.human.opponent()
    }

    fn run<R: BufRead>(&mut self, mut input: R) -> Result<SessionEnd, SessionError> {
        self.opponent.new_game();
        writeln!(
            self.out,
            "You play {} against {}. Type help for the commands.",
            color_title(self.config.human),
            self.opponent.name()
        )?;
        writeln!(self.out, "Rules: {}.", self.rules.describe())?;
        if let Some(clocks) = &self.clocks {
            writeln!(self.out, "Time control: {}.", clocks.control())?;
        }
        let mut redraw = true;
        self.clock_since = Instant::now();
        loop {
            if let Some((outcome, reason)) = self.position.outcome() {
                self.draw()?;
                if let Some(ply) = self.first_repetition() {
                    writeln!(
                        self.out,
                        "The game first returned to an earlier position after move {ply}."
                    )?;
                }
                writeln!(self.out, "result: {} ({reason})", outcome_title(outcome))?;
                return Ok(SessionEnd::Finished(outcome));
            }
            if self.position.side_to_move() == self.engine_color() {
                if let Some(end) = self.engine_move()? {
                    return Ok(end);
                }
                redraw = true;
                continue;
            }
            if redraw {
                self.draw()?;
                redraw = false;
            }
            write!(
                self.out,
                "move {}, {} (you)> ",
                self.position.ply() + 1,
                color_title(self.config.human)
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
            if let Some(end) = self.charge_clock(self.config.human)? {
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
                "hint" => self.hint()?,
                "save" => self.save(argument)?,
                "load" => redraw = self.load(argument)?,
                "resign" => {
                    let winner = self.engine_color();
                    writeln!(
                        self.out,
                        "result: {} ({} resigned)",
                        outcome_title(sumito_engine::Outcome::Win(winner)),
                        color_title(self.config.human)
                    )?;
                    return Ok(SessionEnd::Resigned(self.config.human));
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

    /// Charges the time since the last charge to `color`; the end of the
    /// game if that was more than `color` had.
    fn charge_clock(&mut self, color: Color) -> Result<Option<SessionEnd>, SessionError> {
        let now = Instant::now();
        let used = now - self.clock_since;
        self.clock_since = now;
        let Some(clocks) = &mut self.clocks else {
            return Ok(None);
        };
        if clocks.charge(color, used) {
            return Ok(None);
        }
        self.draw()?;
        writeln!(
            self.out,
            "result: {} ({}'s time ran out)",
            outcome_title(sumito_engine::Outcome::Win(color.opponent())),
            color_title(color)
        )?;
        Ok(Some(SessionEnd::OutOfTime(color)))
    }

    /// The number of moves after which the game first stood in a position it
    /// had been in before (the same marbles, marbles off and side to move).
    fn first_repetition(&self) -> Option<usize> {
        let mut seen = std::collections::HashSet::new();
        self.history
            .iter()
            .map(|played| played.before)
            .chain([self.position])
            .position(|position| !seen.insert(position.hash()))
    }

    /// Plays a legal move for the side to move and starts the other clock.
    fn play(&mut self, mv: Move) {
        let before = self.position;
        let pushed_off = before.is_push_off(mv);
        if let Some(clocks) = &mut self.clocks {
            clocks.reward_push_offs(before.side_to_move(), u32::from(pushed_off));
        }
        self.opponent.observe_move(&before, mv);
        self.position = before.play(mv);
        self.history.push(Played {
            before,
            mv,
            pushed_off,
        });
        self.clock_since = Instant::now();
    }

    fn engine_move(&mut self) -> Result<Option<SessionEnd>, SessionError> {
        let color = self.engine_color();
        let cap = self.clocks.map(|clocks| clocks.move_budget(color));
        let thought =
            self.opponent
                .think(&self.position, cap)
                .map_err(|source| SessionError::Opponent {
                    name: self.opponent.name(),
                    cause: source,
                })?;
        if let Some(end) = self.charge_clock(color)? {
            return Ok(Some(end));
        }
        if !self.position.is_legal(thought.mv) {
            return Err(SessionError::Opponent {
                name: self.opponent.name(),
                cause: PlayerError::Failed(
                    format!("it chose {}, which is not legal here", thought.mv).into(),
                ),
            });
        }
        let summary = describe(&thought);
        writeln!(
            self.out,
            "{} ({}) plays {}{summary}",
            color_title(color),
            self.opponent.name(),
            thought.mv
        )?;
        self.play(thought.mv);
        Ok(None)
    }

    fn draw(&mut self) -> Result<(), SessionError> {
        let mut players = [String::new(), String::new()];
        players[self.config.human.index()] = "you".to_string();
        players[self.engine_color().index()] = self.opponent.name();
        let notes = BoardAnnotations {
            clocks: self.clocks.map(|clocks| clocks.both()),
            players,
            last_move: self
                .history
                .last()
                .map(|last| marble_steps(&last.before, last.mv))
                .unwrap_or_default(),
        };
        writeln!(self.out)?;
        write!(
            self.out,
            "{}",
            draw_board(&self.position, self.config.style, &notes)
        )?;
        if let Some(last) = self.history.last() {
            writeln!(
                self.out,
                "last move: {} {}",
                color_title(last.before.side_to_move()),
                last.mv
            )?;
        }
        Ok(())
    }

    fn list_moves(&mut self) -> Result<(), SessionError> {
        let moves: Vec<String> = self
            .position
            .legal_moves()
            .iter()
            .map(Move::to_string)
            .collect();
        writeln!(self.out, "{} legal moves: {}", moves.len(), moves.join(" "))?;
        Ok(())
    }

    /// Takes back moves up to and including the person's last one. Returns
    /// whether anything changed.
    fn undo(&mut self) -> Result<bool, SessionError> {
        let human = self.config.human;
        let Some(index) = self
            .history
            .iter()
            .rposition(|played| played.before.side_to_move() == human)
        else {
            writeln!(self.out, "nothing to undo: you have not moved yet")?;
            return Ok(false);
        };
        for played in self.history.drain(index..).rev() {
            if let Some(clocks) = &mut self.clocks {
                clocks.revoke_push_offs(played.before.side_to_move(), u32::from(played.pushed_off));
            }
        }
        self.position = self.history_position(index);
        self.show_opponent_the_game();
        writeln!(self.out, "undone: back to move {}", self.position.ply() + 1)?;
        Ok(true)
    }

    /// After an undo or a load: the opponent forgets what it saw and is
    /// shown the moves of the game as it now stands, so that its knowledge
    /// of the game's positions (which it uses to step out of cycles) is
    /// that of this game, neither the undone moves nor nothing.
    fn show_opponent_the_game(&mut self) {
        self.opponent.new_game();
        for played in &self.history {
            self.opponent.observe_move(&played.before, played.mv);
        }
    }

    /// The position before move `index` of the history (or the current one
    /// when `index` is the history's length).
    fn history_position(&self, index: usize) -> Position {
        match self.history.get(index) {
            Some(played) => played.before,
            None => self
                .history
                .last()
                .map_or_else(|| self.start_position(), |last| last.before.play(last.mv)),
        }
    }

    fn start_position(&self) -> Position {
        match self.start {
            Start::Layout(layout) => Position::start(layout, self.rules),
            Start::Position(position) => position.with_rules(self.rules),
        }
    }

    fn hint(&mut self) -> Result<(), SessionError> {
        let cap = self
            .clocks
            .map(|clocks| clocks.move_budget(self.config.human));
        match self.opponent.think(&self.position, cap) {
            Ok(thought) => writeln!(
                self.out,
                "hint: {} ({}){}",
                thought.mv,
                thought.mv.to_comma_notation(),
                describe(&thought)
            )?,
            Err(err) => writeln!(self.out, "no hint: {err}")?,
        }
        Ok(())
    }

    fn record(&self) -> GameRecord {
        let mut names = [String::new(), String::new()];
        names[self.config.human.index()] = self.config.human_name.clone();
        names[self.engine_color().index()] = self.opponent.name();
        let [black, white] = names;
        GameRecord {
            start: self.start,
            rules: self.rules,
            black,
            white,
            opening_plies: 0,
            moves: self.history.iter().map(|played| played.mv).collect(),
            result: self.position.outcome(),
        }
    }

    fn save(&mut self, file: &str) -> Result<(), SessionError> {
        if file.is_empty() {
            writeln!(self.out, "save needs a file name: save FILE")?;
            return Ok(());
        }
        match self.record().write(Path::new(file)) {
            Ok(()) => writeln!(self.out, "saved {} moves to {file}", self.history.len())?,
            Err(err) => writeln!(self.out, "not saved: {err}")?,
        }
        Ok(())
    }

    /// Replaces the game by a saved one. Returns whether it did.
    fn load(&mut self, file: &str) -> Result<bool, SessionError> {
        if file.is_empty() {
            writeln!(self.out, "load needs a file name: load FILE")?;
            return Ok(false);
        }
        let record = match GameRecord::read(Path::new(file)) {
            Ok(record) => record,
            Err(err) => {
                writeln!(self.out, "not loaded: {err}")?;
                return Ok(false);
            }
        };
        let record = if self.config.keep_rules {
            match crate::analysis::record_under_rules(&record, self.rules) {
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
        let positions = record.positions();
        let last = positions[positions.len() - 1];
        if let Some((outcome, reason)) = last.outcome() {
            writeln!(
                self.out,
                "not loaded: the game in {file} is over ({}, {reason})",
                outcome_title(outcome)
            )?;
            return Ok(false);
        }
        self.start = record.start;
        self.rules = record.rules;
        self.history = positions
            .iter()
            .zip(&record.moves)
            .map(|(&before, &mv)| Played {
                before,
                mv,
                pushed_off: before.is_push_off(mv),
            })
            .collect();
        self.position = last;
        self.show_opponent_the_game();
        writeln!(
            self.out,
            "loaded {} moves from {file}; {} to move",
            record.moves.len(),
            color_title(last.side_to_move())
        )?;
        Ok(true)
    }
}

/// ", win 43% draw 2% loss 55%, line: I5H5 A1B2 (800 simulations, 1.2 s)"
pub fn describe(thought: &Thought) -> String {
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
            .map(Move::to_string)
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
    use crate::opponent::{ClassicalOpponent, WinProbability};
    use std::time::Duration;
    use sumito_arena::player::PlayerRegistry;
    use sumito_engine::{Layout, Outcome};

    /// Plays the first legal move, optionally slowly, and reports a fixed
    /// outlook and a two-move line.
    struct FirstMove {
        delay: Duration,
        games: u32,
    }

    impl Opponent for FirstMove {
        fn name(&self) -> String {
            "first-move".into()
        }
        fn think(
            &mut self,
            position: &Position,
            _cap: Option<Duration>,
        ) -> Result<Thought, PlayerError> {
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

    fn config(human: Color) -> SessionConfig {
        SessionConfig {
            human,
            start: Start::Layout(Layout::Standard),
            rules: Rules::default(),
            keep_rules: false,
            time_control: None,
            style: BoardStyle::Ascii,
            echo_input: true,
            human_name: "tester".into(),
        }
    }

    fn play(
        config: SessionConfig,
        opponent: &mut dyn Opponent,
        input: &str,
    ) -> (SessionEnd, String) {
        let mut out = Vec::new();
        let end = run_session(config, opponent, input.as_bytes(), &mut out).unwrap();
        (end, String::from_utf8(out).unwrap())
    }

    /// Plays the moves of `script` in turn (Aba-Pro notation).
    struct Scripted {
        script: Vec<&'static str>,
        next: usize,
    }

    impl Opponent for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn think(
            &mut self,
            position: &Position,
            _cap: Option<Duration>,
        ) -> Result<Thought, PlayerError> {
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
        let mut engine = Scripted {
            script: vec!["G5F4", "F4G5"],
            next: 0,
        };
        let limited = SessionConfig {
            rules: Rules {
                max_plies: Some(8),
                ..Rules::default()
            },
            ..config(Color::Black)
        };
        let (_, out) = play(limited, &mut engine, "C3D3\nD3C3\nC3D3\nD3C3\n");
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

    impl Opponent for Watcher {
        fn name(&self) -> String {
            "watcher".into()
        }
        fn think(
            &mut self,
            position: &Position,
            _cap: Option<Duration>,
        ) -> Result<Thought, PlayerError> {
            Ok(Thought {
                mv: position.legal_moves()[0],
                outlook: None,
                principal_variation: Vec::new(),
                effort: "no search".into(),
                elapsed: Duration::ZERO,
            })
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
        let mut engine = opponent();
        let (end, out) = play(
            config(Color::Black),
            &mut engine,
            "A1A2\nI5H5\nA1B2\nresign\n",
        );
        assert_eq!(end, SessionEnd::Resigned(Color::Black));
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
        let mut engine = opponent();
        let mut out = Vec::new();
        let input: &[u8] = b"\xff\xfe A1B2\r\nA1B2\r\nquit\n";
        let end = run_session(config(Color::Black), &mut engine, input, &mut out).unwrap();
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
        let mut engine = opponent();
        let (end, out) = play(
            config(Color::Black),
            &mut engine,
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
        assert_eq!(engine.games, 2);
    }

    #[test]
    fn the_engine_opens_when_the_person_plays_white() {
        let mut engine = opponent();
        let (end, out) = play(config(Color::White), &mut engine, "");
        assert_eq!(end, SessionEnd::Unfinished);
        assert!(out.contains("Black (first-move) plays"), "{out}");
        assert!(out.contains("move 2, White (you)> "), "{out}");
        assert_eq!(
            out.lines().last(),
            Some("result: unfinished (input ended after 1 moves)")
        );
    }

    #[test]
    fn an_engine_that_overruns_its_clock_loses_on_time() {
        let mut engine = FirstMove {
            delay: Duration::from_millis(150),
            games: 0,
        };
        let mut setup = config(Color::White);
        // 0.002 minutes = 120 ms for the whole game.
        setup.time_control = Some("0.002".parse().unwrap());
        let (end, out) = play(setup, &mut engine, "");
        assert_eq!(end, SessionEnd::OutOfTime(Color::Black));
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
        let mut engine = opponent();
        let script = format!("A1B2\nsave {file}\nquit\n");
        let (_, out) = play(config(Color::Black), &mut engine, &script);
        assert!(out.contains(&format!("saved 2 moves to {file}")), "{out}");
        let record = GameRecord::read(Path::new(file)).unwrap();
        assert_eq!(record.black, "tester");
        assert_eq!(record.white, "first-move");
        assert_eq!(record.moves.len(), 2);

        let script = format!(
            "load {dir}/missing.txt\nload {file}\nmoves\nquit\n",
            dir = dir.display()
        );
        let (_, out) = play(config(Color::Black), &mut engine, &script);
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
        let mut engine = opponent();
        let (_, out) = play(
            config(Color::Black),
            &mut engine,
            &format!("A1B2\nsave {file}\nquit\n"),
        );
        assert!(out.contains("saved 2 moves"), "{out}");
        // The model's session keeps its 200-ply limit and says so.
        let model_rules = Rules {
            max_plies: Some(200),
            ..Rules::default()
        };
        let model = |max_plies| SessionConfig {
            rules: Rules {
                max_plies: Some(max_plies),
                ..Rules::default()
            },
            keep_rules: true,
            ..config(Color::Black)
        };
        let (_, out) = play(model(200), &mut engine, &format!("load {file}\nquit\n"));
        assert!(
            out.contains("note: ") && out.contains("are not the model's"),
            "{out}"
        );
        assert!(out.contains("loaded 2 moves"), "{out}");
        let (saved, _) = crate::analysis::record_under_rules(
            &GameRecord::read(Path::new(file)).unwrap(),
            model_rules,
        )
        .unwrap();
        assert_eq!(saved.positions()[2].rules(), model_rules);
        // Under a limit the record passes, it is refused.
        let (_, out) = play(model(1), &mut engine, &format!("load {file}\nquit\n"));
        assert!(
            out.contains("not loaded") && out.contains("ends after move 1"),
            "{out}"
        );
        // A classical session takes the record's rules, as before.
        let (_, out) = play(
            config(Color::Black),
            &mut engine,
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
        setup.start = Start::Position(position);
        setup.time_control = Some("1+30".parse().unwrap());
        let mut engine = opponent();
        let (end, out) = play(setup, &mut engine, "E7E8\n");
        assert_eq!(end, SessionEnd::Finished(Outcome::Win(Color::Black)));
        assert_eq!(
            out.lines().last(),
            Some("result: Black wins (enough marbles pushed off)")
        );
        // The push-off earned Black 30 seconds: 1:30 minus a moment.
        assert!(out.contains("Black  off 0/6   1:29"), "{out}");
    }

    #[test]
    fn hints_come_from_the_opponent_and_help_lists_the_commands() {
        let entrant = PlayerRegistry::builtin().prepare_str("greedy").unwrap();
        let mut engine = ClassicalOpponent::new(&entrant, 1);
        let (_, out) = play(
            config(Color::Black),
            &mut engine,
            "help\nhint\nsave\nquit\n",
        );
        assert!(out.contains("undo       take back"), "{out}");
        assert!(out.contains("hint: "), "{out}");
        assert!(out.contains("save needs a file name"), "{out}");
    }
}
