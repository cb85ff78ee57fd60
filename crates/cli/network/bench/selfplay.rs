//! `sumito bench selfplay`: self-play speed with the default (quick) config's
//! network and search, against the raw forward throughput of the same
//! network at the same batch size, measured in the same process; then, on a
//! machine of several cores, the two ways to lay self-play out on them side
//! by side: one driver whose network runs on every core (the quick
//! config's), and one driver a core, each with a network of its own on one
//! thread.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use anyhow::Context;
use sumito_engine::Position;
use sumito_net::encoding::{encode_position, input_len};
use sumito_net::{DirectEvaluator, PolicyValueNet, Precision, ThreadsConfig, configure_threads};
use sumito_pipeline::config::Config;
use sumito_pipeline::replay::files::ReplayFolder;
use sumito_pipeline::replay::format::SelfPlayGame;
use sumito_pipeline::selfplay::{SelfPlayStats, WorkerSettings, play_games, run_starts};
use sumito_pipeline::starts::RunStarts;

const QUICK: &str = include_str!("../../../../configs/quick.toml");
/// Rounds of (raw forward passes, then self-play); unfinished games count
/// by their moves.
const ROUNDS: u64 = 5;
const FORWARD_FOR: Duration = Duration::from_secs(1);
const SELFPLAY_FOR: Duration = Duration::from_secs(4);
/// Rounds of the two thread layouts in turn, and each one's self-play time
/// in a round.
const LAYOUT_ROUNDS: u64 = 3;
const LAYOUT_FOR: Duration = Duration::from_secs(6);

/// A self-play worker's settings under `config`, for a random network.
fn worker_settings(config: &Config) -> WorkerSettings {
    WorkerSettings {
        selfplay: config.selfplay.clone(),
        search: config.mcts.clone(),
        model_generation: 0,
        seed: 1,
    }
}

/// `batch` positions a few random plies into games from the config's layouts.
fn sample_positions(config: &Config, batch: usize) -> Vec<Position> {
    let layouts = config.rules.parsed_layouts();
    (0..batch)
        .map(|index| {
            let mut position =
                Position::start(layouts[index % layouts.len()], config.rules.rules());
            for ply in 0..(index % 24) {
                let moves = position.legal_moves();
                position = position.play(moves[(index * 7 + ply * 13) % moves.len()]);
            }
            position
        })
        .collect()
}

/// The network's inputs for [`sample_positions`], encoded as the config's
/// network takes them (with its push-off planes where it has them).
fn encoded_positions(config: &Config, batch: usize) -> Vec<f32> {
    let planes = config.net.model.push_off_planes;
    let len = input_len(planes);
    let mut inputs = vec![0.0f32; batch * len];
    for (position, out) in sample_positions(config, batch)
        .iter()
        .zip(inputs.chunks_mut(len))
    {
        encode_position(position, planes, out);
    }
    inputs
}

pub fn run(precision: Option<Precision>) -> anyhow::Result<()> {
    let mut config = Config::parse(QUICK, std::path::Path::new("configs/quick.toml"))?;
    if let Some(precision) = precision {
        config.net.inference.precision = precision;
    }
    configure_threads(&config.net.threads)?;
    let device = config.net.inference.device.resolve()?;
    let batch = config.selfplay.games_in_parallel;
    println!("config: configs/quick.toml");
    println!("batch: {batch} positions");
    println!(
        "precision: {} format",
        config.net.inference.precision.resolved(device)
    );

    let starts = run_starts::<Position>(&config.rules)?;
    let settings = worker_settings(&config);
    let out_dir =
        std::env::temp_dir().join(format!("sumito-bench-selfplay-{}", std::process::id()));
    let out_folder = ReplayFolder::local(&out_dir).context("the benchmark's game folder")?;
    // The thread layouts first: their threads end with them, while the
    // passes below keep an OpenMP team on this thread (which would count
    // against the layouts' spinning).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let layouts = if cores > 1 {
        Some(thread_layouts(
            &config,
            device,
            &starts,
            &settings,
            &out_folder,
            cores,
            (LAYOUT_ROUNDS, LAYOUT_FOR),
        ))
    } else {
        None
    };

    // Raw forward passes of the network on encoded positions.
    // Folded as self-play folds it.
    let net = PolicyValueNet::new(&config.net.model, device)?
        .for_inference(config.net.inference.precision);
    let direct = DirectEvaluator::new(net, config.net.inference.symmetry);
    let inputs = encoded_positions(&config, batch);
    direct.run_encoded(&inputs, batch)?; // warm-up

    // Raw forward passes and self-play take turns, so that both see the same
    // machine (the load of a shared machine drifts).
    let (mut raw_rows, mut raw_time) = (0u64, Duration::ZERO);
    let mut stats = SelfPlayStats::default();
    let mut selfplay_time = Duration::ZERO;
    for round in 0..ROUNDS {
        let started = Instant::now();
        while started.elapsed() < FORWARD_FOR {
            direct.run_encoded(&inputs, batch)?;
            raw_rows += batch as u64;
        }
        raw_time += started.elapsed();
        let quota = AtomicU64::new(u64::MAX);
        let started = Instant::now();
        let stop = || started.elapsed() >= SELFPLAY_FOR;
        let settings = WorkerSettings {
            seed: round,
            ..settings.clone()
        };
        let round_stats = play_games::<SelfPlayGame, _>(
            &starts,
            &direct,
            &settings,
            &out_folder,
            &quota,
            &stop,
            &|_| {},
        )
        .context("self-play for the benchmark")?;
        selfplay_time += started.elapsed();
        stats.add(&round_stats);
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    let raw = raw_rows as f64 / raw_time.as_secs_f64();
    let elapsed = selfplay_time.as_secs_f64();
    let evals = stats.evaluations as f64 / elapsed;
    println!("raw_forward_evaluations_per_second: {raw:.0} evals/s");
    println!(
        "selfplay_positions_per_second: {:.1} positions/s",
        stats.moves as f64 / elapsed
    );
    println!("selfplay_evaluations_per_second: {evals:.0} evals/s");
    println!("selfplay_to_raw_forward_ratio: {:.3} ratio", evals / raw);
    println!(
        "selfplay_share_outside_network: {:.3} share",
        1.0 - stats.evaluator_time.as_secs_f64() / elapsed
    );
    if let Some(layouts) = layouts {
        let [one_driver, drivers] = layouts?;
        println!("cores: {cores}");
        println!(
            "selfplay_one_driver_{cores}_threads_positions_per_second: {one_driver:.1} positions/s"
        );
        println!(
            "selfplay_{cores}_drivers_one_thread_each_positions_per_second: {drivers:.1} positions/s"
        );
        println!(
            "selfplay_drivers_to_one_driver_ratio: {:.3} ratio",
            drivers / one_driver
        );
    }
    Ok(())
}

/// Self-play's positions/s on `cores` cores laid out two ways, in turn for
/// `rounds` rounds of `each` a layout, so that both see the same machine: one driver
/// of `games_in_parallel` games whose network runs on `cores` threads (the
/// quick config's layout on 2 cores), and `cores` drivers of as many games
/// each, one a core (pinned), each with a network of its own on one thread.
/// Each layout runs on threads that end with its round, so that no OpenMP
/// team outlives it (libgomp stops spinning once it manages more threads
/// than cores).
fn thread_layouts(
    config: &Config,
    device: sumito_net::Device,
    starts: &RunStarts<Position>,
    settings: &WorkerSettings,
    out: &ReplayFolder,
    cores: usize,
    (rounds, each): (u64, Duration),
) -> anyhow::Result<[f64; 2]> {
    let core_ids = core_affinity::get_core_ids().unwrap_or_default();
    let mut moves = [0u64; 2];
    let mut time = [Duration::ZERO; 2];
    for round in 0..rounds {
        for (layout, drivers, threads) in [(0, 1, cores), (1, cores, 1)] {
            configure_threads(&ThreadsConfig {
                intra_op: threads,
                ..config.net.threads
            })?;
            let evaluators = (0..drivers)
                .map(|_| {
                    let net = PolicyValueNet::new(&config.net.model, device)?
                        .for_inference(config.net.inference.precision);
                    Ok(DirectEvaluator::new(net, config.net.inference.symmetry))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let started = Instant::now();
            let stop = || started.elapsed() >= each;
            let results: Vec<anyhow::Result<SelfPlayStats>> = std::thread::scope(|scope| {
                let handles: Vec<_> = evaluators
                    .iter()
                    .enumerate()
                    .map(|(driver, evaluator)| {
                        let core = (drivers > 1 && !core_ids.is_empty())
                            .then(|| core_ids[driver % core_ids.len()]);
                        let settings = WorkerSettings {
                            seed: round * 64 + driver as u64,
                            ..settings.clone()
                        };
                        let stop = &stop;
                        scope.spawn(move || -> anyhow::Result<SelfPlayStats> {
                            if let Some(core) = core {
                                core_affinity::set_for_current(core);
                            }
                            let quota = AtomicU64::new(u64::MAX);
                            play_games::<SelfPlayGame, _>(
                                starts,
                                evaluator,
                                &settings,
                                out,
                                &quota,
                                stop,
                                &|_| {},
                            )
                            .context("self-play for the benchmark's thread layouts")
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| handle.join().expect("a self-play driver panicked"))
                    .collect()
            });
            time[layout] += started.elapsed();
            for result in results {
                moves[layout] += result?.moves;
            }
        }
    }
    configure_threads(&config.net.threads)?;
    Ok([0, 1].map(|layout| moves[layout] as f64 / time[layout].as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw forward passes take the positions as the quick config's
    /// network does (they once lacked its push-off planes, and the
    /// benchmark stopped at its first pass).
    #[test]
    fn the_raw_passes_feed_the_quick_configs_network() {
        let config = Config::parse(QUICK, std::path::Path::new("configs/quick.toml")).unwrap();
        let device = config.net.inference.device.resolve().unwrap();
        let net = PolicyValueNet::new(&config.net.model, device)
            .unwrap()
            .for_inference(Precision::F32);
        let direct = DirectEvaluator::new(net, config.net.inference.symmetry);
        direct
            .run_encoded(&encoded_positions(&config, 2), 2)
            .unwrap();
    }

    /// Both thread layouts play games on two cores (whatever the machine
    /// has: pinning wraps around), and each one's positions are counted.
    #[test]
    fn both_thread_layouts_play_and_are_counted() {
        let mut config = Config::parse(QUICK, std::path::Path::new("configs/quick.toml")).unwrap();
        config.selfplay.games_in_parallel = 4;
        config.net.inference.precision = Precision::F32;
        let starts = run_starts::<Position>(&config.rules).unwrap();
        let settings = worker_settings(&config);
        let dir =
            std::env::temp_dir().join(format!("sumito-bench-layouts-test-{}", std::process::id()));
        let out = ReplayFolder::local(&dir).unwrap();
        let [one_driver, drivers] = thread_layouts(
            &config,
            sumito_net::Device::Cpu,
            &starts,
            &settings,
            &out,
            2,
            (1, Duration::from_millis(300)),
        )
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(one_driver > 0.0 && drivers > 0.0, "{one_driver} {drivers}");
    }
}
