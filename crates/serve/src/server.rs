//! The web server: the page and its assets (built into the binary), and one
//! WebSocket per page that carries the protocol of [`crate::protocol`].
//!
//! Every page is treated as hostile (see README, "The browser: what a page
//! may do"): requests must name this server's own host and sockets come from
//! its own page ([`crate::access`]); a request's headers must come whole
//! within [`HEADER_READ_LIMIT`] (hyper's own limit), connections are bounded
//! and idle ones make room for new ones ([`crate::guard`]); pages are
//! bounded in number; seat players come from a menu and hold memory from
//! one budget ([`crate::menu`]); searches run on blocking threads, at most
//! `max_searches` at once across all pages, shared fairly between them
//! ([`crate::slots`]), each within a wall-clock limit and stopped when its
//! page goes ([`crate::searches`]). A bad message gets an `error` that
//! quotes at most a short excerpt, never a crash.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::Listener;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, watch};

use crate::access::Access;
use crate::guard::{Connection, GuardedListener, Timeouts};
use crate::menu::{MODEL_THINK_LIMIT, PagePolicy};
use crate::model::Models;
use crate::page::Page;
use crate::protocol::{ClientMessage, ServerMessage};
use crate::searches::{SearchStop, Shares, analyse, review, run_players, try_move};
use crate::session::{GameSession, error};
use crate::slots::SearchSlots;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const REVIEW_JS: &str = include_str!("assets/review.js");
const ANALYSIS_JS: &str = include_str!("assets/analysis.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The largest message a page may send (a pasted record fits easily).
const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// The longest a request's headers may take to arrive whole (a browser
/// sends them at once); the connection is closed after it.
pub const HEADER_READ_LIMIT: Duration = Duration::from_secs(10);
/// The largest request head (request line and headers) read.
const MAX_HEADER_BYTES: usize = 16 * 1024;

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
    slots: SearchSlots,
    pages: Arc<Semaphore>,
    policy: Arc<PagePolicy>,
    access: Access,
    seed: u64,
}

/// The app: `/` the page, `/app.js`, `/review.js` (the review: graph,
/// better lines, key moments, learn mode), `/analysis.js` (the analysis
/// board: candidates, threats, variations), `/style.css`, `/ws` the game
/// socket;
/// every request first has its `Host` and target checked.
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
            "/review.js",
            get(|| async { asset("text/javascript; charset=utf-8", REVIEW_JS) }),
        )
        .route(
            "/analysis.js",
            get(|| async { asset("text/javascript; charset=utf-8", ANALYSIS_JS) }),
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
    match state.access.check_request(request.headers(), request.uri()) {
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
    Extension(connection): Extension<Connection>,
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
            // An open page is its connection's use: never taken for idle.
            let _in_use = connection.in_use();
            play(socket, state).await;
            drop(place);
        })
}

async fn play(socket: WebSocket, state: Arc<ServerState>) {
    let mut page = Page::new(socket);
    // Set when the page's task ends, however it ends: the seats' players
    // stop with it (each search also has a flag of its own).
    let page_stop = SearchStop::new();
    let slots = state.slots.user();
    let shares = Shares {
        slots: &slots,
        policy: &state.policy,
    };
    let mut session = match GameSession::new(
        state.models.clone(),
        state.policy.clone(),
        page_stop.flag(),
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
                let asked = analyse(
                    &mut page,
                    &mut session,
                    &shares,
                    simulations,
                    position.as_deref(),
                    MODEL_THINK_LIMIT,
                );
                let Some(reply) = asked.await else {
                    return;
                };
                reply
            }
            ClientMessage::Review { simulations } => {
                let Some(reply) = review(&mut page, &mut session, &shares, simulations).await
                else {
                    return;
                };
                reply
            }
            ClientMessage::TryMove { ply, text } => {
                let Some(reply) = try_move(&mut page, &mut session, &shares, ply, &text).await
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
        if !run_players(&mut page, &mut session, &shares).await {
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
        slots: SearchSlots::new(options.max_searches),
        pages: Arc::new(Semaphore::new(options.max_pages.max(1))),
        policy: Arc::new(PagePolicy::new(
            options.memory_mb,
            options.alphabeta_weights.as_deref(),
        )),
        access,
        seed: options.seed,
    });
    let mut listener = GuardedListener::new(listener, options.max_connections, Timeouts::default());
    let app = router(state);
    // Each connection's task holds a receiver; once stopping, the server
    // waits until all are gone (requests answered; pages go on by themselves).
    let (stop_all, connections) = watch::channel(false);
    tokio::pin!(stop);
    loop {
        let stream = tokio::select! {
            (stream, _) = listener.accept() => stream,
            () = &mut stop => break,
        };
        let connection = stream.connection();
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            // Marked in use while its request is answered.
            let in_use = connection.in_use();
            request.extensions_mut().insert(connection.clone());
            let answer = tower_service::Service::call(&mut app.clone(), request);
            async move {
                let response = answer.await;
                drop(in_use);
                response
            }
        });
        let mut stopped = connections.clone();
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_LIMIT)
                .max_header_size(MAX_HEADER_BYTES);
            let served = http
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::pin!(served);
            let stopping = async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            };
            tokio::select! {
                _ = served.as_mut() => {}
                () = stopping => {
                    served.as_mut().graceful_shutdown();
                    let _ = served.await;
                }
            }
        });
    }
    drop(listener);
    let _ = stop_all.send(true);
    drop(connections);
    stop_all.closed().await;
    Ok(())
}

/// [`serve`] on a runtime of its own, for the command line.
pub fn serve_blocking(options: ServeOptions, models: Arc<Models>) -> std::io::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(serve(options, models))
}
