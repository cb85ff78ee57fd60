//! End-to-end tests that nothing a user types destroys or silently changes a
//! live run, and that `kill -9` at any moment leaves a run that resumes at
//! once: `--fresh` on a live run, an interrupted `--fresh`, a refused second
//! command writing nothing, a restart right after `kill -9` while the killed
//! process is unreaped, the leftovers of killed processes, a trainer state
//! naming a missing checkpoint (refused, nothing removed), and a few
//! `kill -9`s at random moments of a tiny run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sumito_pipeline::fsutil::hostname;
use sumito_pipeline::replay::format::decode_game;
use sumito_pipeline::rundir::RunDir;

use crate::common;
use crate::training;

use common::Scratch;
use training::{
    Lines, SUMITO, replay_files, role_command, spawn_train, text, tiny_config, train,
    wait_for_games,
};

/// Sends `signal` (e.g. "INT", "KILL") to process `pid`.
fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Stops `child` as Ctrl-C does and checks that it exits cleanly.
fn interrupt(child: Child) {
    signal(child.id(), "INT");
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output));
}

/// The entries of `dir` whose names start with `.NAME.` for the run `root`:
/// folders of creations or deletions of that run.
fn aside_folders(root: &Path) -> Vec<String> {
    let prefix = format!(".{}.", root.file_name().unwrap().to_string_lossy());
    std::fs::read_dir(root.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

/// `sumito train` on the run `scratch/run`, with a budget it never
/// reaches, once `games` games are on disk.
fn live_run(scratch: &Scratch, games: usize) -> (PathBuf, Child) {
    let run_dir = scratch.0.join("run");
    let mut child = spawn_train(&tiny_config(&scratch.0, 100_000), &run_dir);
    wait_for_games(&run_dir, games, &mut child);
    (run_dir, child)
}

#[test]
fn fresh_refuses_to_delete_a_live_run_naming_its_process() {
    let scratch = Scratch::new("fresh-live");
    let (run_dir, mut child) = live_run(&scratch, 4);
    let games = replay_files(&run_dir);

    let output = train(&tiny_config(&scratch.0, 1), &run_dir, &["--fresh"]);
    assert!(!output.status.success(), "{}", text(&output));
    let message = text(&output);
    let holder = format!("process {} on {}", child.id(), hostname());
    assert!(
        message.contains("cannot delete")
            && message.contains(&holder)
            && message.contains("sumito train")
            && message.contains("trainer"),
        "{message}"
    );
    // Nothing was deleted, and the live run goes on.
    for file in ["run.json", "config.toml", "models/gen-000000/manifest.json"] {
        assert!(run_dir.join(file).is_file(), "{file} is gone");
    }
    let after = replay_files(&run_dir);
    assert!(games.iter().all(|game| after.contains(game)));
    wait_for_games(&run_dir, games.len() + 8, &mut child);
    interrupt(child);

    // Once it is stopped, --fresh deletes it and starts over.
    let output = train(&tiny_config(&scratch.0, 1), &run_dir, &["--fresh"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        text(&output).contains("deleted the run"),
        "{}",
        text(&output)
    );
    assert!(aside_folders(&run_dir).is_empty());
    let log = std::fs::read_to_string(run_dir.join("log.txt")).unwrap();
    assert!(
        log.lines().next().unwrap().contains("deleted the run"),
        "{log}"
    );
}

/// The files in `dir`.
fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| entries.count())
}

#[test]
fn a_fresh_killed_while_deleting_leaves_the_whole_run_or_none_and_is_finished() {
    const FILES: usize = 30_000;
    let scratch = Scratch::new("fresh-killed");
    let run_dir = scratch.0.join("run");
    let config = tiny_config(&scratch.0, 1);
    let run = RunDir::create(&run_dir, &std::fs::read_to_string(&config).unwrap()).unwrap();
    // Enough files that deleting them takes a while.
    let bulk = run.replay_dir().join("bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    for index in 0..FILES {
        std::fs::write(bulk.join(format!("{index:06}.bin")), "x").unwrap();
    }

    let mut fresh = role_command("train", &config, &run_dir, &["--fresh"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it the moment the run starts to go.
    let deadline = Instant::now() + Duration::from_secs(60);
    while run_dir.join("run.json").exists() && count(&bulk) == FILES {
        assert!(Instant::now() < deadline, "the run was never deleted");
        assert!(fresh.try_wait().unwrap().is_none(), "--fresh ended");
    }
    fresh.kill().unwrap();
    fresh.wait().unwrap();

    // Never half a run: the whole old one, a new one, or none.
    let left = count(&bulk);
    assert!(
        left == FILES || (left == 0 && !bulk.exists()),
        "{left} of {FILES} files left in {}",
        bulk.display()
    );
    // The same command again finishes the deletion and starts over.
    let output = train(&config, &run_dir, &["--fresh"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        aside_folders(&run_dir).is_empty(),
        "{:?}",
        aside_folders(&run_dir)
    );
    assert!(!bulk.exists());
    assert!(run_dir.join("models/gen-000001/manifest.json").is_file());
}

#[test]
fn a_refused_second_command_writes_nothing_into_the_run() {
    let scratch = Scratch::new("refused-writes");
    let (run_dir, child) = live_run(&scratch, 2);
    let stored = std::fs::read_to_string(run_dir.join("config.toml")).unwrap();
    let changed = scratch.0.join("changed.toml");
    let changed_text = stored.replace("games = 4", "games = 6");
    assert_ne!(changed_text, stored);
    std::fs::write(&changed, &changed_text).unwrap();

    let holder = format!("process {} on {}", child.id(), hostname());
    for role in ["train", "trainer", "evaluate", "selfplay"] {
        let output = role_command(role, &changed, &run_dir, &[])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{role}: {}", text(&output));
        let message = text(&output);
        assert!(
            message.contains("role of") && message.contains(&holder),
            "{role}: {message}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(run_dir.join("config.toml")).unwrap(),
        stored
    );
    interrupt(child);
    let log = std::fs::read_to_string(run_dir.join("log.txt")).unwrap();
    assert!(!log.contains("configuration updated"), "{log}");

    // With the run stopped, the change is taken over and logged (with a
    // budget already spent, so that it stops at once).
    let short = scratch.0.join("short.toml");
    std::fs::write(
        &short,
        changed_text.replace("generations = 100000", "generations = 1"),
    )
    .unwrap();
    let output = train(&short, &run_dir, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        text(&output).contains("configuration updated"),
        "{}",
        text(&output)
    );
}

/// Whether process `pid` is a zombie: dead, its entry waiting to be reaped.
fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

#[test]
fn a_restart_right_after_kill_9_is_accepted_while_the_killed_process_is_unreaped() {
    let scratch = Scratch::new("unreaped");
    let (run_dir, mut child) = live_run(&scratch, 2);
    // Killed and not reaped: its /proc entry stays, as when its parent died
    // too and nothing reaps orphans.
    signal(child.id(), "KILL");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !is_zombie(child.id()) {
        assert!(
            Instant::now() < deadline,
            "process {} did not die",
            child.id()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let started = Instant::now();
    let output = train(&tiny_config(&scratch.0, 1), &run_dir, &[]);
    let took = started.elapsed();
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("resuming"), "{}", text(&output));
    assert!(took < Duration::from_secs(30), "took {took:?}");
    assert!(
        is_zombie(child.id()),
        "the test needs it unreaped throughout"
    );
    child.wait().unwrap();
}

#[test]
fn leftovers_of_killed_processes_are_removed_when_the_run_starts() {
    let scratch = Scratch::new("leftovers");
    let run_dir = scratch.0.join("run");
    let config = tiny_config(&scratch.0, 1);
    let output = train(&config, &run_dir, &[]);
    assert!(output.status.success(), "{}", text(&output));
    // What writers killed on this machine leave: a process that has ended.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let (host, pid) = (hostname(), gone.id());
    let stale = [
        run_dir.join(format!(
            "replay/model-000000/.1-{host}-{pid}-000001.game.{host}-{pid}-0.tmp"
        )),
        run_dir.join(format!("models/.gen-000002.{host}-{pid}-1.tmp")),
        run_dir.join(format!("evaluations/.gen-000002.json.{host}-{pid}-2.tmp")),
        run_dir.join("trainer/ckpt-000099999"),
        run_dir.join("models/gen-000009"),
        run_dir.join(format!("leases/process-{host}-{pid}.lock")),
    ];
    std::fs::write(&stale[0], "half a game").unwrap();
    std::fs::create_dir(&stale[1]).unwrap();
    std::fs::write(stale[1].join("weights.safetensors"), "half").unwrap();
    std::fs::write(&stale[2], "{").unwrap();
    for incomplete in &stale[3..5] {
        std::fs::create_dir(incomplete).unwrap();
        std::fs::write(incomplete.join("weights.safetensors"), "no manifest").unwrap();
    }
    std::fs::write(&stale[5], "").unwrap();
    // A temporary of a writer on another machine may still be written.
    let remote = run_dir.join("replay/model-000000/.2-far-7-000001.game.far-7-0.tmp");
    std::fs::write(&remote, "maybe still being written").unwrap();

    let output = train(&config, &run_dir, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let printed = text(&output);
    let log = std::fs::read_to_string(run_dir.join("log.txt")).unwrap();
    for path in &stale {
        assert!(!path.exists(), "{} is still there", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(printed.contains(&*name), "{name} not reported: {printed}");
        assert!(log.contains(&*name), "{name} not logged: {log}");
    }
    assert!(remote.exists());
}

#[test]
fn a_trainer_state_naming_a_missing_checkpoint_is_refused_and_nothing_is_removed() {
    let scratch = Scratch::new("missing-checkpoint");
    let run_dir = scratch.0.join("run");
    let config = tiny_config(&scratch.0, 1);
    let output = train(&config, &run_dir, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let checkpoints = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(run_dir.join("trainer"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("ckpt-"))
            .collect();
        names.sort();
        names
    };
    let before = checkpoints();
    assert_eq!(before.len(), 1, "{before:?}");
    // What a partial sync or a restore from backup leaves: the state names
    // a checkpoint that is not there.
    let state_path = run_dir.join("trainer/state.json");
    let mut state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state_path).unwrap()).unwrap();
    state["checkpoint"] = "ckpt-999999999".into();
    std::fs::write(&state_path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();

    let output = train(&config, &run_dir, &[]);
    let message = text(&output);
    assert!(!output.status.success(), "{message}");
    assert!(
        message.contains("ckpt-999999999, which is not there")
            && message.contains(&format!("there are {}", before[0]))
            && message.contains("nothing was removed"),
        "{message}"
    );
    let log = std::fs::read_to_string(run_dir.join("log.txt")).unwrap();
    assert!(
        !log.contains("trainer checkpoint its state does not name"),
        "{log}"
    );
    // The one real checkpoint is still there, whole.
    assert_eq!(checkpoints(), before);
    assert!(
        run_dir
            .join("trainer")
            .join(&before[0])
            .join("manifest.json")
            .is_file()
    );
}

/// Every replay file decodes and every JSON file of the run parses; with
/// `complete`, every model and trainer checkpoint folder also has its
/// manifest (true once a process that cleaned up stopped: a killed one may
/// leave one half-written, which the next start removes).
fn check_files(run_dir: &Path, complete: bool) {
    for path in replay_files(run_dir) {
        decode_game(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    }
    let mut folders = vec![run_dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if complete && (name.starts_with("gen-") || name.starts_with("ckpt-")) {
                    assert!(
                        path.join("manifest.json").is_file(),
                        "{} has no manifest",
                        path.display()
                    );
                }
                folders.push(path);
            } else if name.ends_with(".json") && !name.starts_with('.') {
                let bytes = std::fs::read(&path).unwrap();
                serde_json::from_slice::<serde_json::Value>(&bytes)
                    .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            }
        }
    }
}

/// Temporary files anywhere in `dir` written by one of `pids` on this
/// machine (named `.NAME.HOST-PID-N.tmp`, or `.NAME.PID-N.tmp` and
/// `.NAME.PID.tmp` as older versions did).
fn temporaries_of(dir: &Path, pids: &[u32]) -> Vec<PathBuf> {
    let host = hostname();
    let mut found = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let by = |pid: &u32| {
                name.ends_with(".tmp")
                    && [
                        format!(".{host}-{pid}-"),
                        format!(".{pid}-"),
                        format!(".{pid}.tmp"),
                    ]
                    .iter()
                    .any(|writer| name.contains(writer.as_str()))
            };
            if pids.iter().any(by) {
                found.push(path);
            } else if path.is_dir() {
                folders.push(path);
            }
        }
    }
    found
}

/// `sumito train` started by a shell that then becomes `sleep`: a parent
/// that never reaps it. Killed, it stays a zombie, its /proc entry there,
/// until that parent dies too, as after `timeout -s KILL sumito train ...`
/// where nothing reaps orphans. Returns the shell and the pid of `sumito`.
fn spawn_train_under_a_shell(config: &Path, run_dir: &Path, pid_file: &Path) -> (Child, u32) {
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg(r#""$0" train --no-progress --config "$1" --run-dir "$2" & echo $! > "$3"; exec sleep 600"#)
        .arg(SUMITO)
        .args([config, run_dir, pid_file])
        .env("OMP_WAIT_POLICY", "PASSIVE")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return (shell, pid);
        }
        assert!(Instant::now() < deadline, "sh never started sumito");
        assert!(shell.try_wait().unwrap().is_none(), "sh ended");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn kill_9_at_random_moments_loses_no_game_and_the_run_resumes_at_once() {
    let scratch = Scratch::new("crash");
    let run_dir = scratch.0.join("run");
    let endless = tiny_config(&scratch.0, 100_000);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    println!("seed {seed}");
    // Moments from 0.3 to 3 s after the start: creating the run, self-play,
    // training, checkpoints, evaluation and promotion all happen within
    // such a span of a tiny run.
    let mut state = u64::from(seed) | 1;
    let mut moment = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        Duration::from_millis(300 + state % 2700)
    };
    let mut killed: Vec<u32> = Vec::new();
    let mut games_before: BTreeSet<PathBuf> = BTreeSet::new();
    // A killed process left unreaped, with its parent.
    let mut unreaped: Option<(Child, u32)> = None;
    for round in 0..5 {
        let under_shell = round == 2;
        let pid_file = scratch.0.join(format!("pid-{round}"));
        let (mut child, pid) = if under_shell {
            spawn_train_under_a_shell(&endless, &run_dir, &pid_file)
        } else {
            let child = spawn_train(&endless, &run_dir);
            let pid = child.id();
            (child, pid)
        };
        // Read for as long as it runs (a closed pipe would end it).
        let mut lines = Lines::of(&mut child);
        if round > 0 {
            // It resumes at once: no lease refusal, and by the time it says
            // so, what the killed processes left is gone. (Killed early, the
            // first one may not have made the run yet: then this one does.)
            assert!(
                lines.wait_for(" run in ", Duration::from_secs(30)),
                "round {round}: {:?}",
                lines.seen
            );
            if let Some((mut parent, zombie)) = unreaped.take() {
                // It started while the killed one was a zombie, without
                // waiting for anything; now the parent dies too.
                assert!(is_zombie(zombie), "round {round}: {zombie} was reaped");
                signal(parent.id(), "KILL");
                parent.wait().unwrap();
            }
            let stale = temporaries_of(&run_dir, &killed);
            assert!(stale.is_empty(), "round {round}: {stale:?}");
            let games: BTreeSet<PathBuf> = replay_files(&run_dir).into_iter().collect();
            let lost: Vec<_> = games_before.difference(&games).collect();
            assert!(lost.is_empty(), "round {round}: lost {lost:?}");
        }
        if round == 4 {
            // The last one is stopped cleanly.
            wait_for_games(&run_dir, games_before.len() + 1, &mut child);
            interrupt(child);
            break;
        }
        std::thread::sleep(moment());
        signal(pid, "KILL");
        if under_shell {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !is_zombie(pid) {
                assert!(Instant::now() < deadline, "process {pid} did not die");
                std::thread::sleep(Duration::from_millis(10));
            }
            unreaped = Some((child, pid));
        } else {
            child.wait().unwrap();
        }
        drop(lines);
        killed.push(pid);
        // Killed while creating the run, the first leaves none (the next
        // start creates it).
        if !run_dir.exists() {
            assert_eq!(round, 0, "the run is gone");
            continue;
        }
        check_files(&run_dir, false);
        games_before = replay_files(&run_dir).into_iter().collect();
    }
    check_files(&run_dir, true);
    assert!(temporaries_of(&run_dir, &killed).is_empty());
}
