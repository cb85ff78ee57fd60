//! What can go wrong exporting, finding or opening a bundle: one error
//! type for both, each variant saying what is wrong and how to get a good
//! bundle.

use std::path::{Path, PathBuf};

use sumito_net::NetError;
use sumito_pipeline::rundir::RunDirError;

use crate::meta::{BUNDLE_FILE, BUNDLE_FORMAT, BUNDLE_VERSION, DEFAULT_MODEL};

/// What can go wrong exporting or opening a bundle.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("no model bundle at {}: the folder does not exist", dir.display())]
    NotFound { dir: PathBuf },
    #[error(
        "the bundle {} holds a model of the general game ({}); {wanted}",
        dir.display(), layouts.join(", ")
    )]
    GeneralGame {
        dir: PathBuf,
        layouts: Vec<String>,
        wanted: &'static str,
    },
    #[error(
        "the bundle {} holds a two-player model; {wanted}",
        dir.display()
    )]
    TwoPlayerGame { dir: PathBuf, wanted: &'static str },
    #[error(
        "{} is a network of the general game, but the run's configuration ({}) has no general-game [rules]: {problem}",
        checkpoint.display(), config.display()
    )]
    NoGeneralRules {
        checkpoint: PathBuf,
        config: PathBuf,
        problem: String,
    },
    #[error(
        "{} is not a model bundle: it has no {BUNDLE_FILE} (make one with `sumito export --run-dir RUN --out {}`)",
        dir.display(), dir.display()
    )]
    NotABundle { dir: PathBuf },
    #[error("{} is not a valid bundle description: {problem}", path.display())]
    Malformed { path: PathBuf, problem: String },
    #[error("the run's configuration {} cannot be read: {problem}", path.display())]
    Config { path: PathBuf, problem: String },
    #[error(
        "{} is not a sumito model bundle (its format is {found:?}, expected {BUNDLE_FORMAT:?})",
        path.display()
    )]
    Foreign { path: PathBuf, found: String },
    #[error(
        "{} has bundle format version {found}, but this sumito reads version {BUNDLE_VERSION}; use the sumito that exported it, or export the model again with this one",
        path.display()
    )]
    FormatVersion { path: PathBuf, found: u32 },
    #[error(
        "the model in {} was trained on input encoding version {found}, but this sumito encodes positions {game} with version {expected}; it cannot play here (export a model trained with this version)",
        dir.display()
    )]
    EncodingMismatch {
        dir: PathBuf,
        found: u32,
        expected: u32,
        game: &'static str,
    },
    #[error("the bundle {} is incomplete: {name} is missing (export it again)", dir.display())]
    MissingFile { dir: PathBuf, name: String },
    #[error("the bundle {} is corrupt: {name} {problem} (export it again)", dir.display())]
    Corrupt {
        dir: PathBuf,
        name: String,
        problem: String,
    },
    #[error(
        "{} already exists; give --force to replace it",
        path.display()
    )]
    Exists { path: PathBuf },
    #[error(
        "the bundle {} already has model.onnx (its bundle.json lists it); give --force to write it again",
        dir.display()
    )]
    HasOnnx { dir: PathBuf },
    #[error(
        "{} exists and is not a model bundle; refusing to replace it",
        path.display()
    )]
    ForeignTarget { path: PathBuf },
    #[error(
        "the run {} has no generation {generation} (it has: {available})",
        run.display()
    )]
    NoSuchGeneration {
        run: PathBuf,
        generation: u32,
        available: String,
    },
    #[error("the run {} has no model yet", run.display())]
    NoModel { run: PathBuf },
    #[error(
        "no --model given and no shipped model found (looked for {}). Train one and export it:\n  \
         sumito train --config configs/quick.toml --run-dir runs/quick\n  \
         sumito export --run-dir runs/quick --out models/{DEFAULT_MODEL}\n\
         or play a classical opponent instead: sumito play --opponent alphabeta:depth=3",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoDefaultModel { searched: Vec<PathBuf> },
    // The cause is part of the message and not also a `source()`, so that
    // an error chain printed whole (`{:#}`) names it once.
    #[error("{context}: {cause}")]
    Net { context: String, cause: NetError },
    #[error(transparent)]
    Run(#[from] RunDirError),
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "{} is a file, not a model bundle: give the bundle's folder{}",
        path.display(),
        path.parent().filter(|dir| dir.join(BUNDLE_FILE).is_file())
            .map(|dir| format!(" ({})", dir.display())).unwrap_or_default()
    )]
    NotAFolder { path: PathBuf },
    #[error(
        "{} does not match the weights of its bundle: it says {declared}, the weights (meta.json) are {weights} (export the model again)",
        path.display()
    )]
    ArchitectureMismatch {
        path: PathBuf,
        declared: String,
        weights: String,
    },
}

/// The error of an I/O failure on `path`.
pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError + '_ {
    move |cause| BundleError::Io {
        path: path.to_owned(),
        cause,
    }
}

/// The error of a network failure, saying what was being done.
pub(crate) fn net(context: impl Into<String>) -> impl FnOnce(NetError) -> BundleError {
    let context = context.into();
    move |cause| BundleError::Net { context, cause }
}
