//! What killed processes leave behind, and its removal.
//!
//! - Beside the run. A run is created in `.NAME.creating-HOST-PID` and
//!   renamed into place once complete, and deleted by being renamed to
//!   `.NAME.deleting-HOST-PID` and then removed, so a creation or deletion
//!   killed at any point leaves either the whole run under its name or no
//!   run and such a folder, never a half-made or half-deleted run.
//!   [`finish_interrupted`] removes those folders once their process is gone;
//!   every creation and deletion of the run calls it first.
//! - In the run. A temporary file or folder (`.NAME.HOST-PID-N.tmp`, see
//!   [`crate::fsutil::temporary_path`]) whose writer is gone, and the lease
//!   files of processes that are gone, are removed by
//!   [`RunDir::remove_leftovers`] when a command starts. A writer on this
//!   machine is gone when it no longer holds its process lease; one on
//!   another machine when its lease record is older than the lease time.
//!   Temporaries named by older versions (without host) are left alone.

use std::path::{Path, PathBuf};

use super::error::{Result, RunDirError, io_error};
use super::lease::LEASE_TTL;
use super::lease::{Liveness, LocalLeases, OPEN};
use crate::fsutil::{hostname, is_temporary, temporary_writer};

/// The folder a run is built in before it gets its name.
pub(super) const CREATING: &str = "creating";
/// The folder a run is moved to while it is deleted.
pub(super) const DELETING: &str = "deleting";

/// Something removed because an interrupted process left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub path: PathBuf,
    /// What it was, e.g. "a temporary file of a killed writer".
    pub what: &'static str,
}

impl std::fmt::Display for Removed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.path.display(), self.what)
    }
}

/// The folder that holds `root`.
pub(super) fn parent_of(root: &Path) -> &Path {
    root.parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn run_name(root: &Path) -> Result<String> {
    root.file_name()
        .and_then(|name| name.to_str())
        .map(str::to_owned)
        .ok_or_else(|| RunDirError::NoName {
            path: root.to_owned(),
        })
}

/// `.NAME.WHAT-HOST-PID` beside `root`: where this process creates or
/// deletes the run.
pub(super) fn aside_path(root: &Path, what: &str) -> Result<PathBuf> {
    let name = run_name(root)?;
    Ok(parent_of(root).join(format!(
        ".{name}.{what}-{}-{}",
        hostname(),
        std::process::id()
    )))
}

/// Removes `path` (a folder or a file) and whatever is in it, also when
/// another process removes it at the same time.
pub(super) fn remove_tree(path: &Path) -> std::io::Result<()> {
    let mut last = None;
    for _ in 0..3 {
        let result = if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        match result {
            Ok(()) => return Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(err) => last = Some(err),
        }
    }
    Err(last.expect("three attempts"))
}

/// Removes the folders that interrupted creations and deletions of the run
/// at `root` left beside it (see the module docs), except those whose
/// process still works on them; returns what it removed.
pub fn finish_interrupted(root: &Path) -> Result<Vec<Removed>> {
    let name = run_name(root)?;
    let parent = parent_of(root);
    let entries = match std::fs::read_dir(parent) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(RunDirError::Io {
                path: parent.to_owned(),
                cause: source,
            });
        }
    };
    let prefix = format!(".{name}.");
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_error(parent))?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let owner_after = |what: &str| rest.strip_prefix(what)?.strip_prefix('-');
        let (what, creation, owner) = if let Some(owner) = owner_after(DELETING) {
            ("an interrupted deletion of the run", false, owner)
        } else if let Some(owner) = owner_after(CREATING) {
            ("an interrupted creation of the run", true, owner)
        } else {
            continue;
        };
        let Some((host, _pid)) = owner.rsplit_once('-') else {
            continue;
        };
        let path = entry.path();
        if aside_in_use(&path, host, creation)? {
            continue;
        }
        remove_tree(&path).map_err(io_error(&path))?;
        removed.push(Removed { path, what });
    }
    Ok(removed)
}

/// Whether the process that made the aside folder `path` on `host` may still
/// work on it. It holds the folder's `open` lease exclusively for as long as
/// it does. A deletion is finished whoever else removes the rest; a creation
/// that shows no lock (one from another machine, or one only just started)
/// is left alone for the lease time.
fn aside_in_use(path: &Path, host: &str, creation: bool) -> Result<bool> {
    let leases = LocalLeases::new(path, LEASE_TTL);
    let lock = leases.dir().join(format!("{OPEN}.lock"));
    if host == hostname() && lock.exists() {
        return Ok(leases.liveness(OPEN)? == Liveness::Alive);
    }
    if !creation {
        return Ok(false);
    }
    let modified = std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .map_err(io_error(path))?;
    let age = modified.elapsed().unwrap_or_default();
    Ok(age < LEASE_TTL)
}

/// Removes the temporary files of writers that are gone and the lease
/// files of processes that are gone from the run folder `root` (see the
/// module docs); returns what it removed.
pub fn remove_local_leftovers(root: &Path) -> Result<Vec<Removed>> {
    let leases = LocalLeases::new(root, LEASE_TTL);
    let mut removed = Vec::new();
    remove_dead_temporaries(root, &leases, &mut removed)?;
    for path in leases.remove_dead_process_leases()? {
        removed.push(Removed {
            path,
            what: "the lease of a process that is gone",
        });
    }
    Ok(removed)
}

fn remove_dead_temporaries(
    dir: &Path,
    leases: &LocalLeases,
    removed: &mut Vec<Removed>,
) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kind = entry.file_type().map_err(io_error(&path))?;
        if is_temporary(&name) {
            if let Some((host, pid)) = temporary_writer(&name)
                && !leases.writer_alive(host, pid)?
            {
                remove_tree(&path).map_err(io_error(&path))?;
                removed.push(Removed {
                    path,
                    what: "a temporary file of a killed writer",
                });
            }
        } else if kind.is_dir() {
            remove_dead_temporaries(&path, leases, removed)?;
        }
    }
    Ok(())
}
