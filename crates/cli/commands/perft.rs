//! `sumito perft`: counts the leaves of the game tree to a fixed depth, the
//! standard check of a move generator against other implementations.

use anyhow::Context;
use clap::Args as ClapArgs;
use rayon::prelude::*;
use std::time::Instant;
use sumito_engine::{Layout, Move, Position, Rules, perft};

/// Where a command starts: a named layout or a position text.
#[derive(Debug, ClapArgs)]
pub struct PositionArgs {
    /// Start layout: standard, belgian-daisy, german-daisy, dutch-daisy,
    /// swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED or
    /// partly-random:SEED.
    #[arg(long, default_value = "standard", value_parser = Layout::from_name, conflicts_with = "fen")]
    layout: Layout,
    /// A position in the text format, e.g.
    /// "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0".
    #[arg(long)]
    fen: Option<String>,
}

impl PositionArgs {
    /// The position asked for, under default rules.
    pub fn position(&self) -> anyhow::Result<Position> {
        match &self.fen {
            Some(text) => Position::from_fen(text)
                .with_context(|| format!("reading the position given by --fen {text:?}")),
            None => Ok(Position::start(self.layout, Rules::default())),
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

pub fn run(args: Args) -> anyhow::Result<()> {
    let position = args.position.position()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(args.threads))
        .build()
        .context("starting the perft threads")?;
    let started = Instant::now();
    let mut leaves = 0u64;
    for depth in 1..=args.depth {
        let counts = divide(&pool, &position, depth);
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
