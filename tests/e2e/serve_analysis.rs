//! End-to-end tests of the page's analysis board in a real browser
//! (headless Chromium through chromedriver, as `serve.rs`): a variation
//! played from an earlier ply and walked with the arrow keys, the marbles
//! each side can push off ringed on the board, a search that stops the
//! moment it is told, and the new-game form that offers only the models of
//! the chosen layout. Screenshots of the board at desktop and phone sizes,
//! with two and three players, are written to the test's scratch folder
//! (`CARGO_TARGET_TMPDIR`).

use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};

use crate::common::browser::keys::{DOWN, END, HOME, LEFT, RIGHT, UP};
use crate::common::browser::{open_page, press, script, select, wait_for, wait_text};
use crate::serve::{click, start_new_game, start_server, type_move, wait_moves};

/// Waits until the page shows ply `ply` of the game and then the variation
/// `line` (the server's state, which the board and the list draw).
async fn wait_shown(client: &Client, ply: u64, line: &str) {
    let wanted = format!("{ply}:{line}");
    wait_for(&format!("the page to show {wanted}"), || {
        let wanted = wanted.clone();
        async move {
            let shown = client
                .execute("return `${state.cursor}:${state.line.join(' ')}`;", vec![])
                .await
                .ok()?;
            (shown.as_str() == Some(wanted.as_str())).then_some(())
        }
    })
    .await;
}

/// A screenshot of the page from its top (the board) into the test's
/// scratch folder.
/// Analyses the shown position at `simulations` and waits for the search's
/// last answer.
async fn analyse_to_the_end(client: &Client, simulations: u32) {
    script(
        client,
        &format!("document.querySelector('#analysis-sims').value = '{simulations}';"),
    )
    .await;
    click(client, "[data-testid=analyse]").await;
    let done = format!("({simulations} simulations");
    wait_text(client, "#pv", |t| {
        t.contains(&done) && !t.contains("searching")
    })
    .await;
}

async fn screenshot(client: &Client, name: &str) {
    script(client, "window.scrollTo(0, 0);").await;
    std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variation_from_an_earlier_ply_is_played_and_walked_with_the_arrow_keys() {
    let (_server, url) = start_server(&["--no-model"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    // People at one screen: three moves of the game.
    select(&client, "#opponent", "human").await;
    start_new_game(&client).await;
    for mv in ["A1B2", "I5H5", "B1C2"] {
        let before = crate::serve::moves_listed(&client).await;
        type_move(&client, &format!("{mv}\n")).await;
        wait_moves(&client, before + 1).await;
    }
    // The list numbers a move pair once.
    let listed = wait_text(&client, "#moves", |t| t.contains("2. B1C2")).await;
    assert!(
        listed.contains("1. A1B2") && listed.contains("I5H5"),
        "{listed}"
    );
    // Two steps back with the left arrow: ply 1, White to move there.
    press(&client, LEFT).await;
    wait_shown(&client, 2, "").await;
    press(&client, LEFT).await;
    wait_shown(&client, 1, "").await;
    let status = wait_text(&client, "#status", |t| t.starts_with("Move 1 of 3")).await;
    assert!(status.contains("white to move"), "{status}");
    // A white move clicked there (G7 to F7) is checked in the shown
    // position: it starts a variation, and the game keeps its moves.
    click(&client, "circle.marble[data-cell=G7]").await;
    click(&client, "circle.cell[data-cell=F7]").await;
    wait_shown(&client, 1, "G7F7").await;
    assert_eq!(crate::serve::moves_listed(&client).await, 3);
    let variation = wait_text(&client, "#moves .variations", |t| t.contains("G7F7")).await;
    assert!(variation.contains("1… G7F7"), "{variation}");
    // A typed move goes on from the variation's position (Black to move).
    type_move(&client, "C3D3\n").await;
    wait_shown(&client, 1, "G7F7 C3D3").await;
    let status = wait_text(&client, "#status", |t| t.starts_with("Variation")).await;
    assert!(status.contains("G7F7 C3D3"), "{status}");
    // Left and right walk the variation; up and down switch between it
    // and the game's own move at that point.
    press(&client, LEFT).await;
    wait_shown(&client, 1, "G7F7").await;
    press(&client, RIGHT).await;
    wait_shown(&client, 1, "G7F7 C3D3").await;
    press(&client, UP).await;
    wait_shown(&client, 2, "").await;
    press(&client, DOWN).await;
    wait_shown(&client, 1, "G7F7").await;
    // A click on the variation's move in the list shows it; the game's
    // own move shows the game again.
    click(&client, "#moves a.var-move[data-line='G7F7 C3D3']").await;
    wait_shown(&client, 1, "G7F7 C3D3").await;
    click(&client, "#moves span[data-ply='3']").await;
    wait_shown(&client, 3, "").await;
    // A second variation from the same ply sits beside the first.
    click(&client, "#moves span[data-ply='1']").await;
    wait_shown(&client, 1, "").await;
    type_move(&client, "G6F6\n").await;
    wait_shown(&client, 1, "G6F6").await;
    let count = script(
        &client,
        "return document.querySelectorAll('#moves .variations > .variation').length;",
    )
    .await;
    assert_eq!(count, 2);
    // (The forms folded, so that the move list shows beside the board.)
    script(
        &client,
        "for (const id of ['new-game', 'review-panel']) { const d = document.getElementById(id); if (d) d.open = false; }",
    )
    .await;
    screenshot(&client, "variation-desktop.png").await;
    // A move of the wrong side is refused as not legal in the shown position.
    type_move(&client, "G7F7\n").await;
    let message = wait_text(&client, "#message", |t| !t.is_empty()).await;
    assert!(message.contains("legal"), "{message}");
    assert!(!message.contains("not your turn"), "{message}");
    // Home goes to the start, End along the game's line to its end.
    press(&client, HOME).await;
    wait_shown(&client, 0, "").await;
    press(&client, END).await;
    wait_shown(&client, 3, "").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_marbles_that_can_be_pushed_off_are_ringed_on_the_board() {
    let (_server, url) = start_server(&["--no-model"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    // Nothing can be pushed off at the start.
    wait_text(&client, "#threats", |t| t.starts_with("No marble")).await;
    // A position where Black's B2-C3 can push White's A1 off the board,
    // and White's I-row nothing.
    script(
        &client,
        "document.querySelector('details:last-of-type').open = true;",
    )
    .await;
    client
        .find(Locator::Css("#record"))
        .await
        .unwrap()
        .send_keys("# sumito game record v2\nstart: wwwww/6/7/8/4b4/8/2b4/1b4/w4 b 0 0\nmoves:\nresult: *\n")
        .await
        .unwrap();
    click(&client, "[data-testid=load]").await;
    let said = wait_text(&client, "#threats", |t| t.contains("A1")).await;
    assert_eq!(said, "black can push off A1 now");
    let rings = client
        .find_all(Locator::Css("circle.threat.now"))
        .await
        .unwrap();
    assert_eq!(rings.len(), 1);
    assert_eq!(
        rings[0].attr("data-cell").await.unwrap().as_deref(),
        Some("A1")
    );
    screenshot(&client, "threats-desktop.png").await;
    // White to move after a quiet black move: the threat stays, but as
    // one Black could carry out on its turn (dashed).
    type_move(&client, "E5E6\n").await;
    let said = wait_text(&client, "#threats", |t| !t.contains("now")).await;
    assert_eq!(said, "black threatens A1");
    assert_eq!(
        client
            .find_all(Locator::Css("circle.threat.later[data-cell=A1]"))
            .await
            .unwrap()
            .len(),
        1
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_ends_the_search_at_once_and_the_form_offers_the_layouts_models() {
    // The shipped two-player and three-player models.
    let (_server, url) = start_server(&[
        "--model",
        "quick",
        "--model",
        "three-player",
        "--max-searches",
        "1",
    ]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    type_move(&client, "A1B2\n").await;
    wait_moves(&client, 2).await;

    // The candidates: the move the search plays first and green, each
    // with its win %, visits and line, the raw numbers on hover.
    analyse_to_the_end(&client, 400).await;
    let table = script(
        &client,
        "return [[...document.querySelectorAll('#top-moves th')].map(h => h.textContent), \
         analysis.best, analysis.moves[0].text, \
         document.querySelector('#top-moves tr.best').dataset.move, \
         document.querySelector('line.arrow.best').dataset.move, \
         document.querySelector('#top-moves tr.best').title, \
         [...document.querySelectorAll('#top-moves td.win')].map(c => c.textContent)];",
    )
    .await;
    assert_eq!(
        table[0],
        serde_json::json!(["#", "Move", "Win %", "Visits", "Line"]),
        "{table}"
    );
    assert_eq!(table[1], table[2], "{table}");
    assert_eq!(table[1], table[3], "{table}");
    assert_eq!(table[1], table[4], "{table}");
    let title = table[5].as_str().unwrap();
    assert!(title.contains("prior") && title.contains("Q "), "{title}");
    // Win percentages with a decimal, the others' gap to the best.
    let wins: Vec<String> = serde_json::from_value(table[6].clone()).unwrap();
    assert!(wins[0].contains('.'), "{wins:?}");
    assert!(
        wins.iter()
            .skip(1)
            .all(|w| w.contains('+') || w.contains('−')),
        "{wins:?}"
    );
    // Arrow badges never overlap.
    let apart = script(
        &client,
        "const c = [...document.querySelectorAll('g.arrow-label circle')].map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')]); \
         return c.length > 0 && c.every((a, i) => c.every((b, j) => i === j || Math.hypot(a[0]-b[0], a[1]-b[1]) >= 18));",
    )
    .await;
    assert_eq!(apart, true);
    // A PV move previews its position, and the status line says so.
    click(&client, "#pv span[data-step='0']").await;
    wait_text(&client, "#status", |t| t.starts_with("Preview")).await;
    click(&client, "#pv span[data-step='0']").await;
    wait_text(&client, "#status", |t| t.contains("to move")).await;

    // A long search, stopped: its last update comes at once, and nothing
    // follows.
    script(
        &client,
        "document.querySelector('#analysis-sims').value = '20000';",
    )
    .await;
    let updates = script(&client, "return analysisUpdates;")
        .await
        .as_i64()
        .unwrap();
    click(&client, "[data-testid=analyse]").await;
    wait_for("the first update of the long search", || async {
        let now = script(&client, "return analysisUpdates;")
            .await
            .as_i64()
            .unwrap();
        (now > updates).then_some(())
    })
    .await;
    let stopped = Instant::now();
    click(&client, "[data-testid=stop]").await;
    let pv = wait_text(&client, "#pv", |t| !t.contains("searching")).await;
    assert!(
        stopped.elapsed() < Duration::from_secs(3),
        "stopped after {:?}",
        stopped.elapsed()
    );
    assert!(!pv.contains("(20000 simulations"), "{pv}");
    // Continuous analysis unticked ends its search the same way.
    script(
        &client,
        "document.querySelector('#analysis-sims').value = '20000'; const c = document.querySelector('#continuous'); c.checked = true; c.dispatchEvent(new Event('change'));",
    )
    .await;
    wait_text(&client, "#pv", |t| t.contains("searching")).await;
    let unticked = Instant::now();
    script(
        &client,
        "const c = document.querySelector('#continuous'); c.checked = false; c.dispatchEvent(new Event('change'));",
    )
    .await;
    wait_text(&client, "#pv", |t| !t.contains("searching")).await;
    assert!(
        unticked.elapsed() < Duration::from_secs(3),
        "{:?}",
        unticked.elapsed()
    );
    let settled = script(&client, "return analysisUpdates;").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(script(&client, "return analysisUpdates;").await, settled);
    screenshot(&client, "analysis-desktop.png").await;
    client.set_window_size(390, 844).await.unwrap();
    screenshot(&client, "analysis-phone.png").await;
    client.set_window_size(1366, 900).await.unwrap();

    // The form follows the layout: on the three-player layout only the
    // three-player model is offered (and chosen), and Start begins its game.
    let quick = script(&client, "return $('opponent').value;").await;
    let quick = quick.as_str().unwrap().to_string();
    assert!(quick.starts_with("model:quick"), "{quick}");
    select(&client, "#layout", "three-player").await;
    let form = script(
        &client,
        "return [$('opponent').value, \
         [...document.querySelectorAll('#opponent option')].filter(o => o.value.startsWith('model:')).map(o => [o.value, o.disabled, o.hidden]), \
         [...document.querySelectorAll('#colour option')].map(o => o.textContent)];",
    )
    .await;
    assert!(
        form[0].as_str().unwrap().starts_with("model:three"),
        "{form}"
    );
    for option in form[1].as_array().unwrap() {
        let offered = !option[1].as_bool().unwrap() && !option[2].as_bool().unwrap();
        assert_eq!(
            offered,
            option[0].as_str().unwrap().starts_with("model:three"),
            "{form}"
        );
    }
    assert!(form[2].to_string().contains("red"), "{form}");
    start_new_game(&client).await;
    wait_text(&client, "#rules-line", |t| t.starts_with("three-player")).await;
    let message = script(&client, "return $('message').textContent;").await;
    assert_eq!(message, "", "Start did not fail");
    let first = script(&client, "return state.legal[0].text;").await;
    type_move(&client, &format!("{}\n", first.as_str().unwrap())).await;
    wait_moves(&client, 3).await;
    // The three-player board analysed: screenshots at both sizes.
    analyse_to_the_end(&client, 200).await;
    // Its arrows' badges are apart too, with three players.
    let apart = script(
        &client,
        "const c = [...document.querySelectorAll('g.arrow-label circle')].map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')]); \
         return c.length > 0 && c.every((a, i) => c.every((b, j) => i === j || Math.hypot(a[0]-b[0], a[1]-b[1]) >= 18));",
    )
    .await;
    assert_eq!(apart, true);
    screenshot(&client, "analysis-three-desktop.png").await;
    client.set_window_size(390, 844).await.unwrap();
    screenshot(&client, "analysis-three-phone.png").await;
    // Nothing makes the page wider than a phone (the widest parts named
    // if something does).
    let wider = script(
        &client,
        "return document.documentElement.scrollWidth <= window.innerWidth ? [] : \
         [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1) \
         .map(e => `${e.tagName}#${e.id}.${e.getAttribute('class')}:${Math.round(e.getBoundingClientRect().right)}`).slice(0, 12);",
    )
    .await;
    assert_eq!(wider, serde_json::json!([]), "wider than the phone");
    // Back on a two-player layout the two-player model is offered again.
    select(&client, "#layout", "standard").await;
    let chosen = script(&client, "return $('opponent').value;").await;
    assert!(
        chosen.as_str().unwrap().starts_with("model:quick"),
        "{chosen}"
    );
    client.close().await.unwrap();
}
