//! `sumito json-analysis`: analysis for programs, in the manner of
//! KataGo's JSON analysis engine. One JSON line per query or action on
//! standard input; for every position a query asks about, JSON answers on
//! standard output as they are ready (partial ones while it searches, if
//! asked, then the final one), each carrying its query's `id`. The
//! protocol, field by field and beside KataGo's, is in
//! docs/analysis-protocol.md.
//!
//! How it runs: a reader thread reads the lines (each under a cap,
//! [`lines`]), answers actions at once and queues every turn of a query
//! ([`queue`]: higher `priority` first, then in order of arrival);
//! `--threads` workers each take the next position and search it, their
//! leaves evaluated together by the one network; the calling thread writes
//! the answers, one line each, as they come.

pub mod answer;
pub mod cache;
pub mod lines;
pub mod query;
pub mod queue;
pub mod time_limit;
pub mod unique_keys;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args as ClapArgs;
use serde_json::{Value, json};
use sumito_arena::player::Player;
use sumito_arena::players::network::{Analysis, NetworkSearch, SearchBudget};
use sumito_game::Board;
use sumito_mcts::{EvalError, Evaluator, Game, SearchError};
use sumito_serve::menu::MODEL_PLANNED_SHARE;

use answer::{AnswerParts, RawEvaluation, evaluate_raw};
use lines::{Lines, MAX_LINE_BYTES};
pub use query::QueryGame;
use query::{Action, Problem, Query, Report, Request, read_request};
use queue::{Selection, Work, WorkQueue};
use time_limit::TimeLimit;

/// The protocol's version, which `query_version` reports: 2 added partial
/// answers, every candidate's line, order and bound, avoided and allowed
/// moves, the raw evaluation and policy, priorities, the actions, warnings
/// and the `field` of errors.
pub const PROTOCOL_VERSION: u32 = 2;

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
    /// Positions searched at once, their leaves evaluated together by the
    /// one network.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Network evaluations kept for positions asked about again (up to
    /// twice this many; 0: none kept). `clear_cache` empties it.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(0..=10_000_000))]
    pub cache: u32,
}

/// One searcher of the query server: a search, and the evaluator of its
/// network for the root's raw evaluation.
pub struct Analyst<B: Board> {
    pub search: NetworkSearch<B>,
    pub evaluator: Box<dyn Evaluator<B::Searched>>,
}

impl<B: Board> std::fmt::Debug for Analyst<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyst")
            .field("search", &self.search)
            .finish_non_exhaustive()
    }
}

/// The analysis program's query server: what it answers with (the
/// model's game, searchers, and the answers of the actions that are about
/// the model).
pub struct QueryServer<'a, B: Board> {
    pub game: QueryGame<'a, B>,
    /// Simulations of a query that names no budget.
    pub default_visits: u32,
    /// Positions searched at once.
    pub threads: usize,
    pub make_analyst: &'a (dyn Fn() -> anyhow::Result<Analyst<B>> + Sync),
    /// `query_models`' list: the loaded model.
    pub models: Value,
    /// Empties the evaluation cache; returns how many evaluations it held.
    pub clear_cache: &'a (dyn Fn() -> usize + Sync),
}

impl<B: Board> std::fmt::Debug for QueryServer<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryServer")
            .field("game", &self.game)
            .field("default_visits", &self.default_visits)
            .field("threads", &self.threads)
            .field("models", &self.models)
            .finish_non_exhaustive()
    }
}

/// An error answer: `{"id", "error", "field"}`, and the input's line when
/// the line itself is at fault.
fn error_answer(id: &Value, problem: &Problem, line: Option<u64>) -> Value {
    let mut answer = json!({"id": id, "error": problem.message});
    if let Some(field) = &problem.field {
        answer["field"] = Value::String(field.clone());
    }
    if let Some(line) = line {
        answer["line"] = Value::from(line);
    }
    answer
}

/// The budget and time cap of the next part of a search that has run
/// `done` simulations for `elapsed`. A query without partial answers is
/// one search of its whole budget: timed, it is planned from the search's
/// measured speed, and the time limit that stops it in the middle leaves
/// it with all it searched. A query that asks for partial answers is
/// searched in parts of its reports, the tree kept from each to the next:
/// the Gumbel root divides a part's budget among its candidates up front,
/// so a part of the reports' size is what a report can read a finished
/// root from.
fn next_part(
    budget: SearchBudget,
    report: Option<Report>,
    done: u32,
    elapsed: Duration,
) -> (SearchBudget, Option<Duration>) {
    match (budget, report) {
        (budget, None) => (budget, None),
        (SearchBudget::Simulations(total), Some(Report::EveryVisits(every))) => (
            SearchBudget::Simulations(every.min(total.saturating_sub(done)).max(1)),
            None,
        ),
        (SearchBudget::Simulations(total), Some(Report::Every(every))) => (
            SearchBudget::Simulations(total.saturating_sub(done).max(1)),
            Some(every),
        ),
        (SearchBudget::Time(time), Some(Report::EveryVisits(every))) => (
            SearchBudget::Simulations(every),
            Some(time.saturating_sub(elapsed)),
        ),
        (SearchBudget::Time(time), Some(Report::Every(every))) => (
            SearchBudget::Simulations(u32::MAX),
            Some(every.min(time.saturating_sub(elapsed))),
        ),
    }
}

/// What a query's search of `budget` aims at: its simulations, or a share
/// of its time ([`MODEL_PLANNED_SHARE`], as a page's timed move): the
/// search's time is planned from its measured speed, which drops as its
/// tree grows. Planned for the whole time, it overran it, and the time
/// limit would then often cut its Gumbel root's sequential halving short
/// (the answer is sound then, but from a halving unfinished).
fn aimed_at(budget: SearchBudget) -> SearchBudget {
    match budget {
        SearchBudget::Time(time) => SearchBudget::Time(time.mul_f64(MODEL_PLANNED_SHARE)),
        simulations => simulations,
    }
}

/// Whether a search of `budget` that has run `done` simulations for
/// `elapsed` has spent it.
fn spent(budget: SearchBudget, done: u32, elapsed: Duration) -> bool {
    match budget {
        SearchBudget::Simulations(total) => done >= total,
        // (Under a millisecond left is no search worth another answer.)
        SearchBudget::Time(time) => time.saturating_sub(elapsed) < Duration::from_millis(1),
    }
}

/// The actions of `position` that the query's restrictions leave to its
/// mover at the root (all of them when it has none).
fn root_moves_left<B: Board>(query: &Query<B>, position: &B) -> usize {
    let state = position.searched();
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    match &query.filter {
        None => legal.len(),
        Some(filter) => filter.permitted(0, state.to_play(), &legal).len(),
    }
}

/// Searches one position of a query, handing `send` its answers: partial
/// ones as its report asks, then the final one (or an error). A timed
/// query's search is stopped at its `time_ms` ([`TimeLimit`]) and answers
/// with every simulation it completed.
fn search_work<B: Board>(analyst: &mut Analyst<B>, work: &Work<B>, send: &dyn Fn(Value)) {
    let query = &work.query;
    let turn = work.turn;
    let position = &query.positions[turn];
    let fail = |problem: Problem| {
        let mut answer = error_answer(&query.id, &problem, None);
        answer["turn"] = Value::from(turn);
        send(answer);
    };
    let started = Instant::now();
    let time_limit = match query.budget {
        SearchBudget::Time(time) => match TimeLimit::start(time, work.stop.clone()) {
            Ok(limit) => Some(limit),
            Err(err) => {
                return fail(Problem::whole(format!(
                    "starting the clock of time_ms: {err}"
                )));
            }
        },
        SearchBudget::Simulations(_) => None,
    };
    if position.is_over() {
        return fail(Problem {
            field: Some("turns".into()),
            message: format!(
                "turns: the game is over at turn {turn}: {}",
                position.result_text().unwrap_or_default()
            ),
        });
    }
    if root_moves_left(query, position) == 0 {
        return fail(Problem {
            field: Some("allow_moves".into()),
            message: format!(
                "allow_moves, avoid_moves: they leave {} no legal move at turn {turn}",
                position.side_name(position.mover_side())
            ),
        });
    }
    let raw = match evaluate_raw(position, analyst.evaluator.as_ref()) {
        Ok(raw) => raw,
        Err(err) => return fail(Problem::whole(err.to_string())),
    };
    let search = &mut analyst.search;
    // Queries are unrelated: each position is searched afresh.
    search.new_game();
    search.set_action_filter(query.filter.clone());
    search.set_stop(work.stop.clone());
    // The stop flag is set by a `terminate` or at the time limit: which
    // (`terminated`, `timed_out`) stopped the search, if either did.
    let stopped_by = || {
        // The flag first: the clock marks its limit reached before it sets it.
        let stopped = work.stop.load(Ordering::SeqCst);
        let timed_out = time_limit.as_ref().is_some_and(TimeLimit::reached);
        (stopped && !timed_out, timed_out)
    };
    let parts = |partial: bool, (terminated, timed_out): (bool, bool)| AnswerParts {
        id: &query.id,
        turn,
        top: query.top,
        include_policy: query.include_policy,
        partial,
        terminated,
        timed_out,
        warnings: &query.warnings,
    };
    let answer_of = |search: &NetworkSearch<B>,
                     analysis: &Analysis<B::Move>,
                     raw: &RawEvaluation,
                     partial: bool,
                     stopped: (bool, bool)| {
        answer::answer(
            &parts(partial, stopped),
            position,
            analysis,
            search.tree(),
            raw,
        )
    };
    let aimed = aimed_at(query.budget);
    let mut done = 0u32;
    loop {
        let (budget, cap) = next_part(aimed, query.report, done, started.elapsed());
        search.set_budget(budget);
        // Stopped (at the time limit, or by a `terminate`), a search
        // answers with all it searched, its tree kept for the lines.
        match search.analyse(position, cap) {
            Ok(mut analysis) => {
                let ran = analysis.simulations;
                done = done.saturating_add(ran);
                analysis.simulations = done;
                analysis.elapsed = started.elapsed();
                // A search that could add nothing (every line ends the
                // game) has said all it can.
                let finished =
                    query.report.is_none() || ran == 0 || spent(aimed, done, analysis.elapsed);
                let (terminated, timed_out) = stopped_by();
                if finished || terminated || timed_out {
                    return send(answer_of(
                        search,
                        &analysis,
                        &raw,
                        false,
                        (terminated, timed_out),
                    ));
                }
                send(answer_of(search, &analysis, &raw, true, (false, false)));
            }
            // Stopped before its root was evaluated: nothing to say.
            Err(SearchError::Eval(EvalError::Stopped)) => {
                return send(answer::no_results(&parts(false, stopped_by())));
            }
            Err(err) => return fail(Problem::whole(err.to_string())),
        }
    }
}

/// The answer to an action (the waiting positions a `terminate` takes out
/// are answered through `send` first).
fn act<B: Board>(
    server: &QueryServer<'_, B>,
    queue: &WorkQueue<B>,
    id: &Value,
    action: &Action,
    send: &dyn Fn(Value),
) -> Value {
    let terminate = |selection: Selection<'_>| {
        let (waiting, running) = queue.terminate(&selection);
        for work in &waiting {
            send(answer::no_results(&AnswerParts {
                id: &work.query.id,
                turn: work.turn,
                top: 0,
                include_policy: false,
                partial: false,
                terminated: true,
                timed_out: false,
                warnings: &work.query.warnings,
            }));
        }
        json!({"waiting": waiting.len(), "running": running})
    };
    match action {
        Action::QueryVersion => json!({
            "id": id,
            "action": "query_version",
            "version": env!("CARGO_PKG_VERSION"),
            "protocol": PROTOCOL_VERSION,
        }),
        Action::ClearCache => json!({
            "id": id,
            "action": "clear_cache",
            "cleared": (server.clear_cache)(),
        }),
        Action::QueryModels => json!({
            "id": id,
            "action": "query_models",
            "models": server.models,
        }),
        Action::Terminate { target, turns } => {
            let stopped = terminate(Selection {
                id: Some(target),
                turns: turns.as_deref(),
            });
            json!({
                "id": id,
                "action": "terminate",
                "terminate_id": target,
                "turns": turns,
                "terminated": stopped,
            })
        }
        Action::TerminateAll { turns } => {
            let stopped = terminate(Selection {
                id: None,
                turns: turns.as_deref(),
            });
            json!({
                "id": id,
                "action": "terminate_all",
                "turns": turns,
                "terminated": stopped,
            })
        }
    }
}

/// Reads the lines of `input`: actions answered at once, queries queued,
/// mistakes answered by line and field. Closes the queue at the end.
fn read_input<B: Board>(
    input: impl BufRead,
    server: &QueryServer<'_, B>,
    queue: &WorkQueue<B>,
    send: &dyn Fn(Value),
) {
    let mut lines = Lines::new(input, MAX_LINE_BYTES);
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(err) => {
                send(json!({"id": null, "error": format!("reading the input: {err}")}));
                break;
            }
        };
        let text = match line {
            Ok(text) => text,
            Err(problem) => {
                let problem = Problem::whole(format!("line {number}: {problem}"));
                send(error_answer(&Value::Null, &problem, Some(number)));
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match read_request(&text, &server.game, server.default_visits) {
            Ok(Request::Query(query)) => queue.push(query),
            Ok(Request::Action {
                id,
                action,
                warnings,
            }) => {
                let mut answer = act(server, queue, &id, &action, send);
                if !warnings.is_empty() {
                    answer["warnings"] = Value::Array(warnings);
                }
                send(answer);
            }
            Err((id, problem)) => send(error_answer(&id, &problem, Some(number))),
        }
    }
    queue.close();
}

/// Answers the queries of `input` on `output` with `server`. Ends when the
/// input ends and every queued position is answered.
pub fn answer_queries<B: Board>(
    input: impl BufRead + Send,
    mut output: impl Write,
    server: &QueryServer<'_, B>,
) -> anyhow::Result<()> {
    let queue = WorkQueue::new();
    let (answers_in, answers_out) = mpsc::channel::<Value>();
    let mut analysts = (0..server.threads.max(1))
        .map(|_| (server.make_analyst)())
        .collect::<anyhow::Result<Vec<_>>>()?;
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for analyst in &mut analysts {
            let answers = answers_in.clone();
            let queue = &queue;
            scope.spawn(move || {
                while let Some(work) = queue.take() {
                    search_work(analyst, &work, &|value| {
                        let _ = answers.send(value);
                    });
                    queue.done(&work);
                }
            });
        }
        let reader_answers = answers_in.clone();
        let queue = &queue;
        scope.spawn(move || {
            read_input(input, server, queue, &|value| {
                let _ = reader_answers.send(value);
            });
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
    use std::sync::Arc;
    use sumito_engine::{Layout, Position, Rules};
    use sumito_mcts::UniformEvaluator;

    use cache::{CachedEvaluator, EvaluationCache};

    /// Input that comes in parts, 200 ms apart: the lines of a part are
    /// read while the searches of the parts before run.
    struct Paced {
        parts: std::collections::VecDeque<&'static [u8]>,
        /// Whether the next byte starts a part after the first.
        pause: bool,
    }

    impl std::io::Read for Paced {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let Some(part) = self.parts.front_mut() else {
                return Ok(0);
            };
            if std::mem::take(&mut self.pause) {
                std::thread::sleep(Duration::from_millis(200));
            }
            let n = part.len().min(out.len());
            out[..n].copy_from_slice(&part[..n]);
            *part = &part[n..];
            if part.is_empty() {
                self.parts.pop_front();
                self.pause = true;
            }
            Ok(n)
        }
    }

    fn paced(parts: &[&'static str]) -> std::io::BufReader<Paced> {
        std::io::BufReader::new(Paced {
            parts: parts.iter().map(|part| part.as_bytes()).collect(),
            pause: false,
        })
    }

    /// The answers to `input`, by a query server of a uniform evaluator
    /// and `threads` searches.
    fn answers_with(input: impl BufRead + Send, threads: usize) -> Vec<Value> {
        answers_searched_by(input, threads, &|| Box::new(UniformEvaluator))
    }

    /// The answers to `input` by a query server of `threads` searches, each on
    /// an evaluator of `searched_by` behind the cache (the roots' raw
    /// evaluations are a uniform evaluator's).
    fn answers_searched_by(
        input: impl BufRead + Send,
        threads: usize,
        searched_by: &(dyn Fn() -> Box<dyn Evaluator<<Position as Board>::Searched>> + Sync),
    ) -> Vec<Value> {
        let read_position = |text: &str| Position::from_fen(text).map_err(|err| err.to_string());
        let read_layout = |name: &str| {
            Layout::from_name(name)
                .map(|layout| Position::start(layout, Rules::default()))
                .map_err(|err| err.to_string())
        };
        let cache = Arc::new(EvaluationCache::new(10_000));
        let cached = |inner: Box<dyn Evaluator<<Position as Board>::Searched>>| CachedEvaluator {
            cache: Arc::clone(&cache),
            inner,
        };
        let make = || -> anyhow::Result<Analyst<Position>> {
            Ok(Analyst {
                search: NetworkSearch::new(
                    "uniform",
                    Box::new(cached(searched_by())),
                    SearchBudget::Simulations(1),
                    1,
                ),
                evaluator: Box::new(cached(Box::new(UniformEvaluator))),
            })
        };
        let clear = || cache.clear();
        let server = QueryServer {
            game: QueryGame {
                start: Position::start(Layout::Standard, Rules::default()),
                read_position: &read_position,
                read_layout: &read_layout,
            },
            default_visits: 16,
            threads,
            make_analyst: &make,
            models: json!([{"name": "uniform"}]),
            clear_cache: &clear,
        };
        let mut out = Vec::new();
        answer_queries(input, &mut out, &server).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn answers_to(input: &str) -> Vec<Value> {
        answers_with(input.as_bytes(), 3)
    }

    fn by_id<'a>(answers: &'a [Value], id: &Value) -> Vec<&'a Value> {
        answers
            .iter()
            .filter(|answer| answer["id"] == *id)
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
            r#"{"id": "unknown", "komi": 7.5, "visits": 4}"#,
            "\n",
            r#"{"id": "both", "visits": 3, "time_ms": 5}"#,
            "\n",
            r#"{"id": "turn", "turns": [3]}"#,
            "\n",
            "not json\n",
            r#"{"id": "twice", "visits": 3, "visits": 5000}"#,
            "\n",
        ));
        let a = by_id(&answers, &json!("a"));
        assert_eq!(a.len(), 2, "{answers:?}");
        let mut turns: Vec<u64> = a
            .iter()
            .map(|answer| answer["turn"].as_u64().unwrap())
            .collect();
        turns.sort_unstable();
        assert_eq!(turns, [0, 2]);
        for answer in &a {
            assert_eq!(answer["root"]["simulations"], 32, "{answer}");
            assert_eq!(answer["partial"], false);
            assert_eq!(answer["side"], "black");
            let moves = answer["moves"].as_array().unwrap();
            assert_eq!(moves.len(), 3);
            // Every candidate: its order, a line that starts with it, a
            // bound below its mean.
            for (order, candidate) in moves.iter().enumerate() {
                assert_eq!(candidate["order"], order);
                assert_eq!(candidate["line"][0], candidate["move"]);
                if let Some(q) = candidate["q"].as_f64() {
                    assert!(candidate["lcb"].as_f64().unwrap() < q, "{candidate}");
                }
            }
            assert_eq!(moves[0]["line"], answer["pv"]);
            assert!(
                answer["raw"]["value"].as_f64().unwrap().abs() < 1e-6,
                "{answer}"
            );
            assert!(answer.get("policy").is_none());
        }
        let seven = by_id(&answers, &json!(7));
        assert_eq!(seven[0]["root"]["simulations"], 16);
        assert_eq!(seven[0]["turn"], 0);
        // An unknown field is a warning; the query is answered.
        let unknown = by_id(&answers, &json!("unknown"));
        assert_eq!(unknown[0]["root"]["simulations"], 4, "{answers:?}");
        assert_eq!(unknown[0]["warnings"][0]["field"], "komi");
        // Mistakes name the field, apart and in the message, and the line.
        let error = |id: &str| by_id(&answers, &json!(id))[0].clone();
        let cases = [
            ("bad-move", "moves[0]", "moves[0]: A1A9", 4),
            ("both", "visits", "visits, time_ms", 6),
            (
                "turn",
                "turns[0]",
                "turns[0]: must be a turn from 0 to 0",
                7,
            ),
            (
                "twice",
                "visits",
                "visits: the key `visits` is given twice",
                9,
            ),
        ];
        for (id, field, message, line) in cases {
            let answer = error(id);
            assert_eq!(answer["field"], field, "{answer}");
            assert!(
                answer["error"].as_str().unwrap().starts_with(message),
                "{answer}"
            );
            assert_eq!(answer["line"], line, "{answer}");
        }
        let not_json = by_id(&answers, &Value::Null);
        assert!(
            not_json[0]["error"]
                .as_str()
                .unwrap()
                .starts_with("not JSON")
        );
        assert_eq!(not_json[0]["line"], 8);
        assert_eq!(answers.len(), 2 + 1 + 1 + 5);
    }

    /// One query of `time_ms` 2000 searched by an evaluator that takes
    /// `each` an evaluation, `slowdown` times that after its first `fast`:
    /// its answers, how long they took, and how many positions the
    /// evaluator evaluated.
    fn timed_query_slowing(
        each: Duration,
        fast: usize,
        slowdown: f64,
    ) -> (Vec<Value>, Duration, usize) {
        let evaluator = Arc::new(sumito_mcts::toy::SlowingEvaluator::new(
            each, fast, slowdown,
        ));
        let slowing = || -> Box<dyn Evaluator<<Position as Board>::Searched>> {
            Box::new(Arc::clone(&evaluator))
        };
        let started = Instant::now();
        let answers = answers_searched_by(
            r#"{"id": "timed", "time_ms": 2000}
"#
            .as_bytes(),
            1,
            &slowing,
        );
        (answers, started.elapsed(), evaluator.evaluated())
    }

    /// The simulations `answer` reports, checked to count every position
    /// that `evaluated` says its search evaluated (but the root, which the
    /// raw evaluation may have left in the cache): a search stopped by its
    /// time limit keeps all it searched.
    fn all_simulations(answer: &Value, evaluated: usize) -> u64 {
        let simulations = answer["root"]["simulations"].as_u64().unwrap();
        assert!(
            simulations + 1 >= evaluated as u64,
            "{evaluated} positions evaluated, {simulations} simulations answered: {answer}"
        );
        simulations
    }

    /// A query's `time_ms` is its search's limit, though the search's
    /// speed, from which its time is planned, drops as its tree grows
    /// (here by a quarter after its probe, as in the page's timed moves):
    /// it aims at a share of its time. Planned for the whole time (at most
    /// its planner's 90 %), the search of 2 s here took 2.23 s.
    #[test]
    fn a_timed_query_is_answered_within_its_time_though_its_search_slows() {
        let time = Duration::from_secs(2);
        // Its next batch of 8 evaluations and the answer's making.
        let margin = Duration::from_millis(100);
        let (answers, took, evaluated) = timed_query_slowing(
            Duration::from_millis(10),
            sumito_mcts::PROBE_SIMULATIONS as usize,
            1.25,
        );
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["partial"], false, "{answers:?}");
        let simulations = all_simulations(&answers[0], evaluated);
        assert!(simulations > 16, "{answers:?}");
        assert!(
            took <= time + margin,
            "the query of {time:?} was answered after {took:?}"
        );
    }

    /// A timed query is stopped at its `time_ms` however much its search
    /// slows. Here each evaluation takes 2 ms, then 5 times that from the
    /// 200th on: its search was planned at the speed before, and without
    /// the stop the query of 2 s took 2.89 s. Stopped at its next batch,
    /// it answers with every simulation it completed, and says that its
    /// time ran out.
    #[test]
    fn a_timed_query_is_stopped_at_its_time_however_much_its_search_slows() {
        let time = Duration::from_secs(2);
        // The batch under way at the limit (8 evaluations of 10 ms) and
        // the answer's making.
        let margin = Duration::from_millis(150);
        let (answers, took, evaluated) = timed_query_slowing(Duration::from_millis(2), 200, 5.0);
        eprintln!("the query of {time:?} was answered after {took:?}: {answers:?}");
        assert_eq!(answers.len(), 1, "{answers:?}");
        let answer = &answers[0];
        assert!(
            took <= time + margin,
            "the query of {time:?} was answered after {took:?}"
        );
        assert_eq!(answer["partial"], false, "{answer}");
        assert_eq!(answer["timed_out"], true, "{answer}");
        assert!(answer.get("terminated").is_none(), "{answer}");
        // Evaluated at 2 ms for 200, then at 10 ms: about 360 in 2 s.
        let simulations = all_simulations(answer, evaluated);
        assert!(simulations >= 250, "{answer}");
        assert_eq!(answer["moves"][0]["line"], answer["pv"], "{answer}");
    }

    #[test]
    fn bad_bytes_and_overlong_lines_are_answered_by_line_and_the_server_goes_on() {
        let mut input = b"\xff\xfe{\"id\": 1}\n".to_vec();
        input.extend(std::iter::repeat_n(b' ', MAX_LINE_BYTES + 10));
        input.extend(b"{\"id\": 2}\n{\"id\": 3, \"visits\": 2}\n");
        let answers = answers_with(input.as_slice(), 1);
        assert_eq!(answers.len(), 3, "{answers:?}");
        assert_eq!(answers[0]["line"], 1);
        assert!(
            answers[0]["error"]
                .as_str()
                .unwrap()
                .starts_with("line 1: not UTF-8")
        );
        assert_eq!(answers[1]["line"], 2);
        assert!(
            answers[1]["error"].as_str().unwrap().starts_with(&format!(
                "line 2: longer than the cap of {MAX_LINE_BYTES} bytes"
            )),
            "{}",
            answers[1]
        );
        assert_eq!(answers[2]["id"], 3);
        assert_eq!(answers[2]["root"]["simulations"], 2);
    }

    #[test]
    fn partial_answers_come_as_asked_then_the_final_one() {
        let answers = answers_to(concat!(
            r#"{"id": "v", "visits": 32, "report_every_visits": 8, "top": 2}"#,
            "\n",
            r#"{"id": "t", "time_ms": 1500, "report_every_ms": 100}"#,
            "\n",
        ));
        let visits = by_id(&answers, &json!("v"));
        let simulations: Vec<u64> = visits
            .iter()
            .map(|answer| answer["root"]["simulations"].as_u64().unwrap())
            .collect();
        assert_eq!(simulations, [8, 16, 24, 32], "{answers:?}");
        let partial: Vec<bool> = visits
            .iter()
            .map(|answer| answer["partial"].as_bool().unwrap())
            .collect();
        assert_eq!(partial, [true, true, true, false]);
        let timed = by_id(&answers, &json!("t"));
        assert!(timed.len() >= 3, "{timed:?}");
        assert_eq!(timed.last().unwrap()["partial"], false);
        assert!(
            timed[..timed.len() - 1]
                .iter()
                .all(|answer| answer["partial"] == true)
        );
    }

    #[test]
    fn restrictions_keep_moves_out_and_the_policy_covers_every_legal_move() {
        let start = Position::start(Layout::Standard, Rules::default());
        let legal = start.legal_moves().len();
        let answers = answers_to(concat!(
            r#"{"id": "avoid", "visits": 200, "top": 100, "include_policy": true,"#,
            r#" "avoid_moves": [{"side": "black", "moves": ["A1B2", "A5B5"]}]}"#,
            "\n",
            r#"{"id": "allow", "visits": 50, "allow_moves": [{"side": "black", "moves": ["A1B2", "A5B5"]}]}"#,
            "\n",
            r#"{"id": "none", "allow_moves": [{"side": "black", "moves": ["I5H5"]}]}"#,
            "\n",
        ));
        let avoid = by_id(&answers, &json!("avoid"))[0];
        let moves: Vec<&str> = avoid["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|candidate| candidate["move"].as_str().unwrap())
            .collect();
        assert_eq!(moves.len(), legal - 2, "{avoid}");
        assert!(!moves.contains(&"A1B2") && !moves.contains(&"A5B5"));
        let policy = avoid["policy"].as_array().unwrap();
        assert_eq!(policy.len(), legal);
        let total: f64 = policy
            .iter()
            .map(|entry| entry["prior"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-3);
        let allow = by_id(&answers, &json!("allow"))[0];
        let mut allowed: Vec<&str> = allow["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|candidate| candidate["move"].as_str().unwrap())
            .collect();
        allowed.sort_unstable();
        assert_eq!(allowed, ["A1B2", "A5B5"]);
        let none = by_id(&answers, &json!("none"))[0];
        assert_eq!(none["field"], "allow_moves", "{none}");
    }

    #[test]
    fn actions_are_answered_at_once_and_terminate_stops_a_search() {
        let answers = answers_with(
            paced(&[
                concat!(
                    r#"{"id": "long", "visits": 10000000, "report_every_visits": 64}"#,
                    "\n",
                    r#"{"id": "queued", "visits": 8}"#,
                    "\n",
                ),
                concat!(
                    r#"{"id": "v", "action": "query_version"}"#,
                    "\n",
                    r#"{"id": "m", "action": "query_models", "extra": 1}"#,
                    "\n",
                    r#"{"id": "q", "action": "terminate", "terminate_id": "queued"}"#,
                    "\n",
                    r#"{"id": "all", "action": "terminate_all"}"#,
                    "\n",
                    r#"{"id": "c", "action": "clear_cache"}"#,
                    "\n",
                    r#"{"id": "x", "action": "reboot"}"#,
                    "\n",
                ),
            ]),
            1,
        );
        let one = |id: &str| by_id(&answers, &json!(id)).last().copied().unwrap().clone();
        assert_eq!(one("v")["protocol"], PROTOCOL_VERSION);
        assert_eq!(one("v")["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(one("m")["models"][0]["name"], "uniform");
        assert_eq!(one("m")["warnings"][0]["field"], "extra");
        // The queued query is taken out before it starts.
        let queued = one("queued");
        assert_eq!(queued["terminated"], true, "{answers:?}");
        assert_eq!(queued["no_results"], true);
        assert_eq!(one("q")["terminated"]["waiting"], 1);
        // The long one stops with what it has (or nothing, if stopped
        // before its first part).
        let long = one("long");
        assert_eq!(long["terminated"], true, "{long}");
        assert_eq!(long["partial"], false);
        assert!(
            long["root"]["simulations"]
                .as_u64()
                .is_none_or(|n| n < 10_000_000)
        );
        assert_eq!(one("all")["terminated"]["running"], 1);
        assert!(one("c")["cleared"].as_u64().is_some());
        assert_eq!(one("x")["field"], "action");
    }

    #[test]
    fn the_higher_priority_waits_less() {
        let answers = answers_with(
            paced(&[
                concat!(r#"{"id": "first", "time_ms": 600}"#, "\n"),
                concat!(
                    r#"{"id": "low", "visits": 4, "priority": -1}"#,
                    "\n",
                    r#"{"id": "middle", "visits": 4}"#,
                    "\n",
                    r#"{"id": "high", "visits": 4, "priority": 3}"#,
                    "\n",
                ),
            ]),
            1,
        );
        let order: Vec<&str> = answers
            .iter()
            .map(|answer| answer["id"].as_str().unwrap())
            .collect();
        assert_eq!(order, ["first", "high", "middle", "low"]);
    }
}
