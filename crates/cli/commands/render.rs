//! `sumito render`: SVG pictures of a position, or of every position of a
//! recorded game, with coordinates, marbles, the last move as arrows, and
//! the marbles pushed off.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use sumito_arena::record::{AnyRecord, GameRecord};
use sumito_engine::general::GeneralLayout;
use sumito_game::{GameKind, with_board};
use sumito_play::record::write_atomic;
use sumito_play::svg::{render_game, render_svg};

use super::command_board::CommandBoard;
use super::perft::GivenStart;
use super::source::SourceArgs;

#[derive(Debug, ClapArgs)]
#[command(
    mut_group("source", |group| group.required(true)),
    mut_arg("fen", |arg| arg.help(
        "The position to draw, in the text format, e.g. \
         \"wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0\"."
    )),
    mut_arg("record", |arg| arg.help(
        "A game record (as written by `sumito play`'s save or by matches): \
         one picture per position, written as OUT-000.svg (the start), \
         OUT-001.svg (after the first move), … next to OUT."
    )),
)]
pub struct Args {
    #[command(flatten)]
    source: SourceArgs,
    /// The SVG file to write (for --record, the name the numbered files
    /// are made from).
    #[arg(long)]
    out: PathBuf,
    /// A title for the picture of --fen or --layout (default: the position
    /// text).
    #[arg(long, conflicts_with = "record")]
    title: Option<String>,
    /// Draw the start of this layout (any two-player layout, or
    /// three-player, three-player-trapezoid, four-player, five-player,
    /// six-player).
    #[arg(long, group = "source", value_parser = GeneralLayout::from_name)]
    layout: Option<GeneralLayout>,
    /// A TOML file whose [rules] table gives the rules of --fen or --layout
    /// (obstacles, holes, neutral marbles, ...; see `sumito perft --help`).
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    rules: Option<PathBuf>,
}

/// `dir/game.svg` and 7 → `dir/game-007.svg` (at least three digits, more
/// when the game has more positions, so that the names sort in order).
fn numbered(out: &Path, index: usize, count: usize) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "game".into(), |s| s.to_string_lossy().into_owned());
    let digits = count.saturating_sub(1).to_string().len().max(3);
    out.with_file_name(format!("{stem}-{index:0digits$}.svg"))
}

fn write(path: &Path, svg: &str) -> anyhow::Result<()> {
    // `--out pics/game.svg` makes `pics/` when it is not there yet.
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("creating the folder {}", folder.display()))?;
    }
    write_atomic(path, svg.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    println!("{}", path.display());
    Ok(())
}

/// `sumito render` in the game of the record, or the one the start
/// chooses.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.out.extension().is_none_or(|ext| ext != "svg") {
        bail!(
            "--out {}: the file name must end in .svg",
            args.out.display()
        );
    }
    if let Some(path) = &args.source.record {
        // A record that does not read is taken as the two-player game's,
        // whose reading says what is wrong.
        let game = AnyRecord::read(path).map_or(GameKind::TwoPlayer, |record| record.kind());
        return with_board!(game, render_record(path, &args.out));
    }
    if args.source.fen.is_none() && args.layout.is_none() {
        // Clap requires one of them; this is for a caller that builds Args by hand.
        bail!("give the position to draw with --fen or --layout, or a game with --record");
    }
    let given = GivenStart::read(
        args.layout,
        args.source.fen.as_deref(),
        args.rules.as_deref(),
    )?;
    with_board!(given.game(), render_position(&args, &given))
}

/// One picture of the start given, titled by `--title`, else by the
/// position text as given, else (a layout's start) by its text.
fn render_position<B: CommandBoard>(args: &Args, given: &GivenStart<'_>) -> anyhow::Result<()> {
    let position = given.position::<B>()?;
    let title = match (&args.title, given.text()) {
        (Some(title), _) => title.clone(),
        (None, Some(text)) => text.trim().to_string(),
        (None, None) => position.to_string(),
    };
    write(&args.out, &render_svg(&position, None, &title))
}

/// One picture per position of the game recorded at `path`: `out`'s name
/// numbered from 000 (the start).
fn render_record<B: CommandBoard>(path: &Path, out: &Path) -> anyhow::Result<()> {
    // The record's own errors name the file and the line.
    let record = GameRecord::<B>::read(path)?;
    let pictures = render_game(&record).map_err(anyhow::Error::msg)?;
    for (index, svg) in pictures.iter().enumerate() {
        write(&numbered(out, index, pictures.len()), svg)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names_sort_in_order() {
        let out = Path::new("pics/game.svg");
        assert_eq!(numbered(out, 0, 10), Path::new("pics/game-000.svg"));
        assert_eq!(numbered(out, 42, 1001), Path::new("pics/game-0042.svg"));
    }
}
