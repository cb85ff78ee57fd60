//! End-to-end test of `sumito json-analysis`, the analysis program:
//! JSON queries written to its standard input through a pipe, JSON answers
//! read back line by line, with the shipped model; every field and action
//! of docs/analysis-protocol.md, and its example client in Python.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

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
    // The first candidate is the move the program plays, the line's first.
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
    // Mistakes are answered by field, and the program goes on.
    let bad = of("bad".into());
    assert!(
        bad[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("visits: must be 1 to"),
        "{answers:?}"
    );
    assert_eq!(bad[0]["field"], "visits");
    // A field it does not know is a warning: the query is answered.
    let unknown = of("unknown".into());
    assert_eq!(unknown[0]["warnings"][0]["field"], "komi", "{answers:?}");
    assert!(unknown[0]["moves"].is_array());
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

/// A running analysis program: lines written to it, answers read back within a
/// minute each (a reader thread), and its memory's high-water mark.
struct AnalysisProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<Value>,
    /// Lines written so far (the program numbers them from 1).
    lines: u64,
}

impl AnalysisProcess {
    fn start(args: &[&str]) -> AnalysisProcess {
        let mut child = Command::new(SUMITO)
            .arg("json-analysis")
            .args(["--model", "models/quick"])
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let line = line.unwrap();
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|err| panic!("not JSON: {err}: {line}"));
                if sender.send(value).is_err() {
                    break;
                }
            }
        });
        AnalysisProcess {
            stdin: child.stdin.take(),
            child,
            answers,
            lines: 0,
        }
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        self.lines += 1;
    }

    fn send(&mut self, query: Value) {
        self.send_bytes(query.to_string().as_bytes());
    }

    fn next(&self) -> Value {
        self.answers
            .recv_timeout(Duration::from_secs(60))
            .expect("an answer within a minute")
    }

    /// The next answer whose id is `id` (others are kept out of the way by
    /// the tests' order: one thing at a time).
    fn next_of(&self, id: &str) -> Value {
        let answer = self.next();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// The answers of `id` up to its final one.
    fn until_final(&self, id: &str) -> Vec<Value> {
        let mut answers = Vec::new();
        loop {
            let answer = self.next_of(id);
            let last = answer["partial"] == false;
            answers.push(answer);
            if last {
                return answers;
            }
        }
    }

    /// The process's peak resident memory so far, in kB (Linux).
    fn peak_memory_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/PID/status")
    }

    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        assert!(self.answers.recv_timeout(Duration::from_secs(5)).is_err());
    }
}

fn moves_of(answer: &Value) -> Vec<String> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|candidate| candidate["move"].as_str().unwrap().to_owned())
        .collect()
}

/// Every field and action of the protocol, one at a time over one pipe to
/// one analysis program searching one position at a time.
#[test]
fn every_field_and_action_answers_over_a_pipe() {
    let mut process = AnalysisProcess::start(&["--threads", "1", "--sims", "32"]);

    process.send(json!({"id": "v", "action": "query_version"}));
    let version = process.next_of("v");
    assert_eq!(version["protocol"], 2, "{version}");
    assert!(version["version"].is_string());
    process.send(json!({"id": "m", "action": "query_models"}));
    let model = &process.next_of("m")["models"][0];
    assert_eq!(model["name"], "quick", "{model}");
    assert_eq!(model["game"], "two-player");
    assert!(model["generation"].as_u64().is_some());
    assert!(model["rules"].is_object() && model["rules_text"].is_string());

    // Partial answers every 16 simulations, then the final one; every
    // candidate with its order, line and bound; the network's own view.
    let start = sumito_engine::Position::start(
        sumito_engine::Layout::Standard,
        sumito_engine::Rules::default(),
    );
    let legal = start.legal_moves().len();
    process.send(json!({
        "id": "grow", "visits": 64, "report_every_visits": 16, "top": 5,
        "include_policy": true,
        "avoid_moves": [{"side": "black", "moves": ["A1B2", "A5B5"], "until_depth": 1}],
    }));
    let grow = process.until_final("grow");
    let simulations: Vec<u64> = grow
        .iter()
        .map(|answer| answer["root"]["simulations"].as_u64().unwrap())
        .collect();
    assert_eq!(simulations, [16, 32, 48, 64]);
    let last = grow.last().unwrap();
    for (order, candidate) in last["moves"].as_array().unwrap().iter().enumerate() {
        assert_eq!(candidate["order"], order, "{candidate}");
        assert_eq!(candidate["line"][0], candidate["move"]);
        let (q, lcb) = (candidate["q"].as_f64(), candidate["lcb"].as_f64());
        assert_eq!(q.is_some(), lcb.is_some());
        if let (Some(q), Some(lcb)) = (q, lcb) {
            assert!(lcb < q && lcb >= -1.0, "{candidate}");
        }
    }
    assert_eq!(last["moves"][0]["line"], last["pv"]);
    assert!(last["pv"].as_array().unwrap().len() > 1, "{last}");
    let raw = &last["raw"];
    let sum = raw["win"].as_f64().unwrap()
        + raw["draw"].as_f64().unwrap()
        + raw["loss"].as_f64().unwrap();
    assert!((sum - 1.0).abs() < 1e-3, "{raw}");
    let policy = last["policy"].as_array().unwrap();
    assert_eq!(policy.len(), legal);
    let priors: Vec<f64> = policy
        .iter()
        .map(|entry| entry["prior"].as_f64().unwrap())
        .collect();
    assert!((priors.iter().sum::<f64>() - 1.0).abs() < 1e-3);
    assert!(
        priors.windows(2).all(|pair| pair[0] >= pair[1]),
        "highest first"
    );
    // The avoided moves have priors but were not searched.
    let policy_moves: Vec<&str> = policy
        .iter()
        .map(|entry| entry["move"].as_str().unwrap())
        .collect();
    assert!(policy_moves.contains(&"A1B2"));
    process.send(json!({"id": "every", "visits": 64, "top": 100,
        "avoid_moves": [{"side": "black", "moves": ["A1B2", "A5B5"]}]}));
    let every = moves_of(&process.next_of("every"));
    assert_eq!(every.len(), legal - 2);
    assert!(!every.contains(&"A1B2".to_owned()) && !every.contains(&"A5B5".to_owned()));
    process.send(json!({"id": "only", "visits": 32,
        "allow_moves": [{"side": "black", "moves": ["A1B2", "A5B5"]}]}));
    let mut only = moves_of(&process.next_of("only"));
    only.sort();
    assert_eq!(only, ["A1B2", "A5B5"]);
    // A restriction on the other side's replies, two plies deep: each
    // candidate's line answers with an allowed move.
    process.send(json!({"id": "reply", "visits": 200, "top": 100,
        "allow_moves": [{"side": "white", "moves": ["I5H5", "I9H9"], "until_depth": 2}]}));
    let reply = process.next_of("reply");
    for candidate in reply["moves"].as_array().unwrap() {
        if let Some(answer) = candidate["line"].get(1) {
            assert!(answer == "I5H5" || answer == "I9H9", "{candidate}");
        }
    }

    // The cache holds what was evaluated, and clearing empties it.
    process.send(json!({"id": "c1", "action": "clear_cache"}));
    assert!(process.next_of("c1")["cleared"].as_u64().unwrap() > 0);
    process.send(json!({"id": "c2", "action": "clear_cache"}));
    assert_eq!(process.next_of("c2")["cleared"], 0);

    // Priority: while one search runs, the later query of the higher
    // priority is searched first.
    process.send(json!({"id": "long", "time_ms": 1500, "report_every_ms": 100}));
    assert_eq!(process.next_of("long")["partial"], true);
    process.send(json!({"id": "low", "visits": 8, "priority": -1}));
    process.send(json!({"id": "high", "visits": 8, "priority": 2}));
    let mut order = Vec::new();
    while order.len() < 3 {
        let answer = process.next();
        if answer["partial"] == false {
            order.push(answer["id"].clone());
        }
    }
    assert_eq!(order, ["long", "high", "low"]);

    // terminate: a search under way stops with what it has.
    process.send(json!({"id": "endless", "visits": 10_000_000, "report_every_ms": 100}));
    let first = process.next_of("endless");
    assert_eq!(first["partial"], true, "{first}");
    process.send(json!({"id": "t", "action": "terminate", "terminate_id": "endless"}));
    let mut acknowledged = false;
    loop {
        let answer = process.next();
        if answer["id"] == "t" {
            assert_eq!(answer["terminated"]["running"], 1, "{answer}");
            acknowledged = true;
        } else if answer["partial"] == false {
            assert_eq!(answer["id"], "endless");
            assert_eq!(answer["terminated"], true, "{answer}");
            assert!(answer["root"]["simulations"].as_u64().unwrap() < 10_000_000);
            break;
        }
    }
    if !acknowledged {
        assert_eq!(process.next_of("t")["terminated"]["running"], 1);
    }
    // terminate_all: the waiting one gets no results, the running one
    // stops.
    process.send(json!({"id": "run", "visits": 10_000_000, "report_every_ms": 100}));
    assert_eq!(process.next_of("run")["partial"], true);
    process.send(json!({"id": "wait", "visits": 10_000_000}));
    process.send(json!({"id": "all", "action": "terminate_all"}));
    let mut seen = std::collections::BTreeMap::new();
    while seen.len() < 3 {
        let answer = process.next();
        if answer["partial"] != true {
            seen.insert(answer["id"].as_str().unwrap().to_owned(), answer);
        }
    }
    assert_eq!(seen["wait"]["no_results"], true, "{seen:?}");
    assert_eq!(seen["run"]["terminated"], true);
    assert_eq!(
        seen["all"]["terminated"],
        json!({"waiting": 1, "running": 1})
    );

    // A key given twice is refused by name.
    process.send_bytes(br#"{"id": "dup", "visits": 3, "visits": 5000}"#);
    let dup = process.next_of("dup");
    assert_eq!(dup["field"], "visits", "{dup}");
    assert_eq!(dup["line"], process.lines);

    // Bytes that are no UTF-8: refused by line number, and the program goes on.
    process.send_bytes(b"{\"id\": \"\xff\xfe\"}");
    let bad_line = process.lines;
    let bad = process.next();
    assert_eq!(bad["line"], bad_line, "{bad}");
    assert!(
        bad["error"].as_str().unwrap().contains("not UTF-8"),
        "{bad}"
    );
    process.send(json!({"id": "after-bad", "visits": 8}));
    assert_eq!(process.next_of("after-bad")["root"]["simulations"], 8);

    // A 50 MB line: refused by line number as it streams past, never held
    // whole (the peak memory grows by far less than the line), and the
    // program goes on.
    let before = process.peak_memory_kb();
    let long = vec![b'x'; 50 << 20];
    process.send_bytes(&long);
    let long_line = process.lines;
    let refused = process.next();
    assert_eq!(refused["line"], long_line, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("longer than the cap of 1048576 bytes")
    );
    process.send(json!({"id": "after-long", "visits": 8}));
    assert_eq!(process.next_of("after-long")["root"]["simulations"], 8);
    let grown = process.peak_memory_kb().saturating_sub(before);
    assert!(grown < 16 << 10, "the peak memory grew by {grown} kB");
    process.finish();
}

/// The example client of docs/analysis-protocol.md, run as written (Python
/// 3, standard library only) against the real program.
#[test]
fn the_python_example_client_talks_to_the_program() {
    let output = Command::new("python3")
        .args([
            "docs/examples/analysis_client.py",
            "--program",
            SUMITO,
            "--position",
            "5/6/7/8/6bbw/8/7/6/5 b 0 5",
            "--visits",
            "64",
            "--report-every",
            "16",
            "--",
            "--model",
            "models/quick",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs the example client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(", protocol 2"), "{stdout}");
    assert!(stdout.contains("model quick, generation "), "{stdout}");
    assert_eq!(stdout.matches("  ... ").count(), 3, "{stdout}");
    assert!(stdout.contains("after 64 simulations"), "{stdout}");
    assert!(stdout.contains("  1. E7E8 "), "{stdout}");
    assert!(
        stdout.contains("refused as expected: field visits: visits: must be 1 to"),
        "{stdout}"
    );
}
