//! `sumito moves`: the legal moves of a position in Aba-Pro notation, one
//! per line, optionally with the position each one leads to.

use super::command_board::CommandBoard;
use super::perft::{GivenStart, PositionArgs};
use clap::Args as ClapArgs;
use std::io::Write;
use sumito_game::with_board;

#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
    /// After each move, a tab and the resulting position in the text format.
    #[arg(long)]
    children: bool,
}

/// `sumito moves` in the game the start chooses.
pub fn run(args: Args) -> anyhow::Result<()> {
    let given = args.position.given()?;
    with_board!(given.game(), list(&args, &given))
}

fn list<B: CommandBoard>(args: &Args, given: &GivenStart<'_>) -> anyhow::Result<()> {
    let position = given.position::<B>()?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if let Some(result) = position.game_over() {
        eprintln!("the game is over ({result}); no legal moves");
    }
    for mv in position.legal_moves() {
        if args.children {
            writeln!(out, "{}\t{}", B::move_text(mv), position.play(mv))?;
        } else {
            writeln!(out, "{}", B::move_text(mv))?;
        }
    }
    out.flush()?;
    Ok(())
}
