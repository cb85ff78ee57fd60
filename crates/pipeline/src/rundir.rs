//! The run directory: everything one training run owns, in a folder on any
//! (shared) file system or under a prefix of an S3-compatible object store
//! (`s3://BUCKET/PREFIX`); this module is the one place that reads and
//! writes it, through the run's [`Store`]. Every file is written whole and
//! never seen half-written (a folder: write, fsync, rename; an object
//! store: one put), or, in a folder, appended to (`log.txt`), so a process
//! killed at any moment leaves the run consistent; the roles (`selfplay`,
//! `trainer`, `evaluate`) coordinate only through these files, which is what
//! lets them run on several machines.
//!
//! ```text
//! run.json                  format marker and version (refused if incompatible)
//! config.toml               the configuration the run uses
//! log.txt                   one line per event, from every role (a folder)
//! logs/HOST-PID-TIME.txt    the same, one object per process (an object store)
//! loop.json                 time spent by `sumito train` (for budget.hours)
//! models/gen-NNNNNN/        candidate N: a sumito-net checkpoint (weights.safetensors, meta.json, manifest.json last)
//! models/best/NNNNNN.json   the generations made best, one record each; the newest is used now
//! trainer/                  the trainer's own checkpoint (weights + optimizer) and state
//! replay/model-NNNNNN/*.replay self-play games played by generation N's model
//! evaluations/gen-NNNNNN.json  gating decision and rating games of candidate N
//! elo.json, elo.txt         the Elo table over every evaluation game so far
//! tensorboard/              TensorBoard event files, one per process and role
//! leases/                   who works on the run and holds each role (see [`lease`], [`store_lease`])
//! ```
//!
//! What libraries write as files (checkpoints, event files) is made under
//! [`RunDir::root`]: the run's folder, or for a run on an object store this
//! process's working folder ([`work_folder`]), from which it is published
//! ([`RunDir::publish_folder`], manifest last) and to which it is fetched
//! ([`RunDir::fetch_folder`]).
//!
//! A run in a folder is created under a temporary name beside it and renamed
//! into place when complete, and deleted by being renamed aside and then
//! removed, each only while holding every lease of the run; what a killed
//! process leaves is removed by later ones (see [`leftovers`]). On an object
//! store, `run.json` is created last (conditionally) and deleted first.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
pub use sumito_store::Location;
use sumito_store::{Created, Replaced, Store, Version};

use crate::fsutil::{hostname, utc_timestamp};

mod error;
mod holder;
mod json;
pub mod lease;
pub mod leftovers;
pub mod store_lease;
pub mod work_folder;

use error::io_error;
pub use error::{Result, RunDirError};
pub use holder::Holder;
use json::json_bytes;
pub use json::{read_json, write_json};
use lease::{HeldLease, LeaseBackend, LocalLeases, Mode, OPEN, process_lease};
pub use lease::{LEASE_TTL, ROLE_LEASE_TTL};
use leftovers::remove_local_leftovers;
use leftovers::{CREATING, DELETING, aside_path, parent_of, remove_tree};
pub use leftovers::{Removed, finish_interrupted};
use store_lease::StoreLeases;
use work_folder::WorkFolder;

/// The candidates' checkpoint folders.
pub const MODEL_PREFIX: &str = "models/gen-";
/// The file a checkpoint folder writes last (see `sumito_net::checkpoint`).
pub const MODEL_MANIFEST: &str = sumito_net::checkpoint::MANIFEST_FILE;
/// The run's self-play games, a folder per model that played them
/// ([`model_folder`]).
pub const REPLAY: &str = "replay";
/// The run's TensorBoard event files.
pub const TENSORBOARD: &str = "tensorboard";
/// The per-process logs of a run on an object store.
const LOGS: &str = "logs/";
/// Marks a run on an object store whose deletion is under way.
const DELETING_MARK: &str = "deleting.json";
/// The run's marker: format and version.
const RUN_MARKER: &str = "run.json";
/// The run's configuration.
pub const CONFIG: &str = "config.toml";
/// The Elo table of the run, as JSON and as text.
pub const ELO_JSON: &str = "elo.json";
pub const ELO_TEXT: &str = "elo.txt";
/// The time `sumito train` has spent on the run (for `budget.hours`).
pub const LOOP_STATE: &str = "loop.json";
/// The trained model a run started from (`sumito train --init-model`);
/// absent for a run that started from a random network.
pub const INITIAL_MODEL: &str = "initial-model.json";
/// The candidates' evaluation records.
const EVALUATIONS: &str = "evaluations/";
/// Where the best model's records are published, one per promotion.
const BEST_PREFIX: &str = "models/best/";
/// The best model's record of runs made before [`BEST_PREFIX`].
const LEGACY_BEST: &str = "models/best.json";

pub use sumito_game::formats::{RUN_FORMAT, RUN_FORMAT_VERSION};

#[derive(Debug, Serialize, Deserialize)]
struct RunMarker {
    format: String,
    version: u32,
    created: String,
    created_by: String,
}

impl RunMarker {
    /// The marker of a run this program creates now.
    fn new() -> RunMarker {
        RunMarker {
            format: RUN_FORMAT.to_owned(),
            version: RUN_FORMAT_VERSION,
            created: utc_timestamp(),
            created_by: format!("sumito {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// Refuses a run (named `path` in messages) of another format or version.
fn check_marker(marker: &RunMarker, path: &Path) -> Result<()> {
    let incompatible = |reason: String| RunDirError::Incompatible {
        path: path.to_owned(),
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
    Ok(())
}

/// The leases of the run at `location` kept in the object store `store`.
fn store_leases(store: &Store, location: &Location) -> StoreLeases {
    StoreLeases::new(
        store.clone(),
        location_path(location),
        ROLE_LEASE_TTL,
        LEASE_TTL,
    )
}

impl RunDir {
    /// Removes the temporary files of writers that are gone and the lease
    /// files of processes that are gone (see [`leftovers`]); returns what
    /// it removed. Call it holding this process's leases of the run.
    pub fn remove_leftovers(&self) -> Result<Vec<Removed>> {
        if !self.is_remote() {
            return remove_local_leftovers(&self.root);
        }
        // Its working folder is this process's own; an object store holds
        // no temporaries (an upload is whole or absent), and expired role
        // leases are taken over where they stand. What is left is the
        // lease of a killed process.
        let leases = store_leases(self.store(), self.location());
        Ok(leases
            .remove_finished_process_leases()?
            .into_iter()
            .map(|key| Removed {
                path: self.object_path(&key),
                what: "the lease of a process that is gone",
            })
            .collect())
    }
}

/// Deletes every object of the run in `store` (see [`RunDir::delete_at`]),
/// holding all its leases.
fn delete_remote_run(store: &Store, location: &Location) -> Result<()> {
    let leases = store_leases(store, location);
    let held = leases.acquire_all()?;
    store.put(DELETING_MARK, &json_bytes(&RunMarker::new()))?;
    store.delete(RUN_MARKER)?;
    for object in store.list("")? {
        if object.key != DELETING_MARK && !object.key.starts_with("leases/") {
            store.delete(&object.key)?;
        }
    }
    drop(held);
    for object in store.list("leases/")? {
        store.delete(&object.key)?;
    }
    store.delete(DELETING_MARK)?;
    Ok(())
}

fn interrupted_deletion(location: &Location) -> Removed {
    Removed {
        path: location_path(location),
        what: "what an interrupted deletion of the run left",
    }
}

/// How messages name a run's location.
fn location_path(location: &Location) -> PathBuf {
    match location {
        Location::Local(root) => root.clone(),
        remote => PathBuf::from(remote.to_string()),
    }
}

/// The files below `dir` as `/`-separated names relative to it (prefixed
/// with `prefix`), temporaries left out.
fn collect_files(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if crate::fsutil::is_temporary(&name) {
            continue;
        }
        let relative = format!("{prefix}{name}");
        if entry.file_type().map_err(io_error(dir))?.is_dir() {
            collect_files(&entry.path(), &format!("{relative}/"), out)?;
        } else {
            out.push(relative);
        }
    }
    Ok(())
}

/// A run directory whose format has been checked.
///
/// Every file of the run is an object of its [`Store`] (`sumito-store`),
/// named by its path in the run (`models/best/000012.json`): the records
/// go through [`RunDir::put_json`] / [`RunDir::get_json`] and friends rather
/// than file paths, so that one module decides where and how a run is kept.
#[derive(Debug, Clone)]
pub struct RunDir {
    /// The run's folder; for a run on an object store, this process's
    /// working folder ([`work_folder`]), where files are made before they
    /// are shared and fetched copies are kept.
    root: PathBuf,
    store: Store,
    /// The working folder of a run on an object store (removed when the
    /// last clone of the run is dropped).
    work: Option<Arc<WorkFolder>>,
}

impl RunDir {
    /// Whether `root` holds a run (a `run.json`).
    pub fn exists(root: &Path) -> bool {
        root.join(RUN_MARKER).is_file()
    }

    /// Creates a new run in `root`, which must not exist or be empty, storing
    /// `config_text` as its configuration. The run is built beside `root`
    /// (`.NAME.creating-HOST-PID`) and renamed into place when complete, so
    /// `root` never holds half a run.
    pub fn create(root: &Path, config_text: &str) -> Result<RunDir> {
        Self::check_unused(root)?;
        let parent = parent_of(root);
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        let staging = aside_path(root, CREATING)?;
        // A folder of this name is a leftover of a process that had this id.
        remove_tree(&staging).map_err(io_error(&staging))?;
        std::fs::create_dir(&staging).map_err(io_error(&staging))?;
        let built = Self::build(&staging, config_text, root);
        if built.is_err() {
            let _ = remove_tree(&staging);
        }
        built?;
        RunDir::at(root)
    }

    /// The run in the folder `root`, unchecked.
    fn at(root: &Path) -> Result<RunDir> {
        Ok(RunDir {
            root: root.to_owned(),
            store: Store::open(&Location::Local(root.to_owned()))?,
            work: None,
        })
    }

    /// The run on the object store at `location`, unchecked, with a new
    /// working folder.
    fn remote(location: &Location) -> Result<RunDir> {
        let work = WorkFolder::create()?;
        Ok(RunDir {
            root: work.path().to_owned(),
            store: Store::open(location)?,
            work: Some(Arc::new(work)),
        })
    }

    /// Whether a run exists at `location` (a folder or an object store).
    pub fn exists_at(location: &Location) -> Result<bool> {
        match location {
            Location::Local(root) => Ok(Self::exists(root)),
            remote => Ok(Store::open(remote)?.get(RUN_MARKER)?.is_some()),
        }
    }

    /// Opens the run at `location` ([`RunDir::open`] for a folder).
    pub fn open_at(location: &Location) -> Result<RunDir> {
        let Location::Local(root) = location else {
            let run = RunDir::remote(location)?;
            let marker: RunMarker =
                run.get_json(RUN_MARKER)?
                    .ok_or_else(|| RunDirError::NotARun {
                        path: location_path(location),
                    })?;
            check_marker(&marker, &location_path(location))?;
            return Ok(run);
        };
        RunDir::open(root)
    }

    /// Creates a run at `location` ([`RunDir::create`] for a folder). On an
    /// object store the configuration is written first and `run.json` last,
    /// by a conditional create: of two processes creating the run at once,
    /// one gets [`RunDirError::AlreadyExists`]; a creation killed before
    /// `run.json` leaves only a configuration, which the next creation
    /// replaces.
    pub fn create_at(location: &Location, config_text: &str) -> Result<RunDir> {
        let Location::Local(root) = location else {
            let run = RunDir::remote(location)?;
            run.check_unused_remote()?;
            let _building = match run.lease_backend().acquire(
                OPEN,
                Mode::Exclusive,
                store_lease::CREATION_COMMAND,
            ) {
                Ok(held) => held,
                Err(refused) => {
                    // Most likely another process creating the same run:
                    // once its run.json is there, this one resumes it.
                    for _ in 0..100 {
                        if run.store.get(RUN_MARKER)?.is_some() {
                            return Err(RunDirError::AlreadyExists {
                                path: location_path(location),
                            });
                        }
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    return Err(refused);
                }
            };
            run.write_config(config_text)?;
            match run
                .store
                .create(RUN_MARKER, &json_bytes(&RunMarker::new()))?
            {
                Created::New => {}
                Created::Exists => {
                    return Err(RunDirError::AlreadyExists {
                        path: location_path(location),
                    });
                }
            }
            return Ok(run);
        };
        RunDir::create(root, config_text)
    }

    /// Refuses an object-store prefix that holds a run, or objects that are
    /// not a run's (a configuration and leases alone are what an
    /// interrupted creation leaves).
    fn check_unused_remote(&self) -> Result<()> {
        let path = location_path(self.store.location());
        if self.store.get(DELETING_MARK)?.is_some() && self.store.get(RUN_MARKER)?.is_none() {
            delete_remote_run(&self.store, self.store.location())?;
        }
        let mut foreign = false;
        for object in self.store.list("")? {
            if object.key == RUN_MARKER {
                return Err(RunDirError::AlreadyExists { path });
            }
            foreign |= object.key != CONFIG && !object.key.starts_with("leases/");
        }
        if foreign {
            return Err(RunDirError::Foreign { path });
        }
        Ok(())
    }

    /// Deletes the run at `location` ([`RunDir::delete`] for a folder). On
    /// an object store it takes every lease of the run (refusing while
    /// another process holds one), marks the prefix as being deleted
    /// (`deleting.json`), deletes `run.json` (so that no process opens the
    /// run any more), then every other object, the leases and the mark
    /// last; a deletion killed on the way is finished by the next creation
    /// or deletion. Returns what earlier interrupted ones left and it removed.
    pub fn delete_at(location: &Location) -> Result<Vec<Removed>> {
        let Location::Local(root) = location else {
            let store = Store::open(location)?;
            let objects = store.list("")?;
            if objects.is_empty() {
                return Ok(Vec::new());
            }
            let has = |key: &str| objects.iter().any(|object| object.key == key);
            let only_leftovers = objects
                .iter()
                .all(|object| object.key == CONFIG || object.key.starts_with("leases/"));
            if !has(RUN_MARKER) && !has(DELETING_MARK) && !only_leftovers {
                return Err(RunDirError::Foreign {
                    path: location_path(location),
                });
            }
            let interrupted = !has(RUN_MARKER) && has(DELETING_MARK);
            delete_remote_run(&store, location)?;
            return Ok(if interrupted {
                vec![interrupted_deletion(location)]
            } else {
                Vec::new()
            });
        };
        RunDir::delete(root)
    }

    /// Where the run is kept.
    pub fn location(&self) -> &Location {
        self.store.location()
    }

    /// Whether the run is on an object store (its files are then shared as
    /// objects, see [`RunDir::publish_folder`]).
    pub fn is_remote(&self) -> bool {
        self.work.is_some()
    }

    /// How messages name the object `key` of the run: its path in a folder,
    /// `s3://BUCKET/PREFIX/KEY` on an object store.
    pub fn object_path(&self, key: &str) -> PathBuf {
        if self.is_remote() {
            PathBuf::from(format!("{}/{key}", self.location()))
        } else {
            self.root.join(key)
        }
    }

    /// Shares the folder `key` of the run, which a library wrote as files
    /// under [`RunDir::root`] (a checkpoint), as one object per file, `last`
    /// (its manifest) last, so that a reader that finds `last` finds the
    /// whole folder. Nothing to do for a run in a folder.
    pub fn publish_folder(&self, key: &str, last: &str) -> Result<()> {
        if !self.is_remote() {
            return Ok(());
        }
        let dir = self.root.join(key);
        let mut files = Vec::new();
        collect_files(&dir, "", &mut files)?;
        files.sort_by_key(|name| name == last);
        for name in files {
            let path = dir.join(&name);
            let bytes = std::fs::read(&path).map_err(io_error(&path))?;
            self.store.put(&format!("{key}/{name}"), &bytes)?;
        }
        Ok(())
    }

    /// The local folder of the run's folder `key` (see
    /// [`RunDir::publish_folder`]): for a run on an object store a copy,
    /// fetched once (into a temporary beside it, renamed when whole);
    /// `None` when the store holds no `key/last`, i.e. no complete folder.
    pub fn fetch_folder(&self, key: &str, last: &str) -> Result<Option<PathBuf>> {
        let dir = self.root.join(key);
        if !self.is_remote() {
            return Ok(dir.is_dir().then_some(dir));
        }
        if dir.join(last).is_file() {
            return Ok(Some(dir));
        }
        let prefix = format!("{key}/");
        let objects = self.store.list(&prefix)?;
        if !objects
            .iter()
            .any(|object| object.key == format!("{prefix}{last}"))
        {
            return Ok(None);
        }
        let temporary = crate::fsutil::temporary_path(&dir).map_err(io_error(&dir))?;
        for object in &objects {
            let name = &object.key[prefix.len()..];
            let bytes = self
                .store
                .get(&object.key)?
                .ok_or_else(|| RunDirError::Malformed {
                    path: self.object_path(key),
                    problem: format!("{name} was deleted while it was read"),
                })?;
            let path = name
                .split('/')
                .fold(temporary.clone(), |path, part| path.join(part));
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io_error(parent))?;
            }
            std::fs::write(&path, bytes).map_err(io_error(&path))?;
        }
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        }
        if let Err(err) = std::fs::rename(&temporary, &dir) {
            let _ = remove_tree(&temporary);
            // Another thread of this process fetched it meanwhile.
            if !dir.join(last).is_file() {
                return Err(io_error(&dir)(err));
            }
        }
        Ok(Some(dir))
    }

    /// The checkpoint folders whose keys start with `prefix` (e.g.
    /// `models/gen-`), by key, each with whether it is complete (its
    /// manifest is there), as the store lists their objects.
    pub fn checkpoint_folders(&self, prefix: &str) -> Result<Vec<(String, bool)>> {
        let parent = &prefix[..prefix.rfind('/').map_or(0, |end| end + 1)];
        let mut folders: Vec<(String, bool)> = Vec::new();
        for object in self.store.list(prefix)? {
            let Some((name, file)) = object.key[parent.len()..].split_once('/') else {
                continue;
            };
            let key = format!("{parent}{name}");
            let complete = file == MODEL_MANIFEST;
            match folders.last_mut() {
                // Listed by key: a folder's objects come together.
                Some((last, seen_complete)) if *last == key => *seen_complete |= complete,
                _ => folders.push((key, complete)),
            }
        }
        Ok(folders)
    }

    /// Deletes the run's folder `key`: its files, and on an object store its
    /// objects (`last` first, so that it is never taken for whole again).
    pub fn delete_folder(&self, key: &str, last: &str) -> Result<()> {
        let dir = self.root.join(key);
        if dir.exists() {
            remove_tree(&dir).map_err(io_error(&dir))?;
        }
        if self.is_remote() {
            let prefix = format!("{key}/");
            self.store.delete(&format!("{prefix}{last}"))?;
            for object in self.store.list(&prefix)? {
                self.store.delete(&object.key)?;
            }
        }
        Ok(())
    }

    /// Refuses a `root` that holds anything.
    fn check_unused(root: &Path) -> Result<()> {
        if !root.exists() {
            return Ok(());
        }
        let mut entries = std::fs::read_dir(root).map_err(io_error(root))?;
        if entries.next().is_none() {
            return Ok(());
        }
        Err(if Self::exists(root) {
            RunDirError::AlreadyExists {
                path: root.to_owned(),
            }
        } else {
            RunDirError::Foreign {
                path: root.to_owned(),
            }
        })
    }

    /// Fills the new run folder `staging`, then renames it to `root`.
    fn build(staging: &Path, config_text: &str, root: &Path) -> Result<()> {
        let run = RunDir::at(staging)?;
        std::fs::create_dir(run.leases_dir()).map_err(io_error(&run.leases_dir()))?;
        // Held until the run has its name: shows that the folder is being
        // made (see `leftovers::finish_interrupted`).
        let _building = run.lease_backend().acquire(OPEN, Mode::Exclusive, "")?;
        for dir in [
            run.models_dir(),
            run.replay_dir(),
            run.evaluations_dir(),
            run.trainer_dir(),
            run.tensorboard_dir(),
        ] {
            std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        }
        run.write_config(config_text)?;
        write_json(&staging.join(RUN_MARKER), &RunMarker::new())?;
        // Onto a missing or empty `root`; fails if another process made a
        // run there meanwhile.
        if let Err(source) = std::fs::rename(staging, root) {
            Self::check_unused(root)?;
            return Err(RunDirError::Io {
                path: root.to_owned(),
                cause: source,
            });
        }
        sync_dir(parent_of(root));
        Ok(())
    }
    /// Opens an existing run, refusing one written in another format version.
    pub fn open(root: &Path) -> Result<RunDir> {
        let marker_path = root.join(RUN_MARKER);
        if !marker_path.is_file() {
            return Err(RunDirError::NotARun {
                path: root.to_owned(),
            });
        }
        let marker: RunMarker = read_json(&marker_path)?;
        check_marker(&marker, root)?;
        RunDir::at(root)
    }

    /// Deletes the run in `root` (for `--fresh`), refusing to delete a
    /// non-empty directory that is not a run. It first takes every lease of
    /// the run, refusing while another process holds one (and naming it),
    /// then renames the run aside (`.NAME.deleting-HOST-PID`) and removes it
    /// there: killed at any point, it leaves either the whole run, or no run
    /// and that folder, which the next creation or deletion of the run
    /// removes ([`finish_interrupted`]). Returns the leftovers of earlier
    /// interrupted creations and deletions it removed first.
    pub fn delete(root: &Path) -> Result<Vec<Removed>> {
        let finished = finish_interrupted(root)?;
        if !root.exists() {
            return Ok(finished);
        }
        let empty = std::fs::read_dir(root)
            .map_err(io_error(root))?
            .next()
            .is_none();
        if empty {
            std::fs::remove_dir(root).map_err(io_error(root))?;
            return Ok(finished);
        }
        if !Self::exists(root) {
            return Err(RunDirError::Foreign {
                path: root.to_owned(),
            });
        }
        // Not `open`: a run of another format version is deleted all the same.
        let run = RunDir::at(root)?;
        let held = run.lease_backend().acquire_all()?;
        let aside = aside_path(root, DELETING)?;
        std::fs::rename(root, &aside).map_err(io_error(root))?;
        sync_dir(parent_of(root));
        // The leases stay held (in the moved folder) until it is gone.
        remove_tree(&aside).map_err(io_error(&aside))?;
        drop(held);
        Ok(finished)
    }

    /// The lease backend of this run's storage: file locks for a path
    /// (a dead process's lease is free at once), epoch-numbered lease
    /// objects on an object store.
    fn lease_backend(&self) -> Box<dyn LeaseBackend> {
        if self.is_remote() {
            Box::new(store_leases(&self.store, self.location()))
        } else {
            Box::new(LocalLeases::new(&self.root, LEASE_TTL))
        }
    }

    /// Takes the leases `command` (e.g. `sumito train`, for messages) holds
    /// while it works on the run: the shared `open` lease that keeps the run
    /// from being deleted, this process's own lease, then each of `roles`
    /// (single-writer roles such as "trainer"), refusing while another
    /// process holds one. Take them before writing anything into the run.
    pub fn enter(&self, command: &str, roles: &[&str]) -> Result<Leases> {
        let backend = self.lease_backend();
        let own = process_lease(&hostname(), std::process::id());
        let mut held = vec![
            Lease::new(OPEN, backend.acquire(OPEN, Mode::Shared, command)?),
            Lease::new(&own, backend.acquire(&own, Mode::Exclusive, command)?),
        ];
        for role in roles {
            held.push(self.acquire_lease(role, command)?);
        }
        Ok(Leases { held })
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The configuration, as messages name it.
    pub fn config_path(&self) -> PathBuf {
        self.object_path(CONFIG)
    }
    pub fn log_path(&self) -> PathBuf {
        self.root.join("log.txt")
    }
    pub fn models_dir(&self) -> PathBuf {
        self.root.join("models")
    }
    /// The checkpoint directory of generation `generation` (0 is the random
    /// start); on an object store where it is made or fetched to (see
    /// [`RunDir::model_dir`]).
    pub fn model_path(&self, generation: u32) -> PathBuf {
        self.root.join(Self::model_key(generation))
    }
    /// The key of generation `generation`'s checkpoint folder.
    pub fn model_key(generation: u32) -> String {
        format!("{MODEL_PREFIX}{generation:06}")
    }
    /// Generation `generation`'s checkpoint folder, fetched when the run is
    /// on an object store; `None` when there is no (complete) such model.
    pub fn model_dir(&self, generation: u32) -> Result<Option<PathBuf>> {
        self.fetch_folder(&Self::model_key(generation), MODEL_MANIFEST)
    }
    /// Shares generation `generation`'s checkpoint folder, written at
    /// [`RunDir::model_path`] (see [`RunDir::publish_folder`]).
    pub fn publish_model(&self, generation: u32) -> Result<()> {
        self.publish_folder(&Self::model_key(generation), MODEL_MANIFEST)
    }
    /// Whether generation `generation` has a (complete) model.
    pub fn has_model(&self, generation: u32) -> Result<bool> {
        if self.is_remote() {
            let key = format!("{}/{MODEL_MANIFEST}", Self::model_key(generation));
            return Ok(self
                .store
                .list(&key)?
                .iter()
                .any(|object| object.key == key));
        }
        Ok(self.model_path(generation).exists())
    }
    pub fn trainer_dir(&self) -> PathBuf {
        self.root.join("trainer")
    }
    pub fn replay_dir(&self) -> PathBuf {
        self.root.join(REPLAY)
    }
    /// Where games played by generation `generation`'s model go.
    pub fn replay_model_dir(&self, generation: u32) -> PathBuf {
        self.replay_dir().join(model_folder(generation))
    }
    pub fn evaluations_dir(&self) -> PathBuf {
        self.root.join("evaluations")
    }
    /// The key of candidate `generation`'s evaluation record.
    pub fn evaluation_key(generation: u32) -> String {
        format!("{EVALUATIONS}gen-{generation:06}.json")
    }
    /// The generations that have an evaluation record, in increasing order.
    pub fn evaluated_generations(&self) -> Result<Vec<u32>> {
        Ok(self
            .evaluation_keys()?
            .into_iter()
            .map(|(generation, _)| generation)
            .collect())
    }
    /// The evaluation records' keys by generation, in increasing order.
    pub fn evaluation_keys(&self) -> Result<Vec<(u32, String)>> {
        let mut keys: Vec<(u32, String)> = self
            .store
            .list(EVALUATIONS)?
            .into_iter()
            .filter_map(|object| {
                let name = object.key.strip_prefix(EVALUATIONS)?;
                let generation = name
                    .strip_prefix("gen-")?
                    .strip_suffix(".json")?
                    .parse()
                    .ok()?;
                Some((generation, object.key))
            })
            .collect();
        keys.sort_unstable();
        Ok(keys)
    }
    pub fn tensorboard_dir(&self) -> PathBuf {
        self.root.join(TENSORBOARD)
    }
    pub fn leases_dir(&self) -> PathBuf {
        self.root.join("leases")
    }

    /// Replaces the stored configuration.
    pub fn write_config(&self, text: &str) -> Result<()> {
        self.put_text(CONFIG, text)
    }

    /// The generations that have a model, in increasing order (on an
    /// object store: a complete one, whose manifest is there).
    pub fn model_generations(&self) -> Result<Vec<u32>> {
        if self.is_remote() {
            return Ok(self
                .checkpoint_folders(MODEL_PREFIX)?
                .into_iter()
                .filter(|(_, complete)| *complete)
                .filter_map(|(key, _)| key[MODEL_PREFIX.len()..].parse().ok())
                .collect());
        }
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

    /// The generation self-play and gating use now, if one was chosen: the
    /// newest of the `models/best/NNNNNN.json` objects (one is published per
    /// promotion and never rewritten, so that readers on other machines find
    /// it by listing; a run of an earlier version kept `models/best.json`,
    /// still read when there is no such object).
    pub fn best(&self) -> Result<Option<BestModel>> {
        let newest = self
            .store
            .list(BEST_PREFIX)?
            .into_iter()
            .filter_map(|object| {
                let name = object.key.strip_prefix(BEST_PREFIX)?;
                let generation: u32 = name.strip_suffix(".json")?.parse().ok()?;
                Some((generation, object.key))
            })
            .max();
        match newest {
            Some((_, key)) => self.get_json(&key),
            None => self.get_json(LEGACY_BEST),
        }
    }

    /// Makes `generation` the best model (a new object; the best generation
    /// only ever grows).
    pub fn set_best(&self, generation: u32) -> Result<()> {
        let best = BestModel {
            generation,
            since: utc_timestamp(),
        };
        let key = format!("{BEST_PREFIX}{generation:06}.json");
        // Another process that published the same generation meanwhile said
        // the same.
        let _: Created = self.store.create(&key, &json_bytes(&best))?;
        Ok(())
    }

    /// The run's storage.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Writes the record `key` (e.g. `evaluations/gen-000004.json`) as pretty
    /// JSON, whole.
    pub fn put_json<T: Serialize>(&self, key: &str, value: &T) -> Result<()> {
        self.store.put(key, &json_bytes(value))?;
        Ok(())
    }

    /// Reads the record `key` written by [`RunDir::put_json`], if there is one.
    pub fn get_json<T: for<'de> Deserialize<'de>>(&self, key: &str) -> Result<Option<T>> {
        let Some(bytes) = self.store.get(key)? else {
            return Ok(None);
        };
        self.parse_json(key, &bytes).map(Some)
    }

    /// [`RunDir::get_json`] with the version read, for a
    /// [`RunDir::replace_json`] that only a holder of it may write.
    pub fn get_json_versioned<T: for<'de> Deserialize<'de>>(
        &self,
        key: &str,
    ) -> Result<Option<(T, Version)>> {
        let Some((bytes, version)) = self.store.get_versioned(key)? else {
            return Ok(None);
        };
        Ok(Some((self.parse_json(key, &bytes)?, version)))
    }

    /// Writes the record `key` only if it is still in the version `expected`
    /// (`None`: only if absent): see [`Store::replace`].
    pub fn replace_json<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        expected: Option<&Version>,
    ) -> Result<Replaced> {
        Ok(self.store.replace(key, &json_bytes(value), expected)?)
    }

    fn parse_json<T: for<'de> Deserialize<'de>>(&self, key: &str, bytes: &[u8]) -> Result<T> {
        serde_json::from_slice(bytes).map_err(|err| RunDirError::Malformed {
            path: self.object_path(key),
            problem: err.to_string(),
        })
    }

    /// Writes the text object `key` whole.
    pub fn put_text(&self, key: &str, text: &str) -> Result<()> {
        self.store.put(key, text.as_bytes())?;
        Ok(())
    }

    /// Reads the text object `key`, if there is one.
    pub fn get_text(&self, key: &str) -> Result<Option<String>> {
        let Some(bytes) = self.store.get(key)? else {
            return Ok(None);
        };
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| RunDirError::Malformed {
                path: self.object_path(key),
                problem: "it is not UTF-8 text".to_owned(),
            })
    }

    /// The run's configuration as stored.
    pub fn config_text(&self) -> Result<String> {
        self.get_text(CONFIG)?
            .ok_or_else(|| RunDirError::Malformed {
                path: location_path(self.location()),
                problem: format!("it has no {CONFIG}"),
            })
    }

    /// Appends a line to the run's log, tagged with the role writing it.
    /// In a folder every process appends to `log.txt`; on an object store,
    /// which cannot append, each process writes its own log object,
    /// `logs/HOST-PID-NANOS.txt` (its working folder's name), whole again
    /// after each line.
    pub fn log(&self, role: &str, message: &str) -> Result<()> {
        let path = self.log_path();
        let line = format!("{} [{role}] {message}\n", utc_timestamp());
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_error(&path))?;
        // One write call per line: appends of this size do not interleave.
        file.write_all(line.as_bytes()).map_err(io_error(&path))?;
        if let Some(work) = &self.work {
            let text = std::fs::read(&path).map_err(io_error(&path))?;
            self.store.put(&self.own_log_key(work), &text)?;
        }
        Ok(())
    }

    fn own_log_key(&self, work: &WorkFolder) -> String {
        let name = work
            .path()
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        format!("{LOGS}{name}.txt")
    }

    /// The run's log: `log.txt` in a folder; on an object store every
    /// process's log object, merged by time.
    pub fn read_log(&self) -> Result<String> {
        if !self.is_remote() {
            let path = self.log_path();
            return match std::fs::read_to_string(&path) {
                Ok(text) => Ok(text),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
                Err(err) => Err(io_error(&path)(err)),
            };
        }
        let mut lines = Vec::new();
        for object in self.store.list(LOGS)? {
            if let Some(text) = self.get_text(&object.key)? {
                lines.extend(text.lines().map(str::to_owned));
            }
        }
        // Each line starts with its UTC time stamp.
        lines.sort();
        Ok(lines.iter().map(|line| format!("{line}\n")).collect())
    }

    /// Takes the single-writer lease of `role` (e.g. "trainer") for
    /// `command`, until the returned lease is dropped; refuses while another
    /// process holds it, naming that process. A lease of a dead process on
    /// this machine is free at once; one from another machine after
    /// [`LEASE_TTL`] without renewal.
    pub fn acquire_lease(&self, role: &str, command: &str) -> Result<Lease> {
        let held = self
            .lease_backend()
            .acquire(role, Mode::Exclusive, command)?;
        Ok(Lease::new(role, held))
    }
}

/// The folder of [`REPLAY`] that holds the games played by generation
/// `generation`'s model (`model-000003`).
pub fn model_folder(generation: u32) -> String {
    format!("model-{generation:06}")
}

fn sync_dir(dir: &Path) {
    // Makes renames durable; some file systems cannot open a folder, which
    // costs only durability.
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// A record of `models/best/`: the generation made best, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestModel {
    pub generation: u32,
    /// When it became the best (UTC).
    pub since: String,
}

/// A lease this process holds. Dropping it gives it back.
#[derive(Debug)]
pub struct Lease {
    name: String,
    held: Box<dyn HeldLease>,
}

impl Lease {
    fn new(name: &str, held: Box<dyn HeldLease>) -> Lease {
        Lease {
            name: name.to_owned(),
            held,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether another process took the role over (after this one stalled
    /// past the lease time); the holder must then stop writing.
    pub fn is_lost(&self) -> bool {
        self.held.is_lost()
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.held.release();
    }
}

/// The leases a command holds while it works on a run ([`RunDir::enter`]).
#[derive(Debug)]
pub struct Leases {
    held: Vec<Lease>,
}

impl Leases {
    /// The first lease another process took over, if any.
    pub fn lost(&self) -> Option<&str> {
        self.held
            .iter()
            .find(|lease| lease.is_lost())
            .map(Lease::name)
    }

    /// Whether `name` is among them.
    pub fn holds(&self, name: &str) -> bool {
        self.held.iter().any(|lease| lease.name == name)
    }
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
        // A run of an earlier version: its one rewritten record.
        std::fs::write(
            dir.path().join(LEGACY_BEST),
            "{\"generation\": 1, \"since\": \"then\"}",
        )
        .unwrap();
        assert_eq!(run.best().unwrap().unwrap().generation, 1);
        run.set_best(3).unwrap();
        assert_eq!(run.best().unwrap().unwrap().generation, 3);
        // Each promotion is a new object; the newest generation is the best,
        // whatever order the listing gives, and publishing twice is harmless.
        run.set_best(12).unwrap();
        run.set_best(12).unwrap();
        let published: Vec<String> = run
            .store()
            .list(BEST_PREFIX)
            .unwrap()
            .into_iter()
            .map(|object| object.key)
            .collect();
        assert_eq!(
            published,
            ["models/best/000003.json", "models/best/000012.json"]
        );
        assert_eq!(run.best().unwrap().unwrap().generation, 12);
        for generation in [2, 0, 10] {
            std::fs::create_dir(run.model_path(generation)).unwrap();
        }
        assert_eq!(run.model_generations().unwrap(), vec![0, 2, 10]);
    }

    const COMMAND: &str = "sumito test";

    #[test]
    fn a_live_lease_excludes_a_second_holder_until_released() {
        let dir = TempDir::new("lease");
        let run = RunDir::create(dir.path(), "").unwrap();
        let lease = run.acquire_lease("trainer", COMMAND).unwrap();
        // Another handle of the lock, even in this process, is refused.
        let err = run.acquire_lease("trainer", COMMAND).unwrap_err();
        let RunDirError::Busy {
            role,
            holder: Some(holder),
            ..
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!(role, "trainer");
        assert_eq!(
            (holder.pid, holder.host.as_str()),
            (std::process::id(), hostname().as_str())
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("process {} on {}", std::process::id(), hostname()))
                && message.contains(COMMAND),
            "{message}"
        );
        assert!(!lease.is_lost());
        drop(lease);
        run.acquire_lease("trainer", COMMAND).unwrap();
    }

    #[test]
    fn a_run_that_lost_its_leases_folder_gets_it_back_and_a_deleted_one_does_not() {
        let dir = TempDir::new("no-leases");
        let root = dir.path().join("run");
        let run = RunDir::create(&root, "").unwrap();
        std::fs::remove_dir_all(run.leases_dir()).unwrap();
        drop(run.enter(COMMAND, &["trainer"]).unwrap());
        std::fs::remove_dir_all(run.leases_dir()).unwrap();
        RunDir::delete(&root).unwrap();
        assert!(!root.exists());
        // Gone: nothing is made again under its name.
        let err = run.enter(COMMAND, &[]).unwrap_err();
        assert!(matches!(err, RunDirError::NotARun { .. }), "{err}");
        assert!(!root.exists());
    }

    /// Writes the record a lease holder writes, as `host`'s process `pid`
    /// renewed `age` seconds ago, without holding its lock.
    fn write_record(run: &RunDir, name: &str, host: &str, pid: u32, age: f64) {
        let record = serde_json::json!({
            "host": host, "pid": pid, "token": 1,
            "renewed": crate::fsutil::unix_seconds() - age, "command": "sumito train",
        });
        write_json(&run.leases_dir().join(format!("{name}.json")), &record).unwrap();
    }

    #[test]
    fn a_lease_whose_holder_on_this_machine_died_is_taken_at_once() {
        let dir = TempDir::new("lease-dead");
        let run = RunDir::create(dir.path(), "").unwrap();
        // A fresh record, but no one holds the lock: the holder is dead,
        // whatever /proc says about its process id.
        write_record(&run, "evaluator", &hostname(), std::process::id(), 0.0);
        std::fs::write(run.leases_dir().join("evaluator.lock"), "").unwrap();
        run.acquire_lease("evaluator", COMMAND).unwrap();
    }

    #[test]
    fn a_holder_on_another_machine_counts_until_its_record_is_stale() {
        let dir = TempDir::new("lease-remote");
        let run = RunDir::create(dir.path(), "").unwrap();
        write_record(&run, "trainer", "elsewhere", 77, 5.0);
        let err = run
            .acquire_lease("trainer", COMMAND)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("process 77 on elsewhere (sumito train)")
                && err.contains("renewed 5 s ago")
                && err.contains("wait 55 s if it died"),
            "{err}"
        );
        write_record(
            &run,
            "trainer",
            "elsewhere",
            77,
            LEASE_TTL.as_secs_f64() + 1.0,
        );
        run.acquire_lease("trainer", COMMAND).unwrap();
    }

    #[test]
    fn a_run_in_use_is_not_deleted_and_one_being_deleted_is_not_used() {
        let dir = TempDir::new("delete-live");
        let root = dir.path().join("run");
        let run = RunDir::create(&root, "").unwrap();
        let leases = run.enter(COMMAND, &["trainer"]).unwrap();
        assert!(leases.holds("trainer") && leases.lost().is_none());
        let err = RunDir::delete(&root).unwrap_err();
        assert!(matches!(err, RunDirError::InUse { .. }), "{err}");
        let message = err.to_string();
        assert!(
            message.contains(&format!("process {} on {}", std::process::id(), hostname())),
            "{message}"
        );
        assert!(run.config_path().exists() && root.join("run.json").exists());
        drop(leases);

        let deleting = run.lease_backend().acquire_all().unwrap();
        let err = run.enter(COMMAND, &[]).unwrap_err();
        assert!(matches!(err, RunDirError::BeingDeleted { .. }), "{err}");
        drop(deleting);
        // Every lease taken, the run is deleted, and nothing is left beside it.
        RunDir::delete(&root).unwrap();
        assert!(!root.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn interrupted_creations_and_deletions_are_finished_unless_still_under_way() {
        let dir = TempDir::new("aside");
        let root = dir.path().join("run");
        let host = hostname();
        // As a deletion and a creation killed half-way leave them: their
        // `open` lock is free.
        for (what, pid) in [("deleting", 4_000_000_001u32), ("creating", 4_000_000_002)] {
            let aside = dir.path().join(format!(".run.{what}-{host}-{pid}"));
            RunDir::create(&aside, "").unwrap();
            std::fs::write(aside.join("leases/open.lock"), "").unwrap();
        }
        // One under way: its process holds the lock.
        let busy = dir.path().join(format!(".run.creating-{host}-4000000003"));
        let busy_run = RunDir::create(&busy, "").unwrap();
        let _working = busy_run
            .lease_backend()
            .acquire(OPEN, Mode::Exclusive, "")
            .unwrap();
        let other = dir.path().join(".other.deleting-h-1");
        std::fs::create_dir(&other).unwrap();

        let removed = RunDir::delete(&root).unwrap();
        let mut names: Vec<String> = removed
            .iter()
            .map(|r| r.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                format!(".run.creating-{host}-4000000002"),
                format!(".run.deleting-{host}-4000000001")
            ]
        );
        assert!(removed.iter().all(|r| r.what.starts_with("an interrupted")));
        assert!(busy.exists() && other.exists());
    }

    #[test]
    fn leftovers_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = TempDir::new("leftovers");
        let run = RunDir::create(dir.path(), "").unwrap();
        let leases = run.enter(COMMAND, &[]).unwrap();
        let host = hostname();
        let me = std::process::id();
        let games = run.replay_model_dir(0);
        std::fs::create_dir_all(&games).unwrap();
        let dead = games.join(format!(".1-{host}-9-000001.game.{host}-4000000004-0.tmp"));
        let dead_dir = run
            .models_dir()
            .join(format!(".gen-000001.{host}-4000000004-3.tmp"));
        let mine = run
            .trainer_dir()
            .join(format!(".state.json.{host}-{me}-7.tmp"));
        let remote = games.join(".2-far-1-000001.game.far-5-0.tmp");
        let old_style = run.root().join(".loop.json.123-0.tmp");
        for file in [&dead, &mine, &remote, &old_style] {
            std::fs::write(file, "partial").unwrap();
        }
        std::fs::create_dir(&dead_dir).unwrap();
        std::fs::write(dead_dir.join("weights.safetensors"), "partial").unwrap();
        // The lease files a killed process on this machine left.
        write_record(
            &run,
            &process_lease(&host, 4_000_000_004),
            &host,
            4_000_000_004,
            0.0,
        );
        std::fs::write(
            run.leases_dir()
                .join(format!("{}.lock", process_lease(&host, 4_000_000_004))),
            "",
        )
        .unwrap();

        let removed = run.remove_leftovers().unwrap();
        let paths: Vec<&Path> = removed.iter().map(|r| r.path.as_path()).collect();
        assert!(
            paths.contains(&dead.as_path()) && paths.contains(&dead_dir.as_path()),
            "{removed:?}"
        );
        assert_eq!(removed.len(), 4, "{removed:?}");
        assert!(!dead.exists() && !dead_dir.exists());
        assert!(mine.exists() && remote.exists() && old_style.exists());
        // This process's own lease is kept.
        let own = process_lease(&host, me);
        assert!(run.leases_dir().join(format!("{own}.lock")).exists());
        assert!(run.leases_dir().join(format!("{own}.json")).exists());
        drop(leases);
        assert!(!run.leases_dir().join(format!("{own}.lock")).exists());
    }

    #[test]
    fn a_run_on_an_object_store_is_created_once_and_an_interrupted_deletion_is_finished() {
        let location = Location::parse("memory://rundir-remote").unwrap();
        assert!(!RunDir::exists_at(&location).unwrap());
        let run = RunDir::create_at(&location, "# the config\n").unwrap();
        assert!(run.is_remote() && run.root().is_dir());
        assert_eq!(run.config_text().unwrap(), "# the config\n");
        assert!(matches!(
            RunDir::create_at(&location, "").unwrap_err(),
            RunDirError::AlreadyExists { .. }
        ));
        run.put_json("models/gen-000001/manifest.json", &1).unwrap();
        run.log("test", "a line").unwrap();
        assert!(run.read_log().unwrap().contains("[test] a line"));
        // A deletion killed after it removed run.json: neither a run nor a
        // foreign prefix, and the next deletion (or creation) finishes it.
        run.store().put(DELETING_MARK, b"{}").unwrap();
        run.store().delete(RUN_MARKER).unwrap();
        assert!(matches!(
            RunDir::open_at(&location).unwrap_err(),
            RunDirError::NotARun { .. }
        ));
        let finished = RunDir::delete_at(&location).unwrap();
        assert_eq!(finished.len(), 1, "{finished:?}");
        assert!(run.store().list("").unwrap().is_empty());
        // Objects that are no run's are neither used nor deleted.
        run.store().put("photos/cat.jpg", b"meow").unwrap();
        assert!(matches!(
            RunDir::create_at(&location, "").unwrap_err(),
            RunDirError::Foreign { .. }
        ));
        assert!(matches!(
            RunDir::delete_at(&location).unwrap_err(),
            RunDirError::Foreign { .. }
        ));
        // Its working folder goes with the run.
        let work = run.root().to_owned();
        drop(run);
        assert!(!work.exists());
    }

    #[test]
    fn folders_are_published_manifest_last_and_fetched_whole_elsewhere() {
        let location = Location::parse("memory://rundir-folders").unwrap();
        let writer = RunDir::create_at(&location, "").unwrap();
        let folder = writer.root().join("models/gen-000002");
        std::fs::create_dir_all(folder.join("nested")).unwrap();
        std::fs::write(folder.join("weights.safetensors"), b"weights").unwrap();
        std::fs::write(folder.join("nested/extra.bin"), b"extra").unwrap();
        // Only part of a folder uploaded (its writer was killed): not there.
        writer
            .publish_folder("models/gen-000002", "none-yet")
            .unwrap();
        let reader = RunDir::open_at(&location).unwrap();
        assert_ne!(reader.root(), writer.root());
        assert_eq!(reader.model_dir(2).unwrap(), None);
        assert!(!reader.has_model(2).unwrap());
        assert_eq!(reader.model_generations().unwrap(), Vec::<u32>::new());
        std::fs::write(folder.join(MODEL_MANIFEST), b"{}").unwrap();
        writer.publish_model(2).unwrap();
        let fetched = reader.model_dir(2).unwrap().expect("a whole folder");
        assert!(fetched.starts_with(reader.root()));
        assert_eq!(
            std::fs::read(fetched.join("nested/extra.bin")).unwrap(),
            b"extra"
        );
        assert_eq!(std::fs::read(fetched.join(MODEL_MANIFEST)).unwrap(), b"{}");
        assert!(reader.has_model(2).unwrap());
        assert_eq!(reader.model_generations().unwrap(), [2]);
        // Fetched once: the local copy is used from then on.
        writer
            .store()
            .put("models/gen-000002/weights.safetensors", b"changed")
            .unwrap();
        let again = reader.model_dir(2).unwrap().unwrap();
        assert_eq!(
            std::fs::read(again.join("weights.safetensors")).unwrap(),
            b"weights"
        );
        // Deleted: manifest first, then the rest, here and in the store.
        writer
            .delete_folder("models/gen-000002", MODEL_MANIFEST)
            .unwrap();
        assert!(
            writer
                .store()
                .list("models/gen-000002/")
                .unwrap()
                .is_empty()
        );
        assert!(!folder.exists());
        drop((writer, reader));
        RunDir::delete_at(&location).unwrap();
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
