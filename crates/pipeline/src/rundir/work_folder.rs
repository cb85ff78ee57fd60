//! The local working folder of a run kept on an object store.
//!
//! libtorch reads and writes checkpoints as files, TensorBoard's events are
//! files, and so are the temporaries of atomic writes: a process working on
//! a run at `s3://BUCKET/PREFIX` keeps them in a folder of its own on this
//! machine, and the run directory copies what it must share to the store
//! (and back) as whole objects. The folder is private to the process (named
//! by host, process id and start time), so no other process ever sees a
//! half-written file in it; it is removed when the process's run is dropped,
//! and a folder left by a killed process is removed by the next process that
//! works on any run from this machine: each folder has a lock file that its
//! process holds locked for as long as it lives (the kernel releases the lock
//! when the process dies, however it dies).
//!
//! Where: `$SUMITO_CACHE_DIR`, else `$XDG_CACHE_HOME/sumito`, else
//! `~/.cache/sumito`, else the system's temporary folder; below it
//! `runs/HOST-PID-NANOS/`.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::fsutil::hostname;

use super::error::{Result, io_error};

/// This process's working folder for one run; removed when dropped.
#[derive(Debug)]
pub struct WorkFolder {
    path: PathBuf,
    /// Locked while the folder is in use (see the module docs).
    _lock: File,
}

impl WorkFolder {
    /// A new working folder under the cache folder, after removing those of
    /// processes that are gone.
    pub fn create() -> Result<WorkFolder> {
        WorkFolder::create_in(&cache_root().join("runs"))
    }

    /// A new working folder in `parent` (see [`WorkFolder::create`]).
    pub fn create_in(parent: &Path) -> Result<WorkFolder> {
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        remove_abandoned(parent)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let name = format!("{}-{}-{nanos}", hostname(), std::process::id());
        let lock_path = parent.join(format!("{name}.lock"));
        let lock = File::create(&lock_path).map_err(io_error(&lock_path))?;
        lock.try_lock()
            .map_err(|err| super::error::RunDirError::Io {
                path: lock_path.clone(),
                cause: std::io::Error::other(err.to_string()),
            })?;
        let path = parent.join(name);
        std::fs::create_dir(&path).map_err(io_error(&path))?;
        Ok(WorkFolder { path, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        let mut lock = self.path.clone().into_os_string();
        lock.push(".lock");
        let _ = std::fs::remove_file(lock);
    }
}

/// Removes the working folders in `parent` whose lock no process holds.
fn remove_abandoned(parent: &Path) -> Result<()> {
    for entry in std::fs::read_dir(parent).map_err(io_error(parent))? {
        let path = entry.map_err(io_error(parent))?.path();
        if path.extension().is_none_or(|ext| ext != "lock") {
            continue;
        }
        let Ok(file) = File::options().write(true).open(&path) else {
            continue;
        };
        // Held: its process lives. (Any other failure: leave it alone.)
        if file.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(path.with_extension(""));
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

/// The folder Sumito keeps local copies in (see the module docs).
pub fn cache_root() -> PathBuf {
    let from_env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = from_env("SUMITO_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = from_env("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("sumito");
    }
    if let Some(home) = from_env("HOME") {
        return PathBuf::from(home).join(".cache").join("sumito");
    }
    std::env::temp_dir().join("sumito-cache")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;

    #[test]
    fn a_folder_is_private_removed_when_dropped_and_abandoned_ones_are_swept() {
        let dir = TempDir::new("work-folder");
        let first = WorkFolder::create_in(dir.path()).unwrap();
        let second = WorkFolder::create_in(dir.path()).unwrap();
        assert_ne!(first.path(), second.path());
        std::fs::write(first.path().join("weights"), b"w").unwrap();
        // A live folder is not swept.
        let third = WorkFolder::create_in(dir.path()).unwrap();
        assert!(first.path().join("weights").is_file());
        // One whose lock nobody holds (its process died) is.
        let abandoned = dir.path().join("otherhost-1-1");
        std::fs::create_dir(&abandoned).unwrap();
        std::fs::write(dir.path().join("otherhost-1-1.lock"), b"").unwrap();
        let fourth = WorkFolder::create_in(dir.path()).unwrap();
        assert!(!abandoned.exists());
        let path = first.path().to_owned();
        drop(first);
        assert!(!path.exists());
        assert!(!dir.path().join(format!("{}.lock", path.display())).exists());
        drop((second, third, fourth));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
