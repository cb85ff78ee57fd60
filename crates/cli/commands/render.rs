//! `sumito render`: SVG pictures of a position, or of every position of a
//! recorded game, with coordinates, marbles, the last move as arrows, and
//! the marbles pushed off.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use sumito_arena::record::AnyRecord;
use sumito_engine::Position;
use sumito_engine::general::GeneralLayout;
use sumito_play::general_view::render_general_svg;
use sumito_play::record::write_atomic;
use sumito_play::svg::{render_game, render_svg};

use super::perft::{EitherPosition, resolve_start};

use super::source::{Source, SourceArgs};

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

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.out.extension().is_none_or(|ext| ext != "svg") {
        bail!(
            "--out {}: the file name must end in .svg",
            args.out.display()
        );
    }
    if args.layout.is_some()
        || (args.rules.is_some() && args.source.fen.is_some())
        || args
            .source
            .fen
            .as_deref()
            .is_some_and(|fen| Position::from_fen(fen).is_err())
    {
        let start = resolve_start(
            args.layout,
            args.source.fen.as_deref(),
            args.rules.as_deref(),
        )?;
        let svg = match start {
            EitherPosition::Two(position) => {
                let title = args.title.clone().unwrap_or_else(|| position.to_string());
                render_svg(&position, None, &title)
            }
            EitherPosition::General(position) => {
                let title = args.title.clone().unwrap_or_else(|| position.to_string());
                render_general_svg(&position, &title)
            }
        };
        return write(&args.out, &svg);
    }
    // A record of the general game: one picture per position.
    if let Some(path) = &args.source.record
        && let Ok(AnyRecord::General(record)) = AnyRecord::read(path)
    {
        let positions = record.positions().map_err(|err| anyhow::anyhow!(err))?;
        for (index, position) in positions.iter().enumerate() {
            let title = match index {
                0 => format!("Start. {}", record.players.join(", ")),
                n => format!("{n}. {}", record.moves[n - 1].to_text()),
            };
            write(
                &numbered(&args.out, index, positions.len()),
                &render_general_svg(position, &title),
            )?;
        }
        return Ok(());
    }
    match args.source.read()? {
        Source::Position { position, text } => {
            let title = args
                .title
                .clone()
                .unwrap_or_else(|| text.trim().to_string());
            write(&args.out, &render_svg(&position, None, &title))
        }
        Source::Record { record, .. } => {
            let pictures = render_game(&record).map_err(anyhow::Error::msg)?;
            for (index, svg) in pictures.iter().enumerate() {
                write(&numbered(&args.out, index, pictures.len()), svg)?;
            }
            Ok(())
        }
        // Clap requires one of the two; this is for a caller that builds Args by hand.
        Source::Neither => bail!("give the position to draw with --fen or a game with --record"),
    }
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
