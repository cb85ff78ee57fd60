//! The pressure a soak (`super::soak`) puts on the server beside its pages:
//! slow clients that send their request headers a byte a second (and
//! connect again when the server cuts them off), long reviews (with a
//! model: games of 30 moves at 20,000 simulations a position, again and
//! again), and a fresh page every few seconds, whose first answer (its
//! state, and with a model a 50-simulation analysis) is timed: the latency
//! a newcomer sees while all this goes on.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::Message;

use super::serve::Socket;

/// Slow clients kept connected at once.
pub const SLOW_CLIENTS: usize = 48;
/// Pages reviewing long games at once (with a model).
pub const REVIEWERS: usize = 2;
/// How often a fresh page comes.
const FRESH_EVERY: Duration = Duration::from_secs(5);
/// How long a fresh page's answer may take before it counts as unanswered.
const FRESH_LIMIT: Duration = Duration::from_secs(60);

/// What the pressure did and saw.
#[derive(Debug, Default)]
pub struct Pressure {
    /// Slow clients the server cut off (header limit, or evicted for a
    /// newcomer).
    pub slow_cut: AtomicU64,
    /// Reviews asked for.
    pub reviews: AtomicU64,
    /// Fresh pages that got no answer within [`FRESH_LIMIT`].
    pub fresh_unanswered: AtomicU64,
    /// Milliseconds from a fresh page's connection to its first state.
    pub fresh_state_ms: Mutex<Vec<f64>>,
    /// Milliseconds from a fresh page's analysis request to its result.
    pub fresh_analysis_ms: Mutex<Vec<f64>>,
}

/// One slow client after another on `address` until `deadline`: each sends
/// a request line and then a header byte a second.
pub async fn slow_client(address: SocketAddr, pressure: Arc<Pressure>, deadline: Instant) {
    while Instant::now() < deadline {
        let Ok(mut stream) = tokio::net::TcpStream::connect(address).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        if stream.write_all(b"GET / HTTP/1.1\r\n").await.is_err() {
            pressure.slow_cut.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        while Instant::now() < deadline {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if stream.write_all(b"X").await.is_err() {
                pressure.slow_cut.fetch_add(1, Ordering::Relaxed);
                break;
            }
        }
    }
}

/// A game of `plies` moves from the Standard start, as a list of moves.
fn long_game(plies: usize) -> anyhow::Result<String> {
    let layout = GeneralLayout::from_name("standard")?;
    let mut position = RulesTable::default().start(layout)?;
    let mut moves = Vec::new();
    for ply in 0..plies {
        let legal = position.legal_moves();
        let Some(&mv) = legal.get((ply * 7) % legal.len().max(1)) else {
            break;
        };
        moves.push(mv.to_text());
        position = position.play(mv);
    }
    Ok(moves.join(" "))
}

async fn send(socket: &mut Socket, message: &Value) -> anyhow::Result<()> {
    socket
        .send(Message::Text(message.to_string().into()))
        .await?;
    Ok(())
}

/// The next message that `done` accepts, within `limit`.
async fn next(
    socket: &mut Socket,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    tokio::time::timeout(limit, async {
        loop {
            let message = socket
                .next()
                .await
                .context("the server closed the socket")??;
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(text.as_str())?;
                if done(&value) {
                    return anyhow::Ok(value);
                }
            }
        }
    })
    .await
    .context("no answer in time")?
}

/// A page that reviews a long game at 20,000 simulations a position, again
/// and again, until `deadline`.
pub async fn reviewer(url: String, pressure: Arc<Pressure>, deadline: Instant) {
    let Ok(game) = long_game(30) else {
        return;
    };
    while Instant::now() < deadline {
        let review = async {
            let (mut socket, _) = tokio_tungstenite::connect_async(url.as_str()).await?;
            next(&mut socket, FRESH_LIMIT, |m| m["type"] == "state").await?;
            send(&mut socket, &json!({"type": "load", "record": game})).await?;
            next(&mut socket, FRESH_LIMIT, |m| m["type"] == "state").await?;
            send(
                &mut socket,
                &json!({"type": "review", "simulations": 20_000}),
            )
            .await?;
            pressure.reviews.fetch_add(1, Ordering::Relaxed);
            let left = deadline.saturating_duration_since(Instant::now());
            // Its end, or the soak's; then the page goes.
            let _ = next(&mut socket, left, |m| {
                m["type"] == "review" || m["type"] == "error"
            })
            .await;
            anyhow::Ok(())
        };
        if review.await.is_err() {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// A fresh page every few seconds until `deadline`, its answers timed.
pub async fn fresh_pages(url: String, model: bool, pressure: Arc<Pressure>, deadline: Instant) {
    while Instant::now() < deadline {
        let started = Instant::now();
        let fresh = async {
            let (mut socket, _) = tokio_tungstenite::connect_async(url.as_str()).await?;
            next(&mut socket, FRESH_LIMIT, |m| m["type"] == "state").await?;
            let state_ms = started.elapsed().as_secs_f64() * 1000.0;
            if let Ok(mut samples) = pressure.fresh_state_ms.lock() {
                samples.push(state_ms);
            }
            if model {
                let asked = Instant::now();
                send(&mut socket, &json!({"type": "analyse", "simulations": 50})).await?;
                next(&mut socket, FRESH_LIMIT, |m| {
                    m["type"] == "analysis" && m["done"] == true
                })
                .await?;
                let analysis_ms = asked.elapsed().as_secs_f64() * 1000.0;
                if let Ok(mut samples) = pressure.fresh_analysis_ms.lock() {
                    samples.push(analysis_ms);
                }
            }
            socket.close(None).await?;
            anyhow::Ok(())
        };
        if fresh.await.is_err() {
            pressure.fresh_unanswered.fetch_add(1, Ordering::Relaxed);
        }
        tokio::time::sleep(FRESH_EVERY.saturating_sub(started.elapsed())).await;
    }
}

/// The median and the largest of `samples`, in their unit; `None` without
/// samples.
pub fn median_and_max(samples: &Mutex<Vec<f64>>) -> Option<(f64, f64)> {
    let mut values = samples.lock().ok()?.clone();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some((values[values.len() / 2], values[values.len() - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_game_is_legal_and_long() {
        let game = long_game(30).unwrap();
        assert_eq!(game.split(' ').count(), 30);
    }
}
