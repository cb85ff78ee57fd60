//! The run directory's errors, the one type every function of
//! [`crate::rundir`] and its files returns.

use std::path::{Path, PathBuf};

use sumito_store::StoreError;

use super::holder::Holder;

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
    #[error("the {role} role of {path} is held by {}", busy_holder(holder))]
    Busy {
        path: PathBuf,
        role: String,
        /// `None` while the holder has not yet written who it is. (Boxed:
        /// every result of the crate carries this error's size.)
        holder: Option<Box<Holder>>,
    },
    #[error("cannot delete {path}: {}", in_use_by(holders))]
    InUse { path: PathBuf, holders: Vec<Holder> },
    #[error("{path} is being deleted by another process; run the command again once it is done")]
    BeingDeleted { path: PathBuf },
    /// Another process is creating the run (on an object store, it holds
    /// the run while it writes its first files).
    #[error("{path} is being created by another process")]
    BeingCreated { path: PathBuf },
    #[error("{path} names no folder; give the run directory as a path ending in its name")]
    NoName { path: PathBuf },
    #[error("stopped on request while waiting to take the {role} role of {path}")]
    StoppedWhileWaiting { path: PathBuf, role: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn busy_holder(holder: &Option<Box<Holder>>) -> String {
    match holder.as_deref() {
        // On an object store a start refuses only a holder it saw renew.
        Some(
            holder @ Holder {
                renewed: Some((_, wait)),
                ..
            },
        ) if *wait > 0.0 => format!("{holder}; stop it first, or wait {wait:.0} s if it died"),
        Some(holder) => format!("{holder}; stop it first"),
        None => "another process that is starting up; try again in a moment".to_owned(),
    }
}

fn in_use_by(holders: &[Holder]) -> String {
    if holders.is_empty() {
        return "another process is working on it; stop it first".to_owned();
    }
    let names: Vec<String> = holders.iter().map(Holder::to_string).collect();
    format!(
        "it is in use by {}; stop {} first",
        names.join(", "),
        if holders.len() == 1 { "it" } else { "them" }
    )
}

pub type Result<T> = std::result::Result<T, RunDirError>;

pub fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunDirError + '_ {
    move |source| RunDirError::Io {
        path: path.to_owned(),
        cause: source,
    }
}
