//! `sumito bench selfplay`: self-play speed with the default (quick) config's
//! network and search, against the raw forward throughput of the same
//! network at the same batch size, measured in the same process.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use anyhow::Context;
use sumito_engine::Position;
use sumito_net::encoding::{encode_position, input_len};
use sumito_net::{DirectEvaluator, PolicyValueNet, Precision, configure_threads};
use sumito_pipeline::config::Config;
use sumito_pipeline::replay::files::ReplayFolder;
use sumito_pipeline::replay::format::SelfPlayGame;
use sumito_pipeline::selfplay::{SelfPlayStats, WorkerSettings, play_games, run_starts};

const QUICK: &str = include_str!("../../../../configs/quick.toml");
/// Rounds of (raw forward passes, then self-play); unfinished games count
/// by their moves.
const ROUNDS: u64 = 5;
const FORWARD_FOR: Duration = Duration::from_secs(1);
const SELFPLAY_FOR: Duration = Duration::from_secs(4);

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

    // Raw forward passes of the network on encoded positions.
    // Folded as self-play folds it.
    let net = PolicyValueNet::new(&config.net.model, device)?
        .for_inference(config.net.inference.precision);
    let direct = DirectEvaluator::new(net, config.net.inference.symmetry);
    let inputs = encoded_positions(&config, batch);
    direct.run_encoded(&inputs, batch)?; // warm-up

    // Raw forward passes and self-play take turns, so that both see the same
    // machine (the load of a shared machine drifts).
    let starts = run_starts::<Position>(&config.rules)?;
    let settings = WorkerSettings {
        selfplay: config.selfplay.clone(),
        search: config.mcts.clone(),
        model_generation: 0,
        seed: 1,
    };
    let out_dir =
        std::env::temp_dir().join(format!("sumito-bench-selfplay-{}", std::process::id()));
    let out_folder = ReplayFolder::local(&out_dir).context("the benchmark's game folder")?;
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
    Ok(())
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
}
