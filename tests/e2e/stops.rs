//! Long commands beside the training roles (`tests/e2e/train.rs`,
//! `object_store.rs`) stop promptly on a signal: a match stops at its next
//! move, keeping the records of the games it finished.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Scratch;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

#[test]
fn a_match_stops_within_seconds_of_sigint_or_sigterm() {
    let scratch = Scratch::new("match-stops");
    for signal in ["INT", "TERM"] {
        let out = scratch.0.join(signal);
        // Deep searches: minutes of games, unless stopped. Started as a
        // script's background job is (SIGINT ignored before the command
        // runs), which the command must not inherit.
        let child = Command::new("sh")
            .arg("-c")
            .arg(
                "trap '' INT; exec \"$0\" arena --player alphabeta:depth=4 \
                 --player alphabeta:depth=4 --games 2 --quiet --out \"$1\"",
            )
            .arg(SUMITO)
            .arg(&out)
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
        assert!(seconds < 5.0, "SIG{signal}: {seconds:.1} s to stop: {said}");
        assert!(!output.status.success(), "SIG{signal}: {said}");
        assert!(
            said.contains("stopping at the next move") && said.contains("stopped on request"),
            "SIG{signal}: {said}"
        );
    }
}
