//! End-to-end test of `sumito json-analysis`, the analysis engine for programs:
//! JSON queries written to its standard input through a pipe, JSON answers
//! read back line by line, with the shipped model.

use std::io::Write;
use std::process::{Command, Stdio};

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

#[test]
fn queries_over_a_pipe_get_answers_by_id_and_errors_by_field() {
    let mut child = Command::new(SUMITO)
        .args([
            "json-analysis",
            "--model",
            "models/quick",
            "--sims",
            "16",
            "--threads",
            "2",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let queries = [
        r#"{"id": "opening", "layout": "belgian-daisy", "moves": ["A1B2"], "turns": [0, 1], "top": 4}"#,
        r#"{"id": 2, "position": "5/6/7/8/6bbw/8/7/6/5 b 0 5", "visits": 64}"#,
        r#"{"id": "timed", "time_ms": 200}"#,
        // A capture position of the tactics suite where the shipped model's
        // last two candidates share the most visits and the one it plays
        // has the lower prior.
        r#"{"id": "tie", "position": "w3w/1wbwwb/1wwbwb1/1wwb2w1/4b4/2b1b3/3bb2/1bbbb1/5 w 0 3 65 8", "visits": 400, "top": 3}"#,
        r#"{"id": "bad", "visits": 0}"#,
        r#"{"id": "unknown", "komi": 7.5}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for query in queries {
        writeln!(stdin, "{query}").unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let of = |id: serde_json::Value| -> Vec<&serde_json::Value> {
        answers.iter().filter(|answer| answer["id"] == id).collect()
    };
    // Both turns of the opening, from each side, with four candidates.
    let opening = of("opening".into());
    assert_eq!(opening.len(), 2, "{answers:?}");
    for answer in &opening {
        assert_eq!(answer["moves"].as_array().unwrap().len(), 4, "{answer}");
        assert_eq!(answer["root"]["simulations"], 16);
        let root = &answer["root"];
        let sum = root["win"].as_f64().unwrap()
            + root["draw"].as_f64().unwrap()
            + root["loss"].as_f64().unwrap();
        assert!((sum - 1.0).abs() < 1e-3, "{answer}");
    }
    let sides: Vec<&str> = opening
        .iter()
        .map(|answer| answer["side"].as_str().unwrap())
        .collect();
    assert!(
        sides.contains(&"black") && sides.contains(&"white"),
        "{sides:?}"
    );
    // A win in one is found and its line starts with it.
    let win = of(2.into());
    assert_eq!(win[0]["pv"][0], "E7E8", "{}", win[0]);
    assert_eq!(win[0]["moves"][0]["move"], "E7E8");
    // The first candidate is the move the engine plays, the line's first.
    for answer in answers
        .iter()
        .filter(|answer| answer.get("moves").is_some())
    {
        assert_eq!(answer["moves"][0]["move"], answer["pv"][0], "{answer}");
    }
    assert_eq!(of("tie".into()).len(), 1, "{answers:?}");
    // A search within a time runs more than a handful of simulations.
    let timed = of("timed".into());
    assert!(
        timed[0]["root"]["simulations"].as_u64().unwrap() > 16,
        "{}",
        timed[0]
    );
    // Mistakes are answered by field, and the engine goes on.
    assert!(
        of("bad".into())[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("visits: must be 1 to"),
        "{answers:?}"
    );
    assert!(
        of("unknown".into())[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("komi: no such field"),
        "{answers:?}"
    );
    assert_eq!(answers.len(), 7);
}

/// The commands' old names, `analysis` and `analyze` (hidden aliases of
/// `json-analysis` and `analyse`), still reach their commands in
/// `sumito-torch`, which parses the words `sumito` hands it again.
#[test]
fn the_old_names_still_run_their_commands() {
    let mut child = Command::new(SUMITO)
        .args(["analysis", "--model", "models/quick", "--sims", "4"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"id": "old", "top": 2}}"#).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: serde_json::Value =
        serde_json::from_str(String::from_utf8(output.stdout).unwrap().trim()).unwrap();
    assert_eq!(answer["id"], "old", "{answer}");
    assert_eq!(answer["root"]["simulations"], 4, "{answer}");

    let output = Command::new(SUMITO)
        .args(["analyze", "--model", "quick", "--sims", "4", "--top", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("principal variation"), "{stdout}");
}
