//! Replay files in the run's storage: one object per finished game, written
//! whole under a name unique across processes and machines
//! (`<unix ms>-<host>-<pid>-<n>.replay`, [`super::container`]), so that a finished game is never lost
//! and a partial one never appears, whoever writes it and wherever the run
//! is kept (a folder or an object store, see `sumito_store`).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use sumito_store::{Location, Store, StoreError};

use super::replay_game::ReplayGame;
use crate::fsutil::hostname;
use crate::rundir::{REPLAY, RunDir, model_folder};
use sumito_game::GameKind;

pub use super::container::EXTENSION;

/// A folder of replay files: the objects of `store` under `prefix` (the
/// run's `replay/`, or one model's `replay/model-000003/`).
#[derive(Clone, Debug)]
pub struct ReplayFolder {
    store: Store,
    /// Empty, or ending in `/`.
    prefix: String,
}

impl ReplayFolder {
    /// The objects of `store` under `prefix` (a folder's key, with or without
    /// its trailing `/`; empty for all of `store`).
    pub fn new(store: Store, prefix: &str) -> ReplayFolder {
        let prefix = prefix.trim_end_matches('/');
        ReplayFolder {
            store,
            prefix: if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}/")
            },
        }
    }

    /// Every replay file of the run `run`.
    pub fn of_run(run: &RunDir) -> ReplayFolder {
        ReplayFolder::new(run.store().clone(), REPLAY)
    }

    /// The replay files of the games that generation `generation`'s model
    /// played in the run `run`.
    pub fn of_model(run: &RunDir, generation: u32) -> ReplayFolder {
        ReplayFolder::of_run(run).join(&model_folder(generation))
    }

    /// The files of the local folder `dir` (tests and tools).
    pub fn local(dir: &Path) -> Result<ReplayFolder, StoreError> {
        Ok(ReplayFolder::new(
            Store::open(&Location::Local(dir.to_owned()))?,
            "",
        ))
    }

    /// The sub-folder `name`.
    pub fn join(&self, name: &str) -> ReplayFolder {
        ReplayFolder::new(self.store.clone(), &format!("{}{name}", self.prefix))
    }

    /// The folder, for messages: `runs/quick/replay/model-000003/`,
    /// `s3://bucket/run/replay/`.
    pub fn describe(&self) -> String {
        format!("{}/{}", self.store.location(), self.prefix)
    }

    /// An object of the folder's store, for messages.
    pub fn describe_key(&self, key: &str) -> String {
        format!("{}/{key}", self.store.location())
    }

    /// Writes `bytes` under a new unique name with `extension`, whole, and
    /// returns its key.
    pub fn write_unique(&self, extension: &str, bytes: &[u8]) -> Result<String, StoreError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let key = format!(
            "{}{millis:013}-{}-{}-{:06}.{extension}",
            self.prefix,
            hostname(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        self.store.put(&key, bytes)?;
        Ok(key)
    }

    /// The keys of every file with one of `extensions` in the folder and
    /// the folders below it, oldest first by the time in its name.
    pub fn list(&self, extensions: &[&str]) -> Result<Vec<String>, StoreError> {
        Ok(game_keys(self.store.list(&self.prefix)?, extensions))
    }

    /// [`ReplayFolder::list`] of the keys that sort after `offset` only
    /// (e.g. `replay/model-000012`: the files of that model's folder and of
    /// newer ones), without listing those before it.
    pub fn list_after(&self, extensions: &[&str], offset: &str) -> Result<Vec<String>, StoreError> {
        Ok(game_keys(
            self.store.list_after(&self.prefix, offset)?,
            extensions,
        ))
    }

    /// The object `key` (as [`ReplayFolder::list`] gives it), checked whole;
    /// `None` if it is gone.
    pub fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.store.get(key)
    }

    /// [`ReplayFolder::read`] of each of `keys`, in order (from an object
    /// store several at once).
    pub fn read_many(&self, keys: &[String]) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
        self.store.get_many(keys)
    }
}

/// The keys of `objects` with one of `extensions`, oldest first by the
/// time in their names.
fn game_keys(objects: Vec<sumito_store::ObjectInfo>, extensions: &[&str]) -> Vec<String> {
    let suffixes: Vec<String> = extensions.iter().map(|ext| format!(".{ext}")).collect();
    let mut keys: Vec<String> = objects
        .into_iter()
        .map(|object| object.key)
        .filter(|key| suffixes.iter().any(|suffix| key.ends_with(suffix.as_str())))
        .collect();
    keys.sort_by(|a, b| file_name(a).cmp(file_name(b)));
    keys
}

fn file_name(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// Writes `replay` into `folder` and returns its key.
pub fn write_replay<G: ReplayGame>(
    folder: &ReplayFolder,
    replay: &G,
) -> Result<String, StoreError> {
    folder.write_unique(EXTENSION, &replay.encode())
}

/// Every replay file of `kind`'s game in `folder` (its `model-*` folders
/// included, the files written before the container too), oldest first by
/// the time in its name.
pub fn list_games(folder: &ReplayFolder, kind: GameKind) -> Result<Vec<String>, StoreError> {
    folder.list(&replay_extensions(kind))
}

/// The extensions of `kind`'s replay files: the container's, and the one
/// its files had before.
pub fn replay_extensions(kind: GameKind) -> [&'static str; 2] {
    [EXTENSION, super::container::legacy_extension(kind)]
}
