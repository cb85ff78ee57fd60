//! The arguments of `sumito curve`: a run's learning curve (the Elo of every
//! generation against the hours trained, beside the fixed opponents) as an
//! SVG picture. `sumito-torch` draws it (`network/curve.rs`), since it reads
//! the run directory through the pipeline.

use std::path::PathBuf;

use clap::Args as ClapArgs;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The run directory (read only; a live run may keep training).
    #[arg(long, value_name = "DIR")]
    pub run_dir: PathBuf,
    /// The picture to write [default: DIR/curve.svg].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Its title [default: the run directory's name].
    #[arg(long)]
    pub title: Option<String>,
}
