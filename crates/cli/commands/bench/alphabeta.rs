//! `sumito bench alphabeta`: speed of the alpha-beta player, one thread, the
//! default evaluation and table size.

use std::time::Duration;

use sumito_arena::SearchLimit;
use sumito_arena::players::{AlphaBeta, AlphaBetaConfig, SearchReport};
use sumito_engine::{Layout, Position, Rules, midgame_positions};

/// Searches `position` to `depth` with a fresh player (empty tables).
fn fresh_search(position: &Position, depth: u32) -> anyhow::Result<SearchReport> {
    Ok(AlphaBeta::new("bench", AlphaBetaConfig::default())
        .search(position, &SearchLimit::depth(depth))?)
}

/// How many times the Belgian Daisy search is repeated (the median is shown).
const REPEATS: usize = 5;

pub fn run() -> anyhow::Result<()> {
    // Throughput over the engine's fixed midgame sample, depth 4 each.
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for position in midgame_positions() {
        let report = fresh_search(&position, 4)?;
        nodes += report.nodes;
        elapsed += report.elapsed;
    }
    println!(
        "alphabeta_nodes_per_second: {:.3e} nodes/s",
        nodes as f64 / elapsed.as_secs_f64()
    );

    let start = Position::start(Layout::BelgianDaisy, Rules::default());
    let mut runs: Vec<SearchReport> = (0..REPEATS)
        .map(|_| fresh_search(&start, 4))
        .collect::<anyhow::Result<_>>()?;
    runs.sort_by_key(|r| r.elapsed);
    let median = &runs[REPEATS / 2];
    println!(
        "alphabeta_depth4_belgian_daisy_seconds: {:.4} s",
        median.elapsed.as_secs_f64()
    );
    println!(
        "alphabeta_depth4_belgian_daisy_nodes: {} nodes",
        median.nodes
    );
    Ok(())
}
