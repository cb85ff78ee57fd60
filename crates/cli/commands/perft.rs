//! `sumito perft`: counts the leaves of the game tree to a fixed depth, the
//! standard check of a move generator against other implementations.

use anyhow::Context;
use clap::Args as ClapArgs;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;
use sumito_engine::general::{GeneralLayout, GeneralPosition, general_perft};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Layout, Move, Position, perft, quote_position_text};

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
    /// A TOML file whose [rules] table gives the rules (the keys of a run
    /// configuration's [rules]: marbles_to_win, max_plies, obstacles, holes,
    /// neutral, neutral_push_off, removed_marbles, shield_moves,
    /// rotation_moves, one_colour, partners_in_a_row).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

/// A start: a two-player game the two-player engine plays (fast), or a game
/// of the general engine (variants, 3-6 players).
#[derive(Debug, Clone)]
pub enum EitherPosition {
    Two(Position),
    General(GeneralPosition),
}

impl PositionArgs {
    /// The position asked for: the two-player engine's when the game is a
    /// plain two-player one, the general engine's otherwise.
    pub fn start(&self) -> anyhow::Result<EitherPosition> {
        resolve_start(self.layout, self.fen.as_deref(), self.rules.as_deref())
    }
}

/// The start named by `--layout`, `--fen` and `--rules` (any of them may be
/// absent): the two-player engine's position when the game is a plain
/// two-player one, the general engine's otherwise.
pub fn resolve_start(
    layout: Option<GeneralLayout>,
    fen: Option<&str>,
    rules: Option<&std::path::Path>,
) -> anyhow::Result<EitherPosition> {
    {
        let table = match rules {
            Some(path) => RulesTable::read(path)?,
            None => RulesTable::default(),
        };
        let rules_path = rules;
        let rules_flag = || {
            rules_path
                .map(|path| format!(" under --rules {}", path.display()))
                .unwrap_or_default()
        };
        if let Some(text) = fen {
            let context = || {
                format!(
                    "reading the position given by --fen {text:?}{}",
                    rules_flag()
                )
            };
            if !table.is_general()
                && let Ok(position) = Position::from_fen(text)
            {
                return Ok(EitherPosition::Two(
                    position.with_rules(table.two_player_rules()?),
                ));
            }
            // The general text: its players decide the seating.
            let plain = match GeneralPosition::from_text(text, None) {
                Ok(position) => position,
                // Neither grammar: the two-player error is the one people know.
                Err(general) => {
                    return match Position::from_fen(text) {
                        Err(err) => {
                            let quoted = quote_position_text(text, err.column());
                            Err(anyhow::Error::new(err)
                                .context(format!("reading the position given by --fen {quoted}")))
                        }
                        Ok(_) => Err(anyhow::Error::new(general).context(context())),
                    };
                }
            };
            let mut rules = table
                .rules_for_text(plain.rules().seating.seats())
                .with_context(context)?;
            // Cells with a role may come from the text alone.
            if rules_path.is_none() || (table.obstacles.is_none() && table.holes.is_none()) {
                rules.obstacles = plain.rules().obstacles;
                rules.holes = plain.rules().holes;
            }
            if table.one_colour.is_none() {
                rules.one_colour = plain.rules().one_colour;
            }
            let position = GeneralPosition::from_text(text, Some(&rules)).with_context(context)?;
            return Ok(EitherPosition::General(position));
        }
        let layout = match layout {
            Some(layout) => layout,
            None => table
                .layout()?
                .unwrap_or(GeneralLayout::Two(Layout::Standard)),
        };
        match layout {
            GeneralLayout::Two(two) if !table.is_general() => Ok(EitherPosition::Two(
                Position::start(two, table.two_player_rules()?),
            )),
            layout => Ok(EitherPosition::General(table.start(layout).with_context(
                || format!("starting the layout {layout}{}", rules_flag()),
            )?)),
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

/// Each root move with the number of leaves `depth` plies deep below it,
/// counted on `pool`.
fn divide(pool: &rayon::ThreadPool, position: &Position, depth: u32) -> Vec<(Move, u64)> {
    let moves: Vec<Move> = position.legal_moves().to_vec();
    pool.install(|| {
        moves
            .par_iter()
            .map(|&mv| (mv, perft(&position.play(mv), depth - 1)))
            .collect()
    })
}

/// Each root move of a general position (as text) with its leaves.
fn divide_general(
    pool: &rayon::ThreadPool,
    position: &GeneralPosition,
    depth: u32,
) -> Vec<(String, u64)> {
    let moves = position.legal_moves();
    pool.install(|| {
        moves
            .par_iter()
            .map(|&mv| (mv.to_text(), general_perft(&position.play(mv), depth - 1)))
            .collect()
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let start = args.position.start()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(args.threads))
        .build()
        .context("starting the perft threads")?;
    let started = Instant::now();
    let mut leaves = 0u64;
    for depth in 1..=args.depth {
        let counts: Vec<(String, u64)> = match &start {
            EitherPosition::Two(position) => divide(&pool, position, depth)
                .into_iter()
                .map(|(mv, count)| (mv.to_string(), count))
                .collect(),
            EitherPosition::General(position) => divide_general(&pool, position, depth),
        };
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
