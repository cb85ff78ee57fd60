//! Criterion benchmarks of the alpha-beta player and its evaluation: a
//! depth-4 search from Belgian Daisy (fresh tables each time), depth-3
//! searches of the engine's midgame sample, and the evaluation alone.
//! `sumito bench alphabeta` prints the same figures as `name: value` lines.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use sumito_arena::SearchLimit;
use sumito_arena::eval::{EvalWeights, evaluate};
use sumito_arena::players::{AlphaBeta, AlphaBetaConfig};
use sumito_engine::{Layout, Position, Rules, midgame_positions};

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta");
    group.sample_size(10);
    let daisy = Position::start(Layout::BelgianDaisy, Rules::default());
    group.bench_function("belgian_daisy_depth_4", |b| {
        b.iter(|| {
            AlphaBeta::new("bench", AlphaBetaConfig::default())
                .search(black_box(&daisy), &SearchLimit::depth(4))
                .unwrap()
        })
    });
    let midgame = midgame_positions();
    group.bench_function("midgame_depth_3", |b| {
        b.iter(|| {
            for position in &midgame {
                black_box(
                    AlphaBeta::new("bench", AlphaBetaConfig::default())
                        .search(position, &SearchLimit::depth(3))
                        .unwrap(),
                );
            }
        })
    });
    group.finish();
}

fn bench_evaluation(c: &mut Criterion) {
    let positions = midgame_positions();
    let weights = EvalWeights::default();
    c.bench_function("evaluate_midgame", |b| {
        b.iter(|| {
            for position in &positions {
                black_box(evaluate(black_box(position), &weights));
            }
        })
    });
}

criterion_group!(benches, bench_search, bench_evaluation);
criterion_main!(benches);
