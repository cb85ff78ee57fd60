//! `sumito bench serve --soak MINUTES`: a bounded soak of the web server.
//! A server runs in this process on a loopback port with the defaults of
//! `sumito serve`; `--pages` WebSocket clients play the page's part at once
//! for the whole time, each a random mix of what people do: new games
//! (against the model at a strength level or by simulations, with
//! `--model`, or a classical player), moves and the player's replies,
//! undos, analyses (some cut short by a move), hostile messages (not JSON,
//! unknown, oversized), and connections dropped without a goodbye or closed
//! and opened again. Beside them the soak presses the server
//! (`super::soak_pressure`): slow clients that send their headers a byte a
//! second, long reviews (with a model), and a fresh page every few seconds
//! whose first answers are timed (the latency a newcomer sees). Every
//! message must be answered within a minute. The
//! process's resident memory is sampled every 5 s; memory is flat when the
//! last fifth of the run holds no more than the second fifth (the first is
//! warm-up: caches, the network, the players' tables) plus a small margin.
//! Prints `name: value unit` lines, and fails if a message went unanswered.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use sumito_serve::{Model, Models, ServeOptions, serve_on};
use tokio_tungstenite::tungstenite::Message;

use super::serve::Socket;
use super::soak_pressure::{
    Pressure, REVIEWERS, SLOW_CLIENTS, fresh_pages, median_and_max, reviewer, slow_client,
};

/// How long a message may go unanswered.
const ANSWER_LIMIT: Duration = Duration::from_secs(60);
/// How often the memory is sampled.
const SAMPLE_EVERY: Duration = Duration::from_secs(5);

/// What the pages did, all together.
#[derive(Debug, Default)]
struct Counts {
    connections: AtomicU64,
    dropped: AtomicU64,
    answered: AtomicU64,
    unanswered: AtomicU64,
    games: AtomicU64,
    replies: AtomicU64,
    analyses: AtomicU64,
    refused: AtomicU64,
}

impl Counts {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// The next message that `done` accepts, or an error after [`ANSWER_LIMIT`]
/// or when the server closes the socket.
async fn answer(socket: &mut Socket, done: impl Fn(&Value) -> bool) -> anyhow::Result<Value> {
    let deadline = tokio::time::Instant::now() + ANSWER_LIMIT;
    let mut last = String::new();
    loop {
        let Ok(next) = tokio::time::timeout_at(deadline, socket.next()).await else {
            // Cut at a character, not a byte: a cut inside one would panic.
            let last: String = last.chars().take(300).collect();
            bail!("no answer within a minute (the last message: {last})");
        };
        if let Message::Text(text) = next.context("the server closed the socket")?? {
            let message: Value = serde_json::from_str(text.as_str())?;
            if done(&message) {
                return Ok(message);
            }
            last = text.to_string();
        }
    }
}

fn is_type(message: &Value, kind: &str) -> bool {
    message["type"] == kind
}

/// The number of plies played in a state message.
fn plies(state: &Value) -> usize {
    state["history"].as_array().map_or(0, Vec::len)
}

/// A new game against an opponent chosen at random: the person plays
/// black.
fn new_game(rng: &mut ChaCha8Rng, model: bool) -> Value {
    let opponent = match rng.random_range(0..if model { 5 } else { 3 }) {
        0 => json!({"kind": "classical", "spec": "alphabeta:depth=1"}),
        1 => json!({"kind": "classical", "spec": "greedy"}),
        2 => json!({"kind": "classical", "spec": "random"}),
        3 => json!({"kind": "model", "level": rng.random_range(1..=6)}),
        _ => json!({"kind": "model", "simulations": 16}),
    };
    let layout = ["standard", "belgian-daisy", "german-daisy"][rng.random_range(0..3)];
    json!({"type": "new_game", "layout": layout, "seats": [{"kind": "human"}, opponent]})
}

/// A legal move of `state` at random, if the game goes on.
fn some_move(rng: &mut ChaCha8Rng, state: &Value) -> Option<Value> {
    let legal = state["legal"].as_array()?;
    if legal.is_empty() || !state["result"].is_null() {
        return None;
    }
    Some(legal[rng.random_range(0..legal.len())]["text"].clone())
}

async fn send(socket: &mut Socket, message: &Value) -> anyhow::Result<()> {
    socket
        .send(Message::Text(message.to_string().into()))
        .await?;
    Ok(())
}

/// Plays `move` and waits for the player's reply (or the game's end).
async fn play(socket: &mut Socket, text: Value, state: &Value) -> anyhow::Result<Value> {
    send(socket, &json!({"type": "move", "text": text})).await?;
    reply_to_move(socket, state).await
}

/// The answer to a move sent from `state`: the state after the player's
/// reply (or the game's end), or an error.
async fn reply_to_move(socket: &mut Socket, state: &Value) -> anyhow::Result<Value> {
    let before = plies(state);
    answer(socket, |m| {
        is_type(m, "error")
            || (is_type(m, "state") && (plies(m) >= before + 2 || !m["result"].is_null()))
    })
    .await
}

/// Whether `message` ends an analysis: its last answer, or an error (a
/// stopped analysis with no result yet is answered by one).
fn ends_analysis(message: &Value) -> bool {
    is_type(message, "error") || (is_type(message, "analysis") && message["done"] == true)
}

/// One connection: a random number of actions, then dropped or closed.
async fn session(
    url: &str,
    rng: &mut ChaCha8Rng,
    model: bool,
    counts: &Counts,
    deadline: Instant,
) -> anyhow::Result<()> {
    let (mut socket, _) = tokio_tungstenite::connect_async_with_config(url, None, true).await?;
    Counts::add(&counts.connections);
    let mut state = answer(&mut socket, |m| is_type(m, "state")).await?;
    // Named in errors: which player kept a page waiting.
    let mut opponent = "the first game's opponent".to_owned();
    for _ in 0..rng.random_range(5..40) {
        if Instant::now() > deadline {
            break;
        }
        let roll = rng.random_range(0..100);
        let over = some_move(rng, &state).is_none();
        if over || roll < 12 {
            let game = new_game(rng, model);
            opponent = game["seats"][1].to_string();
            send(&mut socket, &game).await?;
            state = answer(&mut socket, |m| is_type(m, "state") || is_type(m, "error"))
                .await
                .context("a new game")?;
            Counts::add(&counts.games);
        } else if roll < 62 {
            let text = some_move(rng, &state).expect("the game goes on");
            let reply = play(&mut socket, text, &state)
                .await
                .with_context(|| format!("a move against {opponent}"))?;
            if is_type(&reply, "state") {
                state = reply;
                Counts::add(&counts.replies);
            }
        } else if roll < 70 {
            send(&mut socket, &json!({"type": "undo"})).await?;
            let reply = answer(&mut socket, |m| is_type(m, "state") || is_type(m, "error"))
                .await
                .context("an undo")?;
            if is_type(&reply, "state") {
                state = reply;
            }
        } else if roll < 90 && model {
            let simulations = rng.random_range(50..400);
            send(
                &mut socket,
                &json!({"type": "analyse", "simulations": simulations}),
            )
            .await?;
            if rng.random_bool(0.5) {
                // Cut short by a move, as a person moving on does. The
                // analysis is answered first (its last update, or an error
                // when it had none yet), then the move: an error taken for
                // the move's answer would leave its states to be taken for
                // the answers of later messages.
                let text = some_move(rng, &state).expect("the game goes on");
                send(&mut socket, &json!({"type": "move", "text": text})).await?;
                answer(&mut socket, ends_analysis)
                    .await
                    .context("an analysis cut short by a move")?;
                let reply = reply_to_move(&mut socket, &state).await.with_context(|| {
                    format!("a move against {opponent} cutting an analysis short")
                })?;
                if is_type(&reply, "state") {
                    state = reply;
                }
            } else {
                let done = answer(&mut socket, ends_analysis)
                    .await
                    .context("an analysis")?;
                // A finished analysis is followed by the game's state.
                if is_type(&done, "analysis") {
                    state = answer(&mut socket, |m| is_type(m, "state"))
                        .await
                        .context("the state after an analysis")?;
                }
            }
            Counts::add(&counts.analyses);
        } else {
            let hostile = match rng.random_range(0..3) {
                0 => "{not json".to_owned(),
                1 => json!({"type": "format_disk"}).to_string(),
                _ => json!({"type": "move", "text": "A".repeat(100_000)}).to_string(),
            };
            socket.send(Message::Text(hostile.into())).await?;
            let reply = answer(&mut socket, |m| is_type(m, "error")).await;
            match reply {
                Ok(_) => Counts::add(&counts.refused),
                // An oversized frame may close the socket: that answers it.
                Err(_) => return Ok(()),
            }
        }
        Counts::add(&counts.answered);
    }
    if rng.random_bool(0.5) {
        // Gone without a goodbye: a closed tab, a lost network.
        Counts::add(&counts.dropped);
        drop(socket);
    } else {
        socket.close(None).await?;
    }
    Ok(())
}

/// One page for the whole soak: sessions one after another.
async fn page(url: String, seed: u64, model: bool, counts: Arc<Counts>, deadline: Instant) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while Instant::now() < deadline {
        if let Err(err) = session(&url, &mut rng, model, &counts, deadline).await {
            Counts::add(&counts.unanswered);
            eprintln!("page {seed}: {err:#}");
        }
    }
}

/// The process's resident memory in megabytes (Linux: /proc/self/status).
fn resident_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Soaks a server with `served` (a model, or [`sumito_serve::NoModel`])
/// for `minutes` with `pages` pages; `model`: `served` is a model
/// (analyses and model opponents).
pub fn run(served: Arc<dyn Model>, model: bool, minutes: f64, pages: usize) -> anyhow::Result<()> {
    if minutes.is_nan() || minutes <= 0.0 || pages == 0 {
        bail!("--soak takes a positive number of minutes and --pages at least 1");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let counts = Arc::new(Counts::default());
    let pressure = Arc::new(Pressure::default());
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(minutes * 60.0);
    let samples = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let options = ServeOptions {
            seed: 11,
            ..ServeOptions::local(address)
        };
        let server = tokio::spawn(async move {
            serve_on(listener, &options, Arc::new(Models::one(served)), async {
                let _ = stopped.await;
            })
            .await
        });
        let url = format!("ws://{address}/ws");
        let mut tasks: Vec<_> = (0..pages as u64)
            .map(|seed| tokio::spawn(page(url.clone(), seed, model, counts.clone(), deadline)))
            .collect();
        for _ in 0..SLOW_CLIENTS {
            tasks.push(tokio::spawn(slow_client(
                address,
                pressure.clone(),
                deadline,
            )));
        }
        if model {
            for _ in 0..REVIEWERS {
                tasks.push(tokio::spawn(reviewer(
                    url.clone(),
                    pressure.clone(),
                    deadline,
                )));
            }
        }
        tasks.push(tokio::spawn(fresh_pages(
            url.clone(),
            model,
            pressure.clone(),
            deadline,
        )));
        let mut samples = Vec::new();
        // Ctrl-C ends the soak early, with the figures so far.
        let interrupted = tokio::signal::ctrl_c();
        tokio::pin!(interrupted);
        while Instant::now() < deadline {
            samples.extend(resident_mb());
            let left = deadline.saturating_duration_since(Instant::now());
            tokio::select! {
                _ = tokio::time::sleep(SAMPLE_EVERY.min(left)) => {}
                _ = &mut interrupted => {
                    eprintln!("soak: stopped early on a signal; the figures so far follow");
                    tasks.iter().for_each(tokio::task::JoinHandle::abort);
                    break;
                }
            }
        }
        for task in tasks {
            let _ = task.await;
        }
        samples.extend(resident_mb());
        let _ = stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
        anyhow::Ok(samples)
    })?;
    let count = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
    println!(
        "soak_minutes: {:.1} min",
        started.elapsed().as_secs_f64() / 60.0
    );
    println!("soak_pages: {pages} pages");
    println!(
        "soak_connections: {} connections",
        count(&counts.connections)
    );
    println!(
        "soak_dropped_connections: {} connections",
        count(&counts.dropped)
    );
    println!(
        "soak_messages_answered: {} messages",
        count(&counts.answered)
    );
    println!(
        "soak_messages_unanswered: {} messages",
        count(&counts.unanswered)
    );
    println!("soak_games: {} games", count(&counts.games));
    println!("soak_player_replies: {} moves", count(&counts.replies));
    println!("soak_analyses: {} analyses", count(&counts.analyses));
    println!("soak_hostile_refused: {} messages", count(&counts.refused));
    println!("soak_slow_clients: {SLOW_CLIENTS} connections");
    println!(
        "soak_slow_clients_cut: {} connections",
        count(&pressure.slow_cut)
    );
    println!("soak_long_reviews: {} reviews", count(&pressure.reviews));
    if let Some((median, max)) = median_and_max(&pressure.fresh_state_ms) {
        println!("soak_fresh_page_state_median: {median:.0} ms");
        println!("soak_fresh_page_state_max: {max:.0} ms");
    }
    if let Some((median, max)) = median_and_max(&pressure.fresh_analysis_ms) {
        println!("soak_fresh_page_analysis_median: {median:.0} ms");
        println!("soak_fresh_page_analysis_max: {max:.0} ms");
    }
    println!(
        "soak_fresh_pages_unanswered: {} pages",
        count(&pressure.fresh_unanswered)
    );
    if samples.len() >= 5 {
        let fifth = samples.len() / 5;
        let early = median(&mut samples[fifth..2 * fifth].to_vec());
        let late = median(&mut samples[samples.len() - fifth..].to_vec());
        let peak = samples.iter().copied().fold(0.0, f64::max);
        println!("soak_resident_second_fifth: {early:.1} MB");
        println!("soak_resident_last_fifth: {late:.1} MB");
        println!("soak_resident_peak: {peak:.1} MB");
        println!(
            "soak_resident_growth: {:+.1} %",
            100.0 * (late / early - 1.0)
        );
    }
    if count(&counts.unanswered) > 0 {
        bail!("{} messages went unanswered", count(&counts.unanswered));
    }
    if count(&pressure.fresh_unanswered) > 0 {
        bail!(
            "{} fresh pages went unanswered",
            count(&pressure.fresh_unanswered)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_soak_with_classical_players_runs_and_answers_everything() {
        run(Arc::new(sumito_serve::NoModel), false, 0.05, 2).unwrap();
        let refused = run(Arc::new(sumito_serve::NoModel), false, 0.0, 2).unwrap_err();
        assert!(refused.to_string().contains("--soak takes"), "{refused}");
    }
}
