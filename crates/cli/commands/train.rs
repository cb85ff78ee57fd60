//! `sumito train`: the whole training loop in one process. Its arguments;
//! `sumito-torch` runs it (`network/train.rs`).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use sumito_store::Location;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The run configuration, e.g. configs/quick.toml.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The run directory [default: runs/<config file name>]: a folder, or
    /// s3://BUCKET/PREFIX on an S3-compatible object store. Re-running the
    /// same command resumes the run in it.
    #[arg(long, value_name = "DIR", value_parser = super::run_location)]
    pub run_dir: Option<Location>,
    /// Delete the run already in the run directory and start over.
    #[arg(long)]
    pub fresh: bool,
    /// Start a new run from a trained model instead of a random network: a
    /// model bundle (a folder, or a name such as `quick`, looked up as
    /// `sumito play --model` does) or a run's `models/gen-*` folder. Its
    /// network must be the config's `[net.model]`, or the config's must be
    /// it grown (more blocks or channels, or `push_off_planes` added; the
    /// same heads): it is then grown into it, computing what it computed.
    /// The run starts with an empty replay.
    #[arg(long, value_name = "MODEL")]
    pub init_model: Option<PathBuf>,
    /// Do not draw progress bars (`--quiet` is the same).
    #[arg(long, alias = "quiet")]
    pub no_progress: bool,
}
