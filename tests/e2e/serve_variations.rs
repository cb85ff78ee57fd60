//! Variations that outlive the page: in a real browser (headless Chromium
//! through chromedriver, as `serve.rs`), a variation and one within it are
//! played from an earlier ply, the page is reloaded and shows them again,
//! and a record saved with them is loaded back into a new game (a new game
//! with nothing played is not kept: a reload then gets the server's own). A
//! reload also seats the same players again and goes on with the clocks'
//! time left. The commands that read records (`sumito review`, `sumito analyse --record`,
//! `sumito render --record`) take one with variations. A screenshot of the
//! page after the reload is written to the test's scratch folder
//! (`CARGO_TARGET_TMPDIR`).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use fantoccini::Client;

use crate::common::Scratch;
use crate::common::browser::keys::{DOWN, LEFT, RIGHT, UP};
use crate::common::browser::{open_page, press, script, select, wait_for};
use crate::serve::{click, start_server, type_move};

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// A game of three moves with a variation from ply 1, one within it, and
/// one from the start, as the page saves it.
const RECORD: &str = "# sumito game record v2
layout: standard
rules: {}
seats: black | white
opening_plies: 0
moves:
A1B2
I5H5
B1C2
variation after 1: G7F7 C3D3
variation after 1: G7F7 C4D4
variation after 0: C3D3
result: *
";

/// Waits until `code` (a script's `return` expression, run in the page)
/// gives `wanted`.
async fn wait_value(client: &Client, code: &str, wanted: serde_json::Value) {
    let wrapped = format!("try {{ return {code}; }} catch (err) {{ return null; }}");
    wait_for(&format!("{code} to be {wanted}"), || {
        let (wrapped, wanted) = (wrapped.clone(), wanted.clone());
        async move {
            let value = client.execute(&wrapped, vec![]).await.ok()?;
            (value == wanted).then_some(())
        }
    })
    .await;
}

/// The game's variations as the page has them: `ply: moves` lines.
const LINES: &str = "state.variations.map((v) => `${v.ply}: ${v.moves.join(' ')}`).join(' | ')";

/// Waits until the page shows ply `ply` of the game and the variation `line`.
async fn wait_shown(client: &Client, ply: u64, line: &str) {
    wait_value(
        client,
        "`${state.cursor}:${state.line.join(' ')}`",
        format!("{ply}:{line}").into(),
    )
    .await;
}

/// Starts a game of people at one screen, and waits until the page shows it.
async fn people_game(client: &Client) {
    select(client, "#opponent", "human").await;
    click(client, "[data-testid=new-game]").await;
    wait_value(
        client,
        "state.seats.every((seat) => seat.human)",
        true.into(),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variations_come_back_after_a_reload_and_travel_in_a_saved_record() {
    let (_server, url) = start_server(&["--no-model"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    people_game(&client).await;
    for (index, mv) in ["A1B2", "I5H5", "B1C2"].iter().enumerate() {
        type_move(&client, &format!("{mv}\n")).await;
        wait_value(&client, "state.history.length", (index + 1).into()).await;
    }
    // From ply 1, White's G7F7 and Black's C3D3; one step back, C4D4 is a
    // variation within it; and from the start, C3D3.
    click(&client, "#moves span[data-ply='1']").await;
    wait_shown(&client, 1, "").await;
    type_move(&client, "G7F7\n").await;
    wait_shown(&client, 1, "G7F7").await;
    type_move(&client, "C3D3\n").await;
    wait_shown(&client, 1, "G7F7 C3D3").await;
    click(&client, "#moves a.var-move[data-line='G7F7']").await;
    wait_shown(&client, 1, "G7F7").await;
    type_move(&client, "C4D4\n").await;
    wait_shown(&client, 1, "G7F7 C4D4").await;
    click(&client, "#moves span[data-ply='0']").await;
    wait_shown(&client, 0, "").await;
    type_move(&client, "C3D3\n").await;
    wait_shown(&client, 0, "C3D3").await;
    let lines = "1: G7F7 C3D3 | 1: G7F7 C4D4 | 0: C3D3";
    wait_value(&client, LINES, lines.into()).await;

    // A reload: the page comes back with the game and its variations (the
    // game's record kept in the tab), and the move list draws them, the
    // one within the variation nested under it.
    client.refresh().await.unwrap();
    wait_value(&client, LINES, lines.into()).await;
    wait_value(
        &client,
        "state.history.map((p) => p.text).join(' ')",
        "A1B2 I5H5 B1C2".into(),
    )
    .await;
    let listed = script(
        &client,
        "return [...document.querySelectorAll('#moves .variations')].map((e) => e.textContent).join(' | ');",
    )
    .await;
    let listed = listed.as_str().unwrap();
    assert!(
        listed.contains("1. C3D3") && listed.contains("1… G7F7") && listed.contains("C4D4"),
        "{listed}"
    );
    let nested = script(
        &client,
        "return document.querySelectorAll('#moves .variation.nested a.var-move').length;",
    )
    .await;
    assert_eq!(nested, 1, "C4D4 within G7F7");
    // The list reads as lichess writes it: each line's main continuation
    // first (G7F7's C3D3, played first), the variation within it (C4D4)
    // after the move it replaces, and the game's next move numbered again
    // after a block of variations.
    let order = script(
        &client,
        "return [...document.querySelectorAll('#moves span, #moves a.var-move')].map((e) => e.textContent).join(' ');",
    )
    .await;
    assert_eq!(
        order.as_str().unwrap(),
        "start 1. A1B2 1. C3D3 1… I5H5 1… G7F7 2. C3D3 2. C4D4 2. B1C2"
    );
    let follows = script(
        &client,
        "const nested = document.querySelector('#moves .variation.nested'); \
         return [nested.previousElementSibling.dataset.line, nested.textContent];",
    )
    .await;
    assert_eq!(follows, serde_json::json!(["G7F7 C3D3", "2. C4D4"]));
    // The restored variation is walked as before: a click shows it.
    click(&client, "#moves a.var-move[data-line='G7F7 C3D3']").await;
    wait_shown(&client, 1, "G7F7 C3D3").await;
    // The keys take the shown order: down to the next alternative (C4D4,
    // after C3D3 in the list), up back; left to G7F7, and right to its
    // main reply, the one shown first.
    for (key, line) in [
        (DOWN, "G7F7 C4D4"),
        (UP, "G7F7 C3D3"),
        (LEFT, "G7F7"),
        (RIGHT, "G7F7 C3D3"),
    ] {
        press(&client, key).await;
        wait_shown(&client, 1, line).await;
    }
    let status = script(
        &client,
        "return document.querySelector('#status').textContent;",
    )
    .await;
    assert!(
        status
            .as_str()
            .unwrap()
            .contains("Variation after move 1: G7F7 C3D3"),
        "{status}"
    );
    script(
        &client,
        "for (const d of document.querySelectorAll('details')) d.open = false; window.scrollTo(0, 0);",
    )
    .await;
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("variations-after-reload.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();

    // Save writes the variations into the record.
    script(
        &client,
        "for (const d of document.querySelectorAll('details')) d.open = true;",
    )
    .await;
    click(&client, "[data-testid=save]").await;
    wait_value(
        &client,
        "document.querySelector('#record').value.includes('variation after 1: G7F7 C4D4')",
        true.into(),
    )
    .await;
    let saved = script(&client, "return document.querySelector('#record').value;").await;
    let saved = saved.as_str().unwrap().to_string();
    assert!(
        saved.contains("B1C2\nvariation after 1: G7F7 C3D3\nvariation after 1: G7F7 C4D4\nvariation after 0: C3D3\nresult: *\n"),
        "{saved}"
    );
    // A new game has none; the saved record, loaded, brings them back.
    people_game(&client).await;
    wait_value(&client, "state.variations.length", 0.into()).await;
    wait_value(
        &client,
        "document.querySelectorAll('#moves .variation').length",
        0.into(),
    )
    .await;
    client
        .execute(
            "document.querySelector('#record').value = arguments[0];",
            vec![RECORD.into()],
        )
        .await
        .unwrap();
    click(&client, "[data-testid=load]").await;
    wait_value(&client, LINES, lines.into()).await;
    wait_value(
        &client,
        "document.querySelectorAll('#moves .variation').length",
        3.into(),
    )
    .await;
    // A record with a bad variation is refused, naming its line and move.
    client
        .execute(
            "document.querySelector('#record').value = arguments[0];",
            vec![RECORD.replace("G7F7 C4D4", "G7F7 I9H9").into()],
        )
        .await
        .unwrap();
    click(&client, "[data-testid=load]").await;
    wait_value(
        &client,
        "document.querySelector('#message').textContent.startsWith('line 11: variation after ply 1: its move 2 (\"I9H9\", ply 3)')",
        true.into(),
    )
    .await;
    // A new game with nothing played is not kept: a reload gets the
    // server's own new game, its opponent seated.
    people_game(&client).await;
    wait_value(&client, "state.variations.length", 0.into()).await;
    client.refresh().await.unwrap();
    wait_value(
        &client,
        "state.seats.some((seat) => !seat.human) && state.history.length === 0",
        true.into(),
    )
    .await;
    client.close().await.unwrap();
}

/// The time left on each seat's clock as the page shows it now, in ms.
async fn clocks_shown(client: &Client) -> Vec<f64> {
    let left = script(
        client,
        "return state.seats.map((seat, index) => clockLeft(index));",
    )
    .await;
    left.as_array()
        .unwrap()
        .iter()
        .map(|ms| ms.as_f64().expect("a timed game"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_seats_the_same_players_goes_on_with_the_clocks_and_keeps_a_resignation() {
    let (_server, url) = start_server(&["--no-model"]);
    let (client, _chromium) = open_page(&url, 1366, 900, "black to move").await;
    // The person as Black against greedy (the server's own game is against
    // alphabeta:depth=2, untimed), five minutes and 2 s a push-off.
    select(&client, "#opponent", "greedy").await;
    script(
        &client,
        "document.querySelector('#minutes').value = '5'; document.querySelector('#increment').value = '2';",
    )
    .await;
    click(&client, "[data-testid=new-game]").await;
    let seated = "JSON.stringify([state.seats.map((seat) => seat.request), state.clock])";
    let asked = r#"[[{"kind":"human","name":"you"},{"kind":"classical","spec":"greedy"}],{"minutes":5,"increment_seconds":2}]"#;
    wait_value(&client, seated, asked.into()).await;
    type_move(&client, "A1B2\n").await;
    wait_value(&client, "state.history.length", 2.into()).await;
    // Black's clock runs three seconds down before the reload.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let before = clocks_shown(&client).await;
    assert!(before[0] < 298_000.0, "Black's clock runs: {before:?}");

    client.refresh().await.unwrap();
    wait_value(
        &client,
        "state.history.length === 2 && state.history[0].text",
        "A1B2".into(),
    )
    .await;
    wait_value(&client, seated, asked.into()).await;
    let players = script(&client, "return state.seats.map((seat) => seat.player);").await;
    assert_eq!(players, serde_json::json!(["you", "greedy"]));
    // Each clock goes on from the time it had (Black's, which runs, from
    // the moment the page went), not from a fresh five minutes.
    let after = clocks_shown(&client).await;
    for (seat, (before, after)) in before.iter().zip(&after).enumerate() {
        assert!(
            (before - after).abs() < 1_500.0,
            "seat {seat}: {before} ms left before the reload, {after} after"
        );
    }
    // The form follows the game back, so that Start begins another alike.
    let form = script(
        &client,
        "return ['opponent', 'minutes', 'increment'].map((id) => document.getElementById(id).value);",
    )
    .await;
    assert_eq!(form, serde_json::json!(["greedy", "5", "2"]));
    // Greedy is seated, not a name: it answers the next move, and the
    // server's clock kept the time Black spent before the reload.
    type_move(&client, "B1C2\n").await;
    wait_value(&client, "state.history.length", 4.into()).await;
    let black = script(&client, "return state.seats[0].clock_ms;").await;
    let black = black.as_f64().unwrap();
    assert!(
        black < before[0],
        "{black} ms left after the move, {} before the reload",
        before[0]
    );
    // A resigned game comes back resigned, not as a game going on.
    click(&client, "#resign").await;
    wait_value(&client, "state.result", "black resigned".into()).await;
    wait_value(
        &client,
        "(sessionStorage.getItem('sumito-game') || '').includes('\\nforfeit: black resigned\\n')",
        true.into(),
    )
    .await;
    client.refresh().await.unwrap();
    wait_value(
        &client,
        "state.history.length === 4 && state.result",
        "black resigned".into(),
    )
    .await;
    script(&client, "window.scrollTo(0, 0);").await;
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("resigned-after-reload.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    client.close().await.unwrap();
}

fn output_text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn sumito(dir: &Path, args: &[&str]) -> Output {
    Command::new(SUMITO)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_commands_that_read_records_take_one_with_variations() {
    let scratch = Scratch::new("variations-readers");
    let dir = &scratch.0;
    std::fs::write(dir.join("game.txt"), RECORD).unwrap();
    for args in [
        &["review", "game.txt", "--sims", "4", "--no-progress"][..],
        &["analyse", "--record", "game.txt", "--sims", "4"],
        &["render", "--record", "game.txt", "--out", "pics/game.svg"],
    ] {
        let output = sumito(dir, args);
        assert!(
            output.status.success(),
            "{args:?}\n{}",
            output_text(&output)
        );
    }
    // A bad variation is refused by each, naming the file, line and move.
    std::fs::write(
        dir.join("bad.txt"),
        RECORD.replace("G7F7 C4D4", "G7F7 I9H9"),
    )
    .unwrap();
    for args in [
        &["review", "bad.txt", "--sims", "4", "--no-progress"][..],
        &["analyse", "--record", "bad.txt", "--sims", "4"],
        &["render", "--record", "bad.txt", "--out", "pics/bad.svg"],
    ] {
        let output = sumito(dir, args);
        let text = output_text(&output);
        assert!(!output.status.success(), "{args:?}\n{text}");
        assert!(
            text.contains("bad.txt")
                && text.contains("line 11: variation after ply 1: its move 2 (\"I9H9\", ply 3)"),
            "{args:?}\n{text}"
        );
    }
}
