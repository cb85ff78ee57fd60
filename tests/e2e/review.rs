//! `sumito review` as a person uses it, with the shipped model: the table,
//! the JSON with what was reviewed, the SVG and HTML reports, a match's
//! random opening left unjudged, and learning from the mistakes in a real
//! terminal (tmux).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::tmux::Tmux;
use crate::common::{Scratch, first_record};

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn sumito(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new(SUMITO)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}\n{}", text(&output));
    output
}

/// A match game of `black` against `white` with a random opening of
/// `opening` plies, as `game.txt` in `dir`.
fn match_game(dir: &Path, black: &str, white: &str, opening: &str) {
    sumito(
        dir,
        &[
            "arena",
            "--player",
            black,
            "--player",
            white,
            "--games",
            "2",
            "--max-plies",
            "60",
            "--opening-plies",
            opening,
            "--no-progress",
            "--out",
            "records",
        ],
    );
    std::fs::copy(first_record(&dir.join("records")), dir.join("game.txt")).unwrap();
}

#[test]
fn a_review_carries_what_it_reviewed_and_leaves_the_random_opening_unjudged() {
    let scratch = Scratch::new("review-reports");
    let dir = &scratch.0;
    match_game(dir, "random", "greedy", "6");
    let record = std::fs::read_to_string(dir.join("game.txt")).unwrap();
    assert!(record.contains("opening_plies: 6"), "{record}");
    let output = sumito(
        dir,
        &[
            "review",
            "game.txt",
            "--sims",
            "4",
            "--json",
            "--svg",
            "out/review.svg",
            "--html",
            "out/review.html",
            "--no-progress",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let meta = &json["meta"];
    assert_eq!(meta["record"], "game.txt");
    assert_eq!(meta["model"], "quick");
    assert_eq!(meta["simulations"], 4);
    assert_eq!(meta["players"][0], "random");
    assert_eq!(meta["players"][1], "greedy");
    assert_eq!(meta["layout"], "standard");
    assert_eq!(meta["opening_plies"], 6);
    assert!(meta["date"].as_str().unwrap().ends_with('Z'), "{meta}");
    let moves = json["moves"].as_array().unwrap();
    for (index, mv) in moves.iter().enumerate() {
        let random = index < 6;
        assert_eq!(mv["random_opening"], random, "{mv}");
        if random {
            assert_eq!(mv["judgement"], serde_json::Value::Null, "{mv}");
            assert_eq!(mv["loss"], 0.0, "{mv}");
        }
    }
    // Random's moves are judged after the opening.
    let judged: Vec<&serde_json::Value> = moves
        .iter()
        .filter(|mv| !mv["judgement"].is_null())
        .collect();
    assert!(!judged.is_empty(), "{json}");
    assert_eq!(
        json["black"]["moves"].as_u64().unwrap() as usize,
        moves
            .iter()
            .filter(|mv| mv["color"] == "black" && mv["random_opening"] == false)
            .count()
    );
    assert!(json["key_moments"].as_array().unwrap().len() <= 5);

    let svg = std::fs::read_to_string(dir.join("out/review.svg")).unwrap();
    roxmltree::Document::parse(&svg).unwrap();
    assert!(svg.contains("random, White greedy"), "players shown: {svg}");
    assert!(
        svg.contains(r#"<rect class="band""#),
        "the random opening shaded"
    );
    assert!(svg.contains(">middlegame</text>"), "a phase divider");

    let html = std::fs::read_to_string(dir.join("out/review.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Self-contained: nothing to fetch.
    let outside = html.replace("http://www.w3.org/2000/svg", "");
    for fetch in ["http://", "https://", " src=", "@import", "<link"] {
        assert!(!outside.contains(fetch), "{fetch} in the HTML report");
    }
    assert_eq!(
        html.matches("class=\"board-picture\"").count(),
        judged.len(),
        "one picture per judged move"
    );
    assert_eq!(
        html.matches("<article class=\"move\"").count(),
        moves.len() + 1
    );
    assert!(html.contains("next mistake") && html.contains("previous mistake"));
}

#[test]
fn learning_from_the_mistakes_in_a_terminal() {
    let scratch = Scratch::new("review-learn");
    let dir = &scratch.0;
    match_game(dir, "random", "greedy", "2");
    // The review first, as JSON: Black's (random's) first mistake and the
    // model's move there. The search is the same in both runs (one
    // thread, one seed).
    let output = sumito(
        dir,
        &[
            "review",
            "game.txt",
            "--sims",
            "4",
            "--json",
            "--no-progress",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|mv| {
            mv["color"] == "black"
                && ["mistake", "blunder"].contains(&mv["judgement"].as_str().unwrap_or(""))
        })
        .expect("random makes a mistake in 60 plies")
        .clone();
    let played = first["move"].as_str().unwrap();
    let better = first["better"]["move"].as_str().unwrap();
    let tmux = Tmux::start(
        dir,
        "sumito-learn",
        &format!("{SUMITO} review game.txt --sims 4 --no-progress --learn --side black"),
    );
    let screen = tmux.wait_for("your move>", 1);
    assert!(screen.contains("Learn from your mistakes: "), "{screen}");
    assert!(
        screen.contains(&format!(
            "move {}, Black to play. The game went {played} here",
            first["ply"]
        )),
        "{screen}"
    );
    // The board before the mistake, Black at the bottom.
    assert!(screen.contains("    A "), "{screen}");
    tmux.type_line("Z9");
    tmux.wait_for("your move>", 2);
    tmux.type_line(played);
    let screen = tmux.wait_for("your move>", 3);
    assert!(screen.contains("That is the move of the game"), "{screen}");
    tmux.type_line(better);
    let screen = tmux.wait_for("Good: ", 1);
    assert!(
        screen.contains(&format!("Good: {better} keeps ")),
        "{screen}"
    );
    // The next exercise, if there is one, is left with `quit`.
    if !tmux
        .wait_for_either("your move>", 4, "Solved 1 of ")
        .contains("Solved 1 of ")
    {
        tmux.type_line("quit");
        tmux.wait_for("Solved 1 of ", 1);
    }
}

/// The ply of the move the HTML report shows.
async fn shown(client: &fantoccini::Client) -> usize {
    let element = client
        .find(fantoccini::Locator::Css(".move.shown"))
        .await
        .expect("one move shown");
    element
        .attr("data-ply")
        .await
        .unwrap()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_goes_from_mistake_to_mistake_in_a_browser() {
    use crate::common::browser::{browser, start_chromedriver};
    use fantoccini::Locator;
    use fantoccini::key::Key;

    let scratch = Scratch::new("review-html");
    let dir = scratch.0.clone();
    match_game(&dir, "random", "greedy", "2");
    let output = sumito(
        &dir,
        &[
            "review",
            "game.txt",
            "--sims",
            "4",
            "--json",
            "--html",
            "review.html",
            "--no-progress",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let judged = judged_plies(&json);
    assert!(judged.len() >= 2, "{json}");
    let driver = start_chromedriver();
    // A phone's width: the page must work there too.
    let client = browser(&driver, &dir.join("profile"), 390, 844).await;
    let url = format!("file://{}", dir.join("review.html").display());
    client.goto(&url).await.unwrap();
    // The first judged move is shown, with its picture and arrows.
    assert_eq!(shown(&client).await, judged[0]);
    let picture = client
        .find(Locator::Css(
            ".move.shown .board-picture .line-arrow.played",
        ))
        .await;
    assert!(picture.is_ok(), "the shown move has its picture");
    client
        .find(Locator::Css("#next-mistake"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(shown(&client).await, judged[1]);
    client
        .find(Locator::Css("#previous-mistake"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(shown(&client).await, judged[0]);
    // The arrow keys step move by move.
    client
        .find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys(&char::from(Key::Right).to_string())
        .await
        .unwrap();
    assert_eq!(shown(&client).await, judged[0] + 1);
    // A point of the graph goes to its move: the start.
    client
        .execute(
            "document.querySelector('.point[data-ply=\"0\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(shown(&client).await, 0);
    let where_text = client
        .find(Locator::Css("#where"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(where_text, "start");
    // Nothing wider than the phone's screen.
    let wide: bool = client
        .execute(
            "return document.documentElement.scrollWidth > window.innerWidth;",
            vec![],
        )
        .await
        .unwrap()
        .as_bool()
        .unwrap();
    assert!(!wide, "the report scrolls sideways on a phone");
    let shot = client.screenshot().await.unwrap();
    std::fs::write(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/review-html-phone.png"),
        shot,
    )
    .unwrap();
    client.close().await.unwrap();
}

/// The plies of a review JSON's judged moves, in order.
pub(crate) fn judged_plies(review: &serde_json::Value) -> Vec<usize> {
    review["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|mv| !mv["judgement"].is_null())
        .map(|mv| mv["ply"].as_u64().unwrap() as usize)
        .collect()
}
