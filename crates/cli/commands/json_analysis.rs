//! `sumito json-analysis`: analysis for programs, in the manner of
//! KataGo's JSON analysis engine. One JSON query per line on standard
//! input; for every position a query asks about, one JSON answer per line
//! on standard output, as soon as it is ready (answers of different
//! queries may interleave: each carries its query's `id`). Several queries
//! are searched at once (`--threads`), their leaves evaluated together by
//! one loaded network. The protocol (docs/playing.md, "Analysis for
//! programs"):
//!
//! A query: `id` (any string or number, copied into the answers),
//! `position` (a position text: FEN-like for a two-player model, the
//! general game's text for a model of the general game; default: the start
//! of the model's first layout), `layout` (a layout's name instead of
//! `position`), `moves` (moves played from there, each as a person writes
//! it), `turns` (which positions to analyse, 0 for the one before the first
//! move; default: the last), `visits` (simulations per position; default
//! `--simulations`), `time_ms` (search each position that long instead),
//! `top` (candidate moves reported; default 10). Any other field is refused.
//!
//! An answer: `id`, `turn`, `position`, `side` (to move), `root` (`win`,
//! `draw`, `loss` and `value` for the side to move, `visits`,
//! `simulations`), `values_by_side` (each side's value, -1 to 1), `moves`
//! (the candidates: first the move the search plays, the first of `pv`,
//! then the most visited: `move`, `visits`, `prior`, `q`, and
//! `score`, the mover's expected score with it), `pv` (the expected line),
//! `elapsed_ms`. A query that cannot be answered gets one line
//! `{"id": ..., "error": "..."}` naming the field and the problem; the
//! next query is read all the same.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args as ClapArgs;
use serde_json::{Value, json};
use sumito_arena::player::Player;
use sumito_arena::players::network::{Analysis, NetworkSearch, SearchBudget};
use sumito_game::Board;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The model bundle: a folder, or a name under models/ (default: the
    /// shipped model, models/quick).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Simulations per position of a query that names no `visits`
    /// (`--sims` is the same).
    #[arg(long, alias = "sims", default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub simulations: u32,
    /// Torch device: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Queries searched at once, their leaves evaluated together by the one
    /// network.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

/// The most simulations and time a query may ask for a position.
const MAX_VISITS: u64 = 10_000_000;
const MAX_TIME_MS: u64 = 600_000;
/// Candidate moves reported unless a query says.
const DEFAULT_TOP: usize = 10;

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

/// One query, checked: its positions and how to search them.
struct Job<B: Board> {
    id: Value,
    /// Every position of the game, the start first.
    positions: Vec<B>,
    turns: Vec<usize>,
    budget: SearchBudget,
    top: usize,
}

/// A query's field of `kind`, if present: `Ok(None)` when absent, an error
/// naming the field when it is of another kind.
fn field<'a, T>(
    query: &'a serde_json::Map<String, Value>,
    name: &str,
    kind: &str,
    read: impl Fn(&'a Value) -> Option<T>,
) -> Result<Option<T>, String> {
    match query.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => read(value)
            .map(Some)
            .ok_or_else(|| format!("{name}: must be {kind}, got {value}")),
    }
}

/// Reads one query line (`default_visits` for a query without `visits`).
fn read_query<B: Board>(
    line: &str,
    game: &QueryGame<'_, B>,
    default_visits: u32,
) -> Result<Job<B>, (Value, String)> {
    let value: Value =
        serde_json::from_str(line).map_err(|err| (Value::Null, format!("not JSON: {err}")))?;
    let Value::Object(query) = value else {
        return Err((Value::Null, "a query is a JSON object".into()));
    };
    let id = query.get("id").cloned().unwrap_or(Value::Null);
    let fail = |problem: String| (id.clone(), problem);
    const FIELDS: [&str; 8] = [
        "id", "position", "layout", "moves", "turns", "visits", "time_ms", "top",
    ];
    if let Some(unknown) = query.keys().find(|key| !FIELDS.contains(&key.as_str())) {
        return Err(fail(format!(
            "{unknown}: no such field (fields: {})",
            FIELDS.join(", ")
        )));
    }
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return Err(fail("id: must be a string or a number".into()));
    }
    let text = field(&query, "position", "a position text", Value::as_str).map_err(&fail)?;
    let layout = field(&query, "layout", "a layout's name", Value::as_str).map_err(&fail)?;
    let start = match (text, layout) {
        (Some(_), Some(_)) => return Err(fail("position, layout: give one of them".into())),
        (Some(text), None) => {
            (game.read_position)(text).map_err(|err| fail(format!("position: {err}")))?
        }
        (None, Some(name)) => {
            (game.read_layout)(name).map_err(|err| fail(format!("layout: {err}")))?
        }
        (None, None) => game.start,
    };
    let moves = field(&query, "moves", "a list of moves", Value::as_array)
        .map_err(&fail)?
        .map_or_else(Vec::new, Clone::clone);
    let mut positions = vec![start];
    for (index, mv) in moves.iter().enumerate() {
        let last = positions[positions.len() - 1];
        let Some(text) = mv.as_str() else {
            return Err(fail(format!(
                "moves[{index}]: must be a move as text, got {mv}"
            )));
        };
        if last.is_over() {
            return Err(fail(format!(
                "moves[{index}]: {text}: the game is over before it"
            )));
        }
        let mv = last
            .parse_move(text)
            .map_err(|err| fail(format!("moves[{index}]: {text}: {err}")))?;
        positions.push(last.play(mv));
    }
    let last = positions.len() - 1;
    let turns = match field(&query, "turns", "a list of turn numbers", Value::as_array)
        .map_err(&fail)?
    {
        None => vec![last],
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(index, turn)| {
                turn.as_u64()
                    .map(|turn| turn as usize)
                    .filter(|&turn| turn <= last)
                    .ok_or_else(|| {
                        fail(format!(
                            "turns[{index}]: must be a turn from 0 to {last} (the moves given), got {turn}"
                        ))
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    let visits =
        field(&query, "visits", "a number of simulations", Value::as_u64).map_err(&fail)?;
    let time_ms = field(&query, "time_ms", "milliseconds", Value::as_u64).map_err(&fail)?;
    let budget = match (visits, time_ms) {
        (Some(_), Some(_)) => return Err(fail("visits, time_ms: give one of them".into())),
        (Some(visits), None) if (1..=MAX_VISITS).contains(&visits) => {
            SearchBudget::Simulations(visits as u32)
        }
        (Some(visits), None) => {
            return Err(fail(format!(
                "visits: must be 1 to {MAX_VISITS}, got {visits}"
            )));
        }
        (None, Some(ms)) if (1..=MAX_TIME_MS).contains(&ms) => {
            SearchBudget::Time(Duration::from_millis(ms))
        }
        (None, Some(ms)) => {
            return Err(fail(format!(
                "time_ms: must be 1 to {MAX_TIME_MS}, got {ms}"
            )));
        }
        (None, None) => SearchBudget::Simulations(default_visits),
    };
    let top = field(&query, "top", "a number of moves", Value::as_u64)
        .map_err(&fail)?
        .map_or(DEFAULT_TOP, |top| top as usize);
    Ok(Job {
        id,
        positions,
        turns,
        budget,
        top,
    })
}

/// One position's answer.
fn answer<B: Board>(
    id: &Value,
    turn: usize,
    position: &B,
    analysis: &Analysis<B::Move>,
    top: usize,
) -> Value {
    let moves: Vec<Value> = analysis
        .moves
        .iter()
        .take(top)
        .map(|stats| {
            json!({
                "move": B::move_text(stats.mv),
                "visits": stats.visits,
                "prior": stats.prior,
                "q": stats.q,
                "score": stats.q.map(|q| (1.0 + q) / 2.0),
            })
        })
        .collect();
    json!({
        "id": id,
        "turn": turn,
        "position": position.to_string(),
        "side": position.side_name(position.mover_side()),
        "root": {
            "win": analysis.wdl.win,
            "draw": analysis.wdl.draw,
            "loss": analysis.wdl.loss,
            "value": analysis.wdl.value(),
            "visits": analysis.visits,
            "simulations": analysis.simulations,
        },
        "values_by_side": analysis.side_values,
        "moves": moves,
        "pv": analysis.principal_variation.iter().map(|&mv| B::move_text(mv)).collect::<Vec<_>>(),
        "elapsed_ms": analysis.elapsed.as_millis() as u64,
    })
}

/// Every answer to one job, each handed to `send` as soon as it is ready.
fn run_job<B: Board>(search: &mut NetworkSearch<B>, job: &Job<B>, send: &dyn Fn(Value)) {
    search.set_budget(job.budget);
    for &turn in &job.turns {
        let position = &job.positions[turn];
        if position.is_over() {
            send(json!({
                "id": job.id,
                "turn": turn,
                "error": format!("turns: the game is over at turn {turn}: {}", position.result_text().unwrap_or_default()),
            }));
            continue;
        }
        // Queries are unrelated: each position is searched afresh.
        search.new_game();
        match search.analyse(position, None) {
            Ok(analysis) => send(answer(&job.id, turn, position, &analysis, job.top)),
            Err(err) => send(json!({"id": job.id, "turn": turn, "error": err.to_string()})),
        }
    }
}

/// Answers the queries of `input` on `output`, `threads`
/// searches (made by `make_search`) working at once. Ends when the input
/// ends and every query is answered.
pub fn answer_queries<B: Board>(
    input: impl BufRead + Send,
    mut output: impl Write,
    game: &QueryGame<'_, B>,
    default_visits: u32,
    threads: usize,
    make_search: &(dyn Fn() -> anyhow::Result<NetworkSearch<B>> + Sync),
) -> anyhow::Result<()> {
    let (jobs_in, jobs_out) = mpsc::channel::<Job<B>>();
    let jobs_out = Arc::new(Mutex::new(jobs_out));
    let (answers_in, answers_out) = mpsc::channel::<Value>();
    let mut searches = (0..threads.max(1))
        .map(|_| make_search())
        .collect::<anyhow::Result<Vec<_>>>()?;
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for search in &mut searches {
            let jobs = Arc::clone(&jobs_out);
            let answers = answers_in.clone();
            scope.spawn(move || {
                loop {
                    // (The lock is held only to take the next job.)
                    let job = jobs.lock().map(|jobs| jobs.recv());
                    let Ok(Ok(job)) = job else { break };
                    run_job(search, &job, &|value| {
                        let _ = answers.send(value);
                    });
                }
            });
        }
        let reader_answers = answers_in.clone();
        scope.spawn(move || {
            for line in input.lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                match read_query(&line, game, default_visits) {
                    Ok(job) => {
                        if jobs_in.send(job).is_err() {
                            break;
                        }
                    }
                    Err((id, error)) => {
                        let _ = reader_answers.send(json!({"id": id, "error": error}));
                    }
                }
            }
            // Dropping `jobs_in` here ends the workers once the jobs run out.
        });
        drop(answers_in);
        for value in answers_out {
            writeln!(output, "{value}")?;
            output.flush()?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Position, Rules};
    use sumito_mcts::UniformEvaluator;

    fn answers_to(input: &str) -> Vec<Value> {
        let read_position = |text: &str| Position::from_fen(text).map_err(|err| err.to_string());
        let read_layout = |name: &str| {
            Layout::from_name(name)
                .map(|layout| Position::start(layout, Rules::default()))
                .map_err(|err| err.to_string())
        };
        let game = QueryGame {
            start: Position::start(Layout::Standard, Rules::default()),
            read_position: &read_position,
            read_layout: &read_layout,
        };
        let make = || -> anyhow::Result<NetworkSearch> {
            Ok(NetworkSearch::new(
                "uniform",
                Box::new(UniformEvaluator),
                SearchBudget::Simulations(1),
                1,
            ))
        };
        let mut out = Vec::new();
        answer_queries(input.as_bytes(), &mut out, &game, 16, 3, &make).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    #[test]
    fn every_query_is_answered_by_id_and_every_mistake_named() {
        let answers = answers_to(concat!(
            r#"{"id": "a", "moves": ["A1B2", "I5H5"], "turns": [0, 2], "visits": 32, "top": 3}"#,
            "\n",
            r#"{"id": 7, "layout": "belgian-daisy"}"#,
            "\n\n",
            r#"{"id": "bad-move", "moves": ["A1A9"]}"#,
            "\n",
            r#"{"id": "unknown", "rules": {}}"#,
            "\n",
            r#"{"id": "both", "visits": 3, "time_ms": 5}"#,
            "\n",
            r#"{"id": "turn", "turns": [3]}"#,
            "\n",
            "not json\n",
        ));
        let by_id = |id: Value| -> Vec<&Value> {
            answers.iter().filter(|answer| answer["id"] == id).collect()
        };
        // Two turns of the first query, each its own answer.
        let a = by_id(json!("a"));
        assert_eq!(a.len(), 2, "{answers:?}");
        let mut turns: Vec<u64> = a
            .iter()
            .map(|answer| answer["turn"].as_u64().unwrap())
            .collect();
        turns.sort_unstable();
        assert_eq!(turns, [0, 2]);
        for answer in &a {
            assert_eq!(answer["root"]["simulations"], 32, "{answer}");
            assert_eq!(answer["moves"].as_array().unwrap().len(), 3);
            assert_eq!(answer["side"], "black");
            assert!(answer["pv"].as_array().is_some_and(|pv| !pv.is_empty()));
        }
        // The default budget, a layout's start.
        let seven = by_id(json!(7));
        assert_eq!(seven[0]["root"]["simulations"], 16);
        assert_eq!(seven[0]["turn"], 0);
        // Mistakes name the field.
        let error = |id: &str| by_id(json!(id))[0]["error"].as_str().unwrap().to_owned();
        assert!(
            error("bad-move").starts_with("moves[0]: A1A9"),
            "{}",
            error("bad-move")
        );
        assert!(
            error("unknown").starts_with("rules: no such field"),
            "{}",
            error("unknown")
        );
        assert!(
            error("both").starts_with("visits, time_ms"),
            "{}",
            error("both")
        );
        assert!(
            error("turn").starts_with("turns[0]: must be a turn from 0 to 0"),
            "{}",
            error("turn")
        );
        assert!(
            by_id(Value::Null)[0]["error"]
                .as_str()
                .unwrap()
                .starts_with("not JSON"),
            "{answers:?}"
        );
        assert_eq!(answers.len(), 2 + 1 + 5);
    }
}
