//! End-to-end tests of bad input that must neither end a session nor
//! destroy data nor flood the terminal: a line of `sumito play` that is not
//! UTF-8 (two and three players), a `--rules` value out of range (refused by
//! every command), `sumito arena --out` into a folder that holds records, a
//! huge bad `--fen`, an I/O error's cause said once, and a record cut short
//! or without end.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common;

use common::Scratch;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// Runs `sumito ARGS` in `dir` with `input` on its standard input.
fn sumito(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(SUMITO)
        .args(args)
        .current_dir(dir)
        .env("OMP_WAIT_POLICY", "PASSIVE")
        .env_remove("SUMITO_MODELS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The process may have ended already (bad options): ignore a closed pipe.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_game_goes_on() {
    let scratch = Scratch::new("play-not-utf8");
    let output = sumito(
        &scratch.0,
        &["play", "--opponent", "random"],
        b"A1B2\xff\xfe\nA1B2\nquit\n",
    );
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("that line is not valid UTF-8 text"),
        "{stdout}"
    );
    // The next line is played and answered, and the game ends with its
    // result line.
    assert!(stdout.contains("White (random) plays "), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("result: unfinished (quit after 2 moves)"),
        "{stdout}"
    );
}

#[test]
fn a_line_that_is_not_utf8_is_refused_in_a_game_of_three_and_the_game_goes_on() {
    let scratch = Scratch::new("play-three-not-utf8");
    let output = sumito(
        &scratch.0,
        &[
            "play",
            "--layout",
            "three-player",
            "--seat",
            "human",
            "--seat",
            "random",
            "--seat",
            "random",
        ],
        b"A5B5\n\xff\xfe bad\nmoves\nquit\n",
    );
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("that line is not valid UTF-8 text"),
        "{stdout}"
    );
    // The lines after it are read: `moves` is answered, then `quit`.
    assert!(stdout.contains("legal moves:"), "{stdout}");
}

#[test]
fn rules_values_out_of_range_are_refused_by_every_command_naming_key_and_range() {
    let scratch = Scratch::new("rules-range");
    for (value, key, allowed) in [
        (
            "marbles_to_win = 0",
            "rules.marbles_to_win",
            "must be 1 to 14",
        ),
        (
            "marbles_to_win = 15",
            "rules.marbles_to_win",
            "must be 1 to 14",
        ),
        ("max_plies = 0", "rules.max_plies", "must be at least 1"),
        (
            "no_push_off_plies = 0",
            "rules.no_push_off_plies",
            "must be at least 1",
        ),
    ] {
        let name = format!("{}.toml", key.replace('.', "-"));
        std::fs::write(scratch.0.join(&name), format!("[rules]\n{value}\n")).unwrap();
        let fen = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0";
        let commands: [&[&str]; 7] = [
            &["moves", "--rules", &name],
            &["perft", "--depth", "1", "--rules", &name],
            &["perft", "--depth", "1", "--fen", fen, "--rules", &name],
            &[
                "render", "--layout", "standard", "--out", "x.svg", "--rules", &name,
            ],
            &["play", "--opponent", "random", "--rules", &name],
            &[
                "play",
                "--layout",
                "three-player",
                "--seat",
                "human",
                "--seat",
                "random",
                "--seat",
                "random",
                "--rules",
                &name,
            ],
            &[
                "arena", "--player", "random", "--player", "greedy", "--games", "2", "--quiet",
                "--out", "records", "--rules", &name,
            ],
        ];
        for args in commands {
            let output = sumito(&scratch.0, args, b"quit\n");
            let message = text(&output);
            assert!(!output.status.success(), "{value}: {args:?}: {message}");
            assert!(
                message.contains(&name) && message.contains(key) && message.contains(allowed),
                "{value}: {args:?}: {message}"
            );
            assert!(!message.contains("panicked"), "{args:?}: {message}");
        }
        // Nothing was written: no picture, no records of games that ended
        // before their first move.
        assert!(!scratch.0.join("x.svg").exists());
        assert!(!scratch.0.join("records").exists());
    }
}

fn arena(dir: &Path, out: &str, seed: &str) -> Output {
    sumito(
        dir,
        &[
            "arena",
            "--player",
            "random",
            "--player",
            "greedy",
            "--games",
            "2",
            "--max-plies",
            "60",
            "--quiet",
            "--seed",
            seed,
            "--out",
            out,
        ],
        b"",
    )
}

/// The names and contents of the files in `dir`, sorted.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn arena_refuses_to_overwrite_the_records_of_an_earlier_match() {
    let scratch = Scratch::new("arena-out");
    let first = arena(&scratch.0, "records", "1");
    assert!(first.status.success(), "{}", text(&first));
    let records = scratch.0.join("records");
    let before = files(&records);
    assert_eq!(before.len(), 2, "{before:?}");

    let second = arena(&scratch.0, "records", "2");
    assert!(!second.status.success(), "{}", text(&second));
    let message = text(&second);
    assert!(
        message.contains("records") && message.contains("already holds 2 game record(s)"),
        "{message}"
    );
    assert_eq!(files(&records), before);

    // A folder with other files only is fine.
    std::fs::create_dir(scratch.0.join("notes")).unwrap();
    std::fs::write(scratch.0.join("notes/README"), "mine").unwrap();
    let third = arena(&scratch.0, "notes", "3");
    assert!(third.status.success(), "{}", text(&third));
    assert_eq!(files(&scratch.0.join("notes")).len(), 3);
}

/// A command's failure on `text`, a position of 120,000 cells in row E
/// given by --fen: a short error that quotes the text around character 9.
fn assert_short_error_at_row_e(output: &Output, text: &str) {
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.len() < 400, "{} bytes: {stderr}", stderr.len());
    assert!(
        stderr.contains("--fen")
            && stderr.contains(&format!("{} characters, at character 9", text.len()))
            && stderr.contains("row E has 120000 cells, expected 9"),
        "{stderr}"
    );
}

#[test]
fn a_huge_bad_position_of_the_general_game_gets_a_short_error_pointing_at_the_character() {
    let scratch = Scratch::new("huge-general-fen");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/three-player");
    let board = format!("5/6/7/8/{}/8/7/6/5 b 0,0,0", "r".repeat(120_000));
    let output = sumito(
        &scratch.0,
        &["analyse", "--model", model, "--fen", &board],
        b"",
    );
    assert_short_error_at_row_e(&output, &board);
}

/// A model of three players judges three-player positions only: a
/// two-player one given to it is refused, naming both counts (it was read
/// as a two-player position and searched with the three-player network).
#[test]
fn a_model_of_three_players_refuses_a_two_player_position() {
    let scratch = Scratch::new("three-player-two-seats");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/three-player");
    let output = sumito(
        &scratch.0,
        &[
            "analyse",
            "--model",
            model,
            "--fen",
            "5/6/7/8/6bbw/8/7/6/5 b 0 5",
            "--simulations",
            "8",
        ],
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "the position seats 2 players, but these rules are played by 3 (layouts three-player)"
        ),
        "{stderr}"
    );
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn a_huge_bad_fen_gets_a_short_error_pointing_at_the_character() {
    let scratch = Scratch::new("huge-fen");
    let fen = format!("5/6/7/8/{}/8/7/6/5 b 0 0", "b".repeat(120_000));
    let output = sumito(
        &scratch.0,
        &["render", "--fen", &fen, "--out", "x.svg"],
        b"",
    );
    assert_short_error_at_row_e(&output, &fen);
    assert!(!scratch.0.join("x.svg").exists());
}

#[test]
fn an_io_error_names_its_cause_once() {
    let scratch = Scratch::new("cause-once");
    let output = sumito(
        &scratch.0,
        &["train", "--config", "missing.toml", "--run-dir", "run"],
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("missing.toml"), "{stderr}");
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_reader_that_goes_away_ends_the_command_without_a_panic() {
    // The read end is closed before the command prints anything.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sumito"))
        .args(["perft", "--depth", "2", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        output.status.code() == Some(141) || output.status.success(),
        "{:?}: {stderr}",
        output.status
    );
}

#[test]
fn a_record_cut_short_or_endless_is_refused_naming_why() {
    let scratch = Scratch::new("cut-records");
    let whole = "# sumito game record v2\nlayout: standard\nmoves:\nA1B2\nI5H5\nB1C2\nresult: *\n";
    let cut_in_moves = &whole[..whole.find("B1C2").unwrap()];
    let cut_after_header = "# sumito game record v2\nlayout: standard\n";
    for (name, record, says) in [
        ("moves.txt", cut_in_moves, "without a `result:` line"),
        ("header.txt", cut_after_header, "without a `moves:` line"),
    ] {
        std::fs::write(scratch.0.join(name), record).unwrap();
        let output = sumito(
            &scratch.0,
            &["render", "--record", name, "--out", "out.svg"],
            b"",
        );
        assert!(!output.status.success(), "{name}: {}", text(&output));
        assert!(text(&output).contains(says), "{name}: {}", text(&output));
    }
    // A device without end is refused at the cap, not read to the memory's
    // end (the command is killed if it is still reading after 20 s).
    let started = std::time::Instant::now();
    let mut child = Command::new(SUMITO)
        .args(["render", "--record", "/dev/zero", "--out", "out.svg"])
        .current_dir(&scratch.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(!output.status.success());
    assert!(
        text(&output).contains("more than 16777216 bytes"),
        "{}",
        text(&output)
    );
}
