//! The web server: the page and its assets (built into the binary), and one
//! WebSocket per page that carries the protocol of [`crate::protocol`].
//!
//! Every page is treated as hostile (see README, "The browser: what a page
//! may do"): requests must name this server's own host and sockets come from
//! its own page ([`crate::access`]); connections are bounded and silent ones
//! closed ([`crate::guard`]); pages are bounded in number; seat players
//! come from a menu and hold memory from one budget ([`crate::menu`]);
//! searches run on blocking threads, at most `max_searches` at once across
//! all pages, first come first served with one search per page at a time,
//! each within a wall-clock limit, and stopped the moment their page
//! closes. A bad message gets an `error` that quotes at most a short
//! excerpt, never a crash.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sumito_play::review::{render_review_svg, review_json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::access::Access;
use crate::guard::{GuardedListener, Timeouts};
use crate::menu::{MODEL_SEARCH_MB, MODEL_THINK_LIMIT, PagePolicy, Reservation};
use crate::model::Models;
use crate::protocol::{ClientMessage, ServerMessage};
use crate::session::{GameSession, error};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The largest message a page may send (a pasted record fits easily).
const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// How often the server pings a page: a browser answers by itself, which
/// keeps an open page's connection from counting as silent.
const PING_EVERY: Duration = Duration::from_secs(20);
/// Messages a page may send while one of its searches runs; they are
/// answered in order after it. More are refused.
const MAX_QUEUED: usize = 16;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub address: SocketAddr,
    /// Searches (players' moves and analyses) running at once, all pages together.
    pub max_searches: usize,
    /// Pages (WebSockets) open at once.
    pub max_pages: usize,
    /// TCP connections open at once (pages, and requests for the page).
    pub max_connections: usize,
    /// Memory the pages' players may hold together, in megabytes.
    pub memory_mb: u32,
    /// Origins besides the page's own whose pages may use the server.
    pub allowed_origins: Vec<String>,
    /// Evaluation weights of the two-player alpha-beta players.
    pub alphabeta_weights: Option<PathBuf>,
    pub seed: u64,
}

impl ServeOptions {
    /// A server on `address` with the defaults of `sumito serve`.
    pub fn local(address: SocketAddr) -> ServeOptions {
        ServeOptions {
            address,
            max_searches: 2,
            max_pages: 32,
            max_connections: 128,
            memory_mb: 1024,
            allowed_origins: Vec::new(),
            alphabeta_weights: None,
            seed: 0,
        }
    }
}

struct ServerState {
    models: Arc<Models>,
    searches: Arc<Semaphore>,
    pages: Arc<Semaphore>,
    policy: Arc<PagePolicy>,
    access: Access,
    seed: u64,
}

/// The app: `/` the page, `/app.js`, `/style.css`, `/ws` the game socket;
/// every request first has its `Host` checked.
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
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            check_host,
        ))
        .with_state(state)
}

async fn check_host(
    State(state): State<Arc<ServerState>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match state.access.check_host(request.headers()) {
        Ok(()) => next.run(request).await,
        Err(why) => (StatusCode::MISDIRECTED_REQUEST, why).into_response(),
    }
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

async fn socket(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<Arc<ServerState>>,
) -> Response {
    if let Err(why) = state.access.check_upgrade(&headers) {
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    let Ok(place) = state.pages.clone().try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many pages are open on this server (see --max-pages)",
        )
            .into_response();
    };
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| async move {
            play(socket, state).await;
            drop(place);
        })
}

/// Sets its flag when dropped: a page's searches stop when its task ends,
/// however it ends.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One page's socket: what it sent but was not answered yet, and its pings.
struct Page {
    socket: WebSocket,
    queued: VecDeque<Utf8Bytes>,
    /// Messages refused because too many were queued.
    refused: usize,
    ping: tokio::time::Interval,
}

impl Page {
    fn new(socket: WebSocket) -> Page {
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Page {
            socket,
            queued: VecDeque::new(),
            refused: 0,
            ping,
        }
    }

    async fn send(&mut self, message: &ServerMessage) -> bool {
        match serde_json::to_string(message) {
            Ok(text) => self.socket.send(Message::Text(text.into())).await.is_ok(),
            Err(_) => false,
        }
    }

    /// The page's next message; `None` once it is gone.
    async fn next(&mut self) -> Option<Utf8Bytes> {
        if self.refused > 0 {
            let refused = std::mem::take(&mut self.refused);
            let message = error(format!(
                "{refused} messages were refused: at most {MAX_QUEUED} may wait while a search runs"
            ));
            if !self.send(&message).await {
                return None;
            }
        }
        if let Some(text) = self.queued.pop_front() {
            return Some(text);
        }
        loop {
            tokio::select! {
                incoming = self.socket.recv() => match incoming {
                    Some(Ok(Message::Text(text))) => return Some(text),
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
                    Some(Ok(_)) => {} // pings, pongs, binary
                },
                _ = self.ping.tick() => {
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    /// Whether messages of the page wait their turn.
    fn has_queued(&self) -> bool {
        !self.queued.is_empty()
    }

    /// Waits for `work` while still reading the page, so that a page that
    /// goes is noticed at once; its messages meanwhile wait their turn.
    /// `None` when the page went first.
    async fn wait<T>(&mut self, work: impl Future<Output = T>) -> Option<T> {
        tokio::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return Some(done),
                incoming = self.socket.recv() => match incoming {
                    Some(Ok(Message::Text(text))) => {
                        if self.queued.len() < MAX_QUEUED {
                            self.queued.push_back(text);
                        } else {
                            self.refused += 1;
                        }
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
                    Some(Ok(_)) => {}
                },
                _ = self.ping.tick() => {
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }
}

/// Runs the players whose turn it is, sending the state after each move;
/// `false` when the page is gone.
async fn run_players(page: &mut Page, session: &mut GameSession, state: &ServerState) -> bool {
    while let Some(seat) = session.player_to_move() {
        let Some(mut turn) = session.take_player(seat) else {
            break;
        };
        // Players that search take a slot; random and greedy answer at once.
        let permit = if turn.searches {
            match page.wait(state.searches.clone().acquire_owned()).await {
                Some(Ok(permit)) => Some(permit),
                Some(Err(_)) | None => return false,
            }
        } else {
            None
        };
        let job = tokio::task::spawn_blocking(move || {
            let answer = turn.player.think(&turn.position, Some(turn.cap));
            drop(permit);
            (turn, answer)
        });
        // A page that goes stops the search through its flag.
        let Some(joined) = page.wait(job).await else {
            return false;
        };
        let Ok((turn, answer)) = joined else {
            return page.send(&error("the player stopped unexpectedly")).await;
        };
        if let Err(message) = session.player_done(turn.seat, turn.player, turn.position, answer) {
            return page
                .send(&error(format!("the player could not move: {message}")))
                .await;
        }
        if !page.send(&ServerMessage::State(session.state())).await {
            return false;
        }
    }
    true
}

/// A model search's share of the server: its memory, then its turn among
/// the searches at once; `None` when the page goes while it waits, the
/// reason when the memory is not there.
async fn search_slot(
    page: &mut Page,
    state: &ServerState,
) -> Option<Result<(Reservation, OwnedSemaphorePermit), String>> {
    let reservation = match state.policy.memory.reserve(MODEL_SEARCH_MB) {
        Ok(reservation) => reservation,
        Err(message) => return Some(Err(message)),
    };
    let permit = page
        .wait(state.searches.clone().acquire_owned())
        .await?
        .ok()?;
    Some(Ok((reservation, permit)))
}

/// Runs an analysis the page asked for, streaming its updates; the reply
/// to send after it, or `None` when the page is gone.
async fn analyse(
    page: &mut Page,
    session: &mut GameSession,
    state: &ServerState,
    stop: &Arc<AtomicBool>,
    simulations: Option<u32>,
    position: Option<&str>,
) -> Option<ServerMessage> {
    let (target, sims) = match session.analysis_target(simulations, position) {
        Ok(target) => target,
        Err(message) => return Some(error(message)),
    };
    let (reservation, permit) = match search_slot(page, state).await? {
        Ok(slot) => slot,
        Err(message) => return Some(error(message)),
    };
    // The search runs on a blocking thread and streams its updates here
    // through a channel; it ends at its time limit, or at once when the page
    // goes (its stop flag).
    let (updates, mut received) = tokio::sync::mpsc::unbounded_channel();
    let model = session.shared_model();
    let stop = stop.clone();
    let search = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let result = model.analyse(&target, sims, stop, &mut |analysis| {
            updates.send(analysis.clone()).is_ok() && started.elapsed() < MODEL_THINK_LIMIT
        });
        drop((permit, reservation));
        (target, result)
    });
    let mut previous = None;
    while let Some(analysis) = page.wait(received.recv()).await? {
        // Every update but the last goes out as it comes.
        if let Some(earlier) = previous.replace(analysis)
            && !page
                .send(&GameSession::analysis_message(&target, &earlier, false))
                .await
        {
            return None;
        }
        // A message from the page (a move, most often) ends the analysis:
        // the page has moved on, and its message is not kept waiting.
        if page.has_queued() {
            break;
        }
    }
    // (The search's next update finds nobody to take it, and it ends there.)
    drop(received);
    match page.wait(search).await? {
        Ok((target, Ok(analysis))) => {
            session.note_analysis(&target, &analysis);
            let message = GameSession::analysis_message(&target, &analysis, true);
            if !page.send(&message).await {
                return None;
            }
            Some(ServerMessage::State(session.state()))
        }
        Ok((_, Err(message))) => Some(error(message)),
        Err(_) => Some(error("the analysis stopped unexpectedly")),
    }
}

/// Runs a review the page asked for, streaming its progress; the reply to
/// send after it, or `None` when the page is gone. A message from the page
/// ends it early (the page has moved on).
async fn review(
    page: &mut Page,
    session: &mut GameSession,
    state: &ServerState,
    stop: &Arc<AtomicBool>,
    simulations: Option<u32>,
) -> Option<ServerMessage> {
    let target = match session.review_target(simulations) {
        Ok(target) => target,
        Err(message) => return Some(error(message)),
    };
    let (reservation, permit) = match search_slot(page, state).await? {
        Ok(slot) => slot,
        Err(message) => return Some(error(message)),
    };
    let (progress, mut received) = tokio::sync::mpsc::unbounded_channel();
    let model = session.shared_model();
    let stop = stop.clone();
    let job = tokio::task::spawn_blocking(move || {
        let result = model.review(&target, stop, &mut |done, total| {
            progress.send((done, total)).is_ok()
        });
        drop((permit, reservation));
        result
    });
    while let Some((done, total)) = page.wait(received.recv()).await? {
        if !page
            .send(&ServerMessage::ReviewProgress { done, total })
            .await
        {
            return None;
        }
        if page.has_queued() {
            break;
        }
    }
    // (The review's next progress finds nobody to take it, and it ends.)
    drop(received);
    match page.wait(job).await? {
        Ok(Ok(review)) => Some(ServerMessage::Review {
            review: review_json(&review),
            svg: render_review_svg(&review, "Review of the game"),
        }),
        Ok(Err(message)) => Some(error(message)),
        Err(_) => Some(error("the review stopped unexpectedly")),
    }
}

async fn play(socket: WebSocket, state: Arc<ServerState>) {
    let mut page = Page::new(socket);
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_drop = StopOnDrop(stop.clone());
    let mut session = match GameSession::new(
        state.models.clone(),
        state.policy.clone(),
        stop.clone(),
        state.seed,
    ) {
        Ok(session) => session,
        Err(message) => {
            let _ = page.send(&error(message)).await;
            return;
        }
    };
    if !page.send(&ServerMessage::State(session.state())).await {
        return;
    }
    while let Some(text) = page.next().await {
        let request: ClientMessage = match serde_json::from_str(text.as_str()) {
            Ok(request) => request,
            Err(err) => {
                if !page.send(&error(format!("bad message: {err}"))).await {
                    return;
                }
                continue;
            }
        };
        let reply = match request {
            ClientMessage::Analyse {
                simulations,
                position,
            } => {
                let Some(reply) = analyse(
                    &mut page,
                    &mut session,
                    &state,
                    &stop,
                    simulations,
                    position.as_deref(),
                )
                .await
                else {
                    return;
                };
                reply
            }
            ClientMessage::Review { simulations } => {
                let Some(reply) = review(&mut page, &mut session, &state, &stop, simulations).await
                else {
                    return;
                };
                reply
            }
            other => match session.handle(other) {
                Ok(Some(reply)) => reply,
                Ok(None) => ServerMessage::State(session.state()),
                Err(message) => error(message),
            },
        };
        if !page.send(&reply).await {
            return;
        }
        if !run_players(&mut page, &mut session, &state).await {
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
pub async fn serve(options: ServeOptions, models: Arc<Models>) -> std::io::Result<()> {
    if let Some(path) = &options.alphabeta_weights {
        sumito_arena::eval::EvalWeights::from_toml_file(path).map_err(|err| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("--alphabeta-weights: {err}"),
            )
        })?;
    }
    let listener = tokio::net::TcpListener::bind(options.address).await?;
    let address = listener.local_addr()?;
    // (A closed standard output must not stop the server: no println!.)
    say(&format!(
        "sumito serve: open http://{address}/ (Ctrl-C stops)"
    ));
    if address.ip().is_unspecified() && options.allowed_origins.is_empty() {
        say(
            "sumito serve: listening on every address, but pages are let in only by loopback \
             names: give --allow-origin http://NAME:PORT for the name others use",
        );
    }
    serve_on(listener, &options, models, async {
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
    models: Arc<Models>,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let access = Access::new(address, &options.allowed_origins)
        .map_err(|why| std::io::Error::new(std::io::ErrorKind::InvalidInput, why))?;
    let state = Arc::new(ServerState {
        models,
        searches: Arc::new(Semaphore::new(options.max_searches.max(1))),
        pages: Arc::new(Semaphore::new(options.max_pages.max(1))),
        policy: Arc::new(PagePolicy::new(
            options.memory_mb,
            options.alphabeta_weights.as_deref(),
        )),
        access,
        seed: options.seed,
    });
    let listener = GuardedListener::new(listener, options.max_connections, Timeouts::default());
    axum::serve(listener, router(state))
        .with_graceful_shutdown(stop)
        .await
}

/// [`serve`] on a runtime of its own, for the command line.
pub fn serve_blocking(options: ServeOptions, models: Arc<Models>) -> std::io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(serve(options, models))
}
