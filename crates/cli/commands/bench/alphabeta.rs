//! `sumito bench alphabeta`: speed of the alpha-beta player, one thread, the
//! default evaluation and table size: nodes per second over depth-4 searches
//! of the engine's midgame sample, and the time of a depth-4 search from
//! Belgian Daisy (median of 5, fresh tables each). Where Linux reports the
//! thread's CPU time, the same figures per CPU second are printed too.

use std::time::Duration;

use sumito_arena::SearchLimit;
use sumito_arena::players::{AlphaBeta, AlphaBetaConfig, SearchReport};
use sumito_engine::{Layout, Position, Rules, midgame_positions};

/// Searches `position` to `depth` with a fresh player (empty tables); also
/// the search's CPU time, where known (making the player is not counted).
fn fresh_search(
    position: &Position,
    depth: u32,
) -> anyhow::Result<(SearchReport, Option<Duration>)> {
    let mut player = AlphaBeta::new("bench", AlphaBetaConfig::default());
    let cpu_before = thread_cpu_time();
    let report = player.search(position, &SearchLimit::depth(depth))?;
    let cpu = cpu_before.zip(thread_cpu_time()).map(|(a, b)| b - a);
    Ok((report, cpu))
}

/// How many times the Belgian Daisy search is repeated (the median is shown).
const REPEATS: usize = 5;

/// CPU time this thread has run, from Linux's `/proc/thread-self/schedstat`
/// (nanoseconds); `None` elsewhere. On a busy machine wall-clock rates
/// understate the speed, CPU-time rates do not.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

pub fn run() -> anyhow::Result<()> {
    // Throughput over the engine's fixed midgame sample, depth 4 each.
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    let mut cpu = Some(Duration::ZERO);
    for position in midgame_positions() {
        let (report, search_cpu) = fresh_search(&position, 4)?;
        nodes += report.nodes;
        elapsed += report.elapsed;
        cpu = cpu.zip(search_cpu).map(|(a, b)| a + b);
    }
    println!(
        "alphabeta_nodes_per_second: {:.3e} nodes/s",
        nodes as f64 / elapsed.as_secs_f64()
    );
    if let Some(cpu) = cpu {
        println!(
            "alphabeta_nodes_per_cpu_second: {:.3e} nodes/s",
            nodes as f64 / cpu.as_secs_f64()
        );
    }

    let start = Position::start(Layout::BelgianDaisy, Rules::default());
    let mut runs = (0..REPEATS)
        .map(|_| fresh_search(&start, 4))
        .collect::<anyhow::Result<Vec<_>>>()?;
    runs.sort_by_key(|(report, _)| report.elapsed);
    let (median, _) = &runs[REPEATS / 2];
    println!(
        "alphabeta_depth4_belgian_daisy_seconds: {:.4} s",
        median.elapsed.as_secs_f64()
    );
    let mut cpu_times: Vec<Duration> = runs.iter().filter_map(|(_, cpu)| *cpu).collect();
    if cpu_times.len() == REPEATS {
        cpu_times.sort();
        println!(
            "alphabeta_depth4_belgian_daisy_cpu_seconds: {:.4} s",
            cpu_times[REPEATS / 2].as_secs_f64()
        );
    }
    println!(
        "alphabeta_depth4_belgian_daisy_nodes: {} nodes",
        median.nodes
    );
    Ok(())
}
