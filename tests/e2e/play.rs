//! End-to-end tests of `sumito play` driven through a pipe, as a script (or
//! a person typing) would: refused and accepted moves, the opponent's
//! answers, undo, save and load, the clock, and the result line that ends
//! every game; and of the model bundle: `sumito export` from a run
//! directory, then play and `sumito analyse` with it, and clear errors for a
//! damaged bundle or none at all.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common;

use common::Scratch;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// Runs `sumito play ARGS` in `dir` and writes `input` to its standard
/// input, after waiting for the first prompt and then `delay` when `delay`
/// is not zero (the time a person takes to think); returns what it printed.
fn play_in(dir: &Path, args: &[&str], input: &str, delay: Duration) -> Output {
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    sumito_in(dir, &all, input, delay, &[])
}

/// Runs `sumito ARGS` in `dir` with the extra environment `env`, as
/// [`play_in`] does.
fn sumito_in(
    dir: &Path,
    args: &[&str],
    input: &str,
    delay: Duration,
    env: &[(&str, &Path)],
) -> Output {
    let mut child = Command::new(SUMITO)
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("SUMITO_MODELS")
        .envs(env.iter().copied())
        .env("OMP_WAIT_POLICY", "PASSIVE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut child_stdout = child.stdout.take().unwrap();
    // Collect the output on a thread so that the prompt can be waited for.
    let (sender, receiver) = std::sync::mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        loop {
            match child_stdout.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if sender.send(buffer[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut seen = Vec::new();
    if !delay.is_zero() {
        while !String::from_utf8_lossy(&seen).contains("(you)> ") {
            match receiver.recv_timeout(Duration::from_secs(60)) {
                Ok(chunk) => seen.extend(chunk),
                Err(_) => break,
            }
        }
        std::thread::sleep(delay);
    }
    // The process may have ended already (bad options): ignore a closed pipe.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    reader.join().unwrap();
    seen.extend(receiver.try_iter().flatten());
    let mut output = child.wait_with_output().unwrap();
    output.stdout = seen;
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The boards drawn in a transcript, in order (each ends with the line of
/// diagonal numbers).
fn boards(transcript: &str) -> Vec<String> {
    let mut boards = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in transcript.lines() {
        let is_row = line
            .trim_start()
            .starts_with(|c: char| ('A'..='I').contains(&c))
            // (A cell of the last move next to the letter is bracketed.)
            && matches!(line.trim_start().chars().nth(1), Some(' ' | '('));
        if is_row {
            current.push(line);
        } else if line.trim() == "1 2 3 4 5" && current.len() == 9 {
            current.push(line);
            boards.push(current.join("\n"));
            current.clear();
        } else {
            current.clear();
        }
    }
    boards
}

#[test]
fn a_scripted_game_over_a_pipe() {
    let scratch = Scratch::new("play-scripted");
    let output = play_in(
        &scratch.0,
        &["--opponent", "alphabeta:depth=1"],
        "A1A2\nhelp\nA1B2\nundo\nboard\nresign\n",
        Duration::ZERO,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    // Piped output is plain ASCII.
    assert!(!text.contains('\x1b'), "{text}");
    assert!(
        text.contains("You play Black against alphabeta:depth=1."),
        "{text}"
    );
    // The illegal move is refused with its reason, and the prompt returns.
    assert!(
        text.contains("move 1, Black (you)> A1A2\nmove \"A1A2\" is illegal: blocked by own marble on A4\nmove 1, Black (you)> help"),
        "{text}"
    );
    assert!(
        text.contains("undo       take back your last move"),
        "{text}"
    );
    // The legal move gets an answer.
    assert!(text.contains("White (alphabeta:depth=1) plays "), "{text}");
    assert!(text.contains("last move: White "), "{text}");
    // Undo restores the start position: the board drawn last is the first one.
    assert!(text.contains("undone: back to move 1"), "{text}");
    let boards = boards(&text);
    assert!(boards.len() >= 3, "{text}");
    assert_eq!(boards.first(), boards.last(), "{text}");
    assert_ne!(boards[0], boards[1]);
    assert!(boards[0].contains("    A @ @ @ @ @ 6"), "{}", boards[0]);
    // After A1B2 and the reply, the reply's cells are bracketed.
    assert!(
        boards[1].contains(")") && !boards[0].contains(")"),
        "{}",
        boards[1]
    );
    // The game ends with a result line.
    assert_eq!(
        text.lines().last(),
        Some("result: White wins (Black resigned)"),
        "{text}"
    );
}

#[test]
fn the_opponent_opens_when_you_play_white_and_the_end_of_input_ends_the_game() {
    let scratch = Scratch::new("play-white");
    let output = play_in(
        &scratch.0,
        &[
            "--opponent",
            "greedy",
            "--color",
            "white",
            "--layout",
            "belgian-daisy",
        ],
        "I5H5\n",
        Duration::ZERO,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Black (greedy) plays "), "{text}");
    assert!(text.contains("move 2, White (you)> I5H5"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("result: unfinished (input ended after "),
        "{text}"
    );
}

#[test]
fn a_saved_game_loads_in_a_new_session() {
    let scratch = Scratch::new("play-save");
    let output = play_in(
        &scratch.0,
        &["--opponent", "random", "--seed", "5"],
        "A1B2\nsave game.txt\nquit\n",
        Duration::ZERO,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("saved 2 moves to game.txt"),
        "{}",
        stdout(&output)
    );
    let record = std::fs::read_to_string(scratch.0.join("game.txt")).unwrap();
    assert!(record.starts_with("# sumito game record v2"), "{record}");
    assert!(record.contains("seats: human | random\n"), "{record}");
    assert!(record.contains("moves:\nA1B2\n"), "{record}");
    assert_eq!(
        stdout(&output).lines().last(),
        Some("result: unfinished (quit after 2 moves)")
    );

    let output = play_in(
        &scratch.0,
        &["--opponent", "random"],
        "load nothing.txt\nload game.txt\nquit\n",
        Duration::ZERO,
    );
    let text = stdout(&output);
    assert!(
        text.contains("not loaded: cannot read game record nothing.txt"),
        "{text}"
    );
    assert!(
        text.contains("loaded 2 moves from game.txt; Black to move"),
        "{text}"
    );
    assert!(text.contains("move 3, Black (you)> quit"), "{text}");
}

#[test]
fn running_out_of_time_loses() {
    let scratch = Scratch::new("play-clock");
    // 0.005 minutes = 300 ms for the whole game; the move comes 800 ms after
    // the prompt.
    let output = play_in(
        &scratch.0,
        &["--opponent", "random", "--clock", "0.005+1"],
        "A1B2\n",
        Duration::from_millis(800),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("Time control: 0.005 min + 1 s per marble pushed off."),
        "{text}"
    );
    assert!(text.contains("Black  off 0/6  0:00.3"), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("result: White wins (Black's time ran out)"),
        "{text}"
    );
}

#[test]
fn bad_options_get_clear_errors() {
    let scratch = Scratch::new("play-errors");
    for (args, expected) in [
        (&["--opponent", "minimax"][..], "unknown player \"minimax\""),
        (
            &["--opponent", "random", "--clock", "ten"][..],
            "\"ten\" is not a number",
        ),
        (
            &["--opponent", "random", "--layout", "hexagon"][..],
            "unknown layout \"hexagon\"",
        ),
    ] {
        let output = play_in(&scratch.0, args, "", Duration::ZERO);
        assert!(!output.status.success(), "{args:?}");
        assert!(
            stderr(&output).contains(expected),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

/// A run directory in `root` whose only model (generation 0, the best) is a
/// freshly initialised tiny network, trained (so to speak) under a 200-ply
/// move limit.
fn tiny_run(root: &Path) {
    let run = sumito_pipeline::rundir::RunDir::create(root, "# end-to-end test run\n").unwrap();
    let network = sumito_net::PolicyValueNet::new(
        &sumito_net::ModelConfig {
            blocks: 1,
            channels: 8,
            policy_channels: 4,
            value_channels: 4,
            value_hidden: 8,
            game: sumito_game::GameKind::TwoPlayer,
            push_off_planes: false,
        },
        sumito_net::Device::Cpu,
    )
    .unwrap();
    let rules = sumito_engine::Rules {
        max_plies: Some(200),
        ..sumito_engine::Rules::default()
    };
    network
        .save_checkpoint(&run.model_path(0), 0, Some(rules))
        .unwrap();
    run.set_best(0).unwrap();
}

#[test]
fn an_exported_model_plays_hints_and_analyses() {
    let scratch = Scratch::new("play-model");
    tiny_run(&scratch.0.join("run"));
    let none = Duration::ZERO;
    let export = sumito_in(
        &scratch.0,
        &["export", "--run-dir", "run", "--out", "models/tiny"],
        "",
        none,
        &[],
    );
    assert!(export.status.success(), "{}", stderr(&export));
    let text = stdout(&export);
    assert!(text.contains("wrote models/tiny"), "{text}");
    assert!(text.contains("model tiny: 1 blocks x 8 channels"), "{text}");
    assert!(text.contains("model.pt"), "{text}");
    // The weight it plays with, asked for at export; a weight outside [0, 1]
    // is refused, naming it.
    let weighted = sumito_in(
        &scratch.0,
        &[
            "export",
            "--run-dir",
            "run",
            "--out",
            "models/weighted",
            "--score-utility",
            "0.75",
        ],
        "",
        none,
        &[],
    );
    assert!(weighted.status.success(), "{}", stderr(&weighted));
    assert!(
        stdout(&weighted).contains("score utility 0.75"),
        "{}",
        stdout(&weighted)
    );
    let refused = sumito_in(
        &scratch.0,
        &[
            "export",
            "--run-dir",
            "run",
            "--out",
            "models/refused",
            "--score-utility",
            "2",
        ],
        "",
        none,
        &[],
    );
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("2 is not a weight in [0, 1]"),
        "{}",
        stderr(&refused)
    );

    // By name, found under ./models.
    let output = play_in(
        &scratch.0,
        &["--model", "tiny", "--sims", "32"],
        "A1B2\nhint\nsave game.txt\nquit\n",
        none,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("after 200 plies the player who pushed off more wins"),
        "{text}"
    );
    assert!(
        text.contains("White (tiny (32 simulations)) plays "),
        "{text}"
    );
    assert!(text.contains(", win probability "), "{text}");
    assert!(text.contains("[32 simulations, "), "{text}");
    assert!(text.contains("hint: "), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("result: unfinished (quit after 2 moves)")
    );

    let output = sumito_in(
        &scratch.0,
        &[
            "analyse",
            "--model",
            "models/tiny",
            "--sims",
            "16",
            "--top",
            "3",
        ],
        "",
        none,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Black to move: value "), "{text}");
    assert!(text.contains("16 simulations"), "{text}");
    assert!(text.contains("... 41 more legal moves"), "{text}");
    assert!(text.contains("principal variation: "), "{text}");

    let output = sumito_in(
        &scratch.0,
        &[
            "analyse", "--model", "tiny", "--sims", "8", "--record", "game.txt",
        ],
        "",
        none,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Black A1B2"), "{text}");
    assert!(text.contains("3 positions in "), "{text}");

    // The same game without its rules line (most records name none) is
    // analysed under the model's training rules, and the person is told.
    let saved = std::fs::read_to_string(scratch.0.join("game.txt")).unwrap();
    assert!(saved.contains("rules:"), "{saved}");
    let bare: String = saved
        .lines()
        .filter(|line| !line.starts_with("rules:"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(scratch.0.join("bare.txt"), bare).unwrap();
    let output = sumito_in(
        &scratch.0,
        &[
            "analyse", "--model", "tiny", "--sims", "8", "--record", "bare.txt",
        ],
        "",
        none,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("are not the model's"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).contains("3 positions in "));

    // The game reviewed: a table, JSON, and the graph as SVG.
    let output = sumito_in(
        &scratch.0,
        &[
            "review",
            "game.txt",
            "--model",
            "tiny",
            "--sims",
            "8",
            "--svg",
            "pics/review.svg",
        ],
        "",
        none,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("   1  Black A1B2"), "{text}");
    assert!(text.contains("Black: 1 moves, accuracy "), "{text}");
    assert!(text.contains("White: 1 moves, accuracy "), "{text}");
    let svg = std::fs::read_to_string(scratch.0.join("pics/review.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("Review of game.txt"),
        "{svg}"
    );
    roxmltree::Document::parse(&svg).unwrap();
    let output = sumito_in(
        &scratch.0,
        &[
            "review", "game.txt", "--model", "tiny", "--sims", "8", "--json",
        ],
        "",
        none,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), 2);
    assert_eq!(json["moves"][0]["move"], "A1B2");
    assert_eq!(json["black_expected_score"].as_array().unwrap().len(), 3);
    assert!(json["white"]["accuracy"].as_f64().is_some());
    // A record that is not there is named.
    let output = sumito_in(
        &scratch.0,
        &["review", "missing.txt", "--model", "tiny"],
        "",
        none,
        &[],
    );
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("missing.txt"),
        "{}",
        stderr(&output)
    );

    // The raw TorchScript export of a checkpoint folder.
    let output = sumito_in(
        &scratch.0,
        &[
            "export",
            "--checkpoint-dir",
            "models/tiny",
            "--out",
            "raw/model.pt",
        ],
        "",
        none,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(scratch.0.join("raw/model.pt").is_file());
    assert!(scratch.0.join("raw/model.pt.json").is_file());
}

#[test]
fn a_damaged_bundle_or_no_model_gets_a_clear_error() {
    let scratch = Scratch::new("play-damaged");
    tiny_run(&scratch.0.join("run"));
    let none = Duration::ZERO;
    let export = sumito_in(
        &scratch.0,
        &["export", "--run-dir", "run", "--out", "bundle"],
        "",
        none,
        &[],
    );
    assert!(export.status.success(), "{}", stderr(&export));
    // A file of the bundle instead of its folder: the folder is named.
    let output = play_in(&scratch.0, &["--model", "bundle/model.pt"], "quit\n", none);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains(
            "bundle/model.pt is a file, not a model bundle: give the bundle's folder (bundle)"
        ),
        "{}",
        stderr(&output)
    );
    // A bad position is reported before any model is looked for.
    let output = sumito_in(
        &scratch.0,
        &["analyse", "--model", "no-such-model", "--fen", "9/9 b 0 0"],
        "",
        none,
        &[],
    );
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains("--fen") && !text.contains("no-such-model"),
        "{text}"
    );
    let weights = scratch.0.join("bundle/weights.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&weights, bytes).unwrap();
    let output = play_in(&scratch.0, &["--model", "bundle"], "quit\n", none);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("the bundle bundle is corrupt: weights.safetensors has checksum"),
        "{}",
        stderr(&output)
    );

    let output = play_in(&scratch.0, &["--model", "run"], "quit\n", none);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("run is not a model bundle: it has no bundle.json"),
        "{}",
        stderr(&output)
    );

    let empty = scratch.0.join("no-models");
    std::fs::create_dir_all(&empty).unwrap();
    let output = sumito_in(
        &scratch.0,
        &["play"],
        "quit\n",
        none,
        &[("SUMITO_MODELS", &empty)],
    );
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains("no --model given and no shipped model found"),
        "{text}"
    );
    assert!(
        text.contains("sumito play --opponent alphabeta:depth=3"),
        "{text}"
    );
}

#[test]
fn the_shipped_model_plays_without_being_named() {
    // From the repository root, as a user right after set-up: no --model,
    // so the bundle in models/quick is opened, verified and played.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = play_in(
        root,
        &["--sims", "16"],
        "A1B2\nhint\nquit\n",
        Duration::ZERO,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("White (quick (16 simulations)) plays "),
        "{text}"
    );
    assert!(text.contains(", win probability "), "{text}");
    assert!(text.contains("hint: "), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("result: unfinished (quit after 2 moves)")
    );
    // The seats given one by one, as in every game: the model first, then
    // you; --color where the game seats more than two is refused by name.
    let output = play_in(
        root,
        &["--seat", "model", "--seat", "human", "--sims", "4"],
        "quit\n",
        Duration::ZERO,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("Black (quick (4 simulations)) plays "),
        "{text}"
    );
    assert!(text.contains("move 2, White (you)>"), "{text}");
    let output = play_in(
        root,
        &["--layout", "three-player", "--color", "white"],
        "",
        Duration::ZERO,
    );
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("--color: the layout three-player seats 3 players"),
        "{}",
        stderr(&output)
    );
}

/// The line numbers of the panels of Black and White on `screen`.
fn panel_lines(screen: &str) -> (usize, usize) {
    let line_of = |panel: &str| {
        screen
            .lines()
            .position(|line| line.contains(panel))
            .unwrap_or_else(|| panic!("no {panel:?} on the screen:\n{screen}"))
    };
    (line_of("Black  off"), line_of("White  off"))
}

#[test]
fn the_terminal_turns_the_board_for_white_and_marks_the_last_move() {
    use crate::common::tmux::Tmux;
    let scratch = Scratch::new("play-terminal");
    let tmux = Tmux::start(
        &scratch.0,
        "sumito-play",
        &format!("{SUMITO} play --opponent greedy --color white --save game.txt"),
    );
    let screen = tmux.wait_for("move 2, White (you)>", 1);
    // Turned half round: Black's side (row A) on top, yours at the bottom,
    // the diagonals numbered above.
    let (black, white) = panel_lines(&screen);
    assert!(black < white, "{screen}");
    assert!(screen.contains("     5 4 3 2 1\n"), "{screen}");
    // Greedy's move is marked on the board (a highlighted cell) and named.
    assert!(tmux.screen(true).contains("43m"), "no highlighted cell");
    assert!(screen.contains("last move: Black "), "{screen}");
    tmux.type_line("quit");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !scratch.0.join("game.txt").exists() {
        assert!(std::time::Instant::now() < deadline, "game.txt not saved");
        std::thread::sleep(Duration::from_millis(100));
    }
    let record = std::fs::read_to_string(scratch.0.join("game.txt")).unwrap();
    assert!(record.contains("seats: greedy | human"), "{record}");
    drop(tmux);

    // --no-flip keeps Black at the bottom.
    let tmux = Tmux::start(
        &scratch.0,
        "sumito-play-upright",
        &format!("{SUMITO} play --opponent greedy --color white --no-flip"),
    );
    let screen = tmux.wait_for("move 2, White (you)>", 1);
    let (black, white) = panel_lines(&screen);
    assert!(white < black, "{screen}");
    tmux.type_line("quit");
}

#[test]
fn a_saved_game_without_a_person_is_ready_to_review() {
    // Without a person the game plays itself out; --save writes it however
    // it ends, and the plain-text board brackets each last move.
    let scratch = Scratch::new("play-save-unattended");
    let output = sumito_in(
        &scratch.0,
        &[
            "play", "--seat", "model", "--seat", "greedy", "--level", "1", "--save", "game.txt",
        ],
        "",
        Duration::ZERO,
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("saved ") && text.contains(" moves to game.txt"),
        "{text}"
    );
    assert!(text.contains(")") && text.contains("("), "{text}");
    let record = std::fs::read_to_string(scratch.0.join("game.txt")).unwrap();
    assert!(
        record.contains("seats: quick (level 1, beginner) | greedy"),
        "{record}"
    );
    // A file that cannot be written is an error naming it.
    let output = sumito_in(
        &scratch.0,
        &[
            "play",
            "--opponent",
            "greedy",
            "--save",
            "no/such/folder/game.txt",
        ],
        "quit\n",
        Duration::ZERO,
        &[],
    );
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("no/such/folder/game.txt"),
        "{}",
        stderr(&output)
    );
}
