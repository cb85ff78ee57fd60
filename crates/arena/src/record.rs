//! The two-player game's record ([`GameRecord`], replayed by the
//! two-player engine), and [`AnyRecord`], a record of either game, decided
//! once from its rules and start. Both games write the one record format of
//! [`crate::record_format`]; this module also reads the two-player format
//! that came before it:
//!
//! ```text
//! # sumito game record v1
//! # results read Black-White: 1-0 = Black won, 0-1 = White won
//! layout: belgian-daisy
//! rules: marbles_to_win=6 max_plies=400 no_push_off_plies=none
//! black: alphabeta:depth=3
//! white: random
//! opening_plies: 4
//! moves:
//! A1B2
//! I5H5
//! …
//! result: 1-0
//! reason: marbles-off
//! ```
//!
//! - The first line is exactly `# sumito game record v1`; other lines starting
//!   with `#`, and blank lines, are comments anywhere.
//! - The header has `key: value` lines before `moves:`. The start is either
//!   `layout: NAME` (a layout name of the engine) or `start: TEXT` (the
//!   engine's position text), optionally with `start_ply: N` and
//!   `start_plies_since_push_off: N` for a position taken from a game in
//!   progress (they give the ply counters when the text has none, and
//!   replace the text's when it has them). `rules:` (every key optional: `marbles_to_win=N`,
//!   `max_plies=N|none`, `no_push_off_plies=N|none`; default 6, none, none),
//!   `black:`, `white:` (player names) and `opening_plies:` (how many of the
//!   first moves were a random opening rather than the players' choices)
//!   are optional.
//! - After `moves:`, one move per line in Aba-Pro notation (the comma form is
//!   read too); each must be legal in the position reached so far.
//! - `result:` is `1-0`, `0-1`, `1/2-1/2` or `*` (unfinished); a finished game
//!   adds `reason:` with `marbles-off`, `move-limit`, `no-push-off` or
//!   `no-legal-moves`. Both must agree with the replay: the game ends exactly
//!   after the last move, and in the stated way.
//!
//! Errors name the line and the problem.

use std::path::Path;

use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{
    Color, EndReason, Layout, MAX_PLY_COUNTER, Move, Outcome, Position, Rules, shorten_quotes,
};

use crate::general_record::{GeneralRecord, GeneralStart};
use crate::record_format::{MAGIC, TWO_PLAYER_MAGIC_V1, format_of, read_with, write_text};
pub use crate::record_format::{RecordError, RecordFileError};

/// Where a recorded game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    Layout(Layout),
    /// A position given as text (with its ply counters; the rules are the
    /// record's).
    Position(Position),
}

/// A whole two-player game, as written to and read from a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub start: Start,
    pub rules: Rules,
    pub black: String,
    pub white: String,
    /// How many of the first `moves` were a random opening.
    pub opening_plies: u32,
    pub moves: Vec<Move>,
    /// How the game ended; `None` if it is unfinished.
    pub result: Option<(Outcome, EndReason)>,
}

/// Why a record of the general engine is not one of the two-player game:
/// the header keys of the line at fault, and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotTwoPlayer {
    pub keys: &'static [&'static str],
    pub why: String,
}

/// A record of either game: which one is decided once, from the record's
/// rules and start (plain rules and a two-player start make a two-player
/// game, played by the two-player engine).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyRecord {
    TwoPlayer(GameRecord),
    General(GeneralRecord),
}

impl AnyRecord {
    /// Reads a record of any format (the one format, or an older two-player
    /// or general-game record) and replays it.
    pub fn parse(text: &str) -> Result<AnyRecord, RecordError> {
        if format_of(text) == Some(TWO_PLAYER_MAGIC_V1) {
            return Parser::default().parse(text).map(AnyRecord::TwoPlayer);
        }
        let general = GeneralRecord::parse(text)?;
        Ok(match GameRecord::from_general(&general) {
            Ok(record) => AnyRecord::TwoPlayer(record),
            Err(_) => AnyRecord::General(general),
        })
    }

    /// Reads a record file (see [`AnyRecord::parse`]).
    pub fn read(path: &Path) -> Result<AnyRecord, RecordFileError> {
        read_with(path, AnyRecord::parse)
    }

    /// The game as a record of the general engine (which plays the
    /// two-player game too).
    pub fn into_general(self) -> GeneralRecord {
        match self {
            AnyRecord::TwoPlayer(record) => record.to_general(),
            AnyRecord::General(record) => record,
        }
    }
}

fn outcome_token(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::Win(Color::Black)) => "1-0",
        Some(Outcome::Win(Color::White)) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
        None => "*",
    }
}

const REASONS: [(EndReason, &str); 4] = [
    (EndReason::MarblesOff, "marbles-off"),
    (EndReason::MoveLimit, "move-limit"),
    (EndReason::NoPushOff, "no-push-off"),
    (EndReason::NoLegalMoves, "no-legal-moves"),
];

fn reason_token(reason: EndReason) -> &'static str {
    REASONS
        .iter()
        .find(|(r, _)| *r == reason)
        .map(|(_, token)| *token)
        .expect("every end reason has a token")
}

/// Reads a `rules:` value; the error says which item is wrong. The values
/// go through the engine's one check of rule values
/// ([`Rules::validate`]), as a `--rules` file's and a run's do.
fn parse_rules(text: &str) -> Result<Rules, String> {
    let mut rules = Rules::default();
    for item in text.split_whitespace() {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| format!("rules item {item:?} is not key=value"))?;
        let limit = || -> Result<Option<u32>, String> {
            if value == "none" {
                return Ok(None);
            }
            value.parse::<u32>().map(Some).map_err(|_| {
                format!("rules item {key}={value:?}: expected a positive whole number or none")
            })
        };
        match key {
            "marbles_to_win" => {
                rules.marbles_to_win = value.parse::<u8>().map_err(|_| {
                    format!(
                        "rules item marbles_to_win={value:?}: expected a whole number from 1 to 14"
                    )
                })?;
            }
            "max_plies" => rules.max_plies = limit()?,
            "no_push_off_plies" => rules.no_push_off_plies = limit()?,
            _ => {
                return Err(format!(
                    "unknown rules item {key:?} (known: marbles_to_win, max_plies, no_push_off_plies)"
                ));
            }
        }
    }
    rules
        .validate()
        .map_err(|err| format!("rules item {}={}: {}", err.key, err.value, err.problem()))?;
    Ok(rules)
}

impl GameRecord {
    /// A game from `start` under `rules`, not yet played and its players
    /// not yet named.
    pub fn unplayed(start: Start, rules: Rules) -> GameRecord {
        GameRecord {
            start,
            rules,
            black: String::new(),
            white: String::new(),
            opening_plies: 0,
            moves: Vec::new(),
            result: None,
        }
    }

    /// The position before the first move.
    pub fn start_position(&self) -> Position {
        match self.start {
            Start::Layout(layout) => Position::start(layout, self.rules),
            Start::Position(position) => position.with_rules(self.rules),
        }
    }

    /// Every position of the game: the start, then one after each move.
    /// The moves of a parsed or arena-made record are legal.
    pub fn positions(&self) -> Vec<Position> {
        let mut positions = vec![self.start_position()];
        for &mv in &self.moves {
            let next = positions[positions.len() - 1].play(mv);
            positions.push(next);
        }
        positions
    }

    /// The record as text, in the one record format
    /// ([`crate::record_format`]).
    pub fn to_text(&self) -> String {
        self.to_general().to_text()
    }

    /// Reads and replays a record of the two-player game: the one format, or
    /// the older two-player format (see the module docs). A record of the
    /// general game is refused, saying what makes it one.
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        if format_of(text) == Some(TWO_PLAYER_MAGIC_V1) {
            return Parser::default().parse(text);
        }
        let general = GeneralRecord::parse(text)?;
        GameRecord::from_general(&general).map_err(|NotTwoPlayer { keys, why }| {
            // The header line that makes it a game of the general game.
            let line = text
                .lines()
                .position(|line| keys.iter().any(|key| line.trim_start().starts_with(key)))
                .map_or(1, |index| index + 1);
            error(
                line,
                format!("this is a record of the general game, not of the two-player game: {why}"),
            )
        })
    }

    /// Reads a record file (see [`GameRecord::parse`]).
    pub fn read(path: &Path) -> Result<GameRecord, RecordFileError> {
        read_with(path, GameRecord::parse)
    }

    /// Writes the record atomically (a temporary file renamed into place).
    pub fn write(&self, path: &Path) -> Result<(), RecordFileError> {
        write_text(path, &self.to_text())
    }

    /// The same game as a record of the general engine, its result worded
    /// by that engine (which plays the two-player game move for move alike).
    pub fn to_general(&self) -> GeneralRecord {
        let start = match self.start {
            Start::Layout(layout) => GeneralStart::Layout(GeneralLayout::Two(layout)),
            Start::Position(position) => GeneralStart::Text(position.to_string()),
        };
        let mut record = GeneralRecord {
            start,
            rules: RulesTable::of_two_player(self.rules),
            seats: vec![self.black.clone(), self.white.clone()],
            opening_plies: self.opening_plies,
            moves: self
                .moves
                .iter()
                .map(|&mv| sumito_engine::general::GeneralMove::group(mv))
                .collect(),
            result: None,
        };
        record.result = record
            .positions()
            .ok()
            .and_then(|positions| positions.last()?.describe_outcome());
        record
    }

    /// The two-player game of a general-engine record, when it is one:
    /// plain rules (targets and limits only), a two-player start, at most
    /// two seats named and group moves only; otherwise what makes it a
    /// game of the general game.
    pub fn from_general(record: &GeneralRecord) -> Result<GameRecord, NotTwoPlayer> {
        let not = |keys: &'static [&'static str], why: String| NotTwoPlayer { keys, why };
        if record.rules.is_general() {
            return Err(not(
                &["rules:"],
                format!("its rules are {}", record.rules.describe()),
            ));
        }
        let rules = record
            .rules
            .two_player_rules()
            .map_err(|err| not(&["rules:"], format!("its rules: {err}")))?;
        let start = match &record.start {
            GeneralStart::Layout(GeneralLayout::Two(layout)) => Start::Layout(*layout),
            GeneralStart::Layout(layout) => {
                return Err(not(
                    &["layout:"],
                    format!("layout {layout} is not a two-player layout"),
                ));
            }
            GeneralStart::Text(text) => {
                Start::Position(Position::from_fen(text).map_err(|err| {
                    not(
                        &["start:"],
                        format!("its start is not a two-player position: {err}"),
                    )
                })?)
            }
        };
        let (black, white) = match record.seats.as_slice() {
            [] => (String::new(), String::new()),
            [black, white] => (black.clone(), white.clone()),
            seats => return Err(not(&["seats:"], format!("it names {} seats", seats.len()))),
        };
        let moves = record
            .moves
            .iter()
            .enumerate()
            .map(|(ply, mv)| {
                mv.as_group().ok_or_else(|| {
                    not(
                        &["moves:"],
                        format!("move {} ({}) is not a group move", ply + 1, mv.to_text()),
                    )
                })
            })
            .collect::<Result<Vec<Move>, NotTwoPlayer>>()?;
        let mut game = GameRecord {
            start,
            rules,
            black,
            white,
            opening_plies: record.opening_plies,
            moves,
            result: None,
        };
        game.result = game.positions().last().and_then(Position::outcome);
        Ok(game)
    }
}

/// A UTC timestamp `YYYY-MM-DD HH:MM:SS` for log lines and folder names.
pub fn utc_timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Writes `bytes` to `path` so that readers see the old file or the whole new
/// one, never a part (`sumito_fsio`: a temporary beside it that names its
/// writer, flushed, then renamed over `path`).
pub use sumito_fsio::write_atomic;

#[derive(Default)]
struct Parser {
    layout: Option<(usize, Layout)>,
    start: Option<(usize, Position)>,
    start_ply: Option<u32>,
    start_plies_since_push_off: Option<u32>,
    rules: Option<Rules>,
    black: Option<String>,
    white: Option<String>,
    opening_plies: Option<(usize, u32)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Moves,
    /// After `result:`; holds the result's line and whether it was `*`.
    Result,
}

/// A problem at a line. Problems quote the record's text (a line, a key, a
/// value), which may be a megabyte long: each quoted part is cut to an
/// excerpt.
fn error(line: usize, problem: impl Into<String>) -> RecordError {
    RecordError {
        line,
        problem: shorten_quotes(&problem.into()),
    }
}

impl Parser {
    fn header(&mut self, n: usize, key: &str, value: &str) -> Result<(), RecordError> {
        let duplicate = || error(n, format!("{key:?} is given twice"));
        let count = |v: &str| {
            v.parse::<u32>()
                .map_err(|_| error(n, format!("{key}: {v:?} is not a whole number")))
        };
        // The start's ply counters, as in the position text.
        let counter = |v: &str| {
            v.parse::<u32>()
                .ok()
                .filter(|&ply| ply <= MAX_PLY_COUNTER)
                .ok_or_else(|| {
                    error(
                        n,
                        format!("{key}: {v:?} is not a whole number from 0 to {MAX_PLY_COUNTER}"),
                    )
                })
        };
        match key {
            "layout" => {
                let layout =
                    Layout::from_name(value).map_err(|e| error(n, format!("layout: {e}")))?;
                if self.layout.replace((n, layout)).is_some() {
                    return Err(duplicate());
                }
            }
            "start" => {
                let position =
                    Position::from_fen(value).map_err(|e| error(n, format!("start: {e}")))?;
                if self.start.replace((n, position)).is_some() {
                    return Err(duplicate());
                }
            }
            "start_ply" => {
                if self.start_ply.replace(counter(value)?).is_some() {
                    return Err(duplicate());
                }
            }
            "start_plies_since_push_off" => {
                if self
                    .start_plies_since_push_off
                    .replace(counter(value)?)
                    .is_some()
                {
                    return Err(duplicate());
                }
            }
            "rules" => {
                let rules = parse_rules(value).map_err(|e| error(n, e))?;
                if self.rules.replace(rules).is_some() {
                    return Err(duplicate());
                }
            }
            "black" | "white" => {
                let slot = if key == "black" {
                    &mut self.black
                } else {
                    &mut self.white
                };
                if slot.replace(value.to_string()).is_some() {
                    return Err(duplicate());
                }
            }
            "opening_plies" => {
                if self.opening_plies.replace((n, count(value)?)).is_some() {
                    return Err(duplicate());
                }
            }
            _ => {
                return Err(error(
                    n,
                    format!(
                        "unknown header {key:?} (known: layout, start, start_ply, \
                         start_plies_since_push_off, rules, black, white, opening_plies)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The start position once the header is complete (`n`: the `moves:` line).
    fn start(&self, n: usize) -> Result<(Start, Position, Rules), RecordError> {
        let rules = self.rules.unwrap_or_default();
        let start = match (self.layout, self.start) {
            (Some(_), Some((line, _))) => {
                return Err(error(line, "give either layout: or start:, not both"));
            }
            (None, None) => {
                return Err(error(
                    n,
                    "the header needs a layout: or start: line before moves:",
                ));
            }
            (Some((line, _)), None)
                if self.start_ply.is_some() || self.start_plies_since_push_off.is_some() =>
            {
                return Err(error(
                    line,
                    "start_ply and start_plies_since_push_off go with start:, not layout:",
                ));
            }
            (Some((_, layout)), None) => Start::Layout(layout),
            (None, Some((line, position))) => {
                // The counters of the start text, unless the lines give them.
                let ply = self.start_ply.unwrap_or(position.ply());
                let since =
                    (self.start_plies_since_push_off).unwrap_or(position.plies_since_push_off());
                if since > ply {
                    return Err(error(
                        line,
                        format!(
                            "the plies since a push-off ({since}) cannot exceed the plies \
                             played ({ply}) of the start"
                        ),
                    ));
                }
                Start::Position(position.with_ply_counters(ply, since))
            }
        };
        let position = match start {
            Start::Layout(layout) => Position::start(layout, rules),
            Start::Position(position) => position.with_rules(rules),
        };
        Ok((start, position, rules))
    }

    fn parse(mut self, text: &str) -> Result<GameRecord, RecordError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
        match lines.next() {
            Some((_, first)) if first == TWO_PLAYER_MAGIC_V1 => {}
            _ => return Err(error(1, format!("the first line must be {MAGIC:?}"))),
        }
        let mut section = Section::Header;
        let mut replay: Option<(Start, Position, Rules)> = None;
        let mut moves = Vec::new();
        let mut result: Option<(usize, Option<Outcome>)> = None;
        let mut reason: Option<(usize, EndReason)> = None;
        let mut last_line = 1;
        for (n, line) in lines {
            last_line = n;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match section {
                Section::Header => {
                    if line == "moves:" {
                        replay = Some(self.start(n)?);
                        section = Section::Moves;
                        continue;
                    }
                    let (key, value) = line
                        .split_once(':')
                        .ok_or_else(|| error(n, format!("expected key: value, found {line:?}")))?;
                    self.header(n, key.trim(), value.trim())?;
                }
                Section::Moves => {
                    let (_, position, _) = replay.as_mut().expect("set at moves:");
                    if let Some(value) = line.strip_prefix("result:") {
                        let outcome = match value.trim() {
                            "1-0" => Some(Outcome::Win(Color::Black)),
                            "0-1" => Some(Outcome::Win(Color::White)),
                            "1/2-1/2" => Some(Outcome::Draw),
                            "*" => None,
                            other => {
                                return Err(error(
                                    n,
                                    format!("result {other:?}: expected 1-0, 0-1, 1/2-1/2 or *"),
                                ));
                            }
                        };
                        result = Some((n, outcome));
                        section = Section::Result;
                        continue;
                    }
                    if position.is_game_over() {
                        return Err(error(
                            n,
                            format!("move {line:?} comes after the end of the game"),
                        ));
                    }
                    let mv = position
                        .parse_move(line)
                        .map_err(|e| error(n, format!("move {}: {e}", moves.len() + 1)))?;
                    *position = position.play(mv);
                    moves.push(mv);
                }
                Section::Result => {
                    let Some(value) = line.strip_prefix("reason:") else {
                        return Err(error(
                            n,
                            format!("only reason: may follow result:, found {line:?}"),
                        ));
                    };
                    if reason.is_some() {
                        return Err(error(n, "\"reason\" is given twice"));
                    }
                    let value = value.trim();
                    let token = REASONS
                        .iter()
                        .find(|(_, t)| *t == value)
                        .map(|(r, _)| *r)
                        .ok_or_else(|| {
                            error(
                                n,
                                format!(
                                    "reason {value:?}: expected marbles-off, move-limit, \
                                     no-push-off or no-legal-moves"
                                ),
                            )
                        })?;
                    reason = Some((n, token));
                }
            }
        }
        let Some((start, position, rules)) = replay else {
            return Err(error(last_line, "the record has no moves: line"));
        };
        let Some((result_line, stated)) = result else {
            return Err(error(last_line, "the record ends without a result: line"));
        };
        let actual = position.outcome();
        let result = match (stated, actual) {
            (None, None) => {
                if let Some((line, _)) = reason {
                    return Err(error(line, "an unfinished game (result *) has no reason"));
                }
                None
            }
            (None, Some((outcome, why))) => {
                return Err(error(
                    result_line,
                    format!("result * but the game is over: {outcome} ({why})"),
                ));
            }
            (Some(_), None) => {
                return Err(error(
                    result_line,
                    "the game is not over after the last move, so the result must be *",
                ));
            }
            (Some(stated), Some((outcome, why))) => {
                if stated != outcome {
                    return Err(error(
                        result_line,
                        format!(
                            "result {} but the replay ends {} ({outcome})",
                            outcome_token(Some(stated)),
                            outcome_token(Some(outcome))
                        ),
                    ));
                }
                match reason {
                    None => {
                        return Err(error(
                            result_line,
                            "a finished game needs a reason: line after result:",
                        ));
                    }
                    Some((line, stated_why)) if stated_why != why => {
                        return Err(error(
                            line,
                            format!(
                                "reason {} but the replay ends by {}",
                                reason_token(stated_why),
                                reason_token(why)
                            ),
                        ));
                    }
                    Some(_) => {}
                }
                Some((outcome, why))
            }
        };
        let opening_plies = match self.opening_plies {
            Some((line, n)) if n as usize > moves.len() => {
                return Err(error(
                    line,
                    format!("opening_plies {n} exceeds the {} moves", moves.len()),
                ));
            }
            Some((_, n)) => n,
            None => 0,
        };
        Ok(GameRecord {
            start,
            rules,
            black: self.black.unwrap_or_default(),
            white: self.white.unwrap_or_default(),
            opening_plies,
            moves,
            result,
        })
    }
}

/// A short, file-name-safe form of a player name.
pub fn file_safe(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let short: String = out.trim_matches('-').chars().take(40).collect();
    if short.is_empty() {
        "player".to_string()
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        let rules = Rules {
            max_plies: Some(400),
            ..Rules::default()
        };
        let start = Position::start(Layout::BelgianDaisy, rules);
        let moves: Vec<Move> = sumito_engine::random_playout(&start, 12, 9)
            .windows(2)
            .map(|pair| {
                *pair[0]
                    .legal_moves()
                    .iter()
                    .find(|&&mv| pair[0].play(mv) == pair[1])
                    .unwrap()
            })
            .collect();
        GameRecord {
            start: Start::Layout(Layout::BelgianDaisy),
            rules,
            black: "alphabeta:depth=3".into(),
            white: "random".into(),
            opening_plies: 4,
            moves,
            result: None,
        }
    }

    #[test]
    fn round_trips_an_unfinished_game() {
        let record = sample();
        let text = record.to_text();
        assert!(text.starts_with(MAGIC), "{text}");
        assert!(
            text.contains("seats: alphabeta:depth=3 | random\n"),
            "{text}"
        );
        assert!(
            text.contains("rules: { marbles_to_win = 6, max_plies = 400 }\n"),
            "{text}"
        );
        assert_eq!(GameRecord::parse(&text).unwrap(), record);
        assert_eq!(
            AnyRecord::parse(&text).unwrap(),
            AnyRecord::TwoPlayer(record.clone())
        );
        // The general engine reads the same text as the same game.
        let general = GeneralRecord::parse(&text).unwrap();
        assert_eq!(general, record.to_general());
        assert_eq!(GameRecord::from_general(&general).unwrap(), record);
    }

    #[test]
    fn a_record_of_the_general_game_is_refused_saying_why() {
        let text = sample().to_text();
        for (from, to, key, why) in [
            (
                "rules: {",
                "rules: { holes = [\"E5\"],",
                "rules:",
                "its rules are",
            ),
            (
                "layout: belgian-daisy",
                "layout: three-player",
                "layout:",
                "not a two-player layout",
            ),
        ] {
            let changed = text.replace(from, to);
            // (The moves no longer fit: only the header is kept.)
            let header: String = changed
                .lines()
                .take_while(|line| *line != "moves:")
                .map(|line| format!("{line}\n"))
                .collect();
            let changed = format!("{header}moves:\nresult: *\n")
                .replace("seats: alphabeta:depth=3 | random\n", "")
                .replace("opening_plies: 4\n", "");
            let err = GameRecord::parse(&changed).unwrap_err();
            assert_eq!(err.line, line_of(&changed, key), "{err}");
            assert!(
                err.problem.contains("record of the general game") && err.problem.contains(why),
                "{err}"
            );
            assert!(matches!(
                AnyRecord::parse(&changed).unwrap(),
                AnyRecord::General(_)
            ));
        }
    }

    proptest::proptest! {
        #[test]
        fn any_random_game_round_trips(layout in 0usize..9, seed in 0u64..10_000, max_plies in 1u32..200) {
            let rules = Rules { max_plies: Some(max_plies), ..Rules::default() };
            let start = Position::start(Layout::NAMED[layout], rules);
            let positions = sumito_engine::random_playout(&start, 250, seed);
            let moves: Vec<Move> = positions
                .windows(2)
                .map(|pair| {
                    *pair[0].legal_moves().iter().find(|&&mv| pair[0].play(mv) == pair[1]).unwrap()
                })
                .collect();
            let record = GameRecord {
                start: Start::Layout(Layout::NAMED[layout]),
                rules,
                black: "random".into(),
                white: "random".into(),
                opening_plies: 0,
                moves,
                result: positions.last().unwrap().outcome(),
            };
            proptest::prop_assert_eq!(GameRecord::parse(&record.to_text()).unwrap(), record);
        }
    }

    #[test]
    fn round_trips_a_finished_game_from_a_position() {
        // Black pushes E9 off for the sixth marble.
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5")
            .unwrap()
            .with_ply_counters(57, 3);
        let mv = position.parse_move("E7E8").unwrap();
        let record = GameRecord {
            start: Start::Position(position),
            rules: Rules::default(),
            black: "a".into(),
            white: "b".into(),
            opening_plies: 0,
            moves: vec![mv],
            result: Some((Outcome::Win(Color::Black), EndReason::MarblesOff)),
        };
        let text = record.to_text();
        assert!(
            text.contains("start: 5/6/7/8/6bbw/8/7/6/5 b 0 5 57 3\n"),
            "{text}"
        );
        assert!(
            text.contains("result: black wins (enough marbles pushed off)\n"),
            "{text}"
        );
        let parsed = GameRecord::parse(&text).unwrap();
        assert_eq!(parsed, record);
        assert_eq!(
            parsed.positions().last().unwrap().marbles_off(Color::White),
            6
        );
    }

    #[test]
    fn the_start_counters_come_from_the_text_or_the_lines() {
        let fen = "5/6/7/8/6bbw/8/7/6/5 b 0 5";
        let record = |header: &str| {
            GameRecord::parse(&format!(
                "{TWO_PLAYER_MAGIC_V1}\nstart: {fen}{header}\nmoves:\nresult: *\n"
            ))
        };
        let ply = |header: &str| {
            let position = record(header).unwrap().start_position();
            (position.ply(), position.plies_since_push_off())
        };
        // The text's counters were dropped when no line gave them.
        assert_eq!(ply(" 57 12"), (57, 12));
        assert_eq!(ply(" 57 12\nstart_ply: 60"), (60, 12));
        assert_eq!(ply("\nstart_ply: 60"), (60, 0));
        // More plies since a push-off than plies: refused, as in the text
        // (it was accepted, and the record then wrote a start it could not
        // read back).
        let err = record("\nstart_plies_since_push_off: 3").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.problem.contains("cannot exceed"), "{err}");
        // A counter near u32::MAX made the first move overflow (a panic).
        let err = record("\nstart_ply: 4294967295").unwrap_err();
        assert!(err.problem.contains("from 0 to 1000000000"), "{err}");
        let text = format!(
            "{TWO_PLAYER_MAGIC_V1}\nstart: {fen}\nstart_ply: {MAX_PLY_COUNTER}\nmoves:\nE7E8\nresult: 1-0\nreason: marbles-off\n"
        );
        let last = GameRecord::parse(&text).unwrap().positions()[1];
        assert_eq!(last.ply(), MAX_PLY_COUNTER + 1);
    }

    /// A record of the older two-player format, as today's binary wrote it
    /// (`sumito arena`, 2026-11-27).
    const TWO_PLAYER_V1: &str = include_str!("../testdata/records/two-player-v1.txt");

    /// The first 12 moves of [`TWO_PLAYER_V1`], unfinished.
    fn v1_sample() -> String {
        let mut text = String::new();
        let mut moves = None;
        for line in TWO_PLAYER_V1.lines() {
            if moves == Some(12) {
                break;
            }
            text.push_str(line);
            text.push('\n');
            moves = match (moves, line) {
                (None, "moves:") => Some(0),
                (Some(n), _) => Some(n + 1),
                (None, _) => None,
            };
        }
        text + "result: *\n"
    }

    #[test]
    fn records_of_the_older_formats_still_read() {
        let record = GameRecord::parse(TWO_PLAYER_V1).unwrap();
        assert_eq!(record.start, Start::Layout(Layout::Standard));
        assert_eq!(
            (record.black.as_str(), record.white.as_str()),
            ("alphabeta:depth=1", "greedy")
        );
        assert_eq!((record.opening_plies, record.moves.len()), (4, 60));
        assert_eq!(record.result, Some((Outcome::Draw, EndReason::MoveLimit)));
        // Written anew in the one format, it reads back the same.
        assert_eq!(GameRecord::parse(&record.to_text()).unwrap(), record);
        assert!(record.to_text().contains(
            "result: draw between black and white (move limit reached, decided by marbles pushed off)\n"
        ));
        // The general game's older records read as records of the general
        // game, and the one format keeps them.
        for (text, seats) in [
            (include_str!("../testdata/records/holes-v1.txt"), 2),
            (include_str!("../testdata/records/three-player-v1.txt"), 3),
        ] {
            let AnyRecord::General(general) = AnyRecord::parse(text).unwrap() else {
                panic!("not a record of the general game: {text}");
            };
            assert_eq!(general.seats.len(), seats);
            assert!(general.result.is_some());
            assert_eq!(GeneralRecord::parse(&general.to_text()).unwrap(), general);
        }
        // An older two-player record as a record of the general engine.
        let general = AnyRecord::parse(TWO_PLAYER_V1).unwrap().into_general();
        assert_eq!(general, record.to_general());
    }

    #[test]
    fn a_huge_line_is_quoted_back_as_an_excerpt() {
        let huge = "x".repeat(1 << 20);
        let sample = v1_sample();
        for (from, to) in [
            ("layout: standard", format!("layout: {huge}")),
            ("white: greedy", format!("{huge}: greedy")),
            ("moves:", format!("moves:\n{huge}")),
            ("result: *", format!("result: {huge}")),
            ("rules: ", format!("rules: max_plies={huge} ")),
        ] {
            let err = GameRecord::parse(&sample.replace(from, &to)).unwrap_err();
            let message = err.to_string();
            assert!(message.chars().count() < 300, "{}", &message[..300]);
            assert!(message.contains(&"x".repeat(40)), "{message}");
        }
    }

    /// Parses `text` with line `n` (1-based) replaced by `line`.
    fn with_line(text: &str, n: usize, line: &str) -> Result<GameRecord, RecordError> {
        let mut lines: Vec<&str> = text.lines().collect();
        lines[n - 1] = line;
        GameRecord::parse(&lines.join("\n"))
    }

    fn line_of(text: &str, prefix: &str) -> usize {
        text.lines().position(|l| l.starts_with(prefix)).unwrap() + 1
    }

    #[test]
    fn malformed_records_name_the_line() {
        let text = v1_sample();
        let record = GameRecord::parse(&text).unwrap();
        let err = with_line(&text, 1, "# some other file").unwrap_err();
        assert_eq!(err.line, 1);

        let layout = line_of(&text, "layout:");
        let err = with_line(&text, layout, "layout: hexagon").unwrap_err();
        assert_eq!(err.line, layout);
        assert!(err.problem.contains("hexagon"), "{err}");

        let rules = line_of(&text, "rules:");
        let err = with_line(&text, rules, "rules: max_plies=-3").unwrap_err();
        assert_eq!(err.line, rules);
        assert!(err.to_string().contains("max_plies"), "{err}");

        // Values out of range are refused as everywhere else (the
        // engine's one check), naming the item and the values allowed.
        for (line, message) in [
            (
                "rules: marbles_to_win=0",
                "marbles_to_win=0: is 0, must be 1 to 14",
            ),
            (
                "rules: marbles_to_win=15",
                "marbles_to_win=15: is 15, must be 1 to 14",
            ),
            (
                "rules: max_plies=0",
                "max_plies=0: is 0, must be at least 1",
            ),
            (
                "rules: no_push_off_plies=0",
                "no_push_off_plies=0: is 0, must be at least 1",
            ),
        ] {
            let err = with_line(&text, rules, line).unwrap_err();
            assert_eq!(err.line, rules);
            assert!(err.problem.contains(message), "{line}: {err}");
        }

        let err = with_line(&text, rules, "colour: green").unwrap_err();
        assert!(err.problem.contains("unknown header"), "{err}");

        // The third move replaced by one that is not legal there.
        let third = line_of(&text, "moves:") + 3;
        let before_third = record.positions()[2];
        // (Aba-Pro text leaves the group size to the position, so look for a
        // text that no legal move there has.)
        let illegal = Move::all()
            .map(|mv| mv.to_string())
            .find(|text| before_third.parse_move(text).is_err())
            .unwrap();
        let err = with_line(&text, third, &illegal).unwrap_err();
        assert_eq!(err.line, third);
        assert!(err.problem.starts_with("move 3:"), "{err}");
        let err = with_line(&text, third, "Z9").unwrap_err();
        assert_eq!(err.line, third);

        let result = line_of(&text, "result:");
        let err = with_line(&text, result, "result: 1-0").unwrap_err();
        assert_eq!(err.line, result);
        assert!(err.problem.contains("not over"), "{err}");
        let err = with_line(&text, result, "result: win").unwrap_err();
        assert_eq!(err.line, result);

        let truncated: String = text.lines().take(result - 1).collect::<Vec<_>>().join("\n");
        let err = GameRecord::parse(&truncated).unwrap_err();
        assert!(err.problem.contains("without a result"), "{err}");
    }

    #[test]
    fn results_must_match_the_replay() {
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5").unwrap();
        let text = format!(
            "{TWO_PLAYER_MAGIC_V1}\nstart: {position}\nmoves:\nE7E8\nresult: 0-1\nreason: marbles-off\n"
        );
        let err = GameRecord::parse(&text).unwrap_err();
        assert_eq!(err.line, 5);
        assert!(err.problem.contains("replay ends 1-0"), "{err}");
        let text = text
            .replace("0-1", "1-0")
            .replace("marbles-off", "move-limit");
        let err = GameRecord::parse(&text).unwrap_err();
        assert_eq!(err.line, 6);
        let text = text
            .replace("move-limit", "marbles-off")
            .replace("E7E8\n", "E7E8\nE1E2\n");
        let err = GameRecord::parse(&text).unwrap_err();
        assert_eq!(err.line, 5);
        assert!(err.problem.contains("after the end"), "{err}");
    }

    #[test]
    fn writes_atomically() {
        let dir = std::env::temp_dir().join(format!("sumito-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.txt");
        let record = sample();
        record.write(&path).unwrap();
        record.write(&path).unwrap();
        assert_eq!(GameRecord::read(&path).unwrap(), record);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("game.txt")]);
        let err = GameRecord::read(&dir.join("missing.txt")).unwrap_err();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_safe_names() {
        assert_eq!(file_safe("alphabeta:depth=3"), "alphabeta-depth-3");
        assert_eq!(file_safe("::"), "player");
    }
}
