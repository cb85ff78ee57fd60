//! One line of the protocol read and checked: a query (the positions to
//! analyse and how) or an action (`query_version`, `clear_cache`,
//! `terminate`, `terminate_all`, `query_models`). Every mistake is a
//! [`Problem`] naming its field; a field the program does not know is a
//! warning, not a mistake (a newer client keeps working with an older
//! program). docs/analysis-protocol.md is the reference.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Map, Value, json};
use sumito_arena::players::network::SearchBudget;
use sumito_game::Board;
use sumito_mcts::{ActionFilter, ActionRule, Game, Side};

use super::unique_keys;

/// The most simulations and time a query may ask for a position.
pub const MAX_VISITS: u64 = 10_000_000;
pub const MAX_TIME_MS: u64 = 600_000;
/// Candidate moves reported unless a query says.
pub const DEFAULT_TOP: usize = 10;
/// The deepest ply an avoided or allowed move may be named for.
pub const MAX_UNTIL_DEPTH: u64 = 1000;

/// The fields of a query, and of an action.
pub const QUERY_FIELDS: [&str; 14] = [
    "id",
    "position",
    "layout",
    "moves",
    "turns",
    "visits",
    "time_ms",
    "top",
    "report_every_ms",
    "report_every_visits",
    "include_policy",
    "priority",
    "avoid_moves",
    "allow_moves",
];
pub const ACTION_FIELDS: [&str; 4] = ["id", "action", "terminate_id", "turns"];
/// The actions, by name.
pub const ACTIONS: [&str; 5] = [
    "query_version",
    "clear_cache",
    "terminate",
    "terminate_all",
    "query_models",
];

/// How the queries' positions of the model's game are read, and where a
/// query without one starts.
pub struct QueryGame<'a, B> {
    /// The start of the model's first layout.
    pub start: B,
    /// A position text read under the model's rules.
    pub read_position: &'a (dyn Fn(&str) -> Result<B, String> + Sync),
    /// A layout's start under the model's rules.
    pub read_layout: &'a (dyn Fn(&str) -> Result<B, String> + Sync),
}

impl<B: std::fmt::Debug> std::fmt::Debug for QueryGame<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryGame")
            .field("start", &self.start)
            .finish_non_exhaustive()
    }
}

/// What is wrong with a line: the field at fault, if one is, and the
/// message (which starts with the field).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    fn of(field: &str, problem: impl std::fmt::Display) -> Problem {
        Problem {
            field: Some(field.to_owned()),
            message: format!("{field}: {problem}"),
        }
    }

    /// A problem of no one field.
    pub fn whole(message: impl Into<String>) -> Problem {
        Problem {
            field: None,
            message: message.into(),
        }
    }
}

/// When a search reports what it has so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    Every(Duration),
    EveryVisits(u32),
}

/// A checked query.
#[derive(Debug)]
pub struct Query<B: Board> {
    pub id: Value,
    /// Every position of the game, the start first.
    pub positions: Vec<B>,
    pub turns: Vec<usize>,
    pub budget: SearchBudget,
    pub top: usize,
    pub report: Option<Report>,
    pub include_policy: bool,
    /// Higher first among the queued positions.
    pub priority: i64,
    /// The moves its searches leave out (every turn's, from its root).
    pub filter: Option<ActionFilter>,
    /// `{"field", "warning"}` for each field it ignored.
    pub warnings: Vec<Value>,
}

/// Which positions an action is about.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    QueryVersion,
    ClearCache,
    QueryModels,
    /// Stop the queries with this `id` (the given turns only, if any).
    Terminate {
        target: Value,
        turns: Option<Vec<usize>>,
    },
    /// Stop every query (the given turns only, if any).
    TerminateAll {
        turns: Option<Vec<usize>>,
    },
}

/// One line: a query or an action.
#[derive(Debug)]
pub enum Request<B: Board> {
    Query(Query<B>),
    Action {
        id: Value,
        action: Action,
        warnings: Vec<Value>,
    },
}

/// A field of `query` of `kind`, if present: `Ok(None)` when absent or
/// null, a problem naming the field when it is of another kind.
fn field<'a, T>(
    query: &'a Map<String, Value>,
    name: &str,
    kind: &str,
    read: impl Fn(&'a Value) -> Option<T>,
) -> Result<Option<T>, Problem> {
    match query.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => read(value)
            .map(Some)
            .ok_or_else(|| Problem::of(name, format!("must be {kind}, got {value}"))),
    }
}

/// A warning for each key of `object` not in `known`.
fn warnings_of(object: &Map<String, Value>, known: &[&str]) -> Vec<Value> {
    object
        .keys()
        .filter(|key| !known.contains(&key.as_str()))
        .map(|key| {
            json!({
                "field": key,
                "warning": format!("no such field: ignored (fields: {})", known.join(", ")),
            })
        })
        .collect()
}

/// Reads one line: its id (null when it has none or is no object) and
/// the request, or what is wrong with it.
pub fn read_request<B: Board>(
    line: &str,
    game: &QueryGame<'_, B>,
    default_visits: u32,
) -> Result<Request<B>, (Value, Problem)> {
    let value = unique_keys::parse(line).map_err(|problem| {
        let field = problem.duplicate;
        let message = match &field {
            Some(path) => format!("{path}: {}", problem.message),
            None => format!("not JSON: {}", problem.message),
        };
        // A query refused for a repeated key is still answered by its id
        // (unless the id is the key repeated).
        let id = match field.as_deref() {
            Some("id") | None => Value::Null,
            Some(_) => serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|value| value.get("id").cloned())
                .filter(|id| matches!(id, Value::String(_) | Value::Number(_)))
                .unwrap_or(Value::Null),
        };
        (id, Problem { field, message })
    })?;
    let Value::Object(object) = value else {
        return Err((Value::Null, Problem::whole("a query is a JSON object")));
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return Err((
            Value::Null,
            Problem::of("id", "must be a string or a number"),
        ));
    }
    let request = match object.get("action") {
        None | Some(Value::Null) => read_query(&object, id.clone(), game, default_visits),
        Some(_) => read_action(&object, id.clone()),
    };
    request.map_err(|problem| (id, problem))
}

fn read_action<B: Board>(object: &Map<String, Value>, id: Value) -> Result<Request<B>, Problem> {
    let name = field(object, "action", "an action's name", Value::as_str)?.unwrap_or_default();
    let turns = read_turn_list(object, None)?;
    let target = object.get("terminate_id").cloned();
    let action = match name {
        "query_version" => Action::QueryVersion,
        "clear_cache" => Action::ClearCache,
        "query_models" => Action::QueryModels,
        "terminate" => match target {
            Some(target @ (Value::String(_) | Value::Number(_))) => {
                Action::Terminate { target, turns }
            }
            Some(other) => {
                return Err(Problem::of(
                    "terminate_id",
                    format!("must be a query's id (a string or a number), got {other}"),
                ));
            }
            None => {
                return Err(Problem::of(
                    "terminate_id",
                    "missing: the id of the query to stop",
                ));
            }
        },
        "terminate_all" => Action::TerminateAll { turns },
        other => {
            return Err(Problem::of(
                "action",
                format!("{other}: no such action (actions: {})", ACTIONS.join(", ")),
            ));
        }
    };
    let mut known: Vec<&str> = vec!["id", "action"];
    if matches!(
        action,
        Action::Terminate { .. } | Action::TerminateAll { .. }
    ) {
        known.push("turns");
    }
    if matches!(action, Action::Terminate { .. }) {
        known.push("terminate_id");
    }
    Ok(Request::Action {
        id,
        action,
        warnings: warnings_of(object, &known),
    })
}

/// `turns`: a list of turn numbers, each at most `last` if given.
fn read_turn_list(
    object: &Map<String, Value>,
    last: Option<usize>,
) -> Result<Option<Vec<usize>>, Problem> {
    let Some(list) = field(object, "turns", "a list of turn numbers", Value::as_array)? else {
        return Ok(None);
    };
    list.iter()
        .enumerate()
        .map(|(index, turn)| {
            let number = turn.as_u64().map(|turn| turn as usize);
            match (number, last) {
                (Some(turn), Some(last)) if turn <= last => Ok(turn),
                (Some(turn), None) => Ok(turn),
                (_, Some(last)) => Err(Problem::of(
                    &format!("turns[{index}]"),
                    format!("must be a turn from 0 to {last} (the moves given), got {turn}"),
                )),
                (None, None) => Err(Problem::of(
                    &format!("turns[{index}]"),
                    format!("must be a turn number, got {turn}"),
                )),
            }
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

fn read_query<B: Board>(
    object: &Map<String, Value>,
    id: Value,
    game: &QueryGame<'_, B>,
    default_visits: u32,
) -> Result<Request<B>, Problem> {
    let text = field(object, "position", "a position text", Value::as_str)?;
    let layout = field(object, "layout", "a layout's name", Value::as_str)?;
    let start = match (text, layout) {
        (Some(_), Some(_)) => {
            return Err(Problem {
                field: Some("position".into()),
                message: "position, layout: give one of them".into(),
            });
        }
        (Some(text), None) => {
            (game.read_position)(text).map_err(|err| Problem::of("position", err))?
        }
        (None, Some(name)) => (game.read_layout)(name).map_err(|err| Problem::of("layout", err))?,
        (None, None) => game.start,
    };
    let moves = field(object, "moves", "a list of moves", Value::as_array)?
        .map_or_else(Vec::new, Clone::clone);
    let mut positions = vec![start];
    for (index, mv) in moves.iter().enumerate() {
        let name = format!("moves[{index}]");
        let last = positions[positions.len() - 1];
        let Some(text) = mv.as_str() else {
            return Err(Problem::of(
                &name,
                format!("must be a move as text, got {mv}"),
            ));
        };
        if last.is_over() {
            return Err(Problem::of(
                &name,
                format!("{text}: the game is over before it"),
            ));
        }
        let mv = last
            .parse_move(text)
            .map_err(|err| Problem::of(&name, format!("{text}: {err}")))?;
        positions.push(last.play(mv));
    }
    let last = positions.len() - 1;
    let turns = read_turn_list(object, Some(last))?.unwrap_or_else(|| vec![last]);
    let budget = read_budget(object, default_visits)?;
    let top = field(object, "top", "a number of moves", Value::as_u64)?
        .map_or(DEFAULT_TOP, |top| top as usize);
    let report = read_report(object)?;
    let include_policy =
        field(object, "include_policy", "true or false", Value::as_bool)?.unwrap_or(false);
    let priority = field(object, "priority", "a whole number", Value::as_i64)?.unwrap_or(0);
    let mut rules = read_move_rules(object, "avoid_moves", &start, false)?;
    rules.extend(read_move_rules(object, "allow_moves", &start, true)?);
    Ok(Request::Query(Query {
        id,
        positions,
        turns,
        budget,
        top,
        report,
        include_policy,
        priority,
        filter: (!rules.is_empty()).then_some(ActionFilter { rules }),
        warnings: warnings_of(object, &QUERY_FIELDS),
    }))
}

fn read_budget(object: &Map<String, Value>, default_visits: u32) -> Result<SearchBudget, Problem> {
    let visits = field(object, "visits", "a number of simulations", Value::as_u64)?;
    let time_ms = field(object, "time_ms", "milliseconds", Value::as_u64)?;
    match (visits, time_ms) {
        (Some(_), Some(_)) => Err(Problem {
            field: Some("visits".into()),
            message: "visits, time_ms: give one of them".into(),
        }),
        (Some(visits), None) if (1..=MAX_VISITS).contains(&visits) => {
            Ok(SearchBudget::Simulations(visits as u32))
        }
        (Some(visits), None) => Err(Problem::of(
            "visits",
            format!("must be 1 to {MAX_VISITS}, got {visits}"),
        )),
        (None, Some(ms)) if (1..=MAX_TIME_MS).contains(&ms) => {
            Ok(SearchBudget::Time(Duration::from_millis(ms)))
        }
        (None, Some(ms)) => Err(Problem::of(
            "time_ms",
            format!("must be 1 to {MAX_TIME_MS}, got {ms}"),
        )),
        (None, None) => Ok(SearchBudget::Simulations(default_visits)),
    }
}

fn read_report(object: &Map<String, Value>) -> Result<Option<Report>, Problem> {
    let every_ms = field(object, "report_every_ms", "milliseconds", Value::as_u64)?;
    let every_visits = field(
        object,
        "report_every_visits",
        "a number of simulations",
        Value::as_u64,
    )?;
    match (every_ms, every_visits) {
        (Some(_), Some(_)) => Err(Problem {
            field: Some("report_every_ms".into()),
            message: "report_every_ms, report_every_visits: give one of them".into(),
        }),
        (Some(ms), None) if (1..=MAX_TIME_MS).contains(&ms) => {
            Ok(Some(Report::Every(Duration::from_millis(ms))))
        }
        (Some(ms), None) => Err(Problem::of(
            "report_every_ms",
            format!("must be 1 to {MAX_TIME_MS}, got {ms}"),
        )),
        (None, Some(visits)) if (1..=MAX_VISITS).contains(&visits) => {
            Ok(Some(Report::EveryVisits(visits as u32)))
        }
        (None, Some(visits)) => Err(Problem::of(
            "report_every_visits",
            format!("must be 1 to {MAX_VISITS}, got {visits}"),
        )),
        (None, None) => Ok(None),
    }
}

/// The search's action of every move of the game of `position`, by its
/// text in lower case (a restriction may name moves of any position the
/// search may reach).
fn actions_by_text<B: Board>(position: &B) -> HashMap<String, usize> {
    (0..<B::Searched as Game>::NUM_ACTIONS)
        .filter_map(|action| {
            let mv = position.move_of(action)?;
            Some((B::move_text(mv).to_ascii_lowercase(), action))
        })
        .collect()
}

/// `avoid_moves` or `allow_moves` (`only`): a list of
/// `{"side", "moves", "until_depth"}`.
fn read_move_rules<B: Board>(
    object: &Map<String, Value>,
    name: &str,
    start: &B,
    only: bool,
) -> Result<Vec<ActionRule>, Problem> {
    let Some(list) = field(
        object,
        name,
        "a list of {side, moves, until_depth}",
        Value::as_array,
    )?
    else {
        return Ok(Vec::new());
    };
    let sides: Vec<String> = (0..start.sides())
        .map(|side| start.side_name(side))
        .collect();
    let mut actions: Option<HashMap<String, usize>> = None;
    let mut rules = Vec::new();
    for (index, entry) in list.iter().enumerate() {
        let at = format!("{name}[{index}]");
        let Value::Object(entry) = entry else {
            return Err(Problem::of(
                &at,
                format!("must be an object {{side, moves, until_depth}}, got {entry}"),
            ));
        };
        let known = ["side", "moves", "until_depth"];
        if let Some(unknown) = entry.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(Problem::of(
                &format!("{at}.{unknown}"),
                format!("no such field (fields: {})", known.join(", ")),
            ));
        }
        let side_name = field(entry, "side", "a side's name", Value::as_str)
            .map_err(|problem| Problem::of(&format!("{at}.side"), problem.message))?
            .ok_or_else(|| {
                Problem::of(
                    &format!("{at}.side"),
                    format!("missing (sides: {})", sides.join(", ")),
                )
            })?;
        let side = sides
            .iter()
            .position(|name| name.eq_ignore_ascii_case(side_name))
            .ok_or_else(|| {
                Problem::of(
                    &format!("{at}.side"),
                    format!("{side_name}: no such side (sides: {})", sides.join(", ")),
                )
            })?;
        let until_depth = match entry.get("until_depth") {
            None | Some(Value::Null) => 1,
            Some(depth) => depth
                .as_u64()
                .filter(|depth| (1..=MAX_UNTIL_DEPTH).contains(depth))
                .ok_or_else(|| {
                    Problem::of(
                        &format!("{at}.until_depth"),
                        format!(
                            "must be 1 to {MAX_UNTIL_DEPTH} (plies of the search), got {depth}"
                        ),
                    )
                })?,
        };
        let moves = entry
            .get("moves")
            .and_then(Value::as_array)
            .ok_or_else(|| Problem::of(&format!("{at}.moves"), "must be a list of moves"))?;
        let actions = actions.get_or_insert_with(|| actions_by_text(start));
        let mut named = Vec::new();
        for (number, mv) in moves.iter().enumerate() {
            let place = format!("{at}.moves[{number}]");
            let text = mv
                .as_str()
                .ok_or_else(|| Problem::of(&place, format!("must be a move as text, got {mv}")))?;
            let action = actions
                .get(&text.to_ascii_lowercase())
                .ok_or_else(|| Problem::of(&place, format!("{text}: no such move in this game")))?;
            named.push(*action);
        }
        rules.push(ActionRule::new(
            Side::new(side),
            until_depth as u32,
            named,
            only,
        ));
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Position, Rules};

    fn read(line: &str) -> Result<Request<Position>, (Value, Problem)> {
        let read_position = |text: &str| Position::from_fen(text).map_err(|err| err.to_string());
        let read_layout = |_: &str| Err("no layouts here".to_string());
        let game = QueryGame {
            start: Position::start(Layout::Standard, Rules::default()),
            read_position: &read_position,
            read_layout: &read_layout,
        };
        read_request(line, &game, 16)
    }

    fn problem(line: &str) -> Problem {
        read(line).unwrap_err().1
    }

    #[test]
    fn unknown_fields_are_warnings_and_mistakes_name_their_field() {
        let Ok(Request::Query(query)) = read(r#"{"id": 1, "komi": 7.5, "visits": 3}"#) else {
            panic!()
        };
        assert_eq!(query.warnings.len(), 1);
        assert_eq!(query.warnings[0]["field"], "komi");
        assert_eq!(query.budget, SearchBudget::Simulations(3));
        let (id, duplicate) = read(r#"{"id": 1, "visits": 3, "visits": 5000}"#).unwrap_err();
        assert_eq!(id, json!(1));
        assert_eq!(duplicate.field.as_deref(), Some("visits"));
        assert!(
            duplicate
                .message
                .starts_with("visits: the key `visits` is given twice")
        );
        let bad = problem(r#"{"report_every_visits": 0}"#);
        assert_eq!(bad.field.as_deref(), Some("report_every_visits"));
        let side = problem(r#"{"avoid_moves": [{"side": "green", "moves": []}]}"#);
        assert_eq!(side.field.as_deref(), Some("avoid_moves[0].side"));
        assert!(
            side.message.contains("sides: black, white"),
            "{}",
            side.message
        );
        let mv = problem(r#"{"allow_moves": [{"side": "black", "moves": ["A1A9"]}]}"#);
        assert_eq!(mv.field.as_deref(), Some("allow_moves[0].moves[0]"));
        assert_eq!(problem("[1]").field, None);
        assert_eq!(problem(r#"{"id": {}}"#).field.as_deref(), Some("id"));
        assert_eq!(
            problem(r#"{"action": "reboot"}"#).field.as_deref(),
            Some("action")
        );
        assert_eq!(
            problem(r#"{"action": "terminate"}"#).field.as_deref(),
            Some("terminate_id")
        );
    }

    #[test]
    fn restrictions_and_actions_read_as_written() {
        let Ok(Request::Query(query)) = read(
            r#"{"avoid_moves": [{"side": "White", "moves": ["i5h5", "A1B2"], "until_depth": 3}],
                "allow_moves": [{"side": "black", "moves": ["A1B2"]}], "priority": -2,
                "report_every_ms": 250, "include_policy": true}"#,
        ) else {
            panic!()
        };
        let filter = query.filter.unwrap();
        let start = Position::start(Layout::Standard, Rules::default());
        let action = |text: &str| start.action_of(start.parse_move(text).unwrap());
        assert_eq!(filter.rules.len(), 2);
        assert_eq!(filter.rules[0].side, Side::new(1));
        assert_eq!(filter.rules[0].until_depth, 3);
        assert!(!filter.rules[0].only && filter.rules[1].only);
        assert!(filter.rules[1].actions == [action("A1B2")]);
        assert_eq!(query.priority, -2);
        assert_eq!(
            query.report,
            Some(Report::Every(Duration::from_millis(250)))
        );
        assert!(query.include_policy);
        let Ok(Request::Action {
            action, warnings, ..
        }) = read(r#"{"id": "t", "action": "terminate", "terminate_id": 4, "turns": [0], "x": 1}"#)
        else {
            panic!()
        };
        assert_eq!(
            action,
            Action::Terminate {
                target: json!(4),
                turns: Some(vec![0])
            }
        );
        assert_eq!(warnings[0]["field"], "x");
    }
}
