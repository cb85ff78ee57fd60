//! Helpers of the end-to-end tests that train (`#[path]`-included by them
//! only, so that the other test crates do not carry them unused).

// Each of those test crates uses a part of them.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use sumito_game::GameKind;
use sumito_pipeline::replay::files::{ReplayFolder, list_games};

pub const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The tiny config with `generations` generations, written into `dir`.
pub fn tiny_config(dir: &Path, generations: u32) -> PathBuf {
    let text = std::fs::read_to_string(repo().join("configs/tiny.toml")).unwrap();
    let text = text.replace("generations = 2", &format!("generations = {generations}"));
    let path = dir.join(format!("tiny-{generations}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `sumito ROLE --no-progress --config CONFIG --run-dir RUN_DIR EXTRA...`.
pub fn role_command(role: &str, config: &Path, run_dir: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(SUMITO);
    command
        .args([role, "--no-progress", "--config"])
        .arg(config)
        .arg("--run-dir")
        .arg(run_dir)
        .args(extra)
        .env("OMP_WAIT_POLICY", "PASSIVE");
    command
}

/// Runs `sumito train` to the end.
pub fn train(config: &Path, run_dir: &Path, extra: &[&str]) -> Output {
    role_command("train", config, run_dir, extra)
        .output()
        .unwrap()
}

/// `sumito train` started in the background, its output captured (a few
/// lines: no progress bars).
pub fn spawn_train(config: &Path, run_dir: &Path) -> Child {
    spawn_role("train", config, run_dir)
}

/// `sumito ROLE` (`train`, `selfplay`, `trainer`, `evaluate`) started in
/// the background, its output captured.
pub fn spawn_role(role: &str, config: &Path, run_dir: &Path) -> Child {
    role_command(role, config, run_dir, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// What a command that succeeded and said each of `words` (on either
/// stream) printed; fails the test with its output otherwise.
pub fn succeeded_saying(output: &Output, words: &[&str]) -> String {
    ended_saying(output, true, words)
}

/// What a command that failed and said each of `words` printed; fails the
/// test with its output otherwise.
pub fn failed_saying(output: &Output, words: &[&str]) -> String {
    ended_saying(output, false, words)
}

fn ended_saying(output: &Output, success: bool, words: &[&str]) -> String {
    let said = text(output);
    let ended = if success { "succeed" } else { "fail" };
    assert_eq!(
        output.status.success(),
        success,
        "the command was to {ended}:\n{said}"
    );
    for word in words {
        assert!(said.contains(word), "no {word:?} in:\n{said}");
    }
    said
}

/// The JSON file at `path`.
pub fn json_at(path: &Path) -> serde_json::Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The generation the run in `run_dir` plays with now.
pub fn best_generation(run_dir: &Path) -> u32 {
    sumito_pipeline::rundir::RunDir::open(run_dir)
        .unwrap()
        .best()
        .unwrap()
        .expect("a best model")
        .generation
}

pub fn replay_files(run_dir: &Path) -> Vec<PathBuf> {
    let folder = ReplayFolder::local(&run_dir.join("replay")).unwrap();
    list_games(&folder, GameKind::TwoPlayer)
        .unwrap()
        .into_iter()
        .map(|key| run_dir.join("replay").join(key))
        .collect()
}

/// Waits until `run_dir` holds at least `games` replay files, while `child`
/// runs.
pub fn wait_for_games(run_dir: &Path, games: usize, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while replay_files(run_dir).len() < games {
        assert!(Instant::now() < deadline, "no games appeared");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it had {games} games"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines a child writes to its standard output, as they come.
pub struct Lines {
    receiver: Receiver<String>,
    pub seen: Vec<String>,
}

impl Lines {
    /// Reads `child`'s standard output (which must be piped) on a thread.
    pub fn of(child: &mut Child) -> Lines {
        let stdout = child.stdout.take().expect("piped standard output");
        let (sender, receiver) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            receiver,
            seen: Vec::new(),
        }
    }

    /// Waits up to `timeout` for a line containing `pattern`; false if the
    /// output ended or the time ran out first.
    pub fn wait_for(&mut self, pattern: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.receiver.recv_timeout(left) {
                Ok(line) => {
                    let found = line.contains(pattern);
                    self.seen.push(line);
                    if found {
                        return true;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
    }
}

/// The smallest general-game run for `layout`: a tiny network, four
/// simulations, six games a generation, two generations, each candidate
/// rated against `greedy`.
pub fn tiny_general_config(dir: &Path, layout: &str) -> PathBuf {
    tiny_general_config_gated(dir, layout, "mode = \"off\"")
}

/// The tiny run with `gating` as the `[gating]` table's keys.
pub fn tiny_general_config_gated(dir: &Path, layout: &str, gating: &str) -> PathBuf {
    let text = format!(
        r#"[rules]
layouts = ["{layout}"]
max_plies = 24

[selfplay]
workers = 1
games_in_parallel = 6
games_per_generation = 6
# In turns on any machine, as configs/tiny.toml.
overlap_training = false

[mcts]
simulations = 4
temperature = 1.0
temperature_plies = 6

[mcts.gumbel]
considered_actions = 4

[net.model]
blocks = 1
channels = 8
policy_channels = 4
value_channels = 4
value_hidden = 16

[net.inference]
precision = "f32"

[net.training]
batch_size = 16
learning_rate = 1e-3
warmup_steps = 0

[net.threads]
intra_op = 1
inter_op = 1

[training]
samples_per_position = 1.0
window_min_positions = 500
window_max_positions = 2000
checkpoint_every_steps = 2

[gating]
{gating}

[evaluation]
simulations = 4
games_in_parallel = 4
opponents = ["greedy"]
games_per_opponent = 4

[budget]
generations = 2
"#
    );
    let path = dir.join(format!("tiny-{layout}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}
