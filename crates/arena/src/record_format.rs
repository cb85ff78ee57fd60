//! The one game record format of both games: a plain, line-oriented text
//! that the engine replays exactly. The rules travel with the game, so a
//! record replays the same anywhere.
//!
//! ```text
//! # sumito game record v2
//! layout: belgian-daisy
//! rules: { marbles_to_win = 6, max_plies = 400 }
//! seats: alphabeta:depth=3 | random
//! opening_plies: 4
//! moves:
//! A1B2
//! I5H5
//! …
//! result: black wins (enough marbles pushed off)
//! ```
//!
//! - The first line is exactly `# sumito game record v2`; other lines
//!   starting with `#`, and blank lines, are comments anywhere.
//! - Header lines `key: value` before `moves:`, each at most once. The start
//!   is `layout: NAME` (any layout, two-player or many-player) or `start:
//!   TEXT` (a position text of the general game, which for two players is
//!   the two-player text, ply counters included). `rules:` is the `[rules]`
//!   table as one TOML inline table (the keys of `--rules` files and run
//!   configurations; `{}` or absent for the plain rules). `seats:` names
//!   who played each seat, in turn order (Black first), separated by ` | `.
//!   `opening_plies:` counts the first moves that were a random opening
//!   rather than the players' choices.
//! - After `moves:`, one move per line (Aba-Pro or comma form, shield and
//!   rotation moves included), each legal where it is played.
//! - `result:` is the result as the general engine words it (`black wins
//!   (enough marbles pushed off)`, `draw between black and white (move
//!   limit reached, decided by marbles pushed off)`), or `*` for an
//!   unfinished game; it must agree with the replay.
//!
//! Which game a record is (the two-player game, played by the two-player
//! engine, or the general game) is decided once, from its rules and start
//! (`record::AnyRecord`): plain rules (targets and limits only) and a
//! two-player start make a two-player game.
//!
//! Older records still read: the two-player format `# sumito game record
//! v1` (`black:`/`white:`, `rules: marbles_to_win=6 max_plies=400
//! no_push_off_plies=none`, `result: 1-0` and `reason: marbles-off`) and the
//! general game's `# sumito variant game record v1` (this format under
//! another first line).
//!
//! Errors name the line and the problem.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sumito_engine::general::{GeneralLayout, GeneralPosition, describe_ending};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::shorten_quotes;
use thiserror::Error;

use crate::record::{GameRecord, Start};

/// The first line of every record written.
pub const MAGIC: &str = "# sumito game record v2";

/// The first line of a two-player record before the one format (read only).
pub const TWO_PLAYER_MAGIC_V1: &str = "# sumito game record v1";

/// The first line of a general-game record before the one format (read
/// only; the rest is the one format's).
pub const VARIANT_MAGIC_V1: &str = "# sumito variant game record v1";

/// Which format a record's text is in, by its first line; `None` for none
/// of them.
pub fn format_of(text: &str) -> Option<&'static str> {
    let first = text.lines().next()?.trim();
    [MAGIC, TWO_PLAYER_MAGIC_V1, VARIANT_MAGIC_V1]
        .into_iter()
        .find(|magic| *magic == first)
}

/// A problem in a record's text, at a line (1-based).
#[derive(Debug, Error, PartialEq, Eq)]
#[error("line {line}: {problem}")]
pub struct RecordError {
    pub line: usize,
    pub problem: String,
}

#[derive(Debug, Error)]
pub enum RecordFileError {
    #[error("cannot read game record {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("game record {path}: {cause}")]
    Parse { path: PathBuf, cause: RecordError },
    #[error("cannot write game record {path}: {cause}")]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// Reads a record file and parses it with `parse`, the errors naming the
/// file.
pub fn read_with<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, RecordError>,
) -> Result<T, RecordFileError> {
    let text = std::fs::read_to_string(path).map_err(|cause| RecordFileError::Read {
        path: path.to_path_buf(),
        cause,
    })?;
    parse(&text).map_err(|cause| RecordFileError::Parse {
        path: path.to_path_buf(),
        cause,
    })
}

/// Writes a record's text atomically (a temporary file renamed into place),
/// the error naming the file.
pub fn write_text(path: &Path, text: &str) -> Result<(), RecordFileError> {
    sumito_fsio::write_atomic(path, text.as_bytes()).map_err(|cause| RecordFileError::Write {
        path: path.to_path_buf(),
        cause,
    })
}

/// The record as text in this format.
pub(crate) fn general_text(record: &GameRecord<GeneralPosition>) -> String {
    let mut out = format!("{MAGIC}\n");
    match &record.start {
        Start::Layout(layout) => out.push_str(&format!("layout: {layout}\n")),
        Start::Position(position) => out.push_str(&format!("start: {position}\n")),
    }
    out.push_str(&format!("rules: {}\n", inline_rules(&record.rules)));
    if !record.players.is_empty() {
        out.push_str(&format!("seats: {}\n", record.players.join(" | ")));
    }
    out.push_str(&format!(
        "opening_plies: {}\nmoves:\n",
        record.opening_plies
    ));
    for mv in &record.moves {
        out.push_str(&mv.to_text());
        out.push('\n');
    }
    let seating = record
        .start_position()
        .map(|position| position.rules().seating);
    let result = match (record.result, seating) {
        (Some(ending), Ok(seating)) => describe_ending(seating, ending),
        _ => "*".to_owned(),
    };
    out.push_str(&format!("result: {result}\n"));
    out
}

/// Where a record starts, as its header gives it (a text is read under the
/// rules, which may come after it).
enum StartText {
    Layout(GeneralLayout),
    Text(String),
}

/// A problem at a line. Problems quote the record's text (a line, a key, a
/// result), which may be a megabyte long: each quoted part is cut to an
/// excerpt.
fn problem(line: usize, problem: impl ToString) -> RecordError {
    RecordError {
        line,
        problem: shorten_quotes(&problem.to_string()),
    }
}

#[derive(Deserialize)]
struct InlineRules {
    rules: RulesTable,
}

/// One TOML inline table of the rules' keys, in a fixed order.
fn inline_rules(table: &RulesTable) -> String {
    let text = toml::to_string(table).unwrap_or_default();
    let items: Vec<String> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.trim().to_string())
        .collect();
    if items.is_empty() {
        "{}".into()
    } else {
        format!("{{ {} }}", items.join(", "))
    }
}

/// Reads a record's text in this format (or the general game's older
/// `# sumito variant game record v1`) and replays it with the general
/// engine.
pub(crate) fn parse_general(text: &str) -> Result<GameRecord<GeneralPosition>, RecordError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()));
    match lines.next() {
        Some((_, MAGIC | VARIANT_MAGIC_V1)) => {}
        _ => return Err(problem(1, format!("the first line must be {MAGIC:?}"))),
    }
    let mut start = None;
    let mut rules = RulesTable::default();
    let mut seats = Vec::new();
    let mut opening_plies = 0;
    let (mut start_line, mut opening_line) = (1, 1);
    let mut in_moves = false;
    let mut move_lines = Vec::new();
    let mut result_line = None;
    // The header keys read so far (`start` for both layout: and start:),
    // and whether `moves:` was: each may be given once, as in the
    // two-player record (a second one was silently taken instead).
    let mut given: Vec<&str> = Vec::new();
    for (number, line) in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if in_moves {
            if let Some(result) = line.strip_prefix("result:") {
                if given.contains(&"result") {
                    return Err(problem(number, "\"result\" is given twice"));
                }
                given.push("result");
                result_line = Some((number, result.trim().to_string()));
                in_moves = false;
            } else {
                move_lines.push((number, line));
            }
            continue;
        }
        if line == "moves:" {
            if given.contains(&"moves") {
                return Err(problem(number, "\"moves:\" is given twice"));
            }
            given.push("moves");
            in_moves = true;
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(problem(
                number,
                format!("expected `key: value` or `moves:`, found {line:?}"),
            ));
        };
        let value = value.trim();
        let slot = match key.trim() {
            "layout" | "start" => "start",
            other => other,
        };
        if given.contains(&slot) {
            return Err(problem(
                number,
                match slot {
                    "start" => "give one layout: or start: line".to_string(),
                    _ => format!("{slot:?} is given twice"),
                },
            ));
        }
        if slot == "start" {
            start_line = number;
        }
        match key.trim() {
            "layout" => {
                start = Some(StartText::Layout(
                    GeneralLayout::from_name(value).map_err(|err| problem(number, err))?,
                ))
            }
            "start" => start = Some(StartText::Text(value.to_string())),
            "rules" => {
                rules = toml::from_str::<InlineRules>(&format!("rules = {value}"))
                    // (TOML's own wording prints the whole line.)
                    .map_err(|err| problem(number, format!("rules: {}", err.message())))?
                    .rules;
                // Values out of range are named at their line.
                rules
                    .validate()
                    .map_err(|err| problem(number, format!("rules: {err}")))?;
            }
            "seats" => seats = value.split('|').map(|s| s.trim().to_string()).collect(),
            "opening_plies" => {
                opening_line = number;
                opening_plies = value.parse().map_err(|_| {
                    problem(
                        number,
                        format!("opening_plies {value:?} is not a whole number"),
                    )
                })?;
            }
            "result" => result_line = Some((number, value.to_string())),
            other => return Err(problem(number, format!("unknown key {other:?}"))),
        }
        given.push(slot);
    }
    let start = match start.ok_or_else(|| problem(1, "no `layout:` or `start:` line"))? {
        StartText::Layout(layout) => Start::Layout(layout),
        StartText::Text(text) => Start::Position(
            rules
                .position_from_text(&text)
                .map_err(|err| problem(start_line, err))?,
        ),
    };
    let mut record = GameRecord {
        start,
        rules,
        players: seats,
        opening_plies,
        moves: Vec::new(),
        result: None,
    };
    let mut position = record
        .start_position()
        .map_err(|err| problem(start_line, err))?;
    for (number, text) in move_lines {
        let mv = position
            .parse_move(text)
            .map_err(|err| problem(number, err))?;
        record.moves.push(mv);
        position = position.play(mv);
    }
    if record.opening_plies as usize > record.moves.len() {
        return Err(problem(
            opening_line,
            format!(
                "opening_plies {} exceeds the {} moves",
                record.opening_plies,
                record.moves.len()
            ),
        ));
    }
    let replayed = position.describe_outcome();
    if let Some((number, result)) = result_line {
        let stated = (result != "*").then_some(result);
        if stated != replayed {
            return Err(problem(
                number,
                format!(
                    "the result says {:?} but the moves give {:?}",
                    stated.as_deref().unwrap_or("*"),
                    replayed.as_deref().unwrap_or("*")
                ),
            ));
        }
    }
    record.result = position.outcome();
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::general::seat_player;

    #[test]
    fn formats_are_known_by_their_first_line() {
        assert_eq!(
            format_of(&format!("{MAGIC}\nlayout: standard\n")),
            Some(MAGIC)
        );
        assert_eq!(
            format_of(&format!("  {TWO_PLAYER_MAGIC_V1}\n")),
            Some(TWO_PLAYER_MAGIC_V1)
        );
        assert_eq!(format_of(VARIANT_MAGIC_V1), Some(VARIANT_MAGIC_V1));
        assert_eq!(format_of("A1B2 I5H5"), None);
        assert_eq!(format_of(""), None);
    }

    #[test]
    fn a_general_game_round_trips_and_replays_exactly() {
        let rules: RulesTable = toml::from_str::<InlineRules>(
            "rules = { holes = [\"E5\"], shield_moves = true, rotation_moves = true, max_plies = 30 }",
        )
        .unwrap()
        .rules;
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let mut record: GameRecord<GeneralPosition> = GameRecord {
            start: Start::Layout(layout),
            rules,
            players: vec!["greedy".into(), "random".into(), "alphabeta:depth=1".into()],
            opening_plies: 0,
            moves: Vec::new(),
            result: None,
        };
        let mut position = record.start_position().unwrap();
        let mut players: Vec<_> = record
            .players
            .iter()
            .map(|s| seat_player(s, 5).unwrap())
            .collect();
        while !position.is_game_over() {
            let mv = players[position.seat_to_move()]
                .choose_move(&position, &Default::default())
                .unwrap();
            record.moves.push(mv);
            position = position.play(mv);
        }
        record.result = position.outcome();
        let text = record.to_text();
        let back = parse_general(&text).unwrap();
        assert_eq!(back, record, "{text}");
        assert_eq!(back.to_text(), text);
        assert_eq!(record.positions().unwrap().len(), record.moves.len() + 1);
        // Replayed under rules that end it sooner (a model's), the game is
        // refused by name, not played on.
        let mut shorter = record.clone();
        shorter.rules.max_plies = Some(10);
        let err = shorter.positions().unwrap_err();
        assert!(err.contains("ends after move 10"), "{err}");
        // A wrong result or an illegal move names its line.
        let wrong = text.replace(
            &format!("result: {}", position.describe_outcome().unwrap()),
            "result: *",
        );
        let err = parse_general(&wrong).unwrap_err();
        assert!(err.problem.contains("the moves give"), "{err}");
        let lines: Vec<&str> = text.lines().collect();
        let first_move = lines.iter().position(|l| *l == "moves:").unwrap() + 1;
        let mut broken: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        broken[first_move] = "E5E6".into();
        let err = parse_general(&broken.join("\n")).unwrap_err();
        assert_eq!(err.line, first_move + 1, "{err}");
    }

    #[test]
    fn keys_given_twice_and_too_many_opening_plies_are_refused() {
        let text = format!(
            "{MAGIC}\nlayout: three-player\nrules: {{}}\nopening_plies: 1\nmoves:\nA2B2\nresult: *\n"
        );
        let record = parse_general(&text).unwrap();
        assert_eq!(record.moves.len(), 1);
        // A second one was silently taken instead of the first.
        for (from, to, line, what) in [
            (
                "rules: {}",
                "rules: {}\nrules: { max_plies = 3 }",
                4,
                "\"rules\" is given twice",
            ),
            (
                "layout: three-player",
                "layout: three-player\nstart: 5/6/7/8/9/8/7/6/5 b 0,0,0",
                3,
                "give one layout: or start: line",
            ),
            (
                "result: *",
                "result: *\nmoves:",
                8,
                "\"moves:\" is given twice",
            ),
            (
                "result: *",
                "result: *\nresult: *",
                8,
                "\"result\" is given twice",
            ),
            (
                "opening_plies: 1",
                "opening_plies: 2",
                4,
                "opening_plies 2 exceeds the 1 moves",
            ),
            (
                "rules: {}",
                "rules: { marbles_to_win = 0 }",
                3,
                "rules: rules.marbles_to_win: is 0, must be 1 to 14",
            ),
        ] {
            let err = parse_general(&text.replace(from, to)).unwrap_err();
            assert_eq!((err.line, err.problem.as_str()), (line, what), "{to}");
        }
    }

    #[test]
    fn a_huge_line_is_quoted_back_as_an_excerpt() {
        let huge = "x".repeat(1 << 20);
        let text = format!("{MAGIC}\nlayout: standard\nmoves:\nresult: *\n");
        for (from, to) in [
            ("layout: standard", format!("layout: {huge}")),
            (
                "layout: standard",
                format!("layout: standard\nrules: {{ {huge} = 1 }}"),
            ),
            (
                "layout: standard",
                format!("layout: standard\nrules: {{ max_plies = \"{huge}\" }}"),
            ),
            ("layout: standard", format!("layout: standard\n{huge}")),
            ("moves:", format!("moves:\n{huge}")),
            ("result: *", format!("result: {huge}")),
        ] {
            let err = parse_general(&text.replace(from, &to)).unwrap_err();
            let message = err.to_string();
            assert!(message.chars().count() < 300, "{}", &message[..300]);
            assert!(message.contains(&"x".repeat(40)), "{message}");
        }
    }
}
