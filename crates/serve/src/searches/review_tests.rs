//! The tests of a page's review and of a move tried in learn mode after
//! it: each stops at once when its page moves on or goes, not at the end
//! of the position it is searching.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::Message;

use crate::menu::MAX_SIMULATIONS;
use crate::model::{Model, Models};
use crate::server::{ServeOptions, serve_on};
use crate::test_model::{Evaluations, TestModel};

/// One position's evaluation: it sleeps rather than computes, so that its
/// time holds on a busy machine. A search's batch (8 evaluations) takes
/// 80 ms, and a review's position its whole limit whatever its simulations.
const EVALUATION: Duration = Duration::from_millis(10);

/// A two-player model that plays, reviews and analyses with an evaluator
/// of [`EVALUATION`] a position, always (it never slows).
fn slow_model() -> TestModel {
    TestModel::two_player(
        "slow",
        Evaluations::Slowing {
            each: EVALUATION,
            fast: usize::MAX,
            slowdown: 1.0,
        },
    )
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A server of `model` with one search slot, on a free port of 127.0.0.1;
/// its WebSocket's address.
async fn serve_model(model: Arc<dyn Model>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut options = ServeOptions::local(listener.local_addr().unwrap());
    options.max_searches = 1;
    let url = format!("ws://{}/ws", options.address);
    tokio::spawn(async move {
        let models = Arc::new(Models::one(model));
        serve_on(listener, &options, models, std::future::pending()).await
    });
    url
}

async fn send(page: &mut Socket, message: serde_json::Value) {
    use futures_util::SinkExt;
    page.send(Message::text(message.to_string())).await.unwrap();
}

/// The page's next message of `kind` (others are skipped), within 10 s.
async fn next_of(page: &mut Socket, kind: &str) -> serde_json::Value {
    use futures_util::StreamExt;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let message = tokio::time::timeout_at(deadline, page.next())
            .await
            .unwrap_or_else(|_| panic!("no {kind} message within 10 s"))
            .expect("the server closed the page")
            .unwrap();
        let Message::Text(text) = message else {
            continue;
        };
        let message: serde_json::Value = serde_json::from_str(&text).unwrap();
        if message["type"] == kind {
            return message;
        }
    }
}

/// A page of the server at `url` that loaded a game of three moves and
/// asked for its review at the most simulations, once the search of its
/// first position is under way.
async fn reviewing(url: &str) -> Socket {
    let (mut page, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    next_of(&mut page, "state").await;
    send(
        &mut page,
        serde_json::json!({"type": "load", "record": "1. A1B2 I5H5\n2. B1C2"}),
    )
    .await;
    next_of(&mut page, "state").await;
    send(
        &mut page,
        serde_json::json!({"type": "review", "simulations": MAX_SIMULATIONS}),
    )
    .await;
    let progress = next_of(&mut page, "review_progress").await;
    assert_eq!(progress["done"], 0, "{progress}");
    assert_eq!(progress["total"], 4, "{progress}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    page
}

/// A review's position is searched for up to a second
/// ([`REVIEW_POSITION_LIMIT`], more where it overruns), whatever its
/// simulations. A message from its page (a stop, an undo, a new game) or
/// the page going ends it within half a second: the search in progress
/// stops at its next batch, not at the end of its position.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_stops_within_half_a_second_of_a_message_or_its_page_going() {
    let within = Duration::from_millis(500);
    let model = Arc::new(slow_model());
    let running = model.running.clone();
    let url = serve_model(model).await;
    for message in [
        serde_json::json!({"type": "stop"}),
        serde_json::json!({"type": "undo"}),
        serde_json::json!({"type": "new_game", "layout": "standard",
                           "seats": [{"kind": "human"}, {"kind": "human"}]}),
    ] {
        let mut page = reviewing(&url).await;
        assert_eq!(running.load(Ordering::SeqCst), 1);
        let started = Instant::now();
        send(&mut page, message.clone()).await;
        // The review's end is sent once its thread is done.
        let reply = next_of(&mut page, "error").await;
        let took = started.elapsed();
        eprintln!("a review ended {took:?} after its page's {message}");
        assert!(
            reply["message"].as_str().unwrap().contains("stopped"),
            "{message}: {reply}"
        );
        assert!(
            took < within,
            "{message}: the review ended {took:?} after it"
        );
        assert_eq!(running.load(Ordering::SeqCst), 0);
        // The message itself is answered after it.
        let state = next_of(&mut page, "state").await;
        let moves = state["history"].as_array().unwrap().len();
        let expected = match message["type"].as_str() {
            Some("undo") => 2,
            Some("new_game") => 0,
            _ => 3,
        };
        assert_eq!(moves, expected, "{message}: {state}");
    }
    // The page goes in the middle of a position's search.
    let page = reviewing(&url).await;
    let started = Instant::now();
    drop(page);
    while running.load(Ordering::SeqCst) > 0 {
        let took = started.elapsed();
        assert!(
            took < within,
            "the review ran on {took:?} after its page went"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    eprintln!("a review ended {:?} after its page went", started.elapsed());
}

/// A move tried in learn mode is searched by the model (within
/// [`crate::menu::REVIEW_POSITION_DEADLINE`]). A message from its page (a
/// stop, an undo, another move tried) ends it within half a second, as it
/// ends a review or an analysis: the page has moved on. Stopped, it is
/// judged on what its search had (here, before its first update).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tried_move_stops_within_half_a_second_of_a_message() {
    let within = Duration::from_millis(500);
    let model = Arc::new(slow_model().with_position_limit(Duration::from_millis(200)));
    let running = model.running.clone();
    let url = serve_model(model).await;
    let (mut page, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    next_of(&mut page, "state").await;
    send(
        &mut page,
        serde_json::json!({"type": "load", "record": "1. A1B2 I5H5\n2. B1C2"}),
    )
    .await;
    next_of(&mut page, "state").await;
    send(
        &mut page,
        serde_json::json!({"type": "review", "simulations": MAX_SIMULATIONS}),
    )
    .await;
    let review = next_of(&mut page, "review").await;
    // A first move that is neither the one played nor the review's better
    // one: the model searches the position after it (at the review's
    // simulations, far more than the deadline allows).
    let judged = &review["review"]["moves"][0];
    let known = [&judged["move"], &judged["better"]["move"]];
    let tried = ["C3D4", "B5C6", "C4D5"]
        .into_iter()
        .find(|mv| !known.contains(&&serde_json::json!(mv)))
        .unwrap();
    send(
        &mut page,
        serde_json::json!({"type": "try_move", "ply": 1, "text": tried}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(running.load(Ordering::SeqCst), 1, "the search is under way");
    let started = Instant::now();
    send(&mut page, serde_json::json!({"type": "stop"})).await;
    let reply = next_of(&mut page, "tried").await;
    let took = started.elapsed();
    eprintln!("a tried move's search ended {took:?} after its page's stop: {reply}");
    assert_eq!(reply["tried"], tried, "{reply}");
    assert!(reply["score"].as_f64().is_some(), "{reply}");
    assert!(
        took < within,
        "the tried move's search ended {took:?} after it"
    );
    assert_eq!(running.load(Ordering::SeqCst), 0);
    // The stop itself is answered after it.
    next_of(&mut page, "state").await;
}
