//! `sumito bench <part>`: measurements printed as `name: value unit` lines, so
//! that scripts and closing notes can quote them. Each part has its own module.

use clap::{Args as ClapArgs, ValueEnum};

mod alphabeta;
mod movegen;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Which part of the system to measure.
    #[arg(value_enum)]
    part: Part,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Part {
    /// The alpha-beta player: nodes per second, time to depth 4 from Belgian Daisy.
    Alphabeta,
    /// Move generation: perft, legal moves, play.
    Movegen,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.part {
        Part::Alphabeta => alphabeta::run(),
        Part::Movegen => movegen::run(),
    }
}
