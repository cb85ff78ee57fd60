//! `sumito bench selfplay`, its CPU side: the quick config's self-play as a
//! run plays it (`sumito_pipeline::selfplay::play_games`: the multi-game
//! driver, the network's encoding of every leaf with the push-off planes and
//! the decoding of its answer, the records, the replay files), with only the
//! network replaced by an instant answer (`sumito_net::InstantEvaluator`).
//! It reports one thread's positions per second, where its time goes, and
//! the scaling from 1 to N threads, the rounds of one thread and of N
//! taking turns so that both see the same machine. Each thread is pinned to
//! a core of its own, and the replay writer it starts inherits that core:
//! one thread is then one core's work, as in a run with a worker on every
//! core. (Unpinned, one thread's writer ran on an idle core for free, a
//! third of a core at these rates, and the scaling understated the cores'.)

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use anyhow::Context;
use sumito_cli::commands::bench::selfplay::Args;
use sumito_engine::Position;
use sumito_game::AbaloneGame;
use sumito_mcts::{EvalBatch, EvalError, Evaluator, Game};
use sumito_net::InstantEvaluator;
use sumito_pipeline::config::Config;
use sumito_pipeline::replay::files::ReplayFolder;
use sumito_pipeline::replay::format::SelfPlayGame;
use sumito_pipeline::selfplay::{SelfPlayStats, WorkerSettings, play_games, run_starts};
use sumito_pipeline::starts::RunStarts;

const QUICK: &str = include_str!("../../../../configs/quick.toml");
/// Rounds of (one thread, then N threads), each playing for [`ROUND_FOR`];
/// unfinished games count by their moves.
const ROUNDS: u64 = 3;
const ROUND_FOR: Duration = Duration::from_secs(3);
/// An unmeasured round first, so that the first measured one does not pay
/// for what a process does once (the tables built on first use, the memory
/// first touched).
const WARM_UP_FOR: Duration = Duration::from_millis(500);
/// Leaves kept to time their move generation again after the run.
const LEAF_SAMPLE: usize = 4096;
/// How long the move generation of the kept leaves is timed.
const MOVEGEN_FOR: Duration = Duration::from_millis(200);

/// How much each thread plays in a round.
#[derive(Clone, Copy, Debug)]
enum Work {
    For(Duration),
    Games(u64),
}

/// Passes batches to the instant evaluator and keeps an even sample of
/// their states (every `stride`-th; when full, every other one is dropped
/// and the stride doubles).
struct LeafSample<'a> {
    inner: &'a InstantEvaluator,
    kept: Mutex<(Vec<Position>, u64, u64)>,
}

impl<'a> LeafSample<'a> {
    fn new(inner: &'a InstantEvaluator) -> LeafSample<'a> {
        LeafSample {
            inner,
            kept: Mutex::new((Vec::new(), 0, 1)),
        }
    }

    fn into_leaves(self) -> Vec<Position> {
        self.kept
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0
    }
}

impl Evaluator<AbaloneGame> for LeafSample<'_> {
    fn evaluate(&self, batch: &mut EvalBatch<AbaloneGame>) -> Result<(), EvalError> {
        {
            let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            let (leaves, seen, stride) = &mut *kept;
            for state in batch.states() {
                if *seen % *stride == 0 {
                    if leaves.len() == LEAF_SAMPLE {
                        let mut index = 0;
                        leaves.retain(|_| {
                            index += 1;
                            index % 2 == 1
                        });
                        *stride *= 2;
                    }
                    if *seen % *stride == 0 {
                        leaves.push(state.0);
                    }
                }
                *seen += 1;
            }
        }
        self.inner.evaluate(batch)
    }
}

/// What the threads of one round played, and how long it took.
#[derive(Default)]
struct Round {
    stats: SelfPlayStats,
    /// Time inside the instant evaluator's answers.
    answer_time: Duration,
    wall: Duration,
    leaves: Vec<Position>,
}

/// The settings and places every round shares.
struct Bench {
    config: Config,
    starts: RunStarts<Position>,
    folder: ReplayFolder,
    /// The cores the threads are pinned to, thread `k` to the `k`-th (in
    /// turn when there are more threads); none: unpinned.
    cores: Vec<core_affinity::CoreId>,
}

impl Bench {
    /// One round of `threads` self-play workers, each with its own
    /// evaluator and games (a run's workers), seeded from `seed`.
    fn round(&self, threads: u64, seed: u64, work: Work) -> anyhow::Result<Round> {
        let config = &self.config;
        let started = Instant::now();
        let stop = || matches!(work, Work::For(limit) if started.elapsed() >= limit);
        let results: Vec<anyhow::Result<Round>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|worker| {
                    let stop = &stop;
                    scope.spawn(move || -> anyhow::Result<Round> {
                        // (Before its writer starts, which inherits it.)
                        if !self.cores.is_empty() {
                            let core = self.cores[worker as usize % self.cores.len()];
                            core_affinity::set_for_current(core);
                        }
                        let evaluator = InstantEvaluator::new(
                            config.net.model.push_off_planes,
                            config.net.inference.symmetry,
                        )
                        .with_score_utility(config.selfplay.score_utility)
                        .with_material_utility(config.selfplay.material_utility);
                        let sample = LeafSample::new(&evaluator);
                        let settings = WorkerSettings {
                            selfplay: config.selfplay.clone(),
                            search: config.mcts.clone(),
                            model_generation: 0,
                            seed: seed + worker,
                        };
                        let quota = AtomicU64::new(match work {
                            Work::For(_) => u64::MAX,
                            Work::Games(games) => games,
                        });
                        let stats = play_games::<SelfPlayGame, _>(
                            &self.starts,
                            &sample,
                            &settings,
                            &self.folder,
                            &quota,
                            stop,
                            &|_| {},
                        )
                        .context("self-play for the benchmark")?;
                        Ok(Round {
                            stats,
                            answer_time: evaluator.answer_time(),
                            wall: Duration::ZERO,
                            leaves: sample.into_leaves(),
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("a benchmark thread panicked"))
                .collect()
        });
        let mut round = Round {
            wall: started.elapsed(),
            ..Round::default()
        };
        for result in results {
            let thread = result?;
            round.stats.add(&thread.stats);
            round.answer_time += thread.answer_time;
            round.leaves.extend(thread.leaves);
        }
        Ok(round)
    }
}

/// The time the search's expansion of one leaf spends generating its legal
/// moves, measured on `leaves` (the same call the search makes).
fn legal_moves_time_per_leaf(leaves: &[Position]) -> Duration {
    if leaves.is_empty() {
        return Duration::ZERO;
    }
    let mut actions = Vec::new();
    let (mut calls, started) = (0u32, Instant::now());
    while calls == 0 || started.elapsed() < MOVEGEN_FOR {
        for &leaf in leaves {
            AbaloneGame(leaf).legal_actions(&mut actions);
            std::hint::black_box(&actions);
        }
        calls += leaves.len() as u32;
    }
    started.elapsed() / calls
}

/// Where one thread's time went, as shares of its self-play time.
#[derive(Debug, PartialEq)]
struct Shares {
    encoding: f64,
    move_generation: f64,
    search: f64,
    bookkeeping: f64,
    network: f64,
}

impl Shares {
    /// The evaluator's time less the answers' is encoding and decoding;
    /// the driver's rounds less the evaluator and the leaves' move
    /// generation is the search; the rest of the time is bookkeeping.
    fn of(stats: &SelfPlayStats, answer: Duration, movegen: Duration, total: Duration) -> Shares {
        let total = total.as_secs_f64().max(f64::MIN_POSITIVE);
        let evaluator = stats.evaluator_time.as_secs_f64();
        let search = stats.search_time.as_secs_f64();
        let (answer, movegen) = (answer.as_secs_f64(), movegen.as_secs_f64());
        Shares {
            encoding: (evaluator - answer).max(0.0) / total,
            move_generation: movegen / total,
            search: (search - evaluator - movegen).max(0.0) / total,
            bookkeeping: (total - search).max(0.0) / total,
            network: answer / total,
        }
    }
}

/// The threads of the scaling: `--scale-to`, or the cores this process may
/// run on.
fn scale_to(args: &Args) -> u64 {
    args.scale_to.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, |cores| cores.get() as u64)
    })
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let config = Config::parse(QUICK, std::path::Path::new("configs/quick.toml"))?;
    let threads = scale_to(args);
    let (work, rounds) = match args.games {
        Some(games) => (Work::Games(games), 1),
        None => (Work::For(ROUND_FOR), ROUNDS),
    };
    println!("instant_config: configs/quick.toml, its network replaced by an instant answer");
    println!(
        "instant_work: {}",
        match work {
            Work::For(time) => format!("{rounds} rounds of {} s", time.as_secs_f64()),
            Work::Games(games) => format!("{games} games a thread"),
        }
    );
    let out_dir = std::env::temp_dir().join(format!(
        "sumito-bench-selfplay-instant-{}",
        std::process::id()
    ));
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    match cores.len() {
        0 => println!("instant_pinning: none (this system does not say its cores)"),
        _ => println!(
            "instant_pinning: each thread and its replay writer on a core of its own ({} cores)",
            cores.len()
        ),
    }
    let bench = Bench {
        starts: run_starts::<Position>(&config.rules)?,
        folder: ReplayFolder::local(&out_dir).context("the benchmark's game folder")?,
        config,
        cores,
    };
    let measured = measure(&bench, threads, work, rounds);
    let _ = std::fs::remove_dir_all(&out_dir);
    let (one, many) = measured?;

    let one_wall = one.wall.as_secs_f64();
    let movegen = legal_moves_time_per_leaf(&one.leaves) * one.stats.evaluations as u32;
    let shares = Shares::of(&one.stats, one.answer_time, movegen, one.wall);
    println!("instant_selfplay_positions: {} positions", one.stats.moves);
    println!(
        "instant_selfplay_positions_per_second: {:.0} positions/s",
        one.stats.moves as f64 / one_wall
    );
    println!(
        "instant_selfplay_evaluations_per_second: {:.0} evals/s",
        one.stats.evaluations as f64 / one_wall
    );
    println!(
        "instant_selfplay_share_encoding: {:.3} share",
        shares.encoding
    );
    println!(
        "instant_selfplay_share_move_generation: {:.3} share",
        shares.move_generation
    );
    println!("instant_selfplay_share_search: {:.3} share", shares.search);
    println!(
        "instant_selfplay_share_bookkeeping: {:.3} share",
        shares.bookkeeping
    );
    println!(
        "instant_selfplay_share_network: {:.3} share",
        shares.network
    );
    match many {
        Some(many) => {
            let rate = many.stats.moves as f64 / many.wall.as_secs_f64();
            let one_rate = one.stats.moves as f64 / one_wall;
            println!(
                "instant_selfplay_positions_per_second_{threads}_threads: {rate:.0} positions/s"
            );
            println!(
                "instant_selfplay_scaling_1_to_{threads}_threads: {:.3} ratio",
                rate / one_rate
            );
        }
        None => println!(
            "instant_selfplay_scaling: not measured (one thread; this process may run on one core, `--scale-to N` asks for N)"
        ),
    }
    Ok(())
}

/// The rounds of one thread and of `threads` (none when that is 1), taking
/// turns; returns the sums of each.
fn measure(
    bench: &Bench,
    threads: u64,
    work: Work,
    rounds: u64,
) -> anyhow::Result<(Round, Option<Round>)> {
    if let Work::For(_) = work {
        bench.round(1, u64::MAX / 2, Work::For(WARM_UP_FOR))?;
    }
    let mut one = Round::default();
    let mut many = (threads > 1).then(Round::default);
    for round in 0..rounds {
        // Seeds apart by more than any thread count, so that no two
        // workers play the same games.
        let seed = round * 1_000_000;
        add(&mut one, bench.round(1, seed, work)?);
        if let Some(many) = &mut many {
            add(many, bench.round(threads, seed + 1, work)?);
        }
    }
    Ok((one, many))
}

fn add(total: &mut Round, round: Round) {
    total.stats.add(&round.stats);
    total.answer_time += round.answer_time;
    total.wall += round.wall;
    total.leaves.extend(round.leaves);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_round_plays_its_games_to_the_end_and_accounts_for_its_time() {
        let mut config = Config::parse(QUICK, std::path::Path::new("configs/quick.toml")).unwrap();
        config.selfplay.games_in_parallel = 4;
        config.rules =
            sumito_pipeline::config::RunRules::from(sumito_engine::rules_table::RulesTable {
                max_plies: Some(12),
                layouts: Some(vec!["belgian-daisy".into()]),
                ..Default::default()
            });
        let dir = std::env::temp_dir().join(format!(
            "sumito-bench-selfplay-instant-test-{}",
            std::process::id()
        ));
        let bench = Bench {
            starts: run_starts::<Position>(&config.rules).unwrap(),
            folder: ReplayFolder::local(&dir).unwrap(),
            config,
            cores: core_affinity::get_core_ids().unwrap_or_default(),
        };
        let (one, many) = measure(&bench, 2, Work::Games(3), 1).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let many = many.unwrap();
        assert_eq!(one.stats.games, 3);
        assert_eq!(many.stats.games, 6, "two threads, three games each");
        // Games of 12 plies: every move of every game counted.
        assert_eq!(one.stats.moves, 3 * 12);
        assert!(one.stats.evaluations > one.stats.moves);
        assert!(!one.leaves.is_empty() && one.leaves.len() <= LEAF_SAMPLE);
        let movegen = legal_moves_time_per_leaf(&one.leaves) * one.stats.evaluations as u32;
        let shares = Shares::of(&one.stats, one.answer_time, movegen, one.wall);
        let sum = shares.encoding
            + shares.move_generation
            + shares.search
            + shares.bookkeeping
            + shares.network;
        assert!(shares.encoding > 0.0 && shares.search > 0.0, "{shares:?}");
        assert!((0.9..=1.1).contains(&sum), "{shares:?}");
    }

    #[test]
    fn the_leaf_sample_stays_even_and_bounded() {
        let evaluator = InstantEvaluator::new(true, sumito_net::SymmetryMode::None);
        let sample = LeafSample::new(&evaluator);
        let start = Position::start(sumito_engine::Layout::Standard, Default::default());
        let mut legal = Vec::new();
        AbaloneGame(start).legal_actions(&mut legal);
        for _ in 0..(3 * LEAF_SAMPLE / 64) {
            let mut batch = EvalBatch::new();
            for _ in 0..64 {
                batch.push(AbaloneGame(start), &legal);
            }
            sample.evaluate(&mut batch).unwrap();
        }
        let (leaves, seen, stride) = &*sample.kept.lock().unwrap();
        assert_eq!(*seen as usize, 3 * LEAF_SAMPLE);
        assert_eq!(*stride, 4);
        assert_eq!(leaves.len(), 3 * LEAF_SAMPLE / 4);
    }
}
