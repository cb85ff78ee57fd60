//! End-to-end tests of `sumito serve` in a real browser: Debian's headless
//! Chromium driven through chromedriver (WebDriver), both installed by
//! `scripts/test.sh`. A game is started, moves are made by clicking
//! marbles and cells, an illegal selection is refused, the player replies,
//! a move is undone, a short game is played to its end, and a record is
//! loaded. A screenshot of the page is written to
//! `target/serve-screenshot.png`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use fantoccini::{Client, Locator};

use crate::common;
use crate::common::browser::{open_page, select, wait_for, wait_text};
use crate::training;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// A child process killed when dropped.
pub(crate) struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sumito serve --port 0 EXTRA...` and the address it printed.
pub(crate) fn start_server(extra: &[&str]) -> (Running, String) {
    let mut child = Command::new(SUMITO)
        .args(["serve", "--port", "0", "--seed", "3"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut reader = BufReader::new(stdout);
    // (A model's summary comes first.)
    let url = loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the server printed no address"
        );
        if let Some(url) = line
            .split_whitespace()
            .find(|word| word.starts_with("http://"))
        {
            break url.to_string();
        }
    };
    (Running(child), url)
}

/// Clicks the element `selector` finds, once it is there. The page redraws
/// the board on every state it receives, so an element found a moment
/// before may be gone by the click: it is then found again.
pub(crate) async fn click(client: &Client, selector: &str) {
    wait_for(&format!("to click {selector}"), || async {
        let element = client.find(Locator::Css(selector)).await.ok()?;
        match element.click().await {
            Ok(()) => Some(()),
            Err(err) if err.is_stale_element_reference() => None,
            Err(err) => panic!("clicking {selector}: {err}"),
        }
    })
    .await;
}

/// Starts a new game with the form's settings and waits until the page
/// shows it. The seat lines are drawn anew from every state the server
/// sends, so a mark put on the old ones is gone once the new game is shown
/// (the rules line alone cannot tell: it may read the same before and after).
pub(crate) async fn start_new_game(client: &Client) {
    client
        .execute(
            "document.querySelectorAll('#seats .seat').forEach(s => s.dataset.old = '1');",
            vec![],
        )
        .await
        .unwrap();
    click(client, "[data-testid=new-game]").await;
    wait_for("for the new game", || async {
        let old = client.find(Locator::Css("#seats .seat[data-old]")).await;
        old.is_err().then_some(())
    })
    .await;
}

/// The number of moves in the page's move list.
pub(crate) async fn moves_listed(client: &Client) -> usize {
    client
        .find_all(Locator::Css("#moves span"))
        .await
        .unwrap()
        .len()
        - 1
}

pub(crate) async fn wait_moves(client: &Client, count: usize) {
    wait_for(&format!("for {count} moves"), || async {
        (moves_listed(client).await == count).then_some(())
    })
    .await;
}

/// Analyses the shown position with `simulations` (the Analyse button)
/// and returns the line's text once the search is done.
async fn analyse_shown(client: &Client, simulations: u32) -> String {
    let script = format!("document.querySelector('#analysis-sims').value = '{simulations}';");
    client.execute(&script, vec![]).await.unwrap();
    click(client, "[data-testid=analyse]").await;
    let done = format!("({simulations} simulations");
    wait_text(client, "#pv", |t| {
        t.contains(&done) && !t.contains("searching")
    })
    .await
}

/// Types `text` (a move and a newline) into the move box.
pub(crate) async fn type_move(client: &Client, text: &str) {
    client
        .find(Locator::Css("#move-input"))
        .await
        .unwrap()
        .send_keys(text)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_undoes_finishes_and_loads_games_in_a_real_browser() {
    let (_server, url) = start_server(&["--no-model"]);
    let (client, _chromium) = open_page(&url, 1200, 900, "black to move").await;

    // A new game against `random`.
    select(&client, "#opponent", "random").await;
    start_new_game(&client).await;
    wait_text(&client, "#rules-line", |t| t.starts_with("standard")).await;

    // An illegal selection: a white marble is refused with the reason.
    click(&client, "circle.marble[data-cell=I5]").await;
    let message = wait_text(&client, "#message", |t| !t.is_empty()).await;
    assert!(message.contains("no legal move starts on I5"), "{message}");

    // C3 one step north-west, by clicking the marble and then the cell.
    click(&client, "circle.marble[data-cell=C3]").await;
    click(&client, "circle.cell[data-cell=D3]").await;
    // The opponent replies: two moves in the list.
    wait_moves(&client, 2).await;
    let board = client
        .find(Locator::Css("circle.marble.black[data-cell=D3]"))
        .await;
    assert!(board.is_ok(), "the black marble stands on D3");

    // Undo takes back the reply and the move.
    click(&client, "[data-testid=undo]").await;
    wait_moves(&client, 0).await;
    assert!(
        client
            .find(Locator::Css("circle.marble.black[data-cell=C3]"))
            .await
            .is_ok()
    );

    // A group of three by clicking three marbles, typed moves too.
    click(&client, "circle.marble[data-cell=A1]").await;
    click(&client, "circle.marble[data-cell=B2]").await;
    click(&client, "circle.marble[data-cell=C3]").await;
    click(&client, "circle.cell[data-cell=D4]").await;
    wait_moves(&client, 2).await;
    let first = client
        .find(Locator::Css("#moves span[data-ply='1']"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(first, "1. A1B2");

    // A short game (a 4-ply limit) played to its end.
    client
        .find(Locator::Css("#rules"))
        .await
        .unwrap()
        .send_keys(r#"{"max_plies": 4}"#)
        .await
        .unwrap();
    start_new_game(&client).await;
    wait_moves(&client, 0).await;
    for _ in 0..2 {
        let typed = client.find(Locator::Css("#move-input")).await.unwrap();
        let before = moves_listed(&client).await;
        let legal: String = client
            .execute("return state.legal[0].text;", vec![])
            .await
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        typed.send_keys(&format!("{legal}\n")).await.unwrap();
        wait_moves(&client, before + 2).await;
    }
    let status = wait_text(&client, "#status", |t| t.starts_with("Game over")).await;
    assert!(status.contains("move limit"), "{status}");

    // Loading a record: Aba-Pro moves pasted in the box.
    client
        .execute(
            "document.querySelector('details:last-of-type').open = true;",
            vec![],
        )
        .await
        .unwrap();
    client
        .find(Locator::Css("#record"))
        .await
        .unwrap()
        .send_keys("1. A1B2 I5H5 2. B1C2")
        .await
        .unwrap();
    click(&client, "[data-testid=load]").await;
    wait_moves(&client, 3).await;
    // Back to the first move in the list.
    click(&client, "#moves span[data-ply='1']").await;
    wait_text(&client, "#moves span.current", |t| t == "1. A1B2").await;

    // A three-player game between people at one screen: three seats, and
    // a click-made move passes the turn to white.
    select(&client, "#layout", "three-player").await;
    select(&client, "#opponent", "human").await;
    client
        .execute("document.querySelector('#rules').value = '';", vec![])
        .await
        .unwrap();
    start_new_game(&client).await;
    wait_text(&client, "#rules-line", |t| t.starts_with("three-player")).await;
    assert_eq!(
        client
            .find_all(Locator::Css("#seats .seat"))
            .await
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        client
            .find_all(Locator::Css("circle.marble.red"))
            .await
            .unwrap()
            .len(),
        11
    );
    click(&client, "circle.marble[data-cell=B2]").await;
    click(&client, "circle.cell[data-cell=C3]").await;
    wait_text(&client, "#status", |t| t.starts_with("white to move")).await;

    let png = client.screenshot().await.unwrap();
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("serve-screenshot.png"), png).unwrap();

    // A hole is drawn as an empty ring with a cross, like no marble.
    select(&client, "#layout", "standard").await;
    client
        .execute(
            r#"document.querySelector('#rules').value = '{"holes":["E5"]}';"#,
            vec![],
        )
        .await
        .unwrap();
    start_new_game(&client).await;
    wait_for("the hole", || async {
        client
            .find(Locator::Css("circle.hole[data-cell=E5]"))
            .await
            .ok()
    })
    .await;
    assert_eq!(
        client
            .find_all(Locator::Css("path.hole-cross"))
            .await
            .unwrap()
            .len(),
        1
    );
    std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-holes.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_plays_and_its_analysis_streams_to_the_page() {
    // The shipped model (models/quick), loaded by sumito-torch.
    let (_server, url) = start_server(&["--model", "quick", "--max-searches", "1"]);
    // The first game is against the model: a move, and its reply.
    let (client, _chromium) = open_page(&url, 1200, 900, "black to move").await;
    type_move(&client, "A1B2\n").await;
    wait_moves(&client, 2).await;
    // Analysis: updates stream in, the last with the top moves drawn as
    // arrows, the PV, and the win/draw/loss bar.
    let pv = analyse_shown(&client, 400).await;
    assert!(pv.starts_with("PV:"), "{pv}");
    let updates: i64 = client
        .execute("return analysisUpdates;", vec![])
        .await
        .unwrap()
        .as_i64()
        .unwrap();
    assert!(updates >= 2, "{updates} analysis messages");
    assert!(
        client
            .find_all(Locator::Css("#top-moves tr"))
            .await
            .unwrap()
            .len()
            > 2
    );
    assert!(
        !client
            .find_all(Locator::Css("line.arrow"))
            .await
            .unwrap()
            .is_empty()
    );
    // Arrows have heads; the bar says whose chances it shows, in numbers;
    // the line is numbered from the position's ply (two moves played: 3.);
    // candidates show their expected score; the graph has its axes.
    let heads = client
        .execute(
            "return [...document.querySelectorAll('line.arrow')].every(a => a.getAttribute('marker-end'));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(heads, true);
    let bar = wait_text(&client, "#wdl-text", |t| t.contains("to move: win")).await;
    assert!(
        bar.starts_with("black to move: win ") && bar.contains("% · draw "),
        "{bar}"
    );
    assert!(pv.starts_with("PV: 3. "), "{pv}");
    let eval = wait_text(&client, "#eval-bar span", |t| t.starts_with("black ")).await;
    assert!(eval.ends_with('%'), "{eval}");
    let header = wait_text(&client, "#top-moves tr", |t| t.contains("Win %")).await;
    assert!(header.contains("Visits"), "{header}");
    assert!(
        client
            .find_all(Locator::Css("#graph text.axis"))
            .await
            .unwrap()
            .len()
            >= 4
    );
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(
        shots.join("serve-analysis.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    // A PV step shows the board after it.
    click(&client, "#pv span[data-step='0']").await;
    // Continuous analysis deepens while the position stays (each search
    // twice the last), and a move is played at once, the analysis going on
    // from the new position.
    client
        .execute(
            "document.querySelector('#analysis-sims').value = '100'; const c = document.querySelector('#continuous'); c.checked = true; c.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    wait_text(&client, "#pv", |t| {
        t.contains("(400 simulations") && !t.contains("searching")
    })
    .await;
    let before = moves_listed(&client).await;
    let legal = client
        .execute("return state.legal[0].text;", vec![])
        .await
        .unwrap();
    type_move(&client, &format!("{}\n", legal.as_str().unwrap())).await;
    wait_moves(&client, before + 2).await;
    // (The search the move cut short may show first: the new position's
    // line starts at move 5.)
    wait_text(&client, "#pv", |t| {
        t.starts_with("PV: 5. ") && t.contains("(200 simulations")
    })
    .await;
    client
        .execute(
            "const c = document.querySelector('#continuous'); c.checked = false; c.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    // The model at a strength level, chosen by name in the form: the
    // seat says so, and it replies.
    let offered = client
        .execute(
            "return [...document.querySelectorAll('#level option')].map(o => o.textContent);",
            vec![],
        )
        .await
        .unwrap();
    let offered: Vec<String> = serde_json::from_value(offered).unwrap();
    assert_eq!(offered.len(), 11, "{offered:?}");
    assert!(
        offered[1].starts_with("1 · beginner (1 sim."),
        "{offered:?}"
    );
    // (The model's option: `model:` and its name.)
    let model = client
        .execute("return $('opponent').value;", vec![])
        .await
        .unwrap();
    assert!(
        model.as_str().unwrap().starts_with("model:quick (gen "),
        "{model}"
    );
    select(&client, "#opponent", model.as_str().unwrap()).await;
    select(&client, "#level", "2").await;
    // The level sets the simulations and time: their boxes are off.
    let off = client
        .execute(
            "return [document.querySelector('#sims').disabled, document.querySelector('#seconds').disabled];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(off, serde_json::json!([true, true]));
    select(&client, "#colour", "0").await;
    start_new_game(&client).await;
    wait_text(&client, "#seats", |t| t.contains("level 2, novice")).await;
    // The last game's analysis is gone from the panel.
    wait_text(&client, "#wdl-text", |t| {
        t.starts_with("No analysis of the shown position")
    })
    .await;
    let rows = client
        .execute(
            "return document.querySelectorAll('#top-moves tr').length;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(rows, serde_json::json!(0));
    type_move(&client, "A1B2\n").await;
    wait_moves(&client, 2).await;
    // The game reviewed by the model: progress, then each side's summary,
    // the report to download, and the moves it judged marked.
    click(&client, "[data-testid=review]").await;
    let status = wait_text(&client, "#review-status", |t| t.starts_with("reviewed")).await;
    assert!(status.contains("reviewed 2 moves"), "{status}");
    let sides = wait_text(&client, "#review-sides", |t| t.contains("black")).await;
    assert!(sides.contains("white") && sides.contains('%'), "{sides}");
    let report = client
        .execute(
            "return document.querySelector('#review-report').href;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        report.as_str().unwrap().starts_with("data:image/svg+xml"),
        "{report}"
    );
    std::fs::write(
        shots.join("serve-review.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    // On a phone the analysis sits right under the board.
    client.set_window_size(390, 844).await.unwrap();
    let order = client
        .execute(
            "return document.querySelector('#analysis-box').getBoundingClientRect().top - document.querySelector('#board').getBoundingClientRect().bottom;",
            vec![],
        )
        .await
        .unwrap();
    std::fs::write(
        shots.join("serve-phone.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    assert!(order.as_f64().unwrap() < 200.0, "{order}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_of_the_general_game_takes_its_seats_in_the_page() {
    // A tiny three-player model: two generations, exported.
    let scratch = common::Scratch::new("serve-general");
    let run = scratch.0.join("run");
    let config = training::tiny_general_config(&scratch.0, "three-player");
    let output = training::train(&config, &run, &[]);
    assert!(output.status.success(), "{}", training::text(&output));
    let bundle = scratch.0.join("three");
    let output = std::process::Command::new(SUMITO)
        .args(["export", "--run-dir", run.to_str().unwrap()])
        .args(["--out", bundle.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", training::text(&output));
    // Two models served at once: the page offers each where its rules fit.
    let (_server, url) = start_server(&["--model", bundle.to_str().unwrap(), "--model", "quick"]);
    // The first game is the model's own: three seats, the person first and
    // the model at the other two, which answer a move with theirs.
    let (client, _chromium) = open_page(&url, 1200, 900, "black to move").await;
    let seats = client.find_all(Locator::Css("#seats .seat")).await.unwrap();
    assert_eq!(seats.len(), 3);
    let first = client
        .execute("return state.legal[0].text;", vec![])
        .await
        .unwrap();
    let first = first.as_str().unwrap().to_string();
    type_move(&client, &format!("{first}\n")).await;
    wait_moves(&client, 3).await;
    let seat_text = wait_text(&client, "#seats", |t| t.contains("three")).await;
    assert!(seat_text.contains("three"), "{seat_text}");
    // The page analyses the model's game as a two-player one: arrows, each
    // candidate's score, the eval bar of the first seat.
    let pv = analyse_shown(&client, 50).await;
    assert!(pv.starts_with("PV: 4. "), "{pv}");
    let bar = wait_text(&client, "#wdl-text", |t| t.contains("to move")).await;
    assert!(bar.starts_with("black to move: win "), "{bar}");
    wait_text(&client, "#eval-bar span", |t| t.starts_with("black ")).await;
    assert!(
        !client
            .find_all(Locator::Css("line.arrow"))
            .await
            .unwrap()
            .is_empty()
    );
    // The model reviews its game as a two-player model does: each of the
    // three sides summed up.
    click(&client, "[data-testid=review]").await;
    let status = wait_text(&client, "#review-status", |t| t.starts_with("reviewed")).await;
    assert!(status.contains("reviewed 3 moves"), "{status}");
    let sides = wait_text(&client, "#review-sides", |t| t.contains("black")).await;
    assert!(sides.contains("white") && sides.contains('%'), "{sides}");
    // The form shows that game, so that Start begins another of the same;
    // the two-player model is offered too, but not on this layout.
    let form = client
        .execute(
            "return [$('layout').value, $('opponent').value, \
             [...document.querySelectorAll('#opponent option')].filter(o => o.value.startsWith('model:')).map(o => [o.value, o.disabled])];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(form[0], "three-player", "{form}");
    assert!(
        form[1].as_str().unwrap().starts_with("model:three"),
        "{form}"
    );
    let offered = form[2].as_array().unwrap();
    assert_eq!(offered.len(), 2, "{form}");
    assert_eq!(offered[0][1], false, "{form}");
    assert!(
        offered[1][0].as_str().unwrap().starts_with("model:quick"),
        "{form}"
    );
    assert_eq!(offered[1][1], true, "{form}");
    start_new_game(&client).await;
    wait_text(&client, "#status", |t| t.contains("black to move")).await;
    assert_eq!(moves_listed(&client).await, 0);
    // On a two-player layout, the two-player model is the one offered: it
    // takes White's seat and answers the person's move.
    select(&client, "#layout", "standard").await;
    let quick = offered[1][0].as_str().unwrap().to_string();
    let disabled = client
        .execute(
            &format!(
                "return document.querySelector('#opponent option[value=\"{quick}\"]').disabled;"
            ),
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(disabled, false);
    select(&client, "#opponent", &quick).await;
    select(&client, "#colour", "0").await;
    start_new_game(&client).await;
    let seat_text = wait_text(&client, "#seats", |t| t.contains("quick")).await;
    assert!(!seat_text.contains("three"), "{seat_text}");
    type_move(&client, "A1B2\n").await;
    wait_moves(&client, 2).await;
    let png = client.screenshot().await.unwrap();
    std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-general.png"),
        png,
    )
    .unwrap();
    client.close().await.unwrap();
}
