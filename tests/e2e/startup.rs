//! End-to-end tests of how `sumito` starts: the commands that need no network
//! run without libtorch (even where there is none), a network command loads
//! libtorch exactly once (no second start of the program), and a `sumito`
//! without its `sumito-torch` says what to run.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

use common::{Scratch, feed};

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// Runs `program ARGS` in `dir` with `stdin` as its input, the loader's
/// report of every library it initialises on standard error (`LD_DEBUG`),
/// and neither OpenMP variable set, as a user's shell would have it.
fn run_traced(program: &Path, dir: &Path, args: &[&str], stdin: &str) -> Output {
    feed(
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .env("LD_DEBUG", "libs")
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("OMP_WAIT_POLICY")
            .env_remove("GOMP_SPINCOUNT")
            .env_remove("SUMITO_MODELS"),
        stdin,
    )
}

/// How often the loader initialised libtorch (`calling init: …libtorch_cpu.so`).
fn libtorch_inits(output: &Output) -> usize {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| line.contains("calling init:") && line.contains("libtorch_cpu.so"))
        .count()
}

/// Standard error without the loader's trace.
fn errors(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| !line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn commands_without_a_network_never_load_libtorch() {
    let scratch = Scratch::new("startup-light");
    let out = scratch.0.join("records");
    let out = out.to_str().unwrap();
    let ladder = scratch.0.join("ladder");
    let ladder = ladder.to_str().unwrap();
    let light: [(&[&str], &str); 8] = [
        (&["--version"], ""),
        (&["moves", "--layout", "standard"], ""),
        (&["perft", "--depth", "2"], ""),
        (&["bench", "--help"], ""),
        (&["play", "--opponent", "random"], "quit\n"),
        (
            &[
                "arena",
                "--player",
                "random",
                "--player",
                "greedy",
                "--games",
                "2",
                "--quiet",
                "--max-plies",
                "40",
                "--out",
                out,
            ],
            "",
        ),
        (
            &[
                "ladder",
                "greedy",
                "--opponent",
                "random",
                "--games",
                "2",
                "--quiet",
                "--out",
                ladder,
            ],
            "",
        ),
        (
            &[
                "render",
                "--fen",
                "5/6/7/8/9/8/7/6/5 b 0 0",
                "--out",
                "empty.svg",
            ],
            "",
        ),
    ];
    for (args, stdin) in light {
        let output = run_traced(Path::new(SUMITO), &scratch.0, args, stdin);
        assert!(output.status.success(), "{args:?}: {}", errors(&output));
        assert_eq!(libtorch_inits(&output), 0, "{args:?} loaded libtorch");
    }
}

#[test]
fn a_network_command_loads_libtorch_once() {
    let scratch = Scratch::new("startup-network");
    let output = run_traced(
        Path::new(SUMITO),
        &scratch.0,
        &["analyse", "--sims", "1", "--top", "1"],
        "",
    );
    assert!(output.status.success(), "{}", errors(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("principal variation"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    // The old single binary started itself again to set the OpenMP
    // variables, and so initialised libtorch twice.
    assert_eq!(libtorch_inits(&output), 1, "{}", errors(&output));
}

#[test]
fn sumito_alone_plays_classical_games_and_names_what_is_missing_for_networks() {
    // A copy of `sumito` with neither `sumito-torch` nor libtorch beside it,
    // as after copying only the front binary somewhere.
    let scratch = Scratch::new("startup-alone");
    let alone = scratch.0.join("sumito");
    std::fs::copy(SUMITO, &alone).unwrap();
    let output = run_traced(&alone, &scratch.0, &["perft", "--depth", "3"], "");
    assert!(output.status.success(), "{}", errors(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("perft(3)"));
    let output = run_traced(
        &alone,
        &scratch.0,
        &["play", "--opponent", "greedy"],
        "quit\n",
    );
    assert!(output.status.success(), "{}", errors(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("result: unfinished"));
    for network in [
        &["analyse", "--sims", "1"][..],
        &["play"],
        &["arena", "--player", "bundle", "--player", "greedy"],
        &["bench", "net"],
    ] {
        let output = run_traced(&alone, &scratch.0, network, "");
        assert!(!output.status.success(), "{network:?}");
        let message = errors(&output);
        assert!(
            message.contains("sumito-torch")
                && message.contains("does not exist")
                && message.contains("cargo build --release"),
            "{network:?}: {message}"
        );
    }
    // Argument errors of a network command are answered by `sumito` itself.
    let output = run_traced(&alone, &scratch.0, &["train"], "");
    assert!(!output.status.success());
    assert!(errors(&output).contains("--config"), "{}", errors(&output));
}
