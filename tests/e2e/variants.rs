//! End-to-end tests of the variants and the many-player games through the
//! `sumito` binary: `--layout` and `--rules FILE` for perft, moves, render,
//! arena and play, the general position text, and errors that name the key.

use std::process::{Command, Output};

use crate::common;

use common::{Scratch, run_with_input};
use sumito_engine::general::GeneralPosition;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

fn sumito(args: &[&str]) -> Output {
    Command::new(SUMITO).args(args).output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn rules_file(scratch: &Scratch, name: &str, table: &str) -> String {
    let path = scratch.0.join(name);
    std::fs::write(&path, format!("[rules]\n{table}")).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn perft_counts_every_new_layout_and_variant() {
    let scratch = Scratch::new("variants-perft");
    let four = sumito(&["perft", "--layout", "four-player", "--depth", "2"]);
    assert!(four.status.success(), "{}", text(&four));
    assert!(
        text(&four).contains("perft(1) = 43\nperft(2) = 1696\n"),
        "{}",
        text(&four)
    );
    let rules = rules_file(
        &scratch,
        "holes.toml",
        "holes = [\"E5\"]\nneutral = [\"D4\"]\nshield_moves = true\nrotation_moves = true\n",
    );
    let holes = sumito(&["perft", "--rules", &rules, "--depth", "2"]);
    assert!(
        text(&holes).contains("perft(1) = 42\nperft(2) = 2184\n"),
        "{}",
        text(&holes)
    );
    // The plain game through --rules still goes to the two-player engine.
    let plain = rules_file(&scratch, "plain.toml", "max_plies = 100\n");
    let standard = sumito(&["perft", "--rules", &plain, "--depth", "2"]);
    assert!(
        text(&standard).contains("perft(2) = 1936\n"),
        "{}",
        text(&standard)
    );
}

#[test]
fn moves_print_children_that_read_back() {
    let scratch = Scratch::new("variants-moves");
    let rules = rules_file(
        &scratch,
        "r.toml",
        "obstacles = [\"E5\"]\nrotation_moves = true\n",
    );
    let output = sumito(&[
        "moves",
        "--rules",
        &rules,
        "--layout",
        "belgian-daisy",
        "--children",
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() > 40);
    for line in lines {
        let (mv, child) = line.split_once('\t').unwrap();
        assert!(!mv.is_empty());
        let position = GeneralPosition::from_text(child, None).unwrap();
        assert_eq!(position.to_string(), child);
        assert!(child.contains('x'), "the obstacle is in the text: {child}");
    }
    // A three-player position given as text.
    let output = sumito(&["moves", "--fen", "r4/6/7/8/9/8/7/6/b3w w 0,1,0"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("A5A4"),
        "{}",
        text(&output)
    );
}

#[test]
fn render_draws_six_players_and_the_cells_with_a_role() {
    let scratch = Scratch::new("variants-render");
    let out = scratch.0.join("six.svg");
    let rules = rules_file(&scratch, "r.toml", "holes = [\"E5\"]\nneutral = [\"E4\"]\n");
    let output = sumito(&[
        "render",
        "--layout",
        "six-player",
        "--rules",
        &rules,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let svg = std::fs::read_to_string(&out).unwrap();
    for colour in ["black", "white", "red", "green", "blue", "yellow"] {
        assert_eq!(
            svg.matches(&format!("class=\"marble {colour}\"")).count(),
            6,
            "{colour}"
        );
    }
    assert_eq!(svg.matches("class=\"hole\"").count(), 1);
    assert_eq!(svg.matches("class=\"marble neutral\"").count(), 1);
}

#[test]
fn arena_plays_many_player_matches_with_seats_rotated() {
    let scratch = Scratch::new("variants-arena");
    let records = scratch.0.join("records");
    let output = sumito(&[
        "arena",
        "--layout",
        "three-player",
        "--player",
        "greedy",
        "--player",
        "random",
        "--player",
        "random",
        "--games",
        "3",
        "--max-plies",
        "60",
        "--threads",
        "2",
        "--seed",
        "3",
        "--out",
        records.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let out = text(&output);
    assert_eq!(common::arena_games_of(&out, "greedy"), Some(3), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("result: greedy=")),
        "{out}"
    );
    // More sides than players (or the other way round, beyond two sides,
    // where every pair meets): refused, saying what to give.
    let output = sumito(&[
        "arena",
        "--layout",
        "three-player",
        "--player",
        "greedy",
        "--player",
        "random",
    ]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("2 players for 3 sides: give one --player per player"),
        "{}",
        text(&output)
    );
}

#[test]
fn arena_seats_a_network_of_the_general_game() {
    let scratch = Scratch::new("variants-arena-net");
    // A freshly initialised network of the general game, saved as a
    // checkpoint (no command trains one yet).
    let model = sumito_net::ModelConfig {
        blocks: 1,
        channels: 8,
        policy_channels: 4,
        value_channels: 4,
        value_hidden: 8,
        game: sumito_game::GameKind::General,
        push_off_planes: false,
    };
    let checkpoint = scratch.0.join("gen-000001");
    sumito_net::PolicyValueNet::new(&model, sumito_net::Device::Cpu)
        .unwrap()
        .save_checkpoint(&checkpoint, 0, None)
        .unwrap();
    let net = format!("net:model={},simulations=8", checkpoint.display());
    let records = scratch.0.join("records");
    let output = sumito(&[
        "arena",
        "--layout",
        "three-player",
        "--player",
        &net,
        "--player",
        "greedy",
        "--player",
        "random",
        "--games",
        "3",
        "--max-plies",
        "30",
        "--out",
        records.to_str().unwrap(),
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert_eq!(common::arena_games_of(&out, &net), Some(3), "{out}");
    assert_eq!(std::fs::read_dir(&records).unwrap().count(), 3);
    // A person plays a three-player game against two copies of the network.
    let seats = ["--seat", &net, "--seat", &net, "--seat", "human"];
    let args = [&["play", "--layout", "three-player"][..], &seats[..]].concat();
    let output = run_with_input(SUMITO, &args, "quit\n");
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains(&format!("Black ({net}) plays")), "{out}");
    assert!(out.contains(&format!("White ({net}) plays")), "{out}");
    // A two-player network is refused with the reason.
    let two_player = scratch.0.join("two-player");
    sumito_net::PolicyValueNet::new(
        &sumito_net::ModelConfig {
            game: sumito_game::GameKind::TwoPlayer,
            ..model
        },
        sumito_net::Device::Cpu,
    )
    .unwrap()
    .save_checkpoint(&two_player, 0, None)
    .unwrap();
    let output = sumito(&[
        "arena",
        "--layout",
        "three-player",
        "--player",
        &format!("net:model={}", two_player.display()),
        "--player",
        "greedy",
        "--player",
        "random",
    ]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("network of the two-player game"),
        "{}",
        text(&output)
    );
}

#[test]
fn four_people_play_at_two_colours_and_fixed_players_fill_the_other_seats() {
    let output = run_with_input(
        SUMITO,
        &[
            "play",
            "--layout",
            "four-player",
            "--seat",
            "human:names=Ann/Cid",
            "--seat",
            "greedy",
            "--seat",
            "human:names=Bob",
            "--seat",
            "random",
            "--seed",
            "1",
        ],
        "A2B2\nA3A2\nI5H4\nquit\n",
    );
    assert!(output.status.success(), "{}", text(&output));
    let out = text(&output);
    assert!(out.contains("4 players in 2 teams"), "{out}");
    assert!(out.contains("move 1, Black (Ann)> A2B2"), "{out}");
    assert!(out.contains("White (greedy) plays"), "{out}");
    assert!(out.contains("Red (Bob)> "), "{out}");
    assert!(
        out.ends_with("result: unfinished (quit after 4 moves)\n"),
        "{out}"
    );
}

#[test]
fn bad_rules_name_the_file_and_the_key() {
    let scratch = Scratch::new("variants-errors");
    let typo = rules_file(&scratch, "typo.toml", "holse = [\"E5\"]\n");
    let output = sumito(&["perft", "--rules", &typo, "--depth", "1"]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("typo.toml") && text(&output).contains("holse"),
        "{}",
        text(&output)
    );
    let partners = rules_file(&scratch, "partners.toml", "partners_in_a_row = true\n");
    let output = sumito(&[
        "perft",
        "--rules",
        &partners,
        "--layout",
        "three-player",
        "--depth",
        "1",
    ]);
    assert!(
        text(&output).contains("rules.partners_in_a_row"),
        "{}",
        text(&output)
    );
    let taken = rules_file(&scratch, "taken.toml", "holes = [\"A1\"]\n");
    let output = sumito(&["moves", "--rules", &taken]);
    assert!(
        text(&output).contains("rules.holes") && text(&output).contains("A1"),
        "{}",
        text(&output)
    );
    let output = sumito(&["moves", "--fen", "r4/6/7/8/9/8/7/6/b3w w 0,1"]);
    assert!(
        !output.status.success(),
        "two scores in a comma list: {}",
        text(&output)
    );
}

/// The `[rules]` example of docs/variants.md (the README's variants guide),
/// as written there, works with the commands beside it that read it
/// (`moves`, `render`, `arena`).
#[test]
fn the_readme_rules_example_works_as_written() {
    let readme = include_str!("../../docs/variants.md");
    let start = readme
        .find("```toml\n[rules]\nmarbles_to_win = [6, 4]")
        .expect("the [rules] example of docs/variants.md");
    let block = &readme[start + "```toml\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    let scratch = Scratch::new("variants-readme-rules");
    let path = scratch.0.join("my-rules.toml");
    std::fs::write(&path, block).unwrap();
    let rules = path.to_str().unwrap();
    let out = scratch.0.join("variant.svg");
    for args in [
        vec![
            "moves",
            "--rules",
            rules,
            "--layout",
            "belgian-daisy",
            "--children",
        ],
        vec![
            "render",
            "--layout",
            "belgian-daisy",
            "--rules",
            rules,
            "--out",
            out.to_str().unwrap(),
        ],
        vec![
            "arena",
            "--rules",
            rules,
            "--player",
            "greedy",
            "--player",
            "random",
            "--games",
            "2",
            "--no-progress",
            "--out",
        ],
    ] {
        let mut args = args;
        let records = scratch.0.join("arena");
        if args[0] == "arena" {
            args.push(records.to_str().unwrap());
        }
        let output = sumito(&args);
        assert!(output.status.success(), "{args:?}: {}", text(&output));
    }
    assert!(std::fs::read_to_string(out).unwrap().contains("<svg"));
}
