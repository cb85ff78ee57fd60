//! `sumito bench serve`: the server's own time around a seat player's
//! reply. A server runs in this process on a loopback port; a WebSocket
//! client plays the page's part: it sends a move and waits for the state
//! with the player's reply. The player reports how long it thought
//! (`think_ms`); the rest of the round trip is the server's overhead
//! (message parsing, the game state with its legal moves, the blocking
//! thread, two sends). With a model (`--model`, run by `sumito-torch`) it
//! also asks for analyses and takes the search's own time (`elapsed_ms`)
//! from the time until the last update arrives.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sumito_serve::{Model, Models, ServeOptions, serve_on};
use tokio_tungstenite::tungstenite::Message;

/// Games played and moves measured per game.
const GAMES: usize = 6;
const MOVES_PER_GAME: usize = 10;

/// A page's WebSocket to the server (also the soak's, `super::soak`).
pub(super) type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next_message(socket: &mut Socket) -> anyhow::Result<Value> {
    loop {
        match socket
            .next()
            .await
            .context("the server closed the socket")??
        {
            Message::Text(text) => return Ok(serde_json::from_str(text.as_str())?),
            Message::Close(_) => bail!("the server closed the socket"),
            _ => {}
        }
    }
}

/// The next `state` message (an `error` is an error).
async fn next_state(socket: &mut Socket) -> anyhow::Result<Value> {
    loop {
        let message = next_message(socket).await?;
        match message["type"].as_str() {
            Some("state") => return Ok(message),
            Some("error") => bail!("the server said: {}", message["message"]),
            _ => {}
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn measure(url: String) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    // Nagle off on the client too, as browsers have it.
    let (mut socket, _) = tokio_tungstenite::connect_async_with_config(url, None, true).await?;
    next_state(&mut socket).await?;
    let mut overheads = Vec::new();
    let mut thinks = Vec::new();
    for game in 0..GAMES {
        let new_game = json!({
            "type": "new_game",
            "layout": "belgian-daisy",
            "seats": [{"kind": "human"}, {"kind": "classical", "spec": "alphabeta:depth=2"}],
        });
        socket
            .send(Message::Text(new_game.to_string().into()))
            .await?;
        let mut state = next_state(&mut socket).await?;
        for ply in 0..MOVES_PER_GAME {
            let legal = state["legal"].as_array().context("legal moves")?;
            if legal.is_empty() || !state["result"].is_null() {
                break;
            }
            let text = legal[(game * 13 + ply * 7) % legal.len()]["text"].clone();
            let before = state["history"].as_array().map_or(0, Vec::len);
            let started = Instant::now();
            socket
                .send(Message::Text(
                    json!({"type": "move", "text": text}).to_string().into(),
                ))
                .await?;
            loop {
                state = next_state(&mut socket).await?;
                let history = state["history"].as_array().context("history")?;
                if history.len() >= before + 2 || !state["result"].is_null() {
                    break;
                }
            }
            let round_trip = started.elapsed().as_secs_f64() * 1000.0;
            let history = state["history"].as_array().context("history")?;
            if history.len() < before + 2 {
                break;
            }
            let think = history[before + 1]["think_ms"]
                .as_f64()
                .context("think_ms")?;
            overheads.push(round_trip - think);
            thinks.push(think);
        }
    }
    Ok((overheads, thinks))
}

/// Analyses of the position after a few moves: (overhead, search) in ms.
async fn measure_analysis(url: String) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let (mut socket, _) = tokio_tungstenite::connect_async_with_config(url, None, true).await?;
    next_state(&mut socket).await?;
    let people = json!({
        "type": "new_game",
        "layout": "belgian-daisy",
        "seats": [{"kind": "human"}, {"kind": "human"}],
    });
    socket
        .send(Message::Text(people.to_string().into()))
        .await?;
    let mut state = next_state(&mut socket).await?;
    let (mut overheads, mut searches) = (Vec::new(), Vec::new());
    for round in 0..10 {
        let started = Instant::now();
        let ask = json!({"type": "analyse", "simulations": 400});
        socket.send(Message::Text(ask.to_string().into())).await?;
        loop {
            let message = next_message(&mut socket).await?;
            match message["type"].as_str() {
                Some("analysis") if message["done"] == true => {
                    let total = started.elapsed().as_secs_f64() * 1000.0;
                    let search = message["elapsed_ms"].as_f64().context("elapsed_ms")?;
                    overheads.push(total - search);
                    searches.push(search);
                    break;
                }
                Some("error") => bail!("the server said: {}", message["message"]),
                _ => {}
            }
        }
        state = next_state(&mut socket).await?;
        // The next round analyses the position after one more move.
        let legal = state["legal"].as_array().context("legal moves")?;
        let text = legal[(round * 11) % legal.len()]["text"].clone();
        socket
            .send(Message::Text(
                json!({"type": "move", "text": text}).to_string().into(),
            ))
            .await?;
        state = next_state(&mut socket).await?;
    }
    let _ = state;
    Ok((overheads, searches))
}

fn report(name: &str, mut values: Vec<f64>) {
    values.sort_by(f64::total_cmp);
    println!("{name}_median: {:.2} ms", percentile(&values, 0.5));
    println!("{name}_p90: {:.2} ms", percentile(&values, 0.9));
    println!("{name}_max: {:.2} ms", percentile(&values, 1.0));
}

/// Measures a server with `model` (or [`sumito_serve::NoModel`]);
/// `analysis` also measures analyses (which need a model).
pub fn run(model: Arc<dyn Model>, analysis: bool) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (replies, analyses) = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let options = ServeOptions {
            seed: 7,
            ..ServeOptions::local(address)
        };
        let server = tokio::spawn(async move {
            serve_on(listener, &options, Arc::new(Models::one(model)), async {
                let _ = stopped.await;
            })
            .await
        });
        let replies = measure(format!("ws://{address}/ws")).await;
        let analyses = if analysis {
            Some(measure_analysis(format!("ws://{address}/ws")).await)
        } else {
            None
        };
        let _ = stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
        anyhow::Ok((replies, analyses))
    })?;
    let (overheads, thinks) = replies?;
    if overheads.is_empty() {
        bail!("no player reply was measured");
    }
    println!("serve_replies_measured: {} replies", overheads.len());
    report("serve_player_think", thinks);
    report("serve_reply_overhead", overheads);
    if let Some(analyses) = analyses {
        let (overheads, searches) = analyses?;
        println!(
            "serve_analyses_measured: {} analyses of 400 simulations",
            overheads.len()
        );
        report("serve_analysis_search", searches);
        report("serve_analysis_overhead", overheads);
    }
    Ok(())
}
