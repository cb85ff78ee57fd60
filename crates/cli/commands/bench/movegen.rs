//! `sumito bench movegen`: speed of the engine's move generation, one thread.

use std::hint::black_box;
use std::time::{Duration, Instant};
use sumito_engine::{Layout, Position, Rules, midgame_positions, perft};

/// How long each throughput measurement runs.
const MEASURE_FOR: Duration = Duration::from_millis(700);

/// Runs `work` over `positions` round after round until [`MEASURE_FOR`] has
/// passed; returns items per second, where `work` returns the items it did.
fn throughput(positions: &[Position], mut work: impl FnMut(&Position) -> u64) -> f64 {
    let started = Instant::now();
    let mut items = 0u64;
    while started.elapsed() < MEASURE_FOR {
        for position in positions {
            items += work(position);
        }
    }
    items as f64 / started.elapsed().as_secs_f64()
}

pub fn run() -> anyhow::Result<()> {
    let standard = Position::start(Layout::Standard, Rules::default());
    // The best of three runs, so that other work on the machine disturbs less.
    let mut leaves = 0;
    let mut seconds = f64::INFINITY;
    for _ in 0..3 {
        let started = Instant::now();
        leaves = perft(black_box(&standard), 5);
        seconds = seconds.min(started.elapsed().as_secs_f64());
    }
    println!("perft5_standard_seconds: {seconds:.3} s");
    println!(
        "perft5_standard_leaves_per_second: {:.3e} leaves/s",
        leaves as f64 / seconds
    );

    let midgame = midgame_positions();
    let started = Instant::now();
    let leaves: u64 = midgame.iter().map(|p| perft(black_box(p), 4)).sum();
    println!(
        "perft4_midgame_leaves_per_second: {:.3e} leaves/s",
        leaves as f64 / started.elapsed().as_secs_f64()
    );

    let mut positions = midgame;
    positions.push(standard);
    let rate = throughput(&positions, |p| {
        black_box(p.legal_moves());
        1
    });
    println!("legal_moves_per_second: {rate:.3e} positions/s");
    let rate = throughput(&positions, |p| {
        black_box(p.count_legal_moves());
        1
    });
    println!("count_legal_moves_per_second: {rate:.3e} positions/s");
    let rate = throughput(&positions, |p| {
        let moves = p.legal_moves();
        for &mv in moves.iter() {
            black_box(p.play(mv));
        }
        moves.len() as u64
    });
    println!("play_per_second: {rate:.3e} moves/s");
    Ok(())
}
