//! End-to-end tests of `sumito train` and its run directory, on the tiny
//! configuration: a whole run, a run killed (SIGKILL) mid-generation and
//! resumed, runs and the evaluator stopped (SIGINT) mid-work, a corrupted
//! replay file, and configuration errors.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sumito_pipeline::replay::format::decode_game;
use sumito_pipeline::tensorboard::read_events;

use crate::common;
use crate::training;

use common::Scratch;
use training::{
    best_generation, failed_saying, json_at, replay_files, repo, spawn_role, spawn_train,
    succeeded_saying, tiny_config, train, wait_for_games,
};

/// The scalars (tag and value) of every TensorBoard event file of the run.
fn scalars(run_dir: &Path) -> Vec<(String, f32)> {
    let mut scalars = Vec::new();
    for entry in std::fs::read_dir(run_dir.join("tensorboard")).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("events.out.tfevents.")
        );
        for event in read_events(&path).unwrap() {
            scalars.extend(event.scalars);
        }
    }
    scalars
}

/// The scalar tags of every TensorBoard event file of the run.
fn scalar_tags(run_dir: &Path) -> BTreeSet<String> {
    scalars(run_dir).into_iter().map(|(tag, _)| tag).collect()
}

/// The run's log.
fn log_of(run_dir: &Path) -> String {
    std::fs::read_to_string(run_dir.join("log.txt")).unwrap()
}

/// The replay files of the run, each read whole (as a run killed at any
/// moment must leave them).
fn whole_replay_files(run_dir: &Path) -> Vec<PathBuf> {
    let files = replay_files(run_dir);
    for path in &files {
        decode_game(&std::fs::read(path).unwrap())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    }
    files
}

/// Checks that every one of `survivors` is still among the run's replay
/// files.
fn check_kept(run_dir: &Path, survivors: &[PathBuf]) {
    let after = replay_files(run_dir);
    for path in survivors {
        assert!(after.contains(path), "lost {}", path.display());
    }
}

/// A checkpoint's or model's `meta.json`.
fn meta_of(dir: &Path) -> serde_json::Value {
    json_at(&dir.join("meta.json"))
}

/// The run `name` in `dir`, trained to the end of `generations`
/// generations of the tiny config.
fn tiny_run(dir: &Path, name: &str, generations: u32) -> PathBuf {
    let run_dir = dir.join(name);
    let output = train(&tiny_config(dir, generations), &run_dir, &[]);
    succeeded_saying(&output, &[]);
    run_dir
}

/// A config's text with the push-off planes turned on.
fn with_push_off_planes(config: &str) -> String {
    config.replace(
        "value_hidden = 16",
        "value_hidden = 16\npush_off_planes = true",
    )
}

/// Checks the files a finished run of `generations` generations must hold.
fn check_finished_run(run_dir: &Path, generations: u32) {
    for generation in 0..=generations {
        let model = run_dir.join(format!("models/gen-{generation:06}"));
        assert!(
            model.join("weights.safetensors").is_file(),
            "missing {}",
            model.display()
        );
        assert!(model.join("meta.json").is_file());
    }
    assert!(best_generation(run_dir) <= generations);
    let games = replay_files(run_dir);
    assert!(
        games.len() >= 8 * generations as usize,
        "{} replay files",
        games.len()
    );
    for path in &games {
        let game = decode_game(&std::fs::read(path).unwrap())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert!(!game.positions.is_empty());
    }
    // Each generation's self-play says how far its searches' targets lay
    // from the prior.
    let surprises: Vec<f32> = scalars(run_dir)
        .into_iter()
        .filter(|(tag, _)| tag == "selfplay/policy_surprise")
        .map(|(_, value)| value)
        .collect();
    assert!(
        surprises.iter().any(|&surprise| surprise > 0.0),
        "no search moved its target off the prior: {surprises:?}"
    );
    for generation in 1..=generations {
        let record = json_at(&run_dir.join(format!("evaluations/gen-{generation:06}.json")));
        assert!(record["promoted"].is_boolean());
        assert!(record["gating"]["reason"].is_string(), "{record}");
        assert!(!record["games"].as_array().unwrap().is_empty());
        assert!(record["run_hours"].as_f64().unwrap() > 0.0, "{record}");
        // Two of the three opponents (`opponents_per_candidate`); the first
        // rating, with no Elo before it, plays the weakest two.
        let opponents: Vec<&String> = record["opponent_scores"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(opponents.len(), 2, "{record}");
        if generation == 1 {
            assert_eq!(opponents, ["greedy", "random"], "{record}");
        }
    }
    let elo = json_at(&run_dir.join("elo.json"));
    let players: Vec<&str> = elo
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["player"].as_str().unwrap())
        .collect();
    assert!(
        players.contains(&"random") && players.contains(&"gen-1"),
        "{players:?}"
    );
    let tags = scalar_tags(run_dir);
    for tag in [
        "loss/total",
        "loss/policy",
        "train/learning_rate",
        "selfplay/positions_per_second",
        "eval/score_vs_random",
        "elo/candidate",
    ] {
        assert!(tags.contains(tag), "no {tag} in {tags:?}");
    }
    let log = log_of(run_dir);
    assert!(
        log.contains("gen 1:") && log.contains(&format!("gen {generations}:")),
        "{log}"
    );
}

#[test]
fn a_tiny_run_trains_two_generations_and_resumes_as_finished() {
    let scratch = Scratch::new("two-generations");
    let run_dir = scratch.0.join("run");
    let config = tiny_config(&scratch.0, 2);
    let started = Instant::now();
    let output = train(&config, &run_dir, &[]);
    succeeded_saying(&output, &["gen 2:"]);
    println!(
        "two generations took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    check_finished_run(&run_dir, 2);

    // The same command again: the budget is spent, nothing changes.
    let games_before = replay_files(&run_dir).len();
    let output = train(&config, &run_dir, &[]);
    succeeded_saying(&output, &["resuming", "budget spent"]);
    assert_eq!(replay_files(&run_dir).len(), games_before);

    // The learning curve of the run: one point per generation, by hours.
    let output = Command::new(env!("CARGO_BIN_EXE_sumito"))
        .args(["curve", "--run-dir"])
        .arg(&run_dir)
        .output()
        .unwrap();
    succeeded_saying(&output, &["2 generations against hours of training"]);
    let svg = std::fs::read_to_string(run_dir.join("curve.svg")).unwrap();
    assert_eq!(svg.matches(r#"class="generation""#).count(), 2, "{svg}");
    assert!(roxmltree::Document::parse(&svg).is_ok());
    // The fixed opponents are labelled level lines at their Elo on the one
    // scale.
    assert_eq!(svg.matches(r#"class="opponent""#).count(), 2, "{svg}");
    assert!(
        svg.contains(">random (0)<") && svg.contains(">greedy (722)<"),
        "{svg}"
    );
    // Along the core-hours the run kept.
    let sumito_on_run = |args: &[&str], out: &Path| {
        Command::new(env!("CARGO_BIN_EXE_sumito"))
            .args(args)
            .arg("--run-dir")
            .arg(&run_dir)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let output = sumito_on_run(
        &["curve", "--axis", "core-hours"],
        &scratch.0.join("cores.svg"),
    );
    succeeded_saying(&output, &["2 generations against core-hours of training"]);

    // Exported, the newest model says it was trained from a random
    // network, with its hours and core-hours.
    let bundle = scratch.0.join("models/tiny");
    let output = sumito_on_run(&["export", "--checkpoint", "2"], &bundle);
    succeeded_saying(&output, &[]);
    let meta = json_at(&bundle.join("bundle.json"));
    // Its Elo rows are on the one scale: greedy held at 722.
    let greedy = meta["elo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["player"] == "greedy")
        .cloned();
    assert_eq!(
        greedy.map(|row| row["elo"].clone()),
        Some(722.0.into()),
        "{meta}"
    );
    let training = &meta["training"];
    assert!(
        training.get("init_model") == Some(&serde_json::Value::Null),
        "{training}"
    );
    assert!(
        training["core_hours"].as_f64().is_some_and(|h| h > 0.0),
        "{training}"
    );
    assert!(
        training["hours"].as_f64().is_some_and(|h| h > 0.0),
        "{training}"
    );
}

#[test]
fn with_gating_off_only_every_nth_candidate_is_rated_and_every_generation_reports_its_time() {
    let scratch = Scratch::new("every-second");
    let run_dir = scratch.0.join("run");
    let tiny = std::fs::read_to_string(tiny_config(&scratch.0, 2)).unwrap();
    let gating_start = tiny.find("[gating]").unwrap();
    let gating_end = gating_start + tiny[gating_start..].find("\n\n").unwrap();
    let config_text = format!(
        "{}[gating]\nmode = \"off\"{}",
        &tiny[..gating_start],
        &tiny[gating_end..]
    )
    .replace("[evaluation]\n", "[evaluation]\nevery_generations = 2\n");
    let config = scratch.0.join("every-second.toml");
    std::fs::write(&config, config_text).unwrap();
    let output = train(&config, &run_dir, &[]);
    succeeded_saying(&output, &["gen 1:", "not rated", "% self-play,"]);
    assert!(!run_dir.join("evaluations/gen-000001.json").exists());
    assert!(run_dir.join("evaluations/gen-000002.json").is_file());
    assert_eq!(
        best_generation(&run_dir),
        2,
        "gating off promotes every candidate"
    );
    let tags = scalar_tags(&run_dir);
    for tag in [
        "time/selfplay_share",
        "time/training_seconds",
        "time/evaluation_share",
    ] {
        assert!(tags.contains(tag), "no {tag} in {tags:?}");
    }
}

#[test]
fn a_run_killed_mid_generation_resumes_without_losing_games() {
    let scratch = Scratch::new("killed");
    let run_dir = scratch.0.join("run");
    let config = tiny_config(&scratch.0, 2);
    let mut child = spawn_train(&config, &run_dir);
    // Kill it (SIGKILL) once some games of the second generation are on disk.
    wait_for_games(&run_dir, 10, &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    let survivors = whole_replay_files(&run_dir);

    let output = train(&config, &run_dir, &[]);
    succeeded_saying(&output, &["resuming"]);
    check_finished_run(&run_dir, 2);
    check_kept(&run_dir, &survivors);
    // No temporary file is left behind as a replay file.
    assert!(
        replay_files(&run_dir).iter().all(|path| !path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with('.'))
    );
}

#[test]
fn an_interrupted_run_stops_at_a_safe_point_and_resumes() {
    let scratch = Scratch::new("interrupted");
    let run_dir = scratch.0.join("run");
    // A budget it cannot reach before the signal; the resumed run is given
    // the usual two generations.
    let endless = tiny_config(&scratch.0, 1000);
    let config = tiny_config(&scratch.0, 2);
    let mut child = spawn_train(&endless, &run_dir);
    // Interrupt it (SIGINT, as Ctrl-C does) once some games are on disk.
    wait_for_games(&run_dir, 4, &mut child);
    let (output, _) = interrupt_and_time(child);
    // The stop names the command that resumes, on screen and in the log.
    let resume = format!(
        "`sumito train --config {} --run-dir {}` resumes the run",
        endless.display(),
        run_dir.display()
    );
    succeeded_saying(&output, &["stopping at the next safe point", &resume]);
    let log = log_of(&run_dir);
    assert!(
        log.contains("stopped on request") && log.contains(&resume),
        "{log}"
    );
    // The trainer's state names a checkpoint that is there.
    trainer_generation(&run_dir);

    let output = train(&config, &run_dir, &[]);
    succeeded_saying(&output, &["resuming"]);
    check_finished_run(&run_dir, 2);
}

/// The tiny config with `generations` generations, self-play and training
/// overlapped.
fn overlapped_config(dir: &Path, generations: u32) -> PathBuf {
    let tiny = std::fs::read_to_string(tiny_config(dir, generations)).unwrap();
    let overlapped = tiny.replace("overlap_training = false", "overlap_training = true");
    assert_ne!(overlapped, tiny);
    let path = dir.join(format!("overlapped-{generations}.toml"));
    std::fs::write(&path, overlapped).unwrap();
    path
}

/// The replay files of games played by generation `generation`'s model.
fn games_of_model(run_dir: &Path, generation: u32) -> usize {
    let folder = format!("model-{generation:06}");
    replay_files(run_dir)
        .iter()
        .filter(|path| path.parent().unwrap().ends_with(&folder))
        .count()
}

/// The newest candidate the trainer's state counts.
fn trainer_generation(run_dir: &Path) -> u32 {
    let state = json_at(&run_dir.join("trainer/state.json"));
    let checkpoint = state["checkpoint"].as_str().expect("a checkpoint is named");
    assert!(run_dir.join("trainer").join(checkpoint).is_dir(), "{state}");
    state["generation"].as_u64().unwrap() as u32
}

#[test]
fn overlapped_training_advances_generations_and_resumes_after_kill_9_and_a_stop() {
    let scratch = Scratch::new("overlapped");
    let run_dir = scratch.0.join("run");
    let output = train(&overlapped_config(&scratch.0, 2), &run_dir, &[]);
    let out = succeeded_saying(
        &output,
        &[
            "self-play and training overlapped: each generation's games are played while the trainer trains on the games before them (overlap_training = true)",
        ],
    );
    check_finished_run(&run_dir, 2);
    // The second generation's games were played while gen 1 was trained,
    // so by gen 0 as the first's were; the budget's last candidate was
    // trained alone: 16 games in all, as in turns.
    assert_eq!(replay_files(&run_dir).len(), 16);
    assert_eq!(games_of_model(&run_dir, 0), 16);
    for generation in 1..=2 {
        let line = out
            .lines()
            .find(|line| line.starts_with(&format!("gen {generation}:")))
            .unwrap_or_else(|| panic!("no line of gen {generation}: {out}"));
        assert!(
            line.contains("% training + ") && line.contains(", overlapped |"),
            "{line}"
        );
    }

    // Killed (SIGKILL) once games of the generation after the next are on
    // disk: while the trainer trains gen 3 (or evaluates it) beside them.
    let endless = overlapped_config(&scratch.0, 1000);
    let mut child = spawn_train(&endless, &run_dir);
    wait_for_games(&run_dir, 16 + 9, &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    let survivors = whole_replay_files(&run_dir);

    // Resumed, and stopped (SIGINT) after a generation's line: at a safe
    // point, its checkpoint named.
    let mut child = spawn_train(&endless, &run_dir);
    let mut lines = training::Lines::of(&mut child);
    assert!(
        lines.wait_for(", overlapped |", std::time::Duration::from_secs(300)),
        "{:?}",
        lines.seen
    );
    let (output, _) = interrupt_and_time(child);
    succeeded_saying(&output, &[]);
    let log = log_of(&run_dir);
    assert!(log.contains("stopped on request"), "{log}");
    let generation = trainer_generation(&run_dir);
    assert!(generation >= 3, "gen {generation}");

    // And finished one generation further: every file there and whole.
    let output = train(
        &overlapped_config(&scratch.0, generation + 1),
        &run_dir,
        &[],
    );
    succeeded_saying(&output, &["resuming", &format!("gen {}:", generation + 1)]);
    check_finished_run(&run_dir, generation + 1);
    assert_eq!(trainer_generation(&run_dir), generation + 1);
    check_kept(&run_dir, &survivors);
}

/// Sends SIGINT to `child` and waits for it to end: its output and the
/// seconds it took.
fn interrupt_and_time(child: std::process::Child) -> (std::process::Output, f64) {
    signal_and_time(child, "INT")
}

/// Sends the signal `name` (INT, TERM) to `child` and waits for it to end:
/// its output and the seconds it took.
fn signal_and_time(child: std::process::Child, name: &str) -> (std::process::Output, f64) {
    let signalled = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let asked = Instant::now();
    let output = child.wait_with_output().unwrap();
    (output, asked.elapsed().as_secs_f64())
}

#[test]
fn a_run_and_the_evaluator_stop_within_seconds_of_a_signal_in_the_middle_of_rating_games() {
    let scratch = Scratch::new("stop-in-evaluation");
    let run_dir = scratch.0.join("run");
    // Rating games that take minutes: hundreds of them against a deep
    // alpha-beta, no gating match.
    let config = tiny_config(&scratch.0, 1000);
    let text_of = std::fs::read_to_string(&config).unwrap();
    let slow = text_of
        .replace("mode = \"threshold\"", "mode = \"off\"")
        .replace(
            "opponents = [\"random\", \"greedy\"]",
            "opponents = [\"alphabeta:depth=3\"]",
        )
        .replace("games_per_opponent = 2", "games_per_opponent = 400");
    assert_ne!(slow, text_of);
    std::fs::write(&config, slow).unwrap();
    let mut child = spawn_train(&config, &run_dir);
    // The first candidate is written right before its rating games start.
    let candidate = run_dir.join("models/gen-000001");
    let deadline = Instant::now() + std::time::Duration::from_secs(120);
    while !candidate.exists() {
        assert!(Instant::now() < deadline, "no candidate appeared");
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    let (output, seconds) = interrupt_and_time(child);
    succeeded_saying(&output, &[]);
    assert!(seconds < 5.0, "the run took {seconds:.1} s to stop");
    let log = log_of(&run_dir);
    assert!(log.contains("stopped on request"), "{log}");
    // Nothing of the stopped evaluation was written: the candidate waits.
    let record = run_dir.join("evaluations/gen-000001.json");
    assert!(!record.exists());

    // The evaluator role takes the waiting candidate up, and stops as fast.
    let child = spawn_role("evaluate", &config, &run_dir);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let (output, seconds) = interrupt_and_time(child);
    succeeded_saying(&output, &["stopping at the next safe point"]);
    assert!(seconds < 5.0, "the evaluator took {seconds:.1} s to stop");
    assert!(!record.exists());

    // The trainer and self-play roles at work stop as fast: the trainer on
    // SIGINT, a self-play worker on SIGTERM.
    let (trainer, worker) = (
        spawn_role("trainer", &config, &run_dir),
        spawn_role("selfplay", &config, &run_dir),
    );
    std::thread::sleep(std::time::Duration::from_secs(3));
    let terminated = std::thread::spawn(move || signal_and_time(worker, "TERM"));
    let (output, seconds) = interrupt_and_time(trainer);
    succeeded_saying(&output, &[]);
    assert!(seconds < 5.0, "the trainer took {seconds:.1} s to stop");
    let (output, seconds) = terminated.join().unwrap();
    succeeded_saying(&output, &[]);
    assert!(
        seconds < 5.0,
        "the self-play worker took {seconds:.1} s to stop"
    );
}

#[test]
fn a_corrupted_replay_file_is_skipped_with_a_warning_naming_it() {
    let scratch = Scratch::new("corrupt");
    let run_dir = tiny_run(&scratch.0, "run", 1);
    let victim = replay_files(&run_dir)[0].clone();
    let bytes = std::fs::read(&victim).unwrap();
    std::fs::write(&victim, &bytes[..bytes.len() - 7]).unwrap();

    let output = train(&tiny_config(&scratch.0, 2), &run_dir, &[]);
    let said = succeeded_saying(&output, &[]);
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    let warning = said
        .lines()
        .find(|line| line.contains("warning") && line.contains(&name))
        .map(str::to_owned);
    assert!(warning.is_some(), "no warning naming {name}:\n{said}");
    assert!(log_of(&run_dir).contains(&name));
    assert!(run_dir.join("models/gen-000002").is_dir());
}

#[test]
fn configuration_errors_name_the_key_and_runs_are_not_overwritten() {
    let scratch = Scratch::new("config-errors");
    let typo = scratch.0.join("typo.toml");
    let text_with_typo = std::fs::read_to_string(repo().join("configs/tiny.toml"))
        .unwrap()
        .replace("games_in_parallel = 8", "games_in_paralel = 8");
    std::fs::write(&typo, text_with_typo).unwrap();
    let output = train(&typo, &scratch.0.join("run"), &[]);
    failed_saying(&output, &["games_in_paralel"]);
    assert!(!scratch.0.join("run").exists());

    let precious = scratch.0.join("precious");
    std::fs::create_dir_all(&precious).unwrap();
    std::fs::write(precious.join("notes.txt"), "keep me").unwrap();
    for extra in [&[][..], &["--fresh"][..]] {
        let output = train(&repo().join("configs/tiny.toml"), &precious, extra);
        failed_saying(&output, &["not a sumito run directory"]);
    }
    assert!(precious.join("notes.txt").exists());
}

#[test]
fn turning_on_the_push_off_planes_widens_the_runs_networks_and_trains_on() {
    let scratch = Scratch::new("push-off-planes");
    let run_dir = tiny_run(&scratch.0, "run", 1);
    let write = |name: &str, text: String| {
        let path = scratch.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let two = std::fs::read_to_string(tiny_config(&scratch.0, 2)).unwrap();
    // Any other change of the network is refused, and changes nothing.
    let wider = write(
        "wider.toml",
        with_push_off_planes(&two).replace("channels = 8", "channels = 12"),
    );
    let output = train(&wider, &run_dir, &[]);
    failed_saying(&output, &["changes [net.model]"]);
    let first = run_dir.join("models/gen-000001");
    assert_eq!(meta_of(&first)["encoding_version"], 1);

    let planes = write("push-off.toml", with_push_off_planes(&two));
    let output = train(&planes, &run_dir, &[]);
    succeeded_saying(
        &output,
        &["push_off_planes turned on: 3 checkpoints", "gen 2:"],
    );
    for generation in ["gen-000000", "gen-000001", "gen-000002"] {
        let meta = meta_of(&run_dir.join("models").join(generation));
        assert_eq!(meta["encoding_version"], 2, "{generation}");
        assert_eq!(meta["model"]["push_off_planes"], true, "{generation}");
    }
}

#[test]
fn a_run_starts_from_a_trained_model_with_init_model() {
    let scratch = Scratch::new("init-model");
    let first_run = tiny_run(&scratch.0, "first", 1);
    let trained = first_run.join("models/gen-000001");
    let steps = meta_of(&trained)["training_step"].as_u64().unwrap();
    assert!(steps > 0);

    // The new run's config adds the push-off planes: the model is grown.
    let one = std::fs::read_to_string(tiny_config(&scratch.0, 1)).unwrap();
    let planes = scratch.0.join("planes.toml");
    std::fs::write(&planes, with_push_off_planes(&one)).unwrap();
    let second_run = scratch.0.join("second");
    let init = ["--init-model", trained.to_str().unwrap()];
    let output = train(&planes, &second_run, &init);
    succeeded_saying(
        &output,
        &[&format!(
            "generation 0 is the model {} (trained {steps} steps, given the push-off planes)",
            trained.display()
        )],
    );
    let first = second_run.join("models/gen-000000");
    assert_eq!(meta_of(&first)["model"]["push_off_planes"], true);
    let log = log_of(&second_run);
    assert!(log.contains("generation 0: the network of"), "{log}");
    // The run keeps what it started from, for its bundles' provenance.
    let initial = json_at(&second_run.join("initial-model.json"));
    assert_eq!(initial["model"], trained.display().to_string());
    assert_eq!(initial["training_step"], steps);
    assert!(second_run.join("models/gen-000001").is_dir());
    // The trained model's own folder is left as it was.
    assert_eq!(meta_of(&trained)["encoding_version"], 1);

    // A run that has its generation 0 is not started again from a model.
    let output = train(&planes, &second_run, &init);
    failed_saying(&output, &["already has its generation 0"]);
    // A bigger network (more blocks and channels, the same heads) is
    // grown from it.
    let bigger = scratch.0.join("bigger.toml");
    std::fs::write(
        &bigger,
        one.replace("channels = 8", "channels = 12")
            .replace("blocks = 1", "blocks = 2"),
    )
    .unwrap();
    let third = scratch.0.join("third");
    let output = train(&bigger, &third, &init);
    succeeded_saying(
        &output,
        &["grown from 1 blocks × 8 channels into 2 blocks × 12 channels)"],
    );
    let grown = meta_of(&third.join("models/gen-000000"));
    assert_eq!(
        (
            grown["model"]["blocks"].as_u64(),
            grown["model"]["channels"].as_u64()
        ),
        (Some(2), Some(12))
    );
    assert!(third.join("models/gen-000001").is_dir());
    // Other heads are not that network grown: refused, naming both.
    let other_heads = scratch.0.join("other-heads.toml");
    std::fs::write(
        &other_heads,
        one.replace("value_hidden = 16", "value_hidden = 32"),
    )
    .unwrap();
    let output = train(&other_heads, &scratch.0.join("fifth"), &init);
    failed_saying(
        &output,
        &["value head 4→32), which is not that network grown"],
    );
    // A model that is not there is named, before any run is created.
    let missing = scratch.0.join("no-such-model");
    let fourth = scratch.0.join("fourth");
    let output = train(
        &planes,
        &fourth,
        &["--init-model", missing.to_str().unwrap()],
    );
    failed_saying(
        &output,
        &[&format!("no model bundle at {}", missing.display())],
    );
    assert!(!fourth.exists());
}
