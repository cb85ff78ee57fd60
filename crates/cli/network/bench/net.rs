//! `sumito bench net`: speed of the network on one device: raw forward passes
//! per preset and batch size, the batched inference service against a raw
//! forward pass at the same batch size, and training samples per second.

use std::time::{Duration, Instant};

use anyhow::Context;
use sumito_engine::{Layout, Position, Rules, random_playout};
use sumito_net::bench_support::{ReferenceResNet, encode_batch, training_samples};
use sumito_net::{
    DeviceSpec, InferenceConfig, InferenceService, NetConfig, PolicyValueNet, PositionEvaluator,
    Precision, Trainer, configure_threads, intra_op_threads, run_packed,
};

/// Minimum time of each measurement (at least one timed run is always made).
const MEASURE_FOR: Duration = Duration::from_millis(1500);
const WARM_UP: Duration = Duration::from_millis(500);
const BATCH_SIZES: [usize; 4] = [1, 16, 64, 256];
/// The service comparison: batch size, and callers (two batches' worth, so
/// that a full batch is waiting whenever a forward pass ends).
const SERVICE_BATCH: usize = 64;
const SERVICE_CALLERS: usize = 2 * SERVICE_BATCH;
const TRAIN_BATCH: usize = 256;

/// Calls `work` (which does `items` items) until [`MEASURE_FOR`] has passed;
/// returns items per second. A warm-up of [`WARM_UP`] (at least one call)
/// comes first: libtorch's first calls at a new shape are slower.
fn throughput(items: usize, mut work: impl FnMut() -> anyhow::Result<()>) -> anyhow::Result<f64> {
    let warming = Instant::now();
    work()?;
    while warming.elapsed() < WARM_UP {
        work()?;
    }
    let started = Instant::now();
    let mut runs = 0usize;
    while runs == 0 || started.elapsed() < MEASURE_FOR {
        work()?;
        runs += 1;
    }
    Ok((runs * items) as f64 / started.elapsed().as_secs_f64())
}

/// Positions from random games: varied, and all still in play.
fn sample_positions(count: usize) -> Vec<Position> {
    let start = Position::start(Layout::BelgianDaisy, Rules::default());
    let mut positions: Vec<Position> = Vec::with_capacity(count);
    let mut seed = 0;
    while positions.len() < count {
        positions.extend(
            random_playout(&start, 80, seed)
                .into_iter()
                .filter(|position| position.ending().is_none()),
        );
        seed += 1;
    }
    positions.truncate(count);
    positions
}

/// One round of [`SERVICE_CALLERS`] threads asking for one position at a
/// time; returns evaluations per second.
fn service_round(service: &InferenceService, positions: &[Position]) -> anyhow::Result<f64> {
    const PER_CALLER: usize = 30;
    let started = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let callers: Vec<_> = (0..SERVICE_CALLERS)
            .map(|caller| {
                let client = service.client();
                scope.spawn(move || -> anyhow::Result<()> {
                    for request in 0..PER_CALLER {
                        let position = positions[(caller * 7 + request) % positions.len()];
                        client.evaluate_positions(&[position])?;
                    }
                    Ok(())
                })
            })
            .collect();
        for caller in callers {
            caller.join().expect("bench caller thread panicked")?;
        }
        Ok(())
    })?;
    Ok((SERVICE_CALLERS * PER_CALLER) as f64 / started.elapsed().as_secs_f64())
}

pub fn run(device: DeviceSpec) -> anyhow::Result<()> {
    let small = NetConfig::preset("small")?;
    configure_threads(&small.threads)?;
    let torch_device = device.resolve()?;
    println!("device: {device}");
    println!("torch_intra_op_threads: {} threads", intra_op_threads());
    // main.rs restarts the program with PASSIVE and a short spin when they
    // are unset; values the user set (ACTIVE spins) are shown, since they
    // change timings.
    for variable in ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT"] {
        let value = std::env::var(variable).unwrap_or_else(|_| "unset".to_owned());
        println!("{}: {value} setting", variable.to_lowercase());
    }
    let positions = sample_positions(256);

    for preset in ["small", "large"] {
        let config = NetConfig::preset(preset)?;
        let net = PolicyValueNet::new(&config.model, torch_device)?;
        let name = format!(
            "net_{preset}_{}x{}",
            config.model.blocks, config.model.channels
        );
        println!("{name}_parameters: {} params", net.parameter_count());
        // Twins of the same shape prepared for inference, in 32 bits and in
        // bfloat16 (the speed does not depend on the weights' values).
        let twin = |precision| {
            anyhow::Ok(PolicyValueNet::new(&config.model, torch_device)?.for_inference(precision))
        };
        let folded = twin(Precision::F32)?;
        let bf16 = twin(Precision::Bf16)?;
        for batch in BATCH_SIZES {
            let inputs = encode_batch(&positions[..batch]);
            let forward = |net: &PolicyValueNet| {
                throughput(batch, || {
                    run_packed(net, &inputs, batch)?;
                    Ok(())
                })
                .with_context(|| format!("forward pass of {name} at batch {batch}"))
            };
            let plain = forward(&net)?;
            let fast = forward(&folded)?;
            println!("{name}_forward_batch{batch}: {plain:.1} evals/s");
            println!("{name}_folded_forward_batch{batch}: {fast:.1} evals/s");
            println!(
                "{name}_folded_over_plain_batch{batch}: {:.3} ratio",
                fast / plain
            );
            let half = forward(&bf16)?;
            println!("{name}_folded_bf16_forward_batch{batch}: {half:.1} evals/s");
            println!(
                "{name}_bf16_over_f32_batch{batch}: {:.3} ratio",
                half / fast
            );
        }
    }

    // The service against a raw forward pass of the same batch size, in the
    // same process, on the small preset prepared for inference as configured.
    // Measured in alternation, so that a change of load on the machine
    // affects both alike.
    let precision = small.inference.precision;
    println!(
        "inference_precision: {} format",
        precision.resolved(torch_device)
    );
    let net = PolicyValueNet::new(&small.model, torch_device)?.for_inference(precision);
    let inputs = encode_batch(&positions[..SERVICE_BATCH]);
    let raw_round = |net: &PolicyValueNet| {
        throughput(SERVICE_BATCH, || {
            run_packed(net, &inputs, SERVICE_BATCH)?;
            Ok(())
        })
    };
    let mut raw_rates = vec![raw_round(&net)?];
    let service_config = InferenceConfig {
        device,
        max_batch: SERVICE_BATCH,
        ..small.inference.clone()
    };
    let service = InferenceService::start(net, &service_config)?;
    let mut service_rates = Vec::new();
    for round in 0..3 {
        let rate = service_round(&service, &positions)?;
        // The first round warms up the callers' threads.
        if round > 0 {
            service_rates.push(rate);
            // The raw forward pass again, through the service's own model
            // would need it back: use a twin network of the same shape.
            raw_rates.push(raw_round(
                &PolicyValueNet::new(&small.model, torch_device)?.for_inference(precision),
            )?);
        }
    }
    let mean = |rates: &[f64]| rates.iter().sum::<f64>() / rates.len() as f64;
    let (raw, served) = (mean(&raw_rates), mean(&service_rates));
    let stats = service.stats();
    println!("service_raw_forward_batch{SERVICE_BATCH}: {raw:.1} evals/s");
    println!("service_{SERVICE_CALLERS}_callers_batch{SERVICE_BATCH}: {served:.1} evals/s");
    println!("service_mean_batch: {:.1} positions", stats.mean_batch());
    println!("service_over_raw: {:.3} ratio", served / raw);
    drop(service);

    // Training: AdamW steps at batch 256 on the small preset.
    let net = PolicyValueNet::new(&small.model, torch_device)?;
    let mut trainer = Trainer::new(net, &small.training)?;
    let samples = training_samples(&positions[..TRAIN_BATCH]);
    let mut train_round = || {
        throughput(TRAIN_BATCH, || {
            trainer.train_step(&samples)?;
            Ok(())
        })
    };
    let rate = train_round()?;
    println!(
        "train_small_{}_batch{TRAIN_BATCH}: {rate:.1} samples/s",
        small.training.optimizer.name()
    );

    // The yardstick: a plain ResNet of the small preset's trunk, written with
    // libtorch's defaults, against the network in alternation (as above).
    let (blocks, channels) = (small.model.blocks, small.model.channels);
    let reference = ReferenceResNet::new(blocks, channels, torch_device);
    let name = format!("reference_resnet_{blocks}x{channels}");
    let inputs = encode_batch(&positions[..SERVICE_BATCH]);
    let input = reference.input_tensor(&inputs, SERVICE_BATCH);
    let ours = PolicyValueNet::new(&small.model, torch_device)?.for_inference(Precision::F32);
    let (mut reference_rates, mut our_rates) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        reference_rates.push(throughput(SERVICE_BATCH, || {
            let _ = reference.infer(&input);
            Ok(())
        })?);
        our_rates.push(raw_round(&ours)?);
    }
    let (theirs, ours) = (mean(&reference_rates), mean(&our_rates));
    println!("{name}_forward_batch{SERVICE_BATCH}: {theirs:.1} evals/s");
    // Ours again, from the alternating rounds (the table above was timed
    // earlier, on a machine whose speed may have drifted since).
    println!("net_small_f32_alternating_forward_batch{SERVICE_BATCH}: {ours:.1} evals/s");
    println!(
        "net_small_f32_over_reference_batch{SERVICE_BATCH}: {:.3} ratio",
        ours / theirs
    );

    let input = reference.input_tensor(&encode_batch(&positions[..TRAIN_BATCH]), TRAIN_BATCH);
    let mut optimizer = reference.optimizer(1e-3)?;
    let (mut reference_rates, mut our_rates) = (Vec::new(), vec![rate]);
    for round in 0..2 {
        reference_rates.push(throughput(TRAIN_BATCH, || {
            reference.train_step(&mut optimizer, &input);
            Ok(())
        })?);
        if round == 0 {
            our_rates.push(train_round()?);
        }
    }
    let (theirs, ours) = (mean(&reference_rates), mean(&our_rates));
    println!("{name}_train_adamw_batch{TRAIN_BATCH}: {theirs:.1} samples/s");
    println!("train_small_alternating_batch{TRAIN_BATCH}: {ours:.1} samples/s");
    println!(
        "train_small_over_reference_batch{TRAIN_BATCH}: {:.3} ratio",
        ours / theirs
    );
    Ok(())
}
