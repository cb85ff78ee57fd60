//! Long commands beside the training roles (`tests/e2e/train.rs`,
//! `object_store.rs`) stop promptly on a signal: a match stops at its next
//! move, keeping the records of the games it finished; the tactics
//! benchmark after the positions under way.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Scratch;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// Starts `sumito ARGS` as a script's background job is started (SIGINT
/// ignored before the command runs, which it must not inherit), sends it
/// SIG`signal` after a moment and returns what it said on stderr, having
/// checked that it stopped within 5 s and said why.
fn stopped_by(signal: &str, args: &str) -> String {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' INT; exec \"$0\" {args}"))
        .arg(SUMITO)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let asked = Instant::now();
    let output = child.wait_with_output().unwrap();
    let seconds = asked.elapsed().as_secs_f64();
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        seconds < 5.0,
        "{args}, SIG{signal}: {seconds:.1} s to stop: {said}"
    );
    assert!(!output.status.success(), "{args}, SIG{signal}: {said}");
    assert!(
        said.contains("stopping at the next move") && said.contains("stopped on request"),
        "{args}, SIG{signal}: {said}"
    );
    said
}

#[test]
fn a_match_and_the_tactics_benchmark_stop_within_seconds_of_sigint_or_sigterm() {
    let scratch = Scratch::new("match-stops");
    for signal in ["INT", "TERM"] {
        // Deep searches: minutes of games, unless stopped.
        let out = scratch.0.join(signal);
        stopped_by(
            signal,
            &format!(
                "arena --player alphabeta:depth=4 --player alphabeta:depth=4 --games 2 --quiet --out {}",
                out.display()
            ),
        );
    }
    let said = stopped_by("INT", "bench tactics --player alphabeta:depth=4");
    assert!(said.contains("nothing is reported"), "{said}");
}
