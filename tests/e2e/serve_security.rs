//! The security suite of `sumito serve`: every way a hostile page (or a
//! local program) was found to harm the server or the user, replayed against
//! the real binary. Each test checks that the server survives, that a fresh
//! page is answered at once, and that nothing of the user's files leaks.
//! (Any web page the user visits can reach 127.0.0.1: README, "The browser:
//! what a page may do".)

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A child process killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `sumito serve --no-model --port 0 EXTRA...`.
    fn start(extra: &[&str]) -> Server {
        Server::launch(&["--no-model"], extra)
    }

    /// `sumito serve --model quick --port 0 EXTRA...`: the shipped model.
    fn start_model(extra: &[&str]) -> Server {
        Server::launch(&["--model", "quick"], extra)
    }

    fn launch(model: &[&str], extra: &[&str]) -> Server {
        let mut child = Command::new(SUMITO)
            .args(["serve", "--port", "0", "--seed", "5"])
            .args(model)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let port = loop {
            let mut line = String::new();
            assert!(
                reader.read_line(&mut line).unwrap() > 0,
                "no address printed"
            );
            if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                let port = url.trim_end_matches('/').rsplit(':').next().unwrap();
                break port.parse().unwrap();
            }
        };
        // Keep reading its output so that it never blocks on a full pipe.
        std::thread::spawn(move || for _ in reader.lines() {});
        Server { child, port }
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws", self.port)
    }

    /// A page of this server (its own origin), after its first state.
    async fn page(&self) -> Socket {
        self.page_from(Some(&format!("http://127.0.0.1:{}", self.port)))
            .await
            .expect("the page's own origin is let in")
    }

    async fn page_from(&self, origin: Option<&str>) -> Result<Socket, String> {
        let mut request = self.ws_url().into_client_request().unwrap();
        if let Some(origin) = origin {
            request
                .headers_mut()
                .insert("Origin", origin.parse().unwrap());
        }
        let (mut socket, _) = tokio_tungstenite::connect_async(request)
            .await
            .map_err(|err| err.to_string())?;
        let state = next_of(&mut socket, "state", Duration::from_secs(5)).await;
        assert_eq!(state["type"], "state");
        Ok(socket)
    }

    /// A fresh page answers its first state, and a move of `random`,
    /// within a second. (The seat is asked for by its older kind,
    /// `engine`, which the server still reads.)
    async fn answers_a_fresh_page(&self) {
        let started = Instant::now();
        let mut page = self.page().await;
        send(
            &mut page,
            json!({"type":"new_game","layout":"standard","seats":[
                {"kind":"engine","spec":"random"},{"kind":"human"}]}),
        )
        .await;
        let state = loop {
            let state = next_of(&mut page, "state", Duration::from_secs(5)).await;
            if state["history"].as_array().is_some_and(|h| h.len() == 1) {
                break state;
            }
        };
        assert!(state["human_to_move"].as_bool().unwrap());
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "a fresh page took {took:?}");
    }
}

async fn send(socket: &mut Socket, message: Value) {
    socket
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
}

/// The next message of type `kind` (others are skipped), within `wait`.
async fn next_of(socket: &mut Socket, kind: &str, wait: Duration) -> Value {
    tokio::time::timeout(wait, async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    let value: Value = serde_json::from_str(text.as_str()).unwrap();
                    if value["type"] == kind {
                        return value;
                    }
                }
                Some(Ok(_)) => {}
                other => panic!("the socket ended waiting for {kind}: {other:?}"),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {kind} message within {wait:?}"))
}

fn classical_game(spec: &str) -> Value {
    json!({"type":"new_game","layout":"standard","seats":[
        {"kind":"classical","spec":spec},{"kind":"human"}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_cannot_size_memory_or_read_files_through_a_player() {
    let mut server = Server::start(&[]);
    let secret = std::env::temp_dir().join(format!("sumito-secret-{}.toml", std::process::id()));
    std::fs::write(&secret, "SECRET-LINE = \"do not show\"\n").unwrap();
    let mut page = server.page().await;
    for spec in [
        "alphabeta:tt_mb=65536".to_string(),
        format!("alphabeta:weights={}", secret.display()),
        "alphabeta:weights=/proc/self/environ".to_string(),
        "alphabeta:weights=/dev/zero".to_string(),
        "greedy:weights=/etc/passwd".to_string(),
    ] {
        send(&mut page, classical_game(&spec)).await;
        let reply = next_of(&mut page, "error", Duration::from_secs(5)).await;
        let message = reply["message"].as_str().unwrap();
        assert!(
            message.contains("not offered") || message.contains("no parameters"),
            "{spec}: {message}"
        );
        assert!(
            !message.contains("SECRET") && !message.contains("PATH="),
            "{message}"
        );
    }
    std::fs::remove_file(&secret).unwrap();
    assert!(server.alive());
    server.answers_a_fresh_page().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_page_or_name_is_refused() {
    let server = Server::start(&[]);
    for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
        let err = server.page_from(Some(origin)).await.unwrap_err();
        assert!(err.contains("403"), "{origin}: {err}");
    }
    // DNS rebinding: a request naming another host.
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: evil.example:8080\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
    // The page's own origin and programs without one are let in.
    server.page().await;
    server.page_from(None).await.unwrap();
    let allowed = Server::start(&["--allow-origin", "http://board.lan:8080"]);
    allowed
        .page_from(Some("http://board.lan:8080"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_searches_are_limited_and_stop_when_their_page_goes() {
    let server = Server::start(&[]);
    // Two pages ask for the deepest search: both search slots are taken.
    let mut deep = Vec::new();
    for _ in 0..2 {
        let mut page = server.page().await;
        send(&mut page, classical_game("alphabeta:depth=8")).await;
        next_of(&mut page, "state", Duration::from_secs(5)).await;
        deep.push(page);
    }
    // Players that do not search are answered at once meanwhile.
    server.answers_a_fresh_page().await;
    // Many more pages queue deep searches and leave.
    for _ in 0..10 {
        let mut page = server.page().await;
        send(&mut page, classical_game("alphabeta:time=10s")).await;
        next_of(&mut page, "state", Duration::from_secs(5)).await;
        drop(page);
    }
    drop(deep);
    // Their searches stop with their pages: a fresh searching player gets
    // a slot within a couple of seconds (without stopping, 12 searches of
    // 10 s on two slots would hold it for a minute).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let mut page = server.page().await;
    send(&mut page, classical_game("alphabeta:depth=1")).await;
    loop {
        let state = next_of(&mut page, "state", Duration::from_secs(30)).await;
        if state["history"].as_array().is_some_and(|h| h.len() == 1) {
            break;
        }
    }
    let took = started.elapsed();
    assert!(took < Duration::from_secs(4), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_and_many_pages_do_not_lock_the_page_out() {
    let mut server = Server::start(&["--max-connections", "32", "--max-pages", "3"]);
    let silent: Vec<std::net::TcpStream> = (0..100)
        .filter_map(|_| std::net::TcpStream::connect(("127.0.0.1", server.port)).ok())
        .collect();
    assert!(silent.len() >= 90);
    let started = Instant::now();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    drop(silent);
    // Pages are bounded: the fourth is refused until one closes.
    let pages = [
        server.page().await,
        server.page().await,
        server.page().await,
    ];
    let err = server.page_from(None).await.unwrap_err();
    assert!(err.contains("503"), "{err}");
    drop(pages);
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.answers_a_fresh_page().await;
    assert!(server.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_messages_and_short_errors() {
    let mut server = Server::start(&[]);
    let mut page = server.page().await;
    for bad in [
        json!({"type":"save","extra":1}),
        json!({"type":"undo","x":null}),
        json!({"type":"move","text":"A1B2","more":true}),
        json!({"type":"new_game","layout":"standard","seats":[{"kind":"human","x":1},{"kind":"human"}]}),
    ] {
        send(&mut page, bad.clone()).await;
        let reply = next_of(&mut page, "error", Duration::from_secs(5)).await;
        assert!(
            reply["message"].as_str().unwrap().contains("unknown field"),
            "{bad}: {reply}"
        );
    }
    let huge = "Z".repeat(1_000_000);
    send(&mut page, json!({"type":"move","text":huge})).await;
    let reply = next_of(&mut page, "error", Duration::from_secs(5)).await;
    let message = reply["message"].as_str().unwrap();
    assert!(
        message.chars().count() <= 240,
        "{} characters",
        message.len()
    );
    send(&mut page, json!({"type":"load","record":huge})).await;
    let reply = next_of(&mut page, "error", Duration::from_secs(5)).await;
    assert!(reply["message"].as_str().unwrap().chars().count() <= 240);
    assert!(server.alive());
    server.answers_a_fresh_page().await;
}

/// Sends `request` on a connection of its own and reads the answer to its end.
fn http(port: u16, request: &[u8]) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_are_cut_off_and_cannot_keep_the_page_from_loading() {
    let mut server = Server::start(&["--max-connections", "16"]);
    // More connections than places, each sending its request a byte at a
    // time: they have all spoken, but none is in use.
    let mut slow: Vec<std::net::TcpStream> = (0..24)
        .filter_map(|_| {
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).ok()?;
            stream.write_all(b"G").ok()?;
            Some(stream)
        })
        .collect();
    assert!(slow.len() >= 20);
    std::thread::sleep(Duration::from_millis(300));
    for stream in &mut slow {
        let _ = stream.write_all(b"E");
    }
    let started = Instant::now();
    let answer = http(
        server.port,
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:.200}");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "the page took {took:?}");
    drop(slow);
    // A request whose headers never end is closed at the header limit (10 s).
    let mut slowest = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    slowest
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    slowest.write_all(b"GET / HTTP/1.1\r\n").unwrap();
    let started = Instant::now();
    let closed = loop {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "a request without the end of its headers was kept open"
        );
        if slowest.write_all(b"X").is_err() {
            break started.elapsed();
        }
        let mut byte = [0u8; 64];
        match slowest.read(&mut byte) {
            Ok(0) | Err(_) if started.elapsed() > Duration::from_secs(9) => {
                break started.elapsed();
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(closed < Duration::from_secs(15), "{closed:?}");
    assert!(server.alive());
    server.answers_a_fresh_page().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_host_header_and_the_servers_own_target_only() {
    let mut server = Server::start(&[]);
    for request in [
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        "GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    ] {
        let answer = http(server.port, request.as_bytes());
        assert!(
            answer.starts_with("HTTP/1.1 4"),
            "{request:?}: {answer:.200}"
        );
    }
    let own = format!(
        "GET http://127.0.0.1:{}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        server.port
    );
    assert!(http(server.port, own.as_bytes()).starts_with("HTTP/1.1 200"));
    // A page's rules are checked as a file's: a layout that is none is
    // refused by name.
    let mut page = server.page().await;
    send(
        &mut page,
        json!({"type":"new_game","layout":"standard","rules":{"layouts":["../../etc/passwd"]},
               "seats":[{"kind":"human"},{"kind":"human"}]}),
    )
    .await;
    let reply = next_of(&mut page, "error", Duration::from_secs(5)).await;
    let message = reply["message"].as_str().unwrap();
    assert!(message.contains("rules.layouts[0]"), "{message}");
    assert!(server.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_up_to_the_limit_plays_whatever_memory_the_others_hold() {
    let mut server = Server::start(&["--memory-mb", "64", "--max-pages", "8"]);
    // Four first games against alpha-beta (16 MB each) fill the budget; the
    // pages after them start with people on both seats.
    let mut pages = Vec::new();
    for _ in 0..8 {
        pages.push(server.page().await);
    }
    for page in &mut pages {
        send(
            page,
            json!({"type":"new_game","layout":"standard",
                   "seats":[{"kind":"human"},{"kind":"human"}]}),
        )
        .await;
        next_of(page, "state", Duration::from_secs(5)).await;
        send(page, json!({"type":"move","text":"A1B2"})).await;
        let state = next_of(page, "state", Duration::from_secs(5)).await;
        assert_eq!(state["history"].as_array().unwrap().len(), 1, "{state}");
    }
    assert!(server.alive());
}

/// A game of `plies` moves from the Standard start, as a list of moves.
fn game_text(plies: usize) -> String {
    use sumito_engine::general::GeneralLayout;
    use sumito_engine::rules_table::RulesTable;
    let layout = GeneralLayout::from_name("standard").unwrap();
    let mut position = RulesTable::default().start(layout).unwrap();
    let mut moves = Vec::new();
    for ply in 0..plies {
        let legal = position.legal_moves();
        let mv = legal[(ply * 7) % legal.len()];
        moves.push(mv.to_text());
        position = position.play(mv);
    }
    moves.join(" ")
}

/// A page of `server` reviewing a game of 30 moves at 20,000 simulations a
/// position, once its review is under way.
async fn long_review(server: &Server) -> Socket {
    let mut page = server.page().await;
    send(&mut page, json!({"type":"load","record":game_text(30)})).await;
    next_of(&mut page, "state", Duration::from_secs(5)).await;
    send(&mut page, json!({"type":"review","simulations":20000})).await;
    next_of(&mut page, "review_progress", Duration::from_secs(10)).await;
    page
}

/// Asks `page` for an analysis of 50 simulations; how long its last update
/// took to come.
async fn short_analysis(page: &mut Socket) -> Duration {
    let started = Instant::now();
    send(page, json!({"type":"analyse","simulations":50})).await;
    loop {
        let analysis = next_of(page, "analysis", Duration::from_secs(60)).await;
        if analysis["done"] == true {
            return started.elapsed();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_reviews_share_the_server_and_stop_when_their_pages_go() {
    // Two pages review long games on the two search slots: a fresh page's
    // short analysis still comes within 2 s (a review gives its slot back
    // between positions, each a bounded search).
    let mut server = Server::start_model(&["--max-searches", "2"]);
    let reviewers = [long_review(&server).await, long_review(&server).await];
    let mut fresh = server.page().await;
    let took = short_analysis(&mut fresh).await;
    eprintln!("a fresh page's 50-simulation analysis beside two long reviews: {took:?}");
    assert!(
        took < Duration::from_secs(2),
        "the fresh page waited {took:?}"
    );
    drop(reviewers);
    // On one slot, a review stops with its page: the next page's analysis
    // does not wait for the rest of the game.
    let lone = Server::start_model(&["--max-searches", "1"]);
    let reviewer = long_review(&lone).await;
    drop(reviewer);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut next = lone.page().await;
    let took = short_analysis(&mut next).await;
    eprintln!("the next page's analysis after a reviewer left the only slot: {took:?}");
    assert!(
        took < Duration::from_secs(2),
        "the next page waited {took:?}"
    );
    assert!(server.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_models_move_keeps_within_its_limit_whatever_its_simulations() {
    // Half a minute on the clock: a move may take a twentieth of it, 1.5 s,
    // however many simulations the page asks for.
    let mut server = Server::start_model(&[]);
    let mut page = server.page().await;
    send(
        &mut page,
        json!({"type":"new_game","layout":"standard",
               "clock":{"minutes":0.5,"increment_seconds":0},
               "seats":[{"kind":"model","simulations":20000},{"kind":"human"}]}),
    )
    .await;
    let state = loop {
        let state = next_of(&mut page, "state", Duration::from_secs(30)).await;
        if state["history"].as_array().is_some_and(|h| h.len() == 1) {
            break state;
        }
    };
    let think_ms = state["history"][0]["think_ms"].as_f64().unwrap();
    eprintln!("a model's move at 20,000 simulations with 1.5 s to think: {think_ms:.0} ms");
    assert!(think_ms <= 1_600.0, "the model thought {think_ms} ms");
    assert!(server.alive());
}
