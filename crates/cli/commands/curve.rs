//! The arguments of `sumito curve`: a run's learning curve (the Elo of every
//! generation against the hours trained, beside the fixed opponents) as an
//! SVG picture. `sumito-torch` draws it (`network/curve.rs`), since it reads
//! the run directory through the pipeline.

use std::path::PathBuf;

use clap::Args as ClapArgs;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The run directory (read only; a live run may keep training): a folder
    /// or s3://BUCKET/PREFIX.
    #[arg(long, value_name = "DIR", value_parser = super::run_location)]
    pub run_dir: sumito_store::Location,
    /// The picture to write [default: DIR/curve.svg for a run in a folder,
    /// curve.svg here for one on an object store].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Its title [default: the run directory's name].
    #[arg(long)]
    pub title: Option<String>,
    /// The horizontal axis: wall-clock hours of `sumito train`, its CPU time
    /// in core-hours, or the generation (drawn by generation where the run
    /// kept no time).
    #[arg(long, value_enum, default_value_t = CurveAxis::Hours)]
    pub axis: CurveAxis,
}

/// `--axis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CurveAxis {
    Hours,
    CoreHours,
    Generations,
}
