//! The arguments of `sumito selfplay`, a self-play worker on a shared run
//! directory, which are those of every role command (`trainer` and
//! `evaluate` use this `Args`). `sumito-torch` runs them (`network/`).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use sumito_store::Location;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The run directory (shared by every role; its config.toml is used): a
    /// folder, or s3://BUCKET/PREFIX on an S3-compatible object store.
    #[arg(long, value_name = "DIR", value_parser = super::run_location)]
    pub run_dir: Location,
    /// Create the run with this configuration if the directory holds none
    /// (or update the run's configuration, as `sumito train` does).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Do not draw progress bars (`--quiet` is the same).
    #[arg(long, alias = "quiet")]
    pub no_progress: bool,
}
