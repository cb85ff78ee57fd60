//! Search speed with a free (uniform) evaluator from Abalone midgame
//! positions: what the tree search itself costs per simulation.
//! `sumito bench mcts` prints the same figures as `name: value unit` lines.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sumito_engine::midgame_positions;
use sumito_game::AbaloneGame;
use sumito_mcts::{GumbelConfig, MultiGameDriver, Search, SearchConfig, UniformEvaluator};

const SIMULATIONS: u32 = 800;
const DRIVER_GAMES: usize = 64;
const DRIVER_SIMULATIONS: u32 = 100;

fn configs() -> [(&'static str, SearchConfig); 3] {
    let puct = SearchConfig {
        simulations: SIMULATIONS,
        ..SearchConfig::default()
    };
    [
        ("puct", puct.clone()),
        (
            "gumbel",
            SearchConfig {
                gumbel: Some(GumbelConfig::default()),
                ..puct.clone()
            },
        ),
        (
            "puct_virtual_loss16",
            SearchConfig {
                virtual_loss_batch: 16,
                ..puct
            },
        ),
    ]
}

fn single_search(c: &mut Criterion) {
    let positions: Vec<AbaloneGame> = midgame_positions().into_iter().map(AbaloneGame).collect();
    let mut group = c.benchmark_group("mcts_uniform");
    group.throughput(Throughput::Elements(
        u64::from(SIMULATIONS) * positions.len() as u64,
    ));
    group.sample_size(10);
    for (name, config) in configs() {
        group.bench_function(name, |b| {
            b.iter(|| {
                for (seed, &position) in positions.iter().enumerate() {
                    let mut search = Search::new(position, config.clone(), seed as u64).unwrap();
                    black_box(search.search(&UniformEvaluator).unwrap());
                }
            })
        });
    }
    group.finish();
}

fn driver(c: &mut Criterion) {
    let positions: Vec<AbaloneGame> = midgame_positions().into_iter().map(AbaloneGame).collect();
    let mut group = c.benchmark_group("mcts_driver64_uniform");
    group.throughput(Throughput::Elements(
        u64::from(DRIVER_SIMULATIONS) * DRIVER_GAMES as u64,
    ));
    group.sample_size(10);
    for (name, config) in configs().into_iter().take(2) {
        let config = SearchConfig {
            simulations: DRIVER_SIMULATIONS,
            ..config
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut driver = MultiGameDriver::new();
                for game in 0..DRIVER_GAMES {
                    let position = positions[game % positions.len()];
                    driver.push(Search::new(position, config.clone(), game as u64).unwrap());
                }
                black_box(driver.search_all(&UniformEvaluator).unwrap());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, single_search, driver);
criterion_main!(benches);
