//! End-to-end tests of `sumito train` on the general game: tiny three- and
//! four-player runs (two generations each), killed (SIGKILL) once games are
//! on disk and resumed by the same command, then checked file by file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use sumito_game::GameKind;
use sumito_pipeline::replay::files::{ReplayFolder, list_games};
use sumito_pipeline::replay::general_format::decode_general_game;
use sumito_pipeline::tensorboard::read_events;

use crate::common;
use crate::training;

use common::{Scratch, run_with_input};
use training::{SUMITO, spawn_train, text, tiny_general_config, tiny_general_config_gated, train};

fn replay_files(run_dir: &Path) -> Vec<PathBuf> {
    let folder = ReplayFolder::local(&run_dir.join("replay")).unwrap();
    list_games(&folder, GameKind::General)
        .unwrap()
        .into_iter()
        .map(|key| run_dir.join("replay").join(key))
        .collect()
}

/// Trains `layout` for two generations, killed once `kill_after` games are
/// on disk and resumed, and checks what the run holds; returns the scratch
/// folder (the run is its `run`).
fn train_killed_and_resumed(layout: &str, sides: usize, gating: &str) -> Scratch {
    let scratch = Scratch::new(&format!("general-{layout}"));
    let run_dir = scratch.0.join("run");
    let config = tiny_general_config_gated(&scratch.0, layout, gating);
    let gated = !gating.contains("\"off\"");
    let mut child = spawn_train(&config, &run_dir);
    let deadline = Instant::now() + Duration::from_secs(120);
    while replay_files(&run_dir).len() < 3 {
        assert!(Instant::now() < deadline, "no games appeared");
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            panic!("the run ended early ({status}): {}", text(&output));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let survivors = replay_files(&run_dir);

    let output = train(&config, &run_dir, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let said = text(&output);
    assert!(
        said.contains("resuming") && said.contains("gen 2:"),
        "{said}"
    );
    let games = replay_files(&run_dir);
    assert!(games.len() >= 12, "{} games", games.len());
    for path in &survivors {
        assert!(games.contains(path), "lost {}", path.display());
    }
    for path in &games {
        let replay = decode_general_game(&std::fs::read(path).unwrap())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert!(!replay.game.positions.is_empty());
        assert_eq!(replay.game.positions[0].side_values.len(), sides);
    }
    for generation in 0..=2 {
        let meta: serde_json::Value = serde_json::from_slice(
            &std::fs::read(run_dir.join(format!("models/gen-{generation:06}/meta.json"))).unwrap(),
        )
        .unwrap();
        assert!(meta.to_string().contains("\"variant\""), "{meta}");
    }
    for generation in 1..=2 {
        let record: serde_json::Value = serde_json::from_slice(
            &std::fs::read(run_dir.join(format!("evaluations/gen-{generation:06}.json"))).unwrap(),
        )
        .unwrap();
        let score = record["opponent_scores"]["greedy"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score), "{record}");
        // Every game is recorded with its sides, for the Elo table.
        let games = record["games"].as_array().unwrap();
        let gating_games = if gated { 4 } else { 0 };
        assert_eq!(games.len(), 4 + gating_games, "{record}");
        assert_eq!(games[0]["sides"].as_array().unwrap().len(), sides);
        // With their end and moves, as the two-player game's.
        assert!(!games[0]["end"].as_str().unwrap().is_empty(), "{record}");
        assert!(!games[0]["moves"].as_str().unwrap().is_empty(), "{record}");
        if gated {
            let gating = &record["gating"];
            // Against the best model of the time: an older generation.
            assert!(
                gating["opponent"].as_u64().unwrap() < generation,
                "{record}"
            );
            // Two teams are two sides: the candidate's plain score.
            let reason = gating["reason"].as_str().unwrap();
            let wanted = if sides == 2 {
                "score"
            } else {
                "pairwise score"
            };
            assert!(
                reason.starts_with(wanted) && reason.contains("threshold"),
                "{record}"
            );
        } else {
            assert_eq!(record["promoted"], true);
        }
    }
    if !gated {
        assert_eq!(training::best_generation(&run_dir), 2);
    }
    // The Elo table rates the generations and the fixed player.
    let elo = std::fs::read_to_string(run_dir.join("elo.txt")).unwrap();
    for player in ["gen-1", "gen-2", "greedy"] {
        assert!(elo.contains(player), "{player}: {elo}");
    }
    let mut tags = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(run_dir.join("tensorboard")).unwrap() {
        for event in read_events(&entry.unwrap().path()).unwrap() {
            tags.extend(event.scalars.into_iter().map(|(tag, _)| tag));
        }
    }
    let mut wanted = vec![
        "loss/total",
        "loss/policy",
        "eval/score_vs_greedy",
        "elo/candidate",
    ];
    if gated {
        wanted.push("eval/score_vs_best");
    }
    for tag in wanted {
        assert!(tags.contains(tag), "no {tag} in {tags:?}");
    }
    scratch
}

fn sumito(args: &[&str]) -> Output {
    Command::new(SUMITO).args(args).output().unwrap()
}

#[test]
fn a_three_player_run_trains_two_generations_after_a_kill_and_its_model_plays() {
    let scratch = train_killed_and_resumed("three-player", 3, "mode = \"off\"");
    // Exported, the model of the general game is a bundle that says so.
    let bundle = scratch.0.join("three");
    let bundle_path = bundle.to_str().unwrap();
    let run = scratch.0.join("run");
    let output = sumito(&[
        "export",
        "--run-dir",
        run.to_str().unwrap(),
        "--out",
        bundle_path,
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bundle.join("bundle.json")).unwrap()).unwrap();
    assert_eq!(meta["general"]["layouts"][0], "three-player", "{meta}");
    assert_eq!(meta["training"]["generation"], 2, "{meta}");

    // It analyses the start of its game: a value for each of the three.
    let output = sumito(&[
        "analyse",
        "--model",
        bundle_path,
        "--sims",
        "16",
        "--top",
        "3",
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(
        out.contains("the general game, learned on three-player"),
        "{out}"
    );
    // One report for both games: the mover's value, then each side's.
    assert!(
        out.contains("Black to move: value ") && out.contains("16 simulations"),
        "{out}"
    );
    assert!(
        out.contains("values by side (+1 a win, -1 a loss): black "),
        "{out}"
    );
    for side in ["black", "white", "red"] {
        assert!(
            out.contains(&format!("{side} +")) || out.contains(&format!("{side} -")),
            "{out}"
        );
    }
    // A position given as the general game's text, under the model's rules.
    let after = "1rrrr/rrr3/rr5/8/9/8/5gg/3ggg/gggg w 0,0,0,0";
    let output = sumito(&["analyse", "--model", bundle_path, "--fen", after]);
    assert!(
        !output.status.success(),
        "a four-player text under three-player rules"
    );
    assert!(text(&output).contains("--fen"), "{}", text(&output));

    // The arena seats it by name among classical players, with the
    // material check and the score utility of the general game.
    let seat = format!("bundle:model={bundle_path},simulations=4,material=1,score=0.5");
    let output = sumito(&[
        "arena",
        "--layout",
        "three-player",
        "--player",
        &seat,
        "--player",
        "greedy",
        "--player",
        "random",
        "--games",
        "3",
        "--max-plies",
        "24",
        "--out",
        scratch.0.join("arena").to_str().unwrap(),
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert_eq!(common::arena_games_of(&out, &seat), Some(3), "{out}");

    // Its games (under its rules: the 24-ply limit it learned with) are
    // reviewed as the two-player game's: each move judged, a summary for
    // each of the three sides, JSON by side name.
    let game = common::first_record(&scratch.0.join("arena"));
    let game = game.to_str().unwrap();
    let review = ["review", game, "--model", bundle_path, "--sims", "8"];
    let output = sumito(&review);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    // Each seat moved 8 times; the match's 4 random opening plies (Black,
    // White, Red, Black) are shown but not judged.
    for (side, judged) in [("Black", 6), ("White", 7), ("Red", 7)] {
        assert!(
            out.contains(&format!("{side}: {judged} moves, accuracy ")),
            "{out}"
        );
    }
    assert!(out.contains("random opening: moves 1-4"), "{out}");
    let output = sumito(&[&review[..], &["--json"]].concat());
    assert!(output.status.success(), "{}", text(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), 24);
    assert!(json["red"]["accuracy"].as_f64().is_some(), "{json}");
    // A two-player model does not review it, and says why.
    let output = sumito(&["review", game, "--model", "quick", "--sims", "8"]);
    assert!(!output.status.success());
    assert!(text(&output).contains("general game"), "{}", text(&output));

    // A person plays against two copies of it: `--model` alone seats the
    // person first and the model at the other seats.
    let output = run_with_input(
        SUMITO,
        &["play", "--model", bundle_path, "--sims", "4"],
        "quit\n",
    );
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("three-player"), "{out}");
    // `--seat model` puts it where asked: here it plays first, and moves.
    let seats = ["--seat", "model", "--seat", "human", "--seat", "model"];
    let args = [
        &["play", "--model", bundle_path, "--sims", "4"][..],
        &seats[..],
    ]
    .concat();
    let output = run_with_input(SUMITO, &args, "quit\n");
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("Black (three (4 simulations)) plays"), "{out}");
    // A two-player model cannot take the seats of a three-player game.
    let output = sumito(&["play", "--model", "quick", "--layout", "three-player"]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("holds a two-player model"),
        "{}",
        text(&output)
    );
    // Its seats think within the time a move and the clock allow, hint,
    // save and load as in the two-player game, and every game ends with a
    // result line.
    let saved = std::env::temp_dir().join(format!("sumito-general-{}.txt", std::process::id()));
    let script = format!(
        "hint\nsave {file}\nload {file}\nresign\n",
        file = saved.display()
    );
    let output = run_with_input(
        SUMITO,
        &[
            "play",
            "--model",
            bundle_path,
            "--time-per-move",
            "0.2",
            "--clock",
            "5+10",
            "--threads",
            "2",
        ],
        &script,
    );
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(
        out.contains("(0.2 s a move)") && out.contains("4:59"),
        "{out}"
    );
    assert!(
        out.contains("hint: ") && out.contains("saved 0 moves"),
        "{out}"
    );
    assert!(out.contains("loaded 0 moves"), "{out}");
    assert!(
        out.ends_with("result: unfinished (Black resigned after 0 moves)\n"),
        "{out}"
    );
    // Its own model analyses the saved game, within a time and on two
    // threads, as the two-player game's analysis does.
    let saved_path = saved.to_str().unwrap();
    let output = sumito(&[
        "analyse",
        "--model",
        bundle_path,
        "--record",
        saved_path,
        "--time-per-position",
        "0.2",
        "--threads",
        "2",
        "--top",
        "2",
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    // The game's table, as for a two-player game: here the start alone,
    // with each of the three sides' value.
    assert!(out.contains("   Black    White      Red"), "{out}");
    assert!(out.contains("   0  start "), "{out}");
    // A two-player model does not judge it, and says why.
    let output = sumito(&["analyse", "--model", "quick", "--record", saved_path]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("a record of the general game")
            && text(&output).contains("is a two-player model"),
        "{}",
        text(&output)
    );
    std::fs::remove_file(&saved).unwrap();
    // Nor does it judge a two-player game, and says why.
    let two = saved.with_extension("two");
    let two_path = two.to_str().unwrap();
    let arena = sumito(&[
        "arena",
        "--player",
        "greedy",
        "--player",
        "random",
        "--games",
        "2",
        "--max-plies",
        "6",
        "--no-progress",
        "--out",
        two_path,
    ]);
    assert!(arena.status.success(), "{}", text(&arena));
    let record = common::first_record(&two);
    let output = sumito(&[
        "analyse",
        "--model",
        bundle_path,
        "--record",
        record.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(
        text(&output).contains("a record of the two-player game")
            && text(&output).contains("is a model of the general game"),
        "{}",
        text(&output)
    );
    std::fs::remove_dir_all(&two).unwrap();
    // What a game of the general engine does not keep is refused by name.
    for (flag, value) in [("--color", "white"), ("--rules", "x.toml")] {
        let output = sumito(&["play", "--model", bundle_path, flag, value]);
        assert!(!output.status.success(), "{flag}");
        assert!(text(&output).contains(flag), "{flag}: {}", text(&output));
    }
}

#[test]
fn a_gated_four_player_team_run_trains_two_generations_after_a_kill() {
    // Gated: each candidate plays the best model before it is promoted.
    train_killed_and_resumed("four-player", 2, "mode = \"threshold\"\ngames = 4");
}

#[test]
fn the_general_game_refuses_what_its_loop_does_not_do() {
    let scratch = Scratch::new("general-refusals");
    let config = tiny_general_config(&scratch.0, "three-player");
    let base = std::fs::read_to_string(&config).unwrap();
    for (from, to, key) in [
        ("mode = \"off\"", "mode = \"sprt\"", "gating.mode"),
        (
            "opponents = [\"greedy\"]",
            "opponents = [\"minimax\"]",
            "evaluation.opponents[0]",
        ),
        (
            "layouts = [\"three-player\"]",
            "layouts = [\"three-player\", \"four-player\"]",
            "rules.layouts[1]",
        ),
    ] {
        let path = scratch.0.join("bad.toml");
        std::fs::write(&path, base.replace(from, to)).unwrap();
        let output = train(&path, &scratch.0.join("run"), &[]);
        assert!(!output.status.success());
        assert!(text(&output).contains(key), "{key}: {}", text(&output));
        assert!(!scratch.0.join("run").exists());
    }
}

#[test]
fn a_three_player_run_with_resignation_ends_games_by_concession() {
    let scratch = Scratch::new("general-resign");
    let run_dir = scratch.0.join("run");
    let config = tiny_general_config(&scratch.0, "three-player");
    // Just below a side's par (-1/3 with three sides) after one move: an
    // untrained network's values scatter around par, so the two losers
    // concede together early in most games; a quarter are played out to
    // check the threshold.
    let text_of_config = std::fs::read_to_string(&config)
        .unwrap()
        .replace(
            "[selfplay]\n",
            "[selfplay]\nresign_threshold = -0.34\nresign_consecutive_plies = 1\nresign_playout_share = 0.25\n",
        )
        .replace("generations = 2", "generations = 1");
    std::fs::write(&config, text_of_config).unwrap();
    let output = train(&config, &run_dir, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let games = replay_files(&run_dir);
    assert!(games.len() >= 6, "{} games", games.len());
    let mut conceded = 0;
    for path in &games {
        let replay = decode_general_game(&std::fs::read(path).unwrap())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        let game = &replay.game;
        if game.resigned {
            conceded += 1;
            // Conceded to one side, before the rules ended it: nobody has
            // pushed off six, and the move limit was not reached.
            let outcome = format!("{:?}", game.outcome);
            assert!(outcome.starts_with("Win"), "{outcome}: {}", path.display());
            assert!(game.final_scores.iter().all(|&off| off < 6));
            assert!(game.positions.len() < 24, "{}", game.positions.len());
        }
    }
    assert!(conceded > 0, "no game of {} was conceded", games.len());
    // The generation's model was trained on them and rated.
    let record: serde_json::Value = serde_json::from_slice(
        &std::fs::read(run_dir.join("evaluations/gen-000001.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record["promoted"], true, "{record}");
}
