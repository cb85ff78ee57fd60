//! `sumito perft`: counts the leaves of the game tree to a fixed depth, the
//! standard check of a move generator against other implementations.

use anyhow::Context;
use clap::Args as ClapArgs;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_game::{GameKind, with_board};

use super::command_board::{CommandBoard, rules_of};

/// Where a command starts: a named layout or a position text, under the
/// rules of a `--rules` file.
#[derive(Debug, ClapArgs)]
pub struct PositionArgs {
    /// Start layout: standard, belgian-daisy, german-daisy, dutch-daisy,
    /// swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED,
    /// partly-random:SEED, or for more players three-player,
    /// three-player-trapezoid, four-player, five-player, six-player
    /// [default: standard, or the one layout the rules file names].
    #[arg(long, value_parser = GeneralLayout::from_name, conflicts_with = "fen")]
    layout: Option<GeneralLayout>,
    /// A position in the text format, e.g.
    /// "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0" (the variants'
    /// text is read too: neutral n, obstacle x, hole o, up to six colours).
    #[arg(long)]
    fen: Option<String>,
    /// A TOML file whose [rules] table gives the rules: the keys of a run
    /// configuration's [rules], the engine's one rules table (listed in
    /// docs/variants.md).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

impl PositionArgs {
    /// The start these flags name, read: its rules table and its layout
    /// or text.
    pub fn given(&self) -> anyhow::Result<GivenStart<'_>> {
        GivenStart::read(self.layout, self.fen.as_deref(), self.rules.as_deref())
    }
}

/// Where `perft`, `moves` and `render` start: the rules table of `--rules`
/// (the rule sheets' without it), and a position text or a layout. Its
/// game is chosen once, [`GivenStart::game`]; the position is read in it,
/// [`GivenStart::position`].
#[derive(Debug)]
pub struct GivenStart<'a> {
    table: RulesTable,
    rules: Option<&'a Path>,
    start: StartGiven<'a>,
}

/// A start as given: a position text (`--fen`), or a layout (`--layout`,
/// else the one the rules name, else Standard).
#[derive(Clone, Copy, Debug)]
enum StartGiven<'a> {
    Text(&'a str),
    Layout(GeneralLayout),
}

impl<'a> GivenStart<'a> {
    /// The start named by `--layout`, `--fen` and `--rules` (any of them may
    /// be absent), with the rules file read.
    pub fn read(
        layout: Option<GeneralLayout>,
        fen: Option<&'a str>,
        rules: Option<&'a Path>,
    ) -> anyhow::Result<GivenStart<'a>> {
        let table = match rules {
            Some(path) => RulesTable::read(path)?,
            None => RulesTable::default(),
        };
        let start = match (fen, layout) {
            (Some(text), _) => StartGiven::Text(text),
            (None, Some(layout)) => StartGiven::Layout(layout),
            (None, None) => StartGiven::Layout(table.layout()?.unwrap_or_default()),
        };
        Ok(GivenStart {
            table,
            rules,
            start,
        })
    }

    /// The game it is ([`GameKind::of`]): the two-player game when the rules
    /// are a plain two-player game's and the start is a two-player layout
    /// or position text, the general game otherwise.
    pub fn game(&self) -> GameKind {
        match self.start {
            StartGiven::Text(text) => GameKind::of_text(&self.table, text),
            StartGiven::Layout(layout) => GameKind::of(&self.table, &[layout], false),
        }
    }

    /// The position text given, if one was.
    pub fn text(&self) -> Option<&'a str> {
        match self.start {
            StartGiven::Text(text) => Some(text),
            StartGiven::Layout(_) => None,
        }
    }

    /// The start as a position of game `B` (the one [`GivenStart::game`]
    /// names); errors name the flag and the rules file.
    pub fn position<B: CommandBoard>(&self) -> anyhow::Result<B> {
        let rules_flag = self
            .rules
            .map(|path| format!(" under --rules {}", path.display()))
            .unwrap_or_default();
        match self.start {
            StartGiven::Text(text) => B::position_of_fen(text, &self.table, &rules_flag),
            StartGiven::Layout(layout) => {
                let rules = rules_of::<B>(&self.table)?;
                let own = B::layout_of_general(layout).map_err(anyhow::Error::msg)?;
                B::first_position(own, &rules)
                    .map_err(anyhow::Error::msg)
                    .with_context(|| format!("starting the layout {layout}{rules_flag}"))
            }
        }
    }
}

#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
    /// Deepest ply to count; every depth from 1 up is printed.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    /// Also print each legal move (Aba-Pro) with its count at the deepest depth.
    #[arg(long)]
    divide: bool,
    /// Threads counting the root moves in parallel.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
}

/// Each root move (as text) with the number of leaves `depth` plies deep
/// below it, counted on `pool` by the game's own counter.
fn divide<B: CommandBoard>(
    pool: &rayon::ThreadPool,
    position: &B,
    depth: u32,
) -> Vec<(String, u64)> {
    let moves = position.legal_moves();
    pool.install(|| {
        moves
            .par_iter()
            .map(|&mv| (B::move_text(mv), position.play(mv).perft(depth - 1)))
            .collect()
    })
}

/// `sumito perft` in the game the start chooses.
pub fn run(args: Args) -> anyhow::Result<()> {
    let given = args.position.given()?;
    with_board!(given.game(), count(&args, &given))
}

fn count<B: CommandBoard>(args: &Args, given: &GivenStart<'_>) -> anyhow::Result<()> {
    let start = given.position::<B>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(args.threads))
        .build()
        .context("starting the perft threads")?;
    let started = Instant::now();
    let mut leaves = 0u64;
    for depth in 1..=args.depth {
        let counts = divide(&pool, &start, depth);
        if args.divide && depth == args.depth {
            for (mv, count) in &counts {
                println!("{mv}: {count}");
            }
        }
        let total: u64 = counts.iter().map(|(_, count)| count).sum();
        leaves += total;
        println!("perft({depth}) = {total}");
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "time: {seconds:.3} s for depths 1..={}, {:.3e} leaves/s",
        args.depth,
        leaves as f64 / seconds.max(1e-9)
    );
    Ok(())
}
