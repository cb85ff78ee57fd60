//! The review in the browser, as a person uses it with the shipped model:
//! a match record loaded into `sumito serve`, reviewed; the win graph with
//! a point per position, its phases and judged moves; a judged move
//! clicked shows the better move and its line as arrows on the board
//! before it, with the reason; the previous and next mistake; learning
//! from a mistake (the game's move refused, the model's move and a move
//! picked on the board judged by the server's model, the solution shown);
//! and a new game clears it all. After a review the graph goes on: the
//! model's later moves and the later positions analysed are plotted after
//! the reviewed ones. Screenshots at a desktop's and a phone's size are
//! written to the tests' target folder.

use std::process::Command;

use fantoccini::{Client, Locator};
use serde_json::Value;

use crate::common::browser::{open_page, wait_for, wait_text};
use crate::common::{Scratch, first_record};
use crate::serve::{click, start_new_game, start_server, type_move};

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// A match game of random (Black) against greedy with a random opening of
/// two plies: random makes mistakes to learn from.
fn match_record(dir: &std::path::Path) -> String {
    let output = Command::new(SUMITO)
        .args(["arena", "--player", "random", "--player", "greedy"])
        .args(["--games", "2", "--max-plies", "60", "--opening-plies", "2"])
        .args(["--no-progress", "--out", "records"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    std::fs::read_to_string(first_record(&dir.join("records"))).unwrap()
}

async fn js(client: &Client, script: &str) -> Value {
    client
        .execute(script, vec![])
        .await
        .unwrap_or_else(|err| panic!("{script}: {err}"))
}

/// Clicks the element `selector` finds by a script (SVG shapes under
/// others included), as a tap does.
async fn tap(client: &Client, selector: &str) {
    let done = js(
        client,
        &format!(
            "const e = document.querySelector(\"{selector}\"); if (!e) return false; \
             e.dispatchEvent(new MouseEvent('click', {{bubbles: true}})); return true;"
        ),
    )
    .await;
    assert_eq!(done, true, "nothing to tap at {selector}");
}

async fn shot(client: &Client, name: &str) {
    let folder = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(folder.join(name), client.screenshot().await.unwrap()).unwrap();
}

/// The ply whose position the page shows (the move list's cursor).
async fn cursor(client: &Client) -> i64 {
    js(client, "return state.cursor;").await.as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_in_the_browser_shows_the_better_lines_and_sets_the_mistakes_again() {
    let scratch = Scratch::new("serve-review");
    let record = match_record(&scratch.0);
    let (_server, url) = start_server(&["--model", "quick", "--max-searches", "1"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "to move").await;
    // Before any review the graph says what fills it.
    wait_for("the empty graph's note", || async {
        let text = js(&client, "return $('graph').textContent;").await;
        text.as_str()?.contains("no analysis yet").then_some(())
    })
    .await;
    // The match's record loaded, then reviewed at 24 simulations a position.
    let script = format!(
        "$('record').value = {}; $('load').click();",
        serde_json::to_string(&record).unwrap()
    );
    js(&client, &script).await;
    let moves = wait_for("the loaded game", || async {
        let n = js(&client, "return state.history.length;").await.as_u64()?;
        (n > 10).then_some(n as usize)
    })
    .await;
    js(&client, "$('review-sims').value = '24';").await;
    click(&client, "[data-testid=review]").await;
    let status = wait_text(&client, "#review-status", |t| t.starts_with("reviewed")).await;
    assert!(
        status.contains(&format!("reviewed {moves} moves"))
            && status.contains("the first 2 (a random opening) not judged"),
        "{status}"
    );
    let review = js(&client, "return review;").await;
    // The random opening is shown, not judged.
    for mv in &review["moves"].as_array().unwrap()[..2] {
        assert_eq!(mv["random_opening"], true, "{mv}");
        assert!(mv["judgement"].is_null(), "{mv}");
    }
    assert_eq!(review["meta"]["simulations"], 24);
    // The graph: a point per position, the judged moves marked, the phase
    // dividers, the axes.
    let plies = js(
        &client,
        "return new Set([...document.querySelectorAll('#graph .graph-point')].map(p => p.dataset.ply)).size;",
    )
    .await;
    assert_eq!(plies, moves + 1);
    let judged = crate::review::judged_plies(&review);
    assert!(judged.len() >= 2, "{review}");
    let marks = js(
        &client,
        "return document.querySelectorAll('#graph .graph-judgement').length;",
    )
    .await;
    assert_eq!(marks, judged.len());
    let phases = js(
        &client,
        "return document.querySelectorAll('#graph line.phase').length;",
    )
    .await;
    assert!(
        phases.as_u64().unwrap() >= 1,
        "the middlegame begins by move 31"
    );
    let height = js(&client, "return $('graph').getBoundingClientRect().height;").await;
    assert!(
        height.as_f64().unwrap() >= 150.0,
        "a graph {height} px tall"
    );
    // A click on the graph goes to that ply.
    tap(&client, "#graph .graph-hit").await;
    wait_for("the graph's ply", || async {
        (cursor(&client).await != moves as i64).then_some(())
    })
    .await;
    // A judged move clicked in the table: the board before it, the move
    // played and the better line as arrows, the explanation.
    let first = judged[0];
    tap(&client, &format!("#review-moves tr[data-ply='{first}']")).await;
    wait_for("the position before the judged move", || async {
        (cursor(&client).await == first as i64 - 1).then_some(())
    })
    .await;
    let explained = wait_text(&client, "#judged-move", |t| t.contains("points lost")).await;
    let mv = &review["moves"][first - 1];
    assert!(
        explained.contains(&format!("Move {first}, "))
            && explained.contains(mv["move"].as_str().unwrap()),
        "{explained}"
    );
    let better = mv["better"]["move"].as_str().unwrap().to_string();
    assert!(
        explained.contains(&format!("Better: {better}")),
        "{explained}"
    );
    let arrows = wait_for("the arrows", || async {
        let arrows = js(
            &client,
            "return [...document.querySelectorAll('#board .review-arrow')].map(a => [a.classList[1], a.dataset.move]);",
        )
        .await;
        (arrows.as_array()?.len() >= 2).then_some(arrows)
    })
    .await;
    assert!(
        arrows
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(["better", better])),
        "{arrows}"
    );
    assert!(
        arrows
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(["played", mv["move"]])),
        "{arrows}"
    );
    // The judged move of the longest better line: its moves numbered on
    // the board. (The board stays in view beside the panel, the graph
    // scrolled to.)
    let longest = judged
        .iter()
        .copied()
        .max_by_key(|&ply| {
            review["moves"][ply - 1]["better"]["line"]
                .as_array()
                .map_or(0, Vec::len)
        })
        .unwrap();
    let length = review["moves"][longest - 1]["better"]["line"]
        .as_array()
        .unwrap()
        .len();
    tap(&client, &format!("#review-moves tr[data-ply='{longest}']")).await;
    wait_for("the longest line's numbers", || async {
        let labels = js(
            &client,
            "return document.querySelectorAll('#board .review-label').length;",
        )
        .await;
        let expected = if length > 1 { length.min(6) } else { 0 };
        (cursor(&client).await == longest as i64 - 1 && labels == expected).then_some(())
    })
    .await;
    js(&client, "$('review-panel').scrollIntoView();").await;
    shot(&client, "serve-review-desktop.png").await;
    // The next and the previous mistake, by button and by key.
    tap(&client, &format!("#review-moves tr[data-ply='{first}']")).await;
    wait_text(&client, "#judged-move", |t| {
        t.contains(&format!("Move {first}, "))
    })
    .await;
    click(&client, "[data-testid=next-mistake]").await;
    let second = judged[1];
    wait_text(&client, "#judged-move", |t| {
        t.contains(&format!("Move {second}, "))
    })
    .await;
    client
        .find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys("p")
        .await
        .unwrap();
    wait_text(&client, "#judged-move", |t| {
        t.contains(&format!("Move {first}, "))
    })
    .await;
    // A judged move clicked in the move list shows it too.
    tap(&client, &format!("#moves [data-ply='{second}']")).await;
    wait_text(&client, "#judged-move", |t| {
        t.contains(&format!("Move {second}, "))
    })
    .await;
    // On a phone: the graph and the better line, then learn mode.
    // On a phone the judged move is explained under the board, the graph
    // follows the analysis.
    tap(&client, &format!("#review-moves tr[data-ply='{longest}']")).await;
    wait_text(&client, "#judged-move", |t| {
        t.contains(&format!("Move {longest}, "))
    })
    .await;
    client.set_window_size(390, 844).await.unwrap();
    js(&client, "window.scrollTo(0, 0);").await;
    shot(&client, "serve-review-phone.png").await;
    js(&client, "$('graph').scrollIntoView();").await;
    shot(&client, "serve-review-graph-phone.png").await;
    client.set_window_size(1366, 900).await.unwrap();

    // Learn from the mistakes: every seat of a loaded record is a person's,
    // so every side's mistakes and blunders are set.
    click(&client, "[data-testid=learn]").await;
    let prompt = wait_text(&client, "#learn-prompt", |t| t.contains(" of ")).await;
    let exercise: usize = js(&client, "return learning.plies[0];")
        .await
        .as_u64()
        .unwrap() as usize;
    assert!(
        prompt.starts_with("1 of ") && prompt.contains(&format!("move {exercise}, ")),
        "{prompt}"
    );
    wait_for("the position before the mistake", || async {
        (cursor(&client).await == exercise as i64 - 1).then_some(())
    })
    .await;
    let mv = &review["moves"][exercise - 1];
    assert!(
        mv["judgement"] == "mistake" || mv["judgement"] == "blunder",
        "{mv}"
    );
    // The solution is not drawn while the person looks for it.
    let drawn = js(
        &client,
        "return document.querySelectorAll('#board .review-arrow.better').length;",
    )
    .await;
    assert_eq!(drawn, 0);
    // The game's own move is refused.
    let input = client.find(Locator::Css("#learn-input")).await.unwrap();
    input
        .send_keys(&format!("{}\n", mv["move"].as_str().unwrap()))
        .await
        .unwrap();
    wait_text(&client, "#learn-verdict", |t| {
        t.contains("That is the move of the game")
    })
    .await;
    // A move picked on the board (the last legal one that is neither the
    // game's nor the model's) is searched by the model and judged.
    let picked = js(
        &client,
        &format!(
            "const line = reviewLines.get({exercise}); \
             return line.legal.filter(m => m.text !== {:?} && m.text !== {:?}).pop();",
            mv["move"].as_str().unwrap(),
            mv["better"]["move"].as_str().unwrap()
        ),
    )
    .await;
    for cell in picked["from"].as_array().unwrap() {
        tap(
            &client,
            &format!(
                "#board circle.marble[data-cell='{}']",
                cell.as_str().unwrap()
            ),
        )
        .await;
    }
    let to = picked["to"][0].as_str().unwrap();
    tap(&client, &format!("#board [data-cell='{to}']")).await;
    let verdict = wait_text(&client, "#learn-verdict", |t| t.contains(" keeps ")).await;
    assert!(
        verdict.contains(picked["text"].as_str().unwrap()),
        "{verdict}"
    );
    // Clicks in learn mode tried a move: the game itself did not move on.
    assert_eq!(cursor(&client).await, exercise as i64 - 1);
    js(&client, "window.scrollTo(0, 0);").await;
    shot(&client, "serve-learn-desktop.png").await;
    // The model's move solves it.
    let better = mv["better"]["move"].as_str().unwrap();
    if !verdict.starts_with("Good: ") {
        input.send_keys(&format!("{better}\n")).await.unwrap();
        wait_text(&client, "#learn-verdict", |t| {
            t.starts_with(&format!("Good: {better} keeps"))
        })
        .await;
    }
    let drawn = js(
        &client,
        "return document.querySelectorAll('#board .review-arrow.better').length;",
    )
    .await;
    assert_eq!(drawn, 1, "the solution drawn once solved");
    client.set_window_size(390, 844).await.unwrap();
    js(&client, "window.scrollTo(0, 0);").await;
    shot(&client, "serve-learn-phone.png").await;
    client.set_window_size(1366, 900).await.unwrap();
    // The next exercise, its solution shown; then to the end.
    click(&client, "[data-testid=learn-next]").await;
    loop {
        let done = js(&client, "return learning === null;").await;
        if done == true {
            break;
        }
        click(&client, "[data-testid=learn-solution]").await;
        wait_text(&client, "#learn-verdict", |t| t.starts_with("The model")).await;
        click(&client, "[data-testid=learn-next]").await;
    }
    let summary = wait_text(&client, "#learn-prompt", |t| t.starts_with("Solved ")).await;
    assert!(summary.starts_with("Solved 1 of "), "{summary}");

    // A new game clears the review: its table, marks and arrows.
    js(&client, "$('opponent').value = 'random';").await;
    start_new_game(&client).await;
    wait_for("the review cleared", || async {
        let cleared = js(
            &client,
            "return review === null && $('review-box').hidden && \
             !document.querySelector('#graph .graph-judgement') && \
             !document.querySelector('#moves .judgement') && \
             !document.querySelector('#board .review-arrow');",
        )
        .await;
        (cleared == true).then_some(())
    })
    .await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_of_a_three_player_review_has_a_line_per_side() {
    // The shipped three-player model takes the other two seats.
    let (_server, url) = start_server(&["--model", "three-player", "--max-searches", "1"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    let first = js(&client, "return state.legal[0].text;").await;
    type_move(&client, &format!("{}\n", first.as_str().unwrap())).await;
    wait_for("the model's two replies", || async {
        let n = js(&client, "return state.history.length;").await.as_u64()?;
        (n == 3).then_some(())
    })
    .await;
    // Before a review the model's moves fill the graph: each seat's own
    // estimate, on its line.
    let estimated = js(
        &client,
        "return [state.history.filter(p => typeof p.win === 'number').length, \
         document.querySelectorAll('#graph .graph-point').length, \
         [...document.querySelectorAll('#graph polyline.graph-line')].map(l => l.dataset.points)];",
    )
    .await;
    assert_eq!(estimated[0], 2, "{estimated}");
    assert_eq!(estimated[1], 2, "{estimated}");
    assert_eq!(estimated[2], serde_json::json!(["1", "1"]), "{estimated}");
    js(&client, "$('review-sims').value = '4';").await;
    click(&client, "[data-testid=review]").await;
    let status = wait_text(&client, "#review-status", |t| t.starts_with("reviewed")).await;
    assert!(status.contains("reviewed 3 moves"), "{status}");
    // A line per side, each with a point at every position, named in the
    // legend.
    let lines = js(
        &client,
        "return [...document.querySelectorAll('#graph polyline.graph-line')].map(l => l.dataset.points);",
    )
    .await;
    assert_eq!(lines, serde_json::json!(["4", "4", "4"]));
    let legend = js(
        &client,
        "return [...document.querySelectorAll('#graph text.legend')].map(t => t.textContent);",
    )
    .await;
    assert_eq!(legend, js(&client, "return review.sides;").await);
    assert_eq!(legend.as_array().unwrap().len(), 3);
    let plies = js(
        &client,
        "return new Set([...document.querySelectorAll('#graph .graph-point')].map(p => p.dataset.ply)).size;",
    )
    .await;
    assert_eq!(plies, 4);
    js(&client, "$('review-panel').scrollIntoView();").await;
    shot(&client, "serve-review-three.png").await;
    // The game goes on after the review: the model's two replies to the
    // next move give each of their sides a point more.
    let next = js(&client, "return state.legal[0].text;").await;
    type_move(&client, &format!("{}\n", next.as_str().unwrap())).await;
    wait_for("the model's replies plotted after the review", || async {
        let lines = js(
            &client,
            "return [...document.querySelectorAll('#graph polyline.graph-line')].map(l => l.dataset.points);",
        )
        .await;
        (lines == serde_json::json!(["4", "5", "5"])).then_some(())
    })
    .await;
    client.close().await.unwrap();
}

/// The plies of the graph's points, each once, in order.
async fn graph_plies(client: &Client) -> Vec<u64> {
    let plies = js(
        client,
        "return [...new Set([...document.querySelectorAll('#graph .graph-point')] \
         .map(p => Number(p.dataset.ply)))].sort((a, b) => a - b);",
    )
    .await;
    plies
        .as_array()
        .unwrap()
        .iter()
        .map(|ply| ply.as_u64().unwrap())
        .collect()
}

/// Plays the first legal move `times` times as the person (Black), each
/// answered by the model.
async fn play_on(client: &Client, times: usize) {
    for _ in 0..times {
        let before = js(client, "return state.history.length;").await;
        let first = js(client, "return state.legal[0].text;").await;
        type_move(client, &format!("{}\n", first.as_str().unwrap())).await;
        let after = before.as_u64().unwrap() + 2;
        wait_for("the model's reply", || async {
            let moves = js(client, "return state.history.length;").await.as_u64()?;
            (moves == after).then_some(())
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_review_the_graph_goes_on_with_every_later_evaluation() {
    // The first game: the person (Black) against the model.
    let (_server, url) = start_server(&["--model", "quick", "--max-searches", "1"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    play_on(&client, 3).await;
    js(&client, "$('review-sims').value = '8';").await;
    click(&client, "[data-testid=review]").await;
    let status = wait_text(&client, "#review-status", |t| t.starts_with("reviewed")).await;
    assert!(status.contains("reviewed 6 moves"), "{status}");
    assert_eq!(graph_plies(&client).await, (0..=6).collect::<Vec<u64>>());
    // The game goes on: each reply of the model, which estimates its
    // chances, is plotted after the reviewed positions.
    play_on(&client, 3).await;
    wait_for("the model's later moves plotted", || async {
        (graph_plies(&client).await == [0, 1, 2, 3, 4, 5, 6, 8, 10, 12]).then_some(())
    })
    .await;
    // An analysed later position (after the person's move 9) too.
    js(&client, "send({type: 'goto', ply: 9});").await;
    wait_for("the position after move 9", || async {
        (cursor(&client).await == 9).then_some(())
    })
    .await;
    js(&client, "requestAnalysis(50);").await;
    wait_for("the analysed position plotted", || async {
        graph_plies(&client).await.contains(&9).then_some(())
    })
    .await;
    assert_eq!(
        graph_plies(&client).await,
        [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 12]
    );
    // One line through them all, the review's marks kept.
    let line = js(
        &client,
        "return [...document.querySelectorAll('#graph polyline.graph-line')].map(l => l.dataset.points);",
    )
    .await;
    assert_eq!(line, serde_json::json!(["11"]));
    let review = js(&client, "return review;").await;
    let marks = js(
        &client,
        "return document.querySelectorAll('#graph .graph-judgement').length;",
    )
    .await;
    assert_eq!(marks, crate::review::judged_plies(&review).len());
    js(&client, "$('review-panel').scrollIntoView();").await;
    shot(&client, "serve-review-continued.png").await;
    client.close().await.unwrap();
}
