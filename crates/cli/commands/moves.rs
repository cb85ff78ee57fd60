//! `sumito moves`: the legal moves of a position in Aba-Pro notation, one
//! per line, optionally with the position each one leads to.

use super::perft::{EitherPosition, PositionArgs};
use clap::Args as ClapArgs;
use std::io::Write;

#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
    /// After each move, a tab and the resulting position in the text format.
    #[arg(long)]
    children: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.position.start()? {
        EitherPosition::Two(position) => {
            if let Some((outcome, reason)) = position.outcome() {
                eprintln!("the game is over ({outcome}: {reason}); no legal moves");
            }
            for mv in position.legal_moves() {
                if args.children {
                    writeln!(out, "{mv}\t{}", position.play(mv))?;
                } else {
                    writeln!(out, "{mv}")?;
                }
            }
        }
        EitherPosition::General(position) => {
            if let Some(result) = position.describe_outcome() {
                eprintln!("the game is over ({result}); no legal moves");
            }
            for mv in position.legal_moves() {
                if args.children {
                    writeln!(out, "{}\t{}", mv.to_text(), position.play(mv))?;
                } else {
                    writeln!(out, "{}", mv.to_text())?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}
