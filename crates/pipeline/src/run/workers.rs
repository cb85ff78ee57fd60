//! Self-play with one model on the run's worker threads: the network shared
//! by the workers, the quota of games, and following the best model.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sumito_game::with_board;
use sumito_mcts::Evaluator;
use sumito_net::{DirectEvaluator, InferenceService, NetGame, PolicyValueNet};

use super::display::Ui;
use crate::config::Config;
use crate::error::{PipelineError, Result};
use crate::models::{device, load_model};
use crate::replay::files::ReplayFolder;
use crate::replay::replay_game::ReplayGame;
use crate::run_board::RunBoard;
use crate::rundir::RunDir;
use crate::selfplay::{SelfPlayStats, WorkerSettings, play_games, run_starts};

/// One self-play worker's work: with its evaluator and number, into the
/// replay folder, taking games from the quota until it is spent or `stop()`;
/// `on_game` gets each finished game's positions.
pub(super) type SelfPlayWork<'a, G> = dyn Fn(
        &dyn Evaluator<G>,
        usize,
        &ReplayFolder,
        &AtomicU64,
        &(dyn Fn() -> bool + Sync),
        &(dyn Fn(u64) + Sync),
    ) -> Result<SelfPlayStats>
    + Sync
    + 'a;

/// Self-play of `games` games with generation `generation`'s model, on
/// `selfplay.workers` threads sharing one network: two-player games, or
/// the general game's when the rules say. With `follow_best`, no new game
/// starts once another model became the best; once `stop()`, the workers
/// stop at their next safe point.
pub(super) fn play_with_model(
    run: &RunDir,
    config: &Config,
    generation: u32,
    games: u64,
    ui: &Ui,
    follow_best: bool,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(SelfPlayStats, Duration)> {
    let device = device(config)?;
    let net =
        load_model(run, generation, config, device)?.for_inference(config.net.inference.precision);
    let base_seed: u64 = rand::random();
    let seed = |worker: usize| base_seed.wrapping_add(worker as u64);
    let settings = |worker: usize| WorkerSettings {
        selfplay: config.selfplay.clone(),
        search: config.mcts.clone(),
        model_generation: generation,
        seed: seed(worker),
    };
    let workers = Workers {
        run,
        config,
        generation,
        games,
        ui,
        follow_best,
        stop,
    };
    with_board!(
        config.rules.kind(),
        play_games_of(config, &workers, net, &settings)
    )
}

/// [`play_with_model`] in the run's game `B`.
pub(super) fn play_games_of<B: RunBoard>(
    config: &Config,
    workers: &Workers<'_>,
    net: PolicyValueNet,
    settings: &(dyn Fn(usize) -> WorkerSettings + Sync),
) -> Result<(SelfPlayStats, Duration)> {
    let starts = run_starts::<B>(&config.rules)?;
    let work: &SelfPlayWork<'_, B::Searched> =
        &|evaluator, worker, out_dir, quota, stop, on_game| {
            let on_record = |game: &B::Replay| on_game(game.positions().len() as u64);
            let settings = settings(worker);
            play_games(
                &starts, evaluator, &settings, out_dir, quota, stop, &on_record,
            )
            .map_err(PipelineError::from)
        };
    workers.play(net, work)
}

/// The self-play workers of one call of [`play_with_model`].
pub(super) struct Workers<'a> {
    run: &'a RunDir,
    config: &'a Config,
    generation: u32,
    games: u64,
    ui: &'a Ui,
    follow_best: bool,
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl Workers<'_> {
    /// Runs `work` on every worker thread: one worker calls the network
    /// directly; several share the batching service (each worker's batch is
    /// already a whole driver round).
    pub(super) fn play<G: NetGame + 'static>(
        &self,
        net: PolicyValueNet,
        work: &SelfPlayWork<'_, G>,
    ) -> Result<(SelfPlayStats, Duration)> {
        let (run, config, ui) = (self.run, self.config, self.ui);
        let workers = config.selfplay.workers;
        let service;
        let evaluators: Vec<Box<dyn Evaluator<G>>> = if workers == 1 {
            vec![Box::new(
                DirectEvaluator::new(net, config.net.inference.symmetry)
                    .with_score_utility(config.selfplay.score_utility)
                    .with_material_utility(config.selfplay.material_utility),
            )]
        } else {
            service = InferenceService::start(net, &config.net.inference)
                .map_err(PipelineError::net("starting the inference service"))?;
            (0..workers)
                .map(|_| {
                    Box::new(
                        service
                            .client()
                            .with_score_utility(config.selfplay.score_utility)
                            .with_material_utility(config.selfplay.material_utility),
                    ) as Box<dyn Evaluator<G>>
                })
                .collect()
        };
        let bar = ui.bar(self.games, "self-play", "games");
        let quota = AtomicU64::new(self.games);
        let started = Instant::now();
        let positions = AtomicU64::new(0);
        let last_best_check = Mutex::new(Instant::now());
        let out_dir = ReplayFolder::of_model(run, self.generation);
        let stop = self.stop;
        let on_game = |game_positions: u64| {
            bar.inc(1);
            let done = positions.fetch_add(game_positions, Ordering::Relaxed) + game_positions;
            bar.set_message(format!(
                "{:.1} positions/s",
                done as f64 / started.elapsed().as_secs_f64()
            ));
            if self.follow_best {
                let mut last = last_best_check.lock().unwrap_or_else(|p| p.into_inner());
                if last.elapsed() > Duration::from_secs(5) {
                    *last = Instant::now();
                    if run
                        .best()
                        .ok()
                        .flatten()
                        .is_some_and(|best| best.generation != self.generation)
                    {
                        quota.store(0, Ordering::SeqCst);
                    }
                }
            }
        };
        let results: Vec<Result<SelfPlayStats>> = std::thread::scope(|scope| {
            let handles: Vec<_> = evaluators
                .iter()
                .enumerate()
                .map(|(worker, evaluator)| {
                    let (quota, out_dir, on_game) = (&quota, &out_dir, &on_game);
                    scope.spawn(move || work(&**evaluator, worker, out_dir, quota, stop, on_game))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("self-play worker panicked"))
                .collect()
        });
        bar.finish_and_clear();
        let mut total = SelfPlayStats::default();
        for result in results {
            total.add(&result?);
        }
        Ok((total, started.elapsed()))
    }
}
