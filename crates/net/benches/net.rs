//! The network's costs outside the forward pass itself (encoding positions,
//! reading outputs back per legal move) and the small preset's forward pass
//! (as trained, and prepared for inference in f32 and bf16) and training step. `sumito bench net` prints the throughput figures of
//! both presets, the inference service and training as `name: value unit`
//! lines.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sumito_engine::{Position, midgame_positions};
use sumito_net::bench_support::{encode_batch, training_samples};
use sumito_net::encoding::{encode_position, input_len};
use sumito_net::{
    Device, DirectEvaluator, NetConfig, PolicyValueNet, PositionEvaluator, Precision, SymmetryMode,
    Trainer, configure_threads, run_packed,
};

const BATCH: usize = 64;

/// `count` positions still in play, repeating the midgame set.
fn positions(count: usize) -> Vec<Position> {
    let midgame: Vec<Position> = midgame_positions()
        .into_iter()
        .filter(|position| position.ending().is_none())
        .collect();
    midgame.iter().copied().cycle().take(count).collect()
}

fn encoding(c: &mut Criterion) {
    let positions = positions(BATCH);
    let mut group = c.benchmark_group("encoding");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (name, push_off_planes) in [
        ("encode_position", false),
        ("encode_position_push_off_planes", true),
    ] {
        let mut inputs = vec![0.0f32; input_len(push_off_planes)];
        group.bench_function(name, |b| {
            b.iter(|| {
                for position in &positions {
                    encode_position(black_box(position), push_off_planes, &mut inputs);
                }
            })
        });
    }
    group.finish();
}

fn small_preset(c: &mut Criterion) {
    let config = NetConfig::preset("small").unwrap();
    configure_threads(&config.threads).unwrap();
    let positions = positions(BATCH);
    let inputs = encode_batch(&positions);
    let mut group = c.benchmark_group("net_small");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH as u64));
    let net = PolicyValueNet::new(&config.model, Device::Cpu).unwrap();
    group.bench_function("forward_batch64", |b| {
        b.iter(|| run_packed(&net, black_box(&inputs), BATCH).unwrap())
    });
    // Prepared for inference as self-play runs it, in both number formats.
    for precision in [Precision::F32, Precision::Bf16] {
        let inference = PolicyValueNet::new(&config.model, Device::Cpu)
            .unwrap()
            .for_inference(precision);
        group.bench_function(format!("inference_{precision}_forward_batch64"), |b| {
            b.iter(|| run_packed(&inference, black_box(&inputs), BATCH).unwrap())
        });
    }
    let evaluator = DirectEvaluator::new(net, SymmetryMode::None);
    group.bench_function("evaluate_positions_batch64", |b| {
        b.iter(|| evaluator.evaluate_positions(black_box(&positions)).unwrap())
    });
    let samples = training_samples(&positions);
    let mut trainer = Trainer::new(evaluator.into_inner(), &config.training).unwrap();
    group.bench_function("train_step_batch64", |b| {
        b.iter(|| trainer.train_step(black_box(&samples)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, encoding, small_preset);
criterion_main!(benches);
