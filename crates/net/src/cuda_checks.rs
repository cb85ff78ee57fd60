//! Checks of the CUDA path that need a GPU: ignored by default (this
//! project's CI and development machines have none), run on a GPU machine by
//! `scripts/check-gpu.sh` with `--ignored`, where each one fails unless
//! libtorch really computes on the GPU and agrees with the CPU.

use tch::{Device, Kind, Tensor};

use crate::config::{InferenceConfig, NetTrainingConfig, Precision};
use crate::encoding::tests::sample_positions;
use crate::encoding::{GRID, INPUT_PLANES};
use crate::evaluate::{DirectEvaluator, NetOutput, PositionEvaluator};
use crate::fsutil::fresh_test_path;
use crate::model::PolicyValueNet;
use crate::model::tests::tiny_config;
use crate::service::InferenceService;
use crate::train::Trainer;
use crate::train::tests::random_samples;
use crate::{DeviceSpec, SymmetryMode};

/// Why the tests are ignored (kept in step with their `#[ignore]` reasons).
const WHY_IGNORED: &str = "needs a CUDA GPU and the cuda build: scripts/check-gpu.sh";

/// The first GPU, through the same checks `--device cuda` makes.
fn gpu() -> Device {
    DeviceSpec::Cuda(0)
        .resolve()
        .unwrap_or_else(|err| panic!("{err} ({WHY_IGNORED})"))
}

/// The same weights on the CPU and on the GPU (through a checkpoint).
fn twin_networks(name: &str) -> (PolicyValueNet, PolicyValueNet) {
    tch::manual_seed(11);
    let dir = fresh_test_path(&format!("cuda-{name}"));
    let cpu = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
    cpu.save_checkpoint(&dir, 0, None).unwrap();
    let (on_gpu, _) = PolicyValueNet::load_checkpoint(&dir, None, gpu()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (cpu, on_gpu)
}

/// Outputs agree within `tolerance`, relative to their size (TF32 and
/// bfloat16 round differently from the CPU's 32-bit floats).
fn assert_close(actual: &[NetOutput], expected: &[NetOutput], tolerance: f32) {
    assert_eq!(actual.len(), expected.len());
    let near = |x: f32, y: f32| (x - y).abs() <= tolerance * (1.0 + x.abs().max(y.abs()));
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_eq!(a.logits.len(), e.logits.len());
        let all = a
            .logits
            .iter()
            .zip(&e.logits)
            .chain(a.wdl.iter().zip(&e.wdl));
        for (&x, &y) in all {
            assert!(near(x, y), "position {index}: {x} against {y}");
        }
        assert!(near(a.marble_diff, e.marble_diff), "position {index}");
    }
}

fn evaluate(net: PolicyValueNet, positions: &[sumito_engine::Position]) -> Vec<NetOutput> {
    DirectEvaluator::new(net, SymmetryMode::None)
        .evaluate_positions(positions)
        .unwrap()
}

#[test]
#[ignore = "needs a CUDA GPU and the cuda build: scripts/check-gpu.sh"]
fn the_network_computes_on_the_gpu_and_agrees_with_the_cpu() {
    let positions = sample_positions(32, 5);
    let (cpu, on_gpu) = twin_networks("forward");
    assert_eq!(on_gpu.device(), gpu());
    let input = Tensor::rand(
        [4, INPUT_PLANES as i64, GRID as i64, GRID as i64],
        (Kind::Float, gpu()),
    );
    assert_eq!(on_gpu.forward_packed(&input).device(), gpu());
    let expected = evaluate(cpu, &positions);
    assert_close(&evaluate(on_gpu, &positions), &expected, 1e-2);
    // The inference forms: folded in 32 bits, and in bfloat16.
    for (precision, tolerance) in [(Precision::F32, 1e-2), (Precision::Bf16, 5e-2)] {
        let (_, on_gpu) = twin_networks("inference");
        let fast = on_gpu.for_inference(precision);
        assert_eq!(fast.kind(), precision.kind_on(gpu()));
        assert_close(&evaluate(fast, &positions), &expected, tolerance);
    }
}

#[test]
#[ignore = "needs a CUDA GPU and the cuda build: scripts/check-gpu.sh"]
fn the_inference_service_batches_on_the_gpu() {
    let positions = sample_positions(64, 6);
    let (_, on_gpu) = twin_networks("service");
    let direct = DirectEvaluator::new(on_gpu, SymmetryMode::None);
    let expected = direct.evaluate_positions(&positions).unwrap();
    let config = InferenceConfig {
        device: DeviceSpec::Cuda(0),
        max_batch: 16,
        max_wait_ms: 5.0,
        ..InferenceConfig::default()
    };
    let service = InferenceService::start(direct.into_inner(), &config).unwrap();
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let client = service.client();
            let (positions, expected) = (&positions, &expected);
            scope.spawn(move || {
                for request in 0..8 {
                    let index = (thread * 8 + request) % positions.len();
                    let output = client
                        .evaluate_positions(&positions[index..=index])
                        .unwrap();
                    // Another batch size may pick another cuDNN algorithm,
                    // and TF32 rounds each to about 1e-3: on an H200 the
                    // batches of 1 to 16 differed from the batch of 64 by
                    // up to 1.7e-3 (scripts/check-gpu.sh, 2026-11-26).
                    assert_close(&output, &expected[index..=index], 5e-3);
                }
            });
        }
    });
    let stats = service.stats();
    assert_eq!(stats.rows, 64);
    assert!(stats.batches < 64, "never batched: {stats:?}");
}

#[test]
#[ignore = "needs a CUDA GPU and the cuda build: scripts/check-gpu.sh"]
fn training_on_the_gpu_learns_and_its_checkpoint_loads_on_the_cpu() {
    tch::manual_seed(5);
    let samples = random_samples(32, 11);
    let net = PolicyValueNet::new(&tiny_config(), gpu()).unwrap();
    let config = NetTrainingConfig {
        learning_rate: 3e-3,
        warmup_steps: 0,
        ..NetTrainingConfig::default()
    };
    let mut trainer = Trainer::new(net, &config).unwrap();
    let first = trainer.train_step(&samples).unwrap();
    let mut last = first;
    for _ in 0..150 {
        last = trainer.train_step(&samples).unwrap();
    }
    assert!(
        last.loss * 3.0 < first.loss,
        "{} -> {}",
        first.loss,
        last.loss
    );

    let dir = fresh_test_path("cuda-trained");
    trainer.save_checkpoint(&dir, None).unwrap();
    let (on_cpu, _) = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu).unwrap();
    let (on_gpu, _) = PolicyValueNet::load_checkpoint(&dir, None, gpu()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let positions = sample_positions(16, 7);
    assert_close(
        &evaluate(on_gpu, &positions),
        &evaluate(on_cpu, &positions),
        1e-2,
    );
}
