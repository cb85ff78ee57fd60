//! Reading and writing the one record format ([`crate::record_format`])
//! for a [`GameRecord`] of either game: the general engine writes and reads
//! the text, and each game's `Board` turns its record into one of the
//! general engine and back; the older two-player format reads
//! through [`crate::record_v1`].

use std::path::Path;

use serde::Deserialize;
use sumito_engine::general::{GeneralLayout, GeneralPosition, SEAT_NAMES, describe_ending};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::shorten_quotes;

use sumito_game::Board;

use crate::record::{Forfeit, GameRecord, NotTwoPlayer, Start, Variation};
use crate::record_format::{
    GAME_RECORD_MAGIC, RecordError, RecordFileError, TWO_PLAYER_RECORD_MAGIC_V1,
    VARIANT_RECORD_MAGIC_V1, format_of, read_with, write_text,
};

impl<B: Board> GameRecord<B> {
    /// The record as text, in the one record format
    /// ([`crate::record_format`]).
    pub fn to_text(&self) -> String {
        general_text(&self.to_general())
    }

    /// Reads and replays a record of this game: the one format, or an older
    /// one. A record of another game is refused, saying what makes it one.
    pub fn parse(text: &str) -> Result<GameRecord<B>, RecordError> {
        let general = if format_of(text) == Some(TWO_PLAYER_RECORD_MAGIC_V1) {
            crate::record_v1::parse(text)?.to_general()
        } else {
            parse_general(text)?
        };
        GameRecord::from_general(general).map_err(|NotTwoPlayer { keys, why }| {
            // The header line that makes it a game of the general game.
            let line = text
                .lines()
                .position(|line| keys.iter().any(|key| line.trim_start().starts_with(key)))
                .map_or(1, |index| index + 1);
            RecordError {
                line,
                problem: format!(
                    "this is a record of the general game, not of the two-player game: {why}"
                ),
            }
        })
    }

    /// Reads a record file (see [`GameRecord::parse`]).
    pub fn read(path: &Path) -> Result<GameRecord<B>, RecordFileError> {
        read_with(path, GameRecord::parse)
    }

    /// Writes the record atomically (a temporary file renamed into place).
    pub fn write(&self, path: &Path) -> Result<(), RecordFileError> {
        write_text(path, &self.to_text())
    }
}

/// The record as text in this format.
pub(crate) fn general_text(record: &GameRecord<GeneralPosition>) -> String {
    let mut out = format!("{GAME_RECORD_MAGIC}\n");
    match &record.start {
        Start::Layout(layout) => out.push_str(&format!("layout: {layout}\n")),
        Start::Position(position) => out.push_str(&format!("start: {position}\n")),
    }
    out.push_str(&format!("rules: {}\n", inline_rules(&record.rules)));
    if !record.players.is_empty() {
        out.push_str(&format!("seats: {}\n", record.players.join(" | ")));
    }
    if let Some(forfeit) = &record.forfeit {
        out.push_str(&format!("forfeit: {}\n", forfeit.describe()));
    }
    out.push_str(&format!(
        "opening_plies: {}\nmoves:\n",
        record.opening_plies
    ));
    for mv in &record.moves {
        out.push_str(&mv.to_text());
        out.push('\n');
    }
    for variation in &record.variations {
        let moves: Vec<String> = variation.moves.iter().map(|mv| mv.to_text()).collect();
        out.push_str(&format!(
            "{VARIATION_PREFIX}{}: {}\n",
            variation.ply,
            moves.join(" ")
        ));
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

/// How a variation's line starts: `variation after PLY: MOVES`.
const VARIATION_PREFIX: &str = "variation after ";

/// A variation's line as read: its line number, the ply it starts after
/// and its moves' texts.
struct VariationText<'a> {
    line: usize,
    ply: usize,
    moves: Vec<&'a str>,
}

/// Reads a `variation after PLY: MOVES` line (`line` its number).
fn variation_text(line: usize, text: &str) -> Result<VariationText<'_>, RecordError> {
    let form = || {
        problem(
            line,
            format!("expected `variation after PLY: MOVES`, found {text:?}"),
        )
    };
    let (ply, moves) = text
        .strip_prefix(VARIATION_PREFIX)
        .and_then(|rest| rest.split_once(':'))
        .ok_or_else(form)?;
    let ply = ply.trim().parse().map_err(|_| {
        problem(
            line,
            format!(
                "variation after {:?}: the ply is not a whole number",
                ply.trim()
            ),
        )
    })?;
    let moves: Vec<&str> = moves.split_whitespace().collect();
    if moves.is_empty() {
        return Err(problem(
            line,
            format!("variation after ply {ply} has no moves"),
        ));
    }
    Ok(VariationText { line, ply, moves })
}

/// Replays a variation from the game's `positions` (the start first) and
/// the game's `moves`: each move read and checked in the position it is
/// played in, the error naming the variation, the move and its ply.
fn replay_variation(
    positions: &[GeneralPosition],
    moves: &[sumito_engine::general::GeneralMove],
    text: &VariationText<'_>,
) -> Result<Variation<sumito_engine::general::GeneralMove>, RecordError> {
    let ply = text.ply;
    let mut position = *positions.get(ply).ok_or_else(|| {
        problem(
            text.line,
            format!(
                "variation after ply {ply}: the game has only {} moves",
                moves.len()
            ),
        )
    })?;
    let mut variation = Variation {
        ply,
        moves: Vec::with_capacity(text.moves.len()),
    };
    for (index, mv_text) in text.moves.iter().enumerate() {
        let at = |why: String| {
            problem(
                text.line,
                format!(
                    "variation after ply {ply}: its move {} ({mv_text:?}, ply {}) {why}",
                    index + 1,
                    ply + index + 1
                ),
            )
        };
        if position.is_game_over() {
            return Err(at("comes after the end of the game".into()));
        }
        let mv = position
            .parse_move(mv_text)
            .map_err(|err| at(format!("is not legal there: {err}")))?;
        if index == 0 && moves.get(ply) == Some(&mv) {
            return Err(at(format!(
                "is the game's own move {}: a variation starts with another move",
                ply + 1
            )));
        }
        variation.moves.push(mv);
        position = position.play(mv);
    }
    Ok(variation)
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
        Some((_, GAME_RECORD_MAGIC | VARIANT_RECORD_MAGIC_V1)) => {}
        _ => {
            return Err(problem(
                1,
                format!("the first line must be {GAME_RECORD_MAGIC:?}"),
            ));
        }
    }
    let mut start = None;
    let mut rules = RulesTable::default();
    let mut seats = Vec::new();
    let mut opening_plies = 0;
    let (mut start_line, mut opening_line) = (1, 1);
    let mut in_moves = false;
    let mut move_lines = Vec::new();
    let mut variation_lines: Vec<VariationText<'_>> = Vec::new();
    let mut result_line = None;
    let mut forfeit_line = None;
    // The header keys read so far (`start` for both layout: and start:),
    // and whether `moves:` was: each may be given once, as in the
    // two-player record (a second one was silently taken instead).
    let mut given: Vec<&str> = Vec::new();
    let mut last_line = 1;
    for (number, line) in lines {
        last_line = number;
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
            } else if line.starts_with("variation") {
                variation_lines.push(variation_text(number, line)?);
            } else if !variation_lines.is_empty() {
                return Err(problem(
                    number,
                    format!(
                        "move {line:?} after the variations: the game's moves come first, then its variations"
                    ),
                ));
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
            "forfeit" => forfeit_line = Some((number, value.to_string())),
            other => return Err(problem(number, format!("unknown key {other:?}"))),
        }
        given.push(slot);
    }
    // Every record is written whole, its moves and its result included: one
    // that ends before them was cut short (a copy or a download stopped), and
    // would read as a shorter game.
    if !given.contains(&"moves") {
        return Err(problem(
            last_line,
            "the record ends without a `moves:` line: it is cut short",
        ));
    }
    if result_line.is_none() {
        return Err(problem(
            last_line,
            "the record ends without a `result:` line after its moves: it is cut short \
             (an unfinished game ends with `result: *`)",
        ));
    }
    let start = match start.ok_or_else(|| problem(1, "no `layout:` or `start:` line"))? {
        StartText::Layout(layout) => Start::Layout(layout),
        StartText::Text(text) => Start::Position(rules.position_from_text(&text).map_err(
            |err| match err.column {
                Some(at) => problem(
                    start_line,
                    format!("{err} (at character {at} of the start)"),
                ),
                None => problem(start_line, err),
            },
        )?),
    };
    let mut record = GameRecord {
        start,
        rules,
        players: seats,
        opening_plies,
        moves: Vec::new(),
        variations: Vec::new(),
        result: None,
        forfeit: None,
    };
    let mut position = record
        .start_position()
        .map_err(|err| problem(start_line, err))?;
    // Every position of the game where a variation may start from it.
    let mut positions = Vec::new();
    for (number, text) in move_lines {
        let mv = position
            .parse_move(text)
            .map_err(|err| problem(number, err))?;
        record.moves.push(mv);
        if !variation_lines.is_empty() {
            positions.push(position);
        }
        position = position.play(mv);
    }
    positions.push(position);
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
    for text in &variation_lines {
        let variation = replay_variation(&positions, &record.moves, text)?;
        Variation::add_to(&mut record.variations, variation);
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
    record.result = position.ending();
    if let Some((number, text)) = forfeit_line {
        let seats = position.rules().seating.seats();
        let forfeit = Forfeit::parse(&text, seats).map_err(|err| problem(number, err))?;
        if let Some(result) = position.describe_outcome() {
            return Err(problem(
                number,
                format!("the game was not forfeited: its moves end it ({result})"),
            ));
        }
        let to_move = position.seat_to_move();
        if forfeit.seat() != to_move {
            return Err(problem(
                number,
                format!(
                    "{} is not the seat to move after the moves ({} is): only the seat to move can resign or run out of time",
                    SEAT_NAMES[forfeit.seat()],
                    SEAT_NAMES[to_move]
                ),
            ));
        }
        record.forfeit = Some(forfeit);
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::general::seat_player;

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
            variations: Vec::new(),
            result: None,
            forfeit: None,
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
        record.result = position.ending();
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
            "{GAME_RECORD_MAGIC}\nlayout: three-player\nrules: {{}}\nopening_plies: 1\nmoves:\nA2B2\nresult: *\n"
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
    fn a_start_that_cannot_be_read_names_its_line_its_field_and_its_character() {
        let text =
            format!("{GAME_RECORD_MAGIC}\nstart: 5/6/7/8/9/8/7/6/b4 b 0,x,0\nmoves:\nresult: *\n");
        let err = parse_general(&text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: score of seat w \"x\" is not a whole number from 0 to 255 (at character 22 of the start)"
        );
    }

    #[test]
    fn a_record_cut_short_is_refused_naming_what_is_missing() {
        let text =
            format!("{GAME_RECORD_MAGIC}\nlayout: standard\nmoves:\nA1B2\nI5H5\nresult: *\n");
        assert_eq!(parse_general(&text).unwrap().moves.len(), 2);
        // Cut after its header, and in the middle of its moves.
        let header = format!("{GAME_RECORD_MAGIC}\nlayout: standard\n");
        let err = parse_general(&header).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.problem.contains("without a `moves:` line"), "{err}");
        let middle = &text[..text.find("I5H5").unwrap()];
        let err = parse_general(middle).unwrap_err();
        assert_eq!(err.line, 4);
        assert!(err.problem.contains("without a `result:` line"), "{err}");
    }

    #[test]
    fn a_huge_line_is_quoted_back_as_an_excerpt() {
        let huge = "x".repeat(1 << 20);
        let text = format!("{GAME_RECORD_MAGIC}\nlayout: standard\nmoves:\nresult: *\n");
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

    /// A game of three moves with variations: two from ply 1, one within
    /// the first of them, one from the start and one after the last move.
    const WITH_VARIATIONS: &str = "# sumito game record v2
layout: standard
rules: { marbles_to_win = 6 }
seats: you | alphabeta:depth=2
opening_plies: 0
moves:
A1B2
I5H5
B1C2
variation after 1: G7F7 C3D3
variation after 1: G7F7 C4D4
variation after 1: G6F6
variation after 0: C3D3 I5H5
variation after 3: G7F7
result: *
";

    #[test]
    fn variations_round_trip_in_both_games() {
        let general = parse_general(WITH_VARIATIONS).unwrap();
        assert_eq!(general.moves.len(), 3);
        let lines: Vec<(usize, String)> = general
            .variations
            .iter()
            .map(|variation| {
                let moves: Vec<String> = variation.moves.iter().map(|mv| mv.to_text()).collect();
                (variation.ply, moves.join(" "))
            })
            .collect();
        assert_eq!(
            lines,
            [
                (1, "G7F7 C3D3".to_string()),
                (1, "G7F7 C4D4".to_string()),
                (1, "G6F6".to_string()),
                (0, "C3D3 I5H5".to_string()),
                (3, "G7F7".to_string()),
            ]
        );
        assert_eq!(general.to_text(), WITH_VARIATIONS);
        // The two-player game reads and writes the same lines.
        let two = GameRecord::<sumito_engine::Position>::parse(WITH_VARIATIONS).unwrap();
        assert_eq!(two.variations.len(), 5);
        assert_eq!(two.to_text(), WITH_VARIATIONS);
        assert_eq!(two.to_general(), general);
        // A line that goes only as far as one before it adds nothing; one
        // that goes on from one takes its place.
        let merged = WITH_VARIATIONS.replace(
            "variation after 1: G6F6\n",
            "variation after 1: G6F6\nvariation after 1: G7F7\nvariation after 0: C3D3 I5H5 A1B2\n",
        );
        let record = parse_general(&merged).unwrap();
        assert_eq!(record.variations.len(), 5);
        assert_eq!(record.variations[3].moves.len(), 3);
        // A record without variations reads and writes as before.
        let plain: String = WITH_VARIATIONS
            .lines()
            .filter(|line| !line.starts_with("variation"))
            .map(|line| format!("{line}\n"))
            .collect();
        let record = parse_general(&plain).unwrap();
        assert!(record.variations.is_empty());
        assert_eq!(record.to_text(), plain);
    }

    #[test]
    fn a_bad_variation_names_its_line_its_ply_and_its_move() {
        let line = WITH_VARIATIONS
            .lines()
            .position(|line| line == "variation after 1: G6F6")
            .unwrap()
            + 1;
        for (bad, message) in [
            (
                "variation after 1: G7F7 I9H9",
                "variation after ply 1: its move 2 (\"I9H9\", ply 3) is not legal there",
            ),
            (
                "variation after 9: G7F7",
                "variation after ply 9: the game has only 3 moves",
            ),
            (
                "variation after 1: I5H5 C3D3",
                "variation after ply 1: its move 1 (\"I5H5\", ply 2) is the game's own move 2: \
                 a variation starts with another move",
            ),
            (
                "variation 1: G7F7",
                "expected `variation after PLY: MOVES`, found \"variation 1: G7F7\"",
            ),
            ("variation after 1:", "variation after ply 1 has no moves"),
            (
                "variation after one: G7F7",
                "variation after \"one\": the ply is not a whole number",
            ),
            (
                "variation after 1: G6F6\nC3D3",
                "move \"C3D3\" after the variations: the game's moves come first, then its variations",
            ),
        ] {
            let text = WITH_VARIATIONS.replace("variation after 1: G6F6", bad);
            let err = parse_general(&text).unwrap_err();
            let at = if bad.contains('\n') { line + 1 } else { line };
            assert_eq!(err.line, at, "{bad}: {err}");
            assert!(err.problem.starts_with(message), "{bad}: {err}");
            // The two-player game's reader says the same.
            let err = GameRecord::<sumito_engine::Position>::parse(&text).unwrap_err();
            assert_eq!(err.line, at, "{bad}: {err}");
        }
        // No variation goes on from a finished position.
        let finished = format!(
            "{GAME_RECORD_MAGIC}\nstart: 5/6/7/8/6bbw/8/7/6/5 b 0 5\nmoves:\nE7E8\n\
             variation after 1: A1A2\nresult: black wins (enough marbles pushed off)\n"
        );
        let err = parse_general(&finished).unwrap_err();
        assert_eq!(err.line, 5, "{err}");
        assert!(
            err.problem
                .contains("its move 1 (\"A1A2\", ply 2) comes after the end of the game"),
            "{err}"
        );
    }

    #[test]
    fn a_forfeit_is_kept_and_checked_against_the_board() {
        use crate::record::{Forfeit, ForfeitBy};
        use sumito_engine::Position;
        // White, to move after Black's first move, resigns.
        let resigned = format!(
            "{GAME_RECORD_MAGIC}\nlayout: standard\nforfeit: white resigned\nmoves:\nA1B2\nresult: *\n"
        );
        let record = GameRecord::<Position>::parse(&resigned).unwrap();
        assert_eq!(
            record.forfeit,
            Some(Forfeit::new(1, ForfeitBy::Resignation))
        );
        assert_eq!(record.result, None);
        assert!(record.to_text().contains("\nforfeit: white resigned\n"));
        assert_eq!(
            GameRecord::<Position>::parse(&record.to_text()).unwrap(),
            record
        );
        // On time, in a three-player game: red is to move after two moves.
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let mut record: GameRecord<GeneralPosition> =
            GameRecord::unplayed(Start::Layout(layout), RulesTable::default());
        let mut position = record.start_position().unwrap();
        for _ in 0..2 {
            let mv = position.legal_moves()[0];
            record.moves.push(mv);
            position = position.play(mv);
        }
        record.forfeit = Some(Forfeit::new(2, ForfeitBy::Time));
        let text = record.to_text();
        assert!(text.contains("\nforfeit: red ran out of time\n"), "{text}");
        assert_eq!(parse_general(&text).unwrap(), record);

        for (bad, message) in [
            ("white gave up", "\"white gave up\" is not a forfeit"),
            (
                "red resigned",
                "\"red\" is not a seat of this game (its seats: black, white)",
            ),
            (
                "black resigned",
                "black is not the seat to move after the moves (white is)",
            ),
        ] {
            let text = resigned.replace("white resigned", bad);
            let err = GameRecord::<Position>::parse(&text).unwrap_err();
            assert_eq!(err.line, 3, "{bad}: {err}");
            assert!(err.problem.contains(message), "{bad}: {err}");
        }
        let twice = resigned.replace(
            "forfeit: white resigned",
            "forfeit: white resigned\nforfeit: white resigned",
        );
        let err = parse_general(&twice).unwrap_err();
        assert!(err.problem.contains("\"forfeit\" is given twice"), "{err}");
        // A game the board ended was not forfeited.
        let finished = format!(
            "{GAME_RECORD_MAGIC}\nstart: 5/6/7/8/6bbw/8/7/6/5 b 0 5\nforfeit: white resigned\nmoves:\nE7E8\n\
             result: black wins (enough marbles pushed off)\n"
        );
        let err = parse_general(&finished).unwrap_err();
        assert_eq!(err.line, 3, "{err}");
        assert!(
            err.problem
                .contains("the game was not forfeited: its moves end it (black wins"),
            "{err}"
        );
    }
}
