//! `sumito bench mcts`: speed of the tree search itself, one thread, with a
//! free (uniform) evaluator, from Abalone midgame positions. With a real
//! network the evaluator dominates; these figures say how little the search
//! adds and how large the batches of the multi-game driver are.

use std::time::{Duration, Instant};

use anyhow::Context;
use sumito_engine::midgame_positions;
use sumito_game::AbaloneGame;
use sumito_mcts::{GumbelConfig, MultiGameDriver, Search, SearchConfig, UniformEvaluator};

/// How long each measurement runs.
const MEASURE_FOR: Duration = Duration::from_millis(1500);
/// Simulations per move of a single search.
const SIMULATIONS: u32 = 800;
/// Games and simulations per move of the multi-game driver (self-play sizes).
const DRIVER_GAMES: usize = 64;
const DRIVER_SIMULATIONS: u32 = 100;

/// Runs `round` until [`MEASURE_FOR`] has passed; returns simulations per
/// second, where `round` returns the simulations it ran.
fn sims_per_second(mut round: impl FnMut() -> anyhow::Result<u64>) -> anyhow::Result<f64> {
    let started = Instant::now();
    let mut simulations = 0;
    while started.elapsed() < MEASURE_FOR {
        simulations += round()?;
    }
    Ok(simulations as f64 / started.elapsed().as_secs_f64())
}

pub fn run() -> anyhow::Result<()> {
    let positions: Vec<AbaloneGame> = midgame_positions().into_iter().map(AbaloneGame).collect();
    let puct = SearchConfig {
        simulations: SIMULATIONS,
        ..SearchConfig::default()
    };
    let gumbel = SearchConfig {
        gumbel: Some(GumbelConfig::default()),
        ..puct.clone()
    };
    let virtual_loss = SearchConfig {
        virtual_loss_batch: 16,
        ..puct.clone()
    };

    // One search of each midgame position with a fresh tree.
    for (name, config) in [
        ("puct", &puct),
        ("gumbel", &gumbel),
        ("puct_virtual_loss16", &virtual_loss),
    ] {
        let mut seed = 0;
        let rate = sims_per_second(|| {
            for &position in &positions {
                seed += 1;
                Search::new(position, config.clone(), seed)?
                    .search(&UniformEvaluator)
                    .with_context(|| format!("{name} search of {position}"))?;
            }
            Ok(u64::from(SIMULATIONS) * positions.len() as u64)
        })?;
        println!("mcts_{name}_uniform_sims_per_second: {rate:.0} sims/s");
    }

    // Self-play as the pipeline runs it: many games, one evaluator call per
    // round, moves played with tree reuse, finished games replaced.
    for (name, config) in [("puct", &puct), ("gumbel", &gumbel)] {
        let config = SearchConfig {
            simulations: DRIVER_SIMULATIONS,
            ..config.clone()
        };
        let mut next_game = 0;
        let mut new_search = || {
            next_game += 1;
            Search::new(
                positions[next_game % positions.len()],
                config.clone(),
                next_game as u64,
            )
        };
        let mut driver = MultiGameDriver::new();
        for _ in 0..DRIVER_GAMES {
            driver.push(new_search()?);
        }
        let (mut rounds, mut states) = (0u64, 0u64);
        let rate = sims_per_second(|| {
            let results = driver
                .step(&UniformEvaluator)
                .context("multi-game driver round")?;
            rounds += 1;
            states += driver.last_batch_size() as u64;
            let mut simulations = 0;
            for (index, result) in results {
                simulations += u64::from(result.simulations);
                let search = driver.search_mut(index);
                search.advance(result.action)?;
                if search.is_game_over() {
                    driver.replace(index, new_search()?);
                }
            }
            Ok(simulations)
        })?;
        println!("mcts_driver{DRIVER_GAMES}_{name}_uniform_sims_per_second: {rate:.0} sims/s");
        println!(
            "mcts_driver{DRIVER_GAMES}_{name}_mean_batch: {:.1} states",
            states as f64 / rounds as f64
        );
    }
    Ok(())
}
