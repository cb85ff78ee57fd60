//! The run directory: everything one training run owns, on any (shared) file
//! system. Every file in it is either written atomically (write, fsync,
//! rename) or append-only, so a process killed at any moment leaves it
//! consistent; the roles (`selfplay`, `trainer`, `evaluate`) coordinate only
//! through these files, which is what lets them run on several machines.
//!
//! ```text
//! run.json                  format marker and version (refused if incompatible)
//! config.toml               the configuration the run uses
//! log.txt                   one line per event, from every role
//! models/gen-NNNNNN/        candidate N: a sumito-net checkpoint (weights.safetensors, meta.json, manifest.json)
//! models/best.json          which generation self-play and gating use now
//! trainer/                  the trainer's own checkpoint (weights + optimizer) and state
//! replay/model-NNNNNN/*.game   self-play games played by generation N's model
//! evaluations/gen-NNNNNN.json  gating decision and rating games of candidate N
//! elo.json, elo.txt         the Elo table over every evaluation game so far
//! tensorboard/              TensorBoard event files, one per process and role
//! leases/ROLE.json          which process holds a single-writer role
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::fsutil::{hostname, process_alive, unix_seconds, utc_timestamp, write_atomic};

/// The marker in `run.json`.
pub const RUN_FORMAT: &str = "sumito-run";
/// Bumped whenever a file in the run directory changes incompatibly.
pub const RUN_FORMAT_VERSION: u32 = 1;

/// Errors about the run directory itself.
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path} is not a sumito run directory (it has no run.json)")]
    NotARun { path: PathBuf },
    #[error(
        "run directory {path} already holds a run; run the same command without --fresh to resume it, or with --fresh to delete it and start over"
    )]
    AlreadyExists { path: PathBuf },
    #[error("{path} exists and is not a sumito run directory; refusing to delete or use it")]
    Foreign { path: PathBuf },
    #[error("run directory {path} cannot be used: {reason}")]
    Incompatible { path: PathBuf, reason: String },
    #[error("{path} is malformed: {problem}")]
    Malformed { path: PathBuf, problem: String },
    #[error(
        "the {role} role of {path} is held by process {pid} on {host} (lease renewed {age:.0} s ago); stop it first, or wait {wait:.0} s if it died"
    )]
    Busy {
        path: PathBuf,
        role: String,
        host: String,
        pid: u32,
        age: f64,
        wait: f64,
    },
}

type Result<T> = std::result::Result<T, RunDirError>;

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunDirError + '_ {
    move |source| RunDirError::Io {
        path: path.to_owned(),
        cause: source,
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct RunMarker {
    format: String,
    version: u32,
    created: String,
    created_by: String,
}

/// A run directory whose format has been checked.
#[derive(Debug, Clone)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// Whether `root` holds a run (a `run.json`).
    pub fn exists(root: &Path) -> bool {
        root.join("run.json").is_file()
    }

    /// Creates a new run in `root`, which must not exist or be empty, storing
    /// `config_text` as its configuration.
    pub fn create(root: &Path, config_text: &str) -> Result<RunDir> {
        if root.exists() {
            let mut entries = std::fs::read_dir(root).map_err(io_error(root))?;
            if entries.next().is_some() {
                return Err(if Self::exists(root) {
                    RunDirError::AlreadyExists {
                        path: root.to_owned(),
                    }
                } else {
                    RunDirError::Foreign {
                        path: root.to_owned(),
                    }
                });
            }
        }
        let run = RunDir {
            root: root.to_owned(),
        };
        for dir in [
            run.models_dir(),
            run.replay_dir(),
            run.evaluations_dir(),
            run.trainer_dir(),
            run.tensorboard_dir(),
            run.leases_dir(),
        ] {
            std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        }
        run.write_config(config_text)?;
        let marker = RunMarker {
            format: RUN_FORMAT.to_owned(),
            version: RUN_FORMAT_VERSION,
            created: utc_timestamp(),
            created_by: format!("sumito {}", env!("CARGO_PKG_VERSION")),
        };
        // run.json goes last: a directory without it was never a complete run.
        write_json(&root.join("run.json"), &marker)?;
        Ok(run)
    }

    /// Opens an existing run, refusing one written in another format version.
    pub fn open(root: &Path) -> Result<RunDir> {
        let marker_path = root.join("run.json");
        if !marker_path.is_file() {
            return Err(RunDirError::NotARun {
                path: root.to_owned(),
            });
        }
        let marker: RunMarker = read_json(&marker_path)?;
        let incompatible = |reason: String| RunDirError::Incompatible {
            path: root.to_owned(),
            reason,
        };
        if marker.format != RUN_FORMAT {
            return Err(incompatible(format!(
                "run.json names format {:?}, not {RUN_FORMAT:?}",
                marker.format
            )));
        }
        if marker.version != RUN_FORMAT_VERSION {
            let who = if marker.version > RUN_FORMAT_VERSION {
                "a newer"
            } else {
                "an older"
            };
            return Err(incompatible(format!(
                "it was written by {who} sumito ({}) in run format version {}, and this sumito reads only version {RUN_FORMAT_VERSION}",
                marker.created_by, marker.version
            )));
        }
        Ok(RunDir {
            root: root.to_owned(),
        })
    }

    /// Deletes the run in `root` (for `--fresh`), refusing to delete a
    /// non-empty directory that is not a run.
    pub fn delete(root: &Path) -> Result<()> {
        if !root.exists() {
            return Ok(());
        }
        let empty = std::fs::read_dir(root)
            .map_err(io_error(root))?
            .next()
            .is_none();
        if !empty && !Self::exists(root) {
            return Err(RunDirError::Foreign {
                path: root.to_owned(),
            });
        }
        std::fs::remove_dir_all(root).map_err(io_error(root))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub fn log_path(&self) -> PathBuf {
        self.root.join("log.txt")
    }
    pub fn models_dir(&self) -> PathBuf {
        self.root.join("models")
    }
    /// The checkpoint directory of generation `generation` (0 is the random start).
    pub fn model_path(&self, generation: u32) -> PathBuf {
        self.models_dir().join(format!("gen-{generation:06}"))
    }
    pub fn best_path(&self) -> PathBuf {
        self.models_dir().join("best.json")
    }
    pub fn trainer_dir(&self) -> PathBuf {
        self.root.join("trainer")
    }
    pub fn replay_dir(&self) -> PathBuf {
        self.root.join("replay")
    }
    /// Where games played by generation `generation`'s model go.
    pub fn replay_model_dir(&self, generation: u32) -> PathBuf {
        self.replay_dir().join(format!("model-{generation:06}"))
    }
    pub fn evaluations_dir(&self) -> PathBuf {
        self.root.join("evaluations")
    }
    pub fn evaluation_path(&self, generation: u32) -> PathBuf {
        self.evaluations_dir()
            .join(format!("gen-{generation:06}.json"))
    }
    pub fn elo_json_path(&self) -> PathBuf {
        self.root.join("elo.json")
    }
    pub fn elo_text_path(&self) -> PathBuf {
        self.root.join("elo.txt")
    }
    pub fn tensorboard_dir(&self) -> PathBuf {
        self.root.join("tensorboard")
    }
    pub fn leases_dir(&self) -> PathBuf {
        self.root.join("leases")
    }

    /// Replaces the stored configuration.
    pub fn write_config(&self, text: &str) -> Result<()> {
        let path = self.config_path();
        write_atomic(&path, text.as_bytes()).map_err(io_error(&path))
    }

    /// The generations that have a model, in increasing order.
    pub fn model_generations(&self) -> Result<Vec<u32>> {
        let dir = self.models_dir();
        let mut generations = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(io_error(&dir))? {
            let name = entry.map_err(io_error(&dir))?.file_name();
            let name = name.to_string_lossy();
            if let Some(number) = name.strip_prefix("gen-")
                && let Ok(generation) = number.parse()
            {
                generations.push(generation);
            }
        }
        generations.sort_unstable();
        Ok(generations)
    }

    /// The generation self-play and gating use now, if one was chosen.
    pub fn best(&self) -> Result<Option<BestModel>> {
        let path = self.best_path();
        if !path.exists() {
            return Ok(None);
        }
        read_json(&path).map(Some)
    }

    /// Makes `generation` the best model.
    pub fn set_best(&self, generation: u32) -> Result<()> {
        let best = BestModel {
            generation,
            since: utc_timestamp(),
        };
        write_json(&self.best_path(), &best)
    }

    /// Appends a line to the run's log, tagged with the role writing it.
    pub fn log(&self, role: &str, message: &str) -> Result<()> {
        let path = self.log_path();
        let line = format!("{} [{role}] {message}\n", utc_timestamp());
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_error(&path))?;
        // One write call per line: appends of this size do not interleave.
        file.write_all(line.as_bytes()).map_err(io_error(&path))
    }

    /// Takes the single-writer lease of `role` (e.g. "trainer"), renewed in
    /// the background until the returned guard is dropped. A lease left by a
    /// dead process on this machine is taken over at once; one from another
    /// machine after `ttl` without renewal.
    pub fn acquire_lease(&self, role: &str, ttl: Duration) -> Result<Lease> {
        let path = self.leases_dir().join(format!("{role}.json"));
        std::fs::create_dir_all(self.leases_dir()).map_err(io_error(&path))?;
        let me = LeaseRecord {
            host: hostname(),
            pid: std::process::id(),
            token: rand::random(),
            renewed: unix_seconds(),
        };
        if let Some(holder) = read_lease(&path)? {
            let age = unix_seconds() - holder.renewed;
            let dead_here = holder.host == me.host && !process_alive(holder.pid);
            if !dead_here && age < ttl.as_secs_f64() && holder.token != me.token {
                return Err(RunDirError::Busy {
                    path: self.root.clone(),
                    role: role.to_owned(),
                    host: holder.host,
                    pid: holder.pid,
                    age,
                    wait: ttl.as_secs_f64() - age,
                });
            }
        }
        write_json(&path, &me)?;
        let lost = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let renewer = {
            let (lease_path, lost, stop) = (path.clone(), Arc::clone(&lost), Arc::clone(&stop));
            let mut record = me.clone();
            std::thread::Builder::new()
                .name(format!("lease-{role}"))
                .spawn(move || {
                    let period = ttl / 3;
                    let tick = Duration::from_millis(100).min(period);
                    let mut waited = Duration::ZERO;
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(tick);
                        waited += tick;
                        if waited < period {
                            continue;
                        }
                        waited = Duration::ZERO;
                        match read_lease(&lease_path) {
                            Ok(Some(holder)) if holder.token != record.token => {
                                lost.store(true, Ordering::Relaxed);
                                return;
                            }
                            _ => {
                                record.renewed = unix_seconds();
                                let _ = write_json(&lease_path, &record);
                            }
                        }
                    }
                })
                .map_err(io_error(&path))?
        };
        Ok(Lease {
            path,
            token: me.token,
            lost,
            stop,
            renewer: Some(renewer),
        })
    }
}

/// The contents of `models/best.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestModel {
    pub generation: u32,
    /// When it became the best (UTC).
    pub since: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct LeaseRecord {
    host: String,
    pid: u32,
    token: u64,
    renewed: f64,
}

fn read_lease(path: &Path) -> Result<Option<LeaseRecord>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(RunDirError::Io {
            path: path.to_owned(),
            cause: source,
        }),
    }
}

/// A held single-writer role. Dropping it releases the role.
#[derive(Debug)]
pub struct Lease {
    path: PathBuf,
    token: u64,
    lost: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// Whether another process took the role over (after this one stalled
    /// past the lease time); the holder must then stop writing.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        if let Ok(Some(holder)) = read_lease(&self.path)
            && holder.token == self.token
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).expect("run-directory records serialize");
    text.push('\n');
    write_atomic(path, text.as_bytes()).map_err(io_error(path))
}

/// Reads a JSON record written by [`write_json`].
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    serde_json::from_slice(&bytes).map_err(|err| RunDirError::Malformed {
        path: path.to_owned(),
        problem: err.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;

    #[test]
    fn create_then_open_and_refuse_to_overwrite() {
        let dir = TempDir::new("rundir");
        let root = dir.path().join("run");
        let run = RunDir::create(&root, "[budget]\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(run.config_path()).unwrap(),
            "[budget]\n"
        );
        assert!(run.models_dir().is_dir() && run.replay_dir().is_dir());
        RunDir::open(&root).unwrap();
        assert!(matches!(
            RunDir::create(&root, ""),
            Err(RunDirError::AlreadyExists { .. })
        ));
        RunDir::delete(&root).unwrap();
        assert!(!root.exists());
    }

    #[test]
    fn foreign_directories_are_neither_used_nor_deleted() {
        let dir = TempDir::new("foreign");
        std::fs::write(dir.path().join("thesis.tex"), "precious").unwrap();
        assert!(matches!(
            RunDir::create(dir.path(), ""),
            Err(RunDirError::Foreign { .. })
        ));
        assert!(matches!(
            RunDir::delete(dir.path()),
            Err(RunDirError::Foreign { .. })
        ));
        assert!(matches!(
            RunDir::open(dir.path()),
            Err(RunDirError::NotARun { .. })
        ));
        assert!(dir.path().join("thesis.tex").exists());
    }

    #[test]
    fn a_newer_format_is_refused_with_the_reason() {
        let dir = TempDir::new("newer");
        let run = RunDir::create(dir.path(), "").unwrap();
        let marker = RunMarker {
            format: RUN_FORMAT.into(),
            version: RUN_FORMAT_VERSION + 1,
            created: "now".into(),
            created_by: "sumito 9.0.0".into(),
        };
        write_json(&run.root().join("run.json"), &marker).unwrap();
        let err = RunDir::open(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("newer sumito (sumito 9.0.0)") && err.contains("version 2"),
            "{err}"
        );
    }

    #[test]
    fn best_model_and_generations_round_trip() {
        let dir = TempDir::new("best");
        let run = RunDir::create(dir.path(), "").unwrap();
        assert_eq!(run.best().unwrap(), None);
        run.set_best(3).unwrap();
        assert_eq!(run.best().unwrap().unwrap().generation, 3);
        for generation in [2, 0, 10] {
            std::fs::create_dir(run.model_path(generation)).unwrap();
        }
        assert_eq!(run.model_generations().unwrap(), vec![0, 2, 10]);
    }

    #[test]
    fn a_live_lease_excludes_a_second_holder_until_released() {
        let dir = TempDir::new("lease");
        let run = RunDir::create(dir.path(), "").unwrap();
        let lease = run
            .acquire_lease("trainer", Duration::from_secs(60))
            .unwrap();
        // Same process, so alive: a second acquisition must be refused.
        let err = run
            .acquire_lease("trainer", Duration::from_secs(60))
            .unwrap_err();
        assert!(matches!(err, RunDirError::Busy { .. }), "{err}");
        assert!(!lease.is_lost());
        drop(lease);
        run.acquire_lease("trainer", Duration::from_secs(60))
            .unwrap();
    }

    #[test]
    fn a_lease_of_a_dead_process_is_taken_over() {
        let dir = TempDir::new("lease-dead");
        let run = RunDir::create(dir.path(), "").unwrap();
        let dead = LeaseRecord {
            host: hostname(),
            pid: u32::MAX - 1,
            token: 1,
            renewed: unix_seconds(),
        };
        write_json(&run.leases_dir().join("evaluator.json"), &dead).unwrap();
        run.acquire_lease("evaluator", Duration::from_secs(60))
            .unwrap();
    }

    #[test]
    fn log_lines_append() {
        let dir = TempDir::new("log");
        let run = RunDir::create(dir.path(), "").unwrap();
        run.log("trainer", "one").unwrap();
        run.log("selfplay", "two").unwrap();
        let text = std::fs::read_to_string(run.log_path()).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].ends_with("[trainer] one") && lines[1].ends_with("[selfplay] two"));
    }
}
