//! The pipeline's error type.

use std::path::PathBuf;

use crate::config::ConfigError;
use crate::rundir::RunDirError;
use crate::selfplay::SelfPlayError;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    #[error(transparent)]
    SelfPlay(#[from] SelfPlayError),
    #[error("{context}")]
    Net {
        context: String,
        #[source]
        source: sumito_net::NetError,
    },
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("evaluation failed: {0}")]
    Evaluation(String),
    #[error(transparent)]
    Events(#[from] crate::tensorboard::EventError),
    /// A changed configuration could not be taken over: only the holder of
    /// the trainer role changes it.
    #[error(
        "{config} differs from the run's configuration, which only the run's trainer may change"
    )]
    ConfigChange {
        config: PathBuf,
        source: crate::rundir::RunDirError,
    },
    /// Another process took over a single-writer role of the run.
    #[error("lost the {0} lease of the run directory to another process; stopping")]
    LeaseLost(String),
    /// A single-writer record of the run was written by another process
    /// since this one read or wrote it: its role was taken over (the
    /// record's conditional write fenced this process's late write).
    #[error(
        "{path} was written by another {role} since this one wrote it: the {role} role was taken over; stopping without writing more"
    )]
    Overwritten { path: PathBuf, role: String },
    #[error("sharing files with the run's storage stopped: {0}")]
    Upload(String),
    /// A stop was asked for (Ctrl-C, SIGTERM) in the middle of a piece of
    /// work that is done again at the next start, such as a candidate's
    /// evaluation games; nothing of it was written.
    #[error("stopped on request during {0} (it is done again at the next start)")]
    Stopped(String),
}

impl PipelineError {
    pub(crate) fn net(
        context: impl Into<String>,
    ) -> impl FnOnce(sumito_net::NetError) -> PipelineError {
        let context = context.into();
        move |source| PipelineError::Net { context, source }
    }

    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
        move |source| PipelineError::Io {
            path: path.to_owned(),
            cause: source,
        }
    }
}

pub type Result<T> = std::result::Result<T, PipelineError>;

/// Called right before a role writes into the run: an error (the role was
/// lost while it worked, say after the process was paused and another
/// took the role over) stops it before it writes.
pub type BeforeWriting<'a> = &'a dyn Fn() -> Result<()>;

impl From<sumito_store::StoreError> for PipelineError {
    fn from(err: sumito_store::StoreError) -> Self {
        PipelineError::RunDir(err.into())
    }
}
