//! The web server: the page and its assets (built into the binary), and one
//! WebSocket per page that carries the protocol of [`crate::protocol`].
//! Searches run on blocking threads, at most `max_searches` at once across
//! all pages; every message is checked, and a bad one gets an `error`
//! message, never a crash.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use tokio::sync::Semaphore;

use crate::protocol::{ClientMessage, ServerMessage};
use crate::session::{Engines, GameSession, error};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The largest message a page may send (a pasted record fits easily).
const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub address: SocketAddr,
    /// Searches (engine moves and analyses) running at once, all pages together.
    pub max_searches: usize,
    pub seed: u64,
}

struct ServerState {
    engines: Arc<dyn Engines>,
    searches: Arc<Semaphore>,
    seed: u64,
}

/// The app: `/` the page, `/app.js`, `/style.css`, `/ws` the game socket.
fn router(state: Arc<ServerState>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/ws", get(socket))
        .with_state(state)
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn socket(ws: WebSocketUpgrade, State(state): State<Arc<ServerState>>) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| play(socket, state))
}

async fn send(socket: &mut WebSocket, message: &ServerMessage) -> bool {
    match serde_json::to_string(message) {
        Ok(text) => socket.send(Message::Text(text.into())).await.is_ok(),
        Err(_) => false,
    }
}

/// Runs the engines whose turn it is, sending the state after each move.
async fn run_engines(
    socket: &mut WebSocket,
    session: &mut GameSession,
    state: &ServerState,
) -> bool {
    while let Some(seat) = session.engine_to_move() {
        let Some((position, mut engine, cap)) = session.take_engine(seat) else {
            break;
        };
        let Ok(permit) = state.searches.clone().acquire_owned().await else {
            return false;
        };
        let joined = tokio::task::spawn_blocking(move || {
            let answer = engine.think(&position, cap);
            drop(permit);
            (engine, answer)
        })
        .await;
        let Ok((engine, answer)) = joined else {
            return send(socket, &error("the engine stopped unexpectedly")).await;
        };
        if let Err(message) = session.engine_done(seat, engine, position, answer) {
            return send(
                socket,
                &error(format!("the engine could not move: {message}")),
            )
            .await;
        }
        if !send(socket, &ServerMessage::State(session.state())).await {
            return false;
        }
    }
    true
}

async fn play(mut socket: WebSocket, state: Arc<ServerState>) {
    let mut session = GameSession::new(state.engines.clone(), state.seed);
    if !send(&mut socket, &ServerMessage::State(session.state())).await {
        return;
    }
    while let Some(Ok(message)) = socket.recv().await {
        let text = match message {
            Message::Text(text) => text,
            Message::Close(_) => return,
            _ => continue,
        };
        let request: ClientMessage = match serde_json::from_str(text.as_str()) {
            Ok(request) => request,
            Err(err) => {
                if !send(&mut socket, &error(format!("bad message: {err}"))).await {
                    return;
                }
                continue;
            }
        };
        let reply = match request {
            ClientMessage::Analyze {
                simulations,
                position,
            } => match session.analysis_target(simulations, position.as_deref()) {
                Err(message) => Some(error(message)),
                Ok((target, sims)) => {
                    let Ok(permit) = state.searches.clone().acquire_owned().await else {
                        return;
                    };
                    // The search runs on a blocking thread and streams its
                    // updates here through a channel.
                    let (updates, mut received) = tokio::sync::mpsc::unbounded_channel();
                    let engines = state.engines.clone();
                    let search = tokio::task::spawn_blocking(move || {
                        let result = engines.analyse(&target, sims, &mut |analysis| {
                            let _ = updates.send(analysis.clone());
                        });
                        drop(permit);
                        (target, result)
                    });
                    let mut previous = None;
                    while let Some(analysis) = received.recv().await {
                        // Every update but the last goes out as it comes.
                        if let Some(earlier) = previous.replace(analysis)
                            && !send(
                                &mut socket,
                                &GameSession::analysis_message(&target, &earlier, false),
                            )
                            .await
                        {
                            return;
                        }
                    }
                    match search.await {
                        Ok((target, Ok(analysis))) => {
                            session.note_analysis(&target, &analysis);
                            let message = GameSession::analysis_message(&target, &analysis, true);
                            if !send(&mut socket, &message).await {
                                return;
                            }
                            Some(ServerMessage::State(session.state()))
                        }
                        Ok((_, Err(message))) => Some(error(message)),
                        Err(_) => Some(error("the analysis stopped unexpectedly")),
                    }
                }
            },
            other => match session.handle(other) {
                Ok(Some(reply)) => Some(reply),
                Ok(None) => Some(ServerMessage::State(session.state())),
                Err(message) => Some(error(message)),
            },
        };
        if let Some(reply) = reply
            && !send(&mut socket, &reply).await
        {
            return;
        }
        if !run_engines(&mut socket, &mut session, &state).await {
            return;
        }
    }
}

fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Serves until Ctrl-C; prints the address once listening.
pub async fn serve(options: ServeOptions, engines: Arc<dyn Engines>) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(options.address).await?;
    let address = listener.local_addr()?;
    // (A closed standard output must not stop the server: no println!.)
    say(&format!(
        "sumito serve: open http://{address}/ (Ctrl-C stops)"
    ));
    serve_on(listener, &options, engines, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    say("sumito serve: stopped");
    Ok(())
}

/// Serves on `listener` until `stop` completes (the benchmark and tests run
/// a server in their own process this way).
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    options: &ServeOptions,
    engines: Arc<dyn Engines>,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let state = Arc::new(ServerState {
        engines,
        searches: Arc::new(Semaphore::new(options.max_searches.max(1))),
        seed: options.seed,
    });
    // Small messages go out at once: without TCP_NODELAY a reply waits for
    // the peer's delayed acknowledgement (about 40 ms on Linux).
    let listener = listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, router(state))
        .with_graceful_shutdown(stop)
        .await
}

/// [`serve`] on a runtime of its own, for the command line.
pub fn serve_blocking(options: ServeOptions, engines: Arc<dyn Engines>) -> std::io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(serve(options, engines))
}
