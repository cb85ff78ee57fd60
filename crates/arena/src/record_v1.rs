//! The older two-player record format, `# sumito game record v1`, still
//! read (the one format of [`crate::record_format`] replaced it):
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

use sumito_engine::{
    Color, EndReason, Ending, Layout, MAX_PLY_COUNTER, Outcome, Position, Rules, shorten_quotes,
};
use sumito_game::board::outcome_title;

use crate::record::{GameRecord, Start};
use crate::record_format::{GAME_RECORD_MAGIC, RecordError, TWO_PLAYER_RECORD_MAGIC_V1};

/// Reads and replays a record of the older two-player format.
pub(crate) fn parse(text: &str) -> Result<GameRecord<Position>, RecordError> {
    Parser::default().parse(text)
}

fn outcome_token(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::Win(0)) => "1-0",
        Some(Outcome::Win(_)) => "0-1",
        Some(Outcome::Draw(_)) => "1/2-1/2",
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
    fn start(&self, n: usize) -> Result<(Start<Position>, Position, Rules), RecordError> {
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

    fn parse(mut self, text: &str) -> Result<GameRecord<Position>, RecordError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
        match lines.next() {
            Some((_, first)) if first == TWO_PLAYER_RECORD_MAGIC_V1 => {}
            _ => {
                return Err(error(
                    1,
                    format!("the first line must be {GAME_RECORD_MAGIC:?}"),
                ));
            }
        }
        let mut section = Section::Header;
        let mut replay: Option<(Start<Position>, Position, Rules)> = None;
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
                            "1-0" => Some(Outcome::win_of(Color::Black)),
                            "0-1" => Some(Outcome::win_of(Color::White)),
                            "1/2-1/2" => Some(Outcome::draw_of_all(2)),
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
        let actual = position.ending();
        let result = match (stated, actual) {
            (None, None) => {
                if let Some((line, _)) = reason {
                    return Err(error(line, "an unfinished game (result *) has no reason"));
                }
                None
            }
            (
                None,
                Some(Ending {
                    outcome,
                    reason: why,
                }),
            ) => {
                let outcome = outcome_title(outcome).to_lowercase();
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
            (
                Some(stated),
                Some(Ending {
                    outcome,
                    reason: why,
                }),
            ) => {
                if stated != outcome {
                    return Err(error(
                        result_line,
                        format!(
                            "result {} but the replay ends {} ({})",
                            outcome_token(Some(stated)),
                            outcome_token(Some(outcome)),
                            outcome_title(outcome).to_lowercase()
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
                Some(Ending::new(outcome, why))
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
            players: match (self.black, self.white) {
                (None, None) => Vec::new(),
                (black, white) => vec![black.unwrap_or_default(), white.unwrap_or_default()],
            },
            opening_plies,
            moves,
            // (The older format has none.)
            variations: Vec::new(),
            result,
            forfeit: None,
        })
    }
}
