//! Criterion benchmarks of the move generator: perft from Standard, listing
//! and counting legal moves, and playing moves, on the start and midgame
//! positions. The speed goal (perft 5 from Standard within 1 s on one core)
//! is tracked here and by `sumito bench movegen`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use sumito_engine::{Layout, Position, Rules, midgame_positions, perft};

fn positions() -> Vec<Position> {
    let mut positions = midgame_positions();
    positions.push(Position::start(Layout::Standard, Rules::default()));
    positions
}

fn bench_perft(c: &mut Criterion) {
    let standard = Position::start(Layout::Standard, Rules::default());
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("standard_depth_4", |b| {
        b.iter(|| perft(black_box(&standard), 4))
    });
    group.bench_function("standard_depth_5", |b| {
        b.iter(|| perft(black_box(&standard), 5))
    });
    group.finish();
}

fn bench_moves(c: &mut Criterion) {
    let positions = positions();
    c.bench_function("legal_moves_midgame", |b| {
        b.iter(|| {
            for position in &positions {
                black_box(black_box(position).legal_moves());
            }
        })
    });
    c.bench_function("count_legal_moves_midgame", |b| {
        b.iter(|| {
            for position in &positions {
                black_box(black_box(position).count_legal_moves());
            }
        })
    });
    c.bench_function("play_every_move_midgame", |b| {
        b.iter(|| {
            for position in &positions {
                for &mv in position.legal_moves().iter() {
                    black_box(position.play(mv));
                }
            }
        })
    });
}

criterion_group!(benches, bench_perft, bench_moves);
criterion_main!(benches);
