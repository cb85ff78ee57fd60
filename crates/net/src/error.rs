use std::path::PathBuf;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A configuration value is out of range or inconsistent.
    #[error("net config: `{key}` {problem}")]
    Config { key: &'static str, problem: String },
    /// A TOML config file could not be read or parsed (the message names the
    /// line and the key).
    #[error("cannot read net config {}: {message}", path.display())]
    ConfigFile { path: PathBuf, message: String },
    /// CUDA was asked for but cannot be used.
    #[error("device {requested} requested, but {reason}")]
    DeviceUnavailable { requested: String, reason: String },
    /// libtorch reported an error.
    #[error("libtorch: {context}")]
    Torch {
        context: String,
        #[source]
        source: tch::TchError,
    },
    /// A file could not be read or written.
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// A checkpoint is missing pieces, damaged, or not one of ours.
    #[error("checkpoint {}: {problem}", path.display())]
    Checkpoint { path: PathBuf, problem: String },
    /// A checkpoint or model was made for another network shape.
    #[error("checkpoint {} has architecture {found}, but {expected} was expected", path.display())]
    ArchitectureMismatch {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// A checkpoint or model was trained on another input encoding.
    #[error(
        "{} was made with input encoding version {found}, but this program uses version {expected}; \
         it cannot be used (train a new network or use a matching build)",
        path.display()
    )]
    EncodingMismatch {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    /// A training sample is unusable.
    #[error("training sample {index}: {problem}")]
    InvalidSample { index: usize, problem: String },
    /// A position cannot be evaluated (e.g. the game is over: no legal moves).
    #[error("position {index} of the batch: {problem}")]
    InvalidPosition { index: usize, problem: String },
    /// Training or saving was asked of a network prepared for inference
    /// ([`crate::PolicyValueNet::for_inference`]).
    #[error(
        "this network was prepared for inference (batch norms folded, maybe reduced precision) \
         and cannot be trained or saved: load the checkpoint again"
    )]
    FoldedNetwork,
    /// The inference service has stopped (its worker failed or was shut down).
    #[error("inference service: {0}")]
    Service(String),
}

impl NetError {
    pub(crate) fn torch(context: impl Into<String>) -> impl FnOnce(tch::TchError) -> NetError {
        let context = context.into();
        move |source| NetError::Torch { context, source }
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> NetError {
        let path = path.into();
        move |cause| NetError::Io { path, cause }
    }

    pub(crate) fn checkpoint(path: impl Into<PathBuf>, problem: impl Into<String>) -> NetError {
        NetError::Checkpoint {
            path: path.into(),
            problem: problem.into(),
        }
    }
}
