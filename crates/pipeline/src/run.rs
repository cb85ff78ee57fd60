//! The loop and its roles. `train` runs self-play → training → candidate →
//! evaluation → promotion in one process; `selfplay`, `trainer` and
//! `evaluate` run the same steps as separate long-lived processes on one
//! shared run directory, coordinating only through its files.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::replay::files::ReplayFolder;
use crate::replay::files::list_games;
pub use crate::rundir::Location;
use crate::rundir::uploader::UploadGuard;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use sumito_game::with_board;

use sumito_mcts::Evaluator;
use sumito_net::{DirectEvaluator, InferenceService, NetGame, PolicyValueNet, configure_threads};

use crate::config::{Config, GatingMode};
use crate::error::{PipelineError, Result};
use crate::evaluation::{
    EvaluationSummary, evaluate_candidate, pending_candidates, reconcile_best,
};
use crate::models::{device, ensure_initial_model, load_model};
use crate::ratings::{RunTime, model_name};
use crate::replay::store::RefreshReport;
use crate::run_board::RunBoard;
use crate::rundir::{LOOP_STATE, Leases, RunDir, RunDirError};
use crate::selfplay::{SelfPlayReplay, SelfPlayStats, WorkerSettings, play_games, run_starts};
use crate::tensorboard::EventWriter;
use crate::trainer::TrainerRole;

/// The command working on a run: which leases it holds, and how the log
/// and lease records name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunCommand {
    /// `sumito train`: the whole loop, holding both single-writer roles.
    Train,
    /// `sumito trainer`: the trainer role.
    Trainer,
    /// `sumito evaluate`: the evaluator role.
    Evaluate,
    /// `sumito selfplay`: no single-writer role (any number run at once).
    SelfPlay,
}

impl RunCommand {
    /// The name of the command (and of its lines in the run's log).
    pub fn name(self) -> &'static str {
        match self {
            RunCommand::Train => "train",
            RunCommand::Trainer => "trainer",
            RunCommand::Evaluate => "evaluate",
            RunCommand::SelfPlay => "selfplay",
        }
    }

    /// The single-writer roles it holds for as long as it runs.
    pub fn roles(self) -> &'static [&'static str] {
        match self {
            RunCommand::Train => &[TRAINER, EVALUATOR],
            RunCommand::Trainer => &[TRAINER],
            RunCommand::Evaluate => &[EVALUATOR],
            RunCommand::SelfPlay => &[],
        }
    }

    fn label(self) -> String {
        format!("sumito {}", self.name())
    }
}

/// The single-writer role that trains, writes candidates and owns the run's
/// configuration and checkpoints.
pub const TRAINER: &str = "trainer";
/// The single-writer role that evaluates candidates and promotes them.
pub const EVALUATOR: &str = "evaluator";

/// A run opened by a command, with the leases the command holds for as long
/// as it works on it (taken before anything was written into the run).
#[derive(Debug)]
pub struct OpenRun {
    pub run: RunDir,
    pub config: Config,
    /// Whether the run existed before (false: this command created it).
    pub resumed: bool,
    /// What the command did to the run directory before working on it
    /// (leftovers removed, configuration updated), one line each, also in
    /// the run's log.
    pub notes: Vec<String>,
    /// Shared with the background uploads they guard.
    leases: Arc<Mutex<Leases>>,
}

impl OpenRun {
    /// An error once another process took over one of the command's roles.
    fn check_leases(&self) -> Result<()> {
        check(&self.leases)
    }

    /// [`OpenRun::check_leases`] for a background thread.
    fn upload_guard(&self) -> UploadGuard {
        let leases = Arc::clone(&self.leases);
        Arc::new(move || check(&leases))
    }

    /// Whether the command holds the lease `name`.
    fn holds(&self, name: &str) -> bool {
        self.leases.lock().expect("leases lock").holds(name)
    }
}

/// An error once another process took over one of `leases`.
fn check(leases: &Mutex<Leases>) -> Result<()> {
    match leases.lock().expect("leases lock").lost() {
        Some(role) => Err(PipelineError::LeaseLost(role.to_owned())),
        None => Ok(()),
    }
}

/// Options of every role.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Draw progress bars (they are drawn only on a terminal anyway).
    pub progress: bool,
    /// Set to stop at the next safe point (e.g. on Ctrl-C).
    pub stop: Arc<AtomicBool>,
    /// Print one summary line per generation (and role messages) on stdout.
    pub print: bool,
    /// The command that resumes the run, named when it stops on request.
    pub resume: Option<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            progress: true,
            stop: Arc::new(AtomicBool::new(false)),
            print: true,
            resume: None,
        }
    }
}

/// `loop.json`: time the combined loop has run, across resumptions (for
/// `budget.hours`), and the CPU time it spent (the curve's core-hours).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LoopState {
    elapsed_seconds: f64,
    /// CPU seconds of every thread of `sumito train`; absent in runs
    /// started before it was kept (their core-hours then count from the
    /// first session that kept it).
    #[serde(default)]
    cpu_seconds: f64,
}

/// The CPU time this process has spent so far, in seconds (0 where the
/// platform does not tell).
fn process_cpu_seconds() -> f64 {
    cpu_time::ProcessTime::try_now()
        .map(|time| time.as_duration().as_secs_f64())
        .unwrap_or(0.0)
}

/// Hours the combined loop (`sumito train`) has run in `run`, across
/// resumptions (`loop.json`); `None` for a run it never drove (the separate
/// role commands keep no such time).
pub fn loop_hours(run: &RunDir) -> std::result::Result<Option<f64>, RunDirError> {
    let state: Option<LoopState> = run.get_json(LOOP_STATE)?;
    Ok(state.map(|state| state.elapsed_seconds / 3600.0))
}

struct Ui {
    bars: MultiProgress,
    options: RunOptions,
}

impl Ui {
    fn new(options: &RunOptions) -> Ui {
        let target = if options.progress {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        Ui {
            bars: MultiProgress::with_draw_target(target),
            options: options.clone(),
        }
    }

    fn bar(&self, length: u64, prefix: &str, unit: &str) -> ProgressBar {
        let style = ProgressStyle::with_template(&format!(
            "{{prefix:>10}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{msg}} (ETA {{eta}})"
        ))
        .expect("valid template")
        .progress_chars("=> ");
        let bar = self.bars.add(
            ProgressBar::new(length)
                .with_style(style)
                .with_prefix(prefix.to_owned()),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    }

    fn say(&self, line: &str) {
        if !self.options.print {
            return;
        }
        // Above the bars when they are drawn; plain stdout otherwise (a
        // hidden MultiProgress prints nothing).
        if self.bars.is_hidden() {
            println!("{line}");
        } else {
            let _ = self.bars.println(line);
        }
    }

    fn stopping(&self) -> bool {
        self.options.stop.load(Ordering::Relaxed)
    }
}

/// One self-play worker's work: with its evaluator and number, into the
/// replay folder, taking games from the quota until it is spent or `stop()`;
/// `on_game` gets each finished game's positions.
type SelfPlayWork<'a, G> = dyn Fn(
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
/// starts once another model became the best.
fn play_with_model(
    run: &RunDir,
    config: &Config,
    generation: u32,
    games: u64,
    ui: &Ui,
    follow_best: bool,
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
    };
    with_board!(
        config.rules.kind(),
        play_games_of(config, &workers, net, &settings)
    )
}

/// [`play_with_model`] in the run's game `B`.
fn play_games_of<B: RunBoard>(
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
struct Workers<'a> {
    run: &'a RunDir,
    config: &'a Config,
    generation: u32,
    games: u64,
    ui: &'a Ui,
    follow_best: bool,
}

impl Workers<'_> {
    /// Runs `work` on every worker thread: one worker calls the network
    /// directly; several share the batching service (each worker's batch is
    /// already a whole driver round).
    fn play<G: NetGame + 'static>(
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
        let out_dir = run.replay_model_folder(self.generation);
        let stop = || ui.stopping();
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
                    let (quota, out_dir, stop, on_game) = (&quota, &out_dir, &stop, &on_game);
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

fn selfplay_scalars(stats: &SelfPlayStats, elapsed: Duration) -> Vec<(&'static str, f64)> {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    let games = stats.games.max(1) as f64;
    let mut scalars = vec![
        ("selfplay/games_per_second", stats.games as f64 / seconds),
        (
            "selfplay/positions_per_second",
            stats.positions as f64 / seconds,
        ),
        (
            "selfplay/evaluations_per_second",
            stats.evaluations as f64 / seconds,
        ),
        (
            "selfplay/average_game_length",
            stats.positions as f64 / games,
        ),
        ("selfplay/decisive_share", stats.decisive as f64 / games),
        (
            "selfplay/share_outside_network",
            1.0 - stats.evaluator_time.as_secs_f64()
                / seconds.max(stats.evaluator_time.as_secs_f64()),
        ),
    ];
    if stats.surprise_positions > 0 {
        scalars.push((
            "selfplay/policy_surprise",
            stats.policy_surprise_sum / stats.surprise_positions as f64,
        ));
    }
    if stats.resign_checks > 0 {
        scalars.push((
            "selfplay/false_resignation_share",
            stats.false_resignations as f64 / stats.resign_checks as f64,
        ));
    }
    scalars
}

fn evaluation_scalars(summary: &EvaluationSummary) -> Vec<(String, f64)> {
    let record = &summary.record;
    let mut scalars = vec![(
        "eval/promoted".to_owned(),
        if record.promoted { 1.0 } else { 0.0 },
    )];
    if let Some(gating) = &record.gating {
        scalars.push(("eval/score_vs_best".to_owned(), gating.score));
    }
    for (opponent, score) in &record.opponent_scores {
        scalars.push((format!("eval/score_vs_{opponent}"), *score));
    }
    if let Some(table) = &summary.elo {
        let name = model_name(record.generation);
        if let Some(entry) = table.iter().find(|entry| entry.player == name) {
            scalars.push(("elo/candidate".to_owned(), entry.elo));
        }
        for entry in table
            .iter()
            .filter(|entry| !entry.player.starts_with("gen-"))
        {
            scalars.push((format!("elo/{}", entry.player), entry.elo));
        }
    }
    scalars
}

fn log_scalars(events: &mut EventWriter, step: u64, scalars: &[(String, f64)]) -> Result<()> {
    let borrowed: Vec<(&str, f64)> = scalars
        .iter()
        .map(|(tag, value)| (tag.as_str(), *value))
        .collect();
    Ok(events.scalars(step, &borrowed)?)
}

/// Trains the steps owed to the store, with a bar; returns the last metrics.
fn train_pending(
    trainer: &mut TrainerRole,
    events: &mut EventWriter,
    ui: &Ui,
    lease_check: &dyn Fn() -> Result<()>,
    max_steps: u64,
) -> Result<Option<sumito_net::TrainMetrics>> {
    let steps = trainer.pending_steps().min(max_steps);
    if steps == 0 {
        return Ok(None);
    }
    let bar = ui.bar(steps, "training", "steps");
    let mut last = None;
    for _ in 0..steps {
        if ui.stopping() {
            break;
        }
        // Every step (cheap while the lease is renewed in time): a step may
        // write a checkpoint, which checks again right before it writes.
        lease_check()?;
        let metrics = trainer.train_step(lease_check)?;
        bar.inc(1);
        bar.set_message(format!("loss {:.3}", metrics.loss));
        if metrics.step % 10 == 0 || bar.position() == steps {
            events.scalars(
                metrics.step + 1,
                &[
                    ("loss/total", metrics.loss),
                    ("loss/policy", metrics.policy_loss),
                    ("loss/value", metrics.value_loss),
                    ("loss/aux", metrics.aux_loss),
                    ("train/policy_entropy", metrics.policy_entropy),
                    ("train/value_accuracy", metrics.value_accuracy),
                    ("train/learning_rate", metrics.learning_rate),
                    ("train/grad_norm", metrics.grad_norm),
                ],
            )?;
        }
        last = Some(metrics);
    }
    bar.finish_and_clear();
    Ok(last)
}

/// Reads new replay files into the trainer's store; warns about skipped
/// files (the trainer logs them too).
fn refresh_store(trainer: &mut TrainerRole, ui: &Ui) -> Result<()> {
    let report = trainer.refresh()?;
    say_skipped(&report, ui);
    Ok(())
}

fn say_skipped(report: &RefreshReport, ui: &Ui) {
    for (name, why) in &report.skipped {
        ui.say(&format!("warning: skipped replay file {name}: {why}"));
    }
}

fn budget_spent(
    config: &Config,
    generation: u32,
    games: u64,
    elapsed_seconds: f64,
) -> Option<String> {
    let budget = &config.budget;
    if budget.generations.is_some_and(|limit| generation >= limit) {
        return Some(format!("{generation} generations"));
    }
    if budget.games.is_some_and(|limit| games >= limit) {
        return Some(format!("{games} games"));
    }
    if budget
        .hours
        .is_some_and(|hours| elapsed_seconds >= hours * 3600.0)
    {
        return Some(format!("{:.2} hours", elapsed_seconds / 3600.0));
    }
    None
}

pub(crate) fn prepare(run: &RunDir, config: &Config) -> Result<()> {
    configure_threads(&config.net.threads)
        .map_err(PipelineError::net("configuring libtorch threads"))?;
    ensure_initial_model(run, config, 0x5u64)?;
    reconcile_best(run)
}

/// Evaluates candidate `generation` with a bar and logs its scalars; the
/// leases are checked again after its games, before it writes.
fn evaluate_and_report(
    run: &RunDir,
    config: &Config,
    generation: u32,
    run_time: RunTime,
    ui: &Ui,
    events: &mut EventWriter,
    lease_check: &dyn Fn() -> Result<()>,
) -> Result<EvaluationSummary> {
    let bar = ui.bar(0, "evaluation", "games");
    let progress = |done: u32, planned: u32, score: f64| {
        bar.set_length(u64::from(planned));
        bar.set_position(u64::from(done));
        bar.set_message(format!("score {:.0}%", score * 100.0));
    };
    let stopping = || ui.stopping();
    let summary = with_board!(
        config.rules.kind(),
        B => evaluate_candidate::<B>(
            run,
            config,
            generation,
            run_time,
            &progress,
            lease_check,
            &stopping,
        )
    )?;
    bar.finish_and_clear();
    log_scalars(events, u64::from(generation), &evaluation_scalars(&summary))?;
    Ok(summary)
}

/// Evaluates the candidates `pending` (oldest first) with `evaluate_one`,
/// each only once `lease_check` confirms this process still holds its roles
/// (one paused past its lease time and resumed must not write once another
/// took its role over) and no stop was asked for (Ctrl-C or SIGTERM is
/// honoured between candidates, not after the whole backlog). Returns
/// whether every candidate was evaluated.
fn evaluate_backlog(
    pending: &[u32],
    lease_check: &dyn Fn() -> Result<()>,
    stopping: &dyn Fn() -> bool,
    evaluate_one: &mut dyn FnMut(u32) -> Result<()>,
) -> Result<bool> {
    for &generation in pending {
        lease_check()?;
        if stopping() {
            return Ok(false);
        }
        match evaluate_one(generation) {
            // Stopped in its games: it stays pending for the next start.
            Err(PipelineError::Stopped(_)) => return Ok(false),
            other => other?,
        }
    }
    Ok(true)
}

/// Where one generation of `sumito train` spent its wall-clock time.
#[derive(Debug, Clone, Copy, Default)]
struct GenerationTimes {
    selfplay: Duration,
    training: Duration,
    evaluation: Duration,
}

impl GenerationTimes {
    fn parts(&self) -> [(&'static str, Duration); 3] {
        [
            ("selfplay", self.selfplay),
            ("training", self.training),
            ("evaluation", self.evaluation),
        ]
    }

    fn share(&self, part: Duration) -> f64 {
        let total = self.selfplay + self.training + self.evaluation;
        part.as_secs_f64() / total.as_secs_f64().max(1e-9)
    }

    fn scalars(&self) -> Vec<(String, f64)> {
        let mut scalars = Vec::new();
        for (name, part) in self.parts() {
            scalars.push((format!("time/{name}_seconds"), part.as_secs_f64()));
            scalars.push((format!("time/{name}_share"), self.share(part)));
        }
        scalars
    }

    /// `time 41s = 58% self-play, 25% training, 17% evaluation`.
    fn describe(&self) -> String {
        let total = self.selfplay + self.training + self.evaluation;
        format!(
            "time {:.0}s = {:.0}% self-play, {:.0}% training, {:.0}% evaluation",
            total.as_secs_f64(),
            100.0 * self.share(self.selfplay),
            100.0 * self.share(self.training),
            100.0 * self.share(self.evaluation)
        )
    }
}

fn summary_line(
    generation: u32,
    selfplay: Option<&(SelfPlayStats, Duration)>,
    training: Option<&sumito_net::TrainMetrics>,
    evaluation: Option<&EvaluationSummary>,
) -> String {
    let mut line = format!("gen {generation}:");
    if let Some((stats, elapsed)) = selfplay {
        line.push_str(&format!(
            " {} games ({:.1} positions/s, {:.0} plies, {:.0}% decisive) |",
            stats.games,
            stats.positions as f64 / elapsed.as_secs_f64().max(1e-9),
            stats.positions as f64 / stats.games.max(1) as f64,
            100.0 * stats.decisive as f64 / stats.games.max(1) as f64
        ));
    }
    if let Some(metrics) = training {
        line.push_str(&format!(
            " step {} loss {:.3} |",
            metrics.step + 1,
            metrics.loss
        ));
    }
    let Some(evaluation) = evaluation else {
        line.push_str(" promoted (not rated this generation)");
        return line;
    };
    let record = &evaluation.record;
    if let Some(gating) = &record.gating {
        line.push_str(&format!(
            " vs gen-{} +{}={}-{}",
            gating.opponent, gating.wins, gating.draws, gating.losses
        ));
    }
    line.push_str(if record.promoted {
        " promoted"
    } else {
        " rejected"
    });
    for (opponent, score) in &record.opponent_scores {
        line.push_str(&format!(" | {opponent} {:.0}%", score * 100.0));
    }
    if let Some(table) = &evaluation.elo
        && let Some(entry) = table.iter().find(|e| e.player == model_name(generation))
    {
        line.push_str(&format!(
            " | Elo {:.0} ±{:.0}",
            entry.elo,
            (entry.high - entry.low) / 2.0
        ));
        // Every line refits the whole table over the games so far, so the
        // fixed opponents' ratings move as the run adds games (every
        // candidate beats `random`, the anchor, 10-0, which pins little): a
        // candidate's Elo is readable only beside the strongest fixed
        // opponent's in the same fit.
        if let Some(reference) = table
            .iter()
            .filter(|e| record.opponent_scores.contains_key(&e.player))
            .max_by(|a, b| a.elo.total_cmp(&b.elo))
        {
            line.push_str(&format!(" ({} {:.0})", reference.player, reference.elo));
        }
    }
    line
}

/// `sumito train`: the whole loop in one process, until the budget is spent
/// or `options.stop` is set.
pub fn train(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    let lease_check = || open.check_leases();
    prepare(run, config)?;
    let ui = Ui::new(options);
    let mut events = run.event_writer("train")?;
    let mut loop_state: LoopState = run.get_json(LOOP_STATE)?.unwrap_or_default();
    // Time spent by earlier sessions of this run, plus this session's: the
    // base is read once, so storing the total back does not count it twice.
    let session_start = Instant::now();
    let earlier_seconds = loop_state.elapsed_seconds;
    let elapsed = || earlier_seconds + session_start.elapsed().as_secs_f64();
    let (earlier_cpu, session_cpu) = (loop_state.cpu_seconds, process_cpu_seconds());
    let cpu = || earlier_cpu + (process_cpu_seconds() - session_cpu).max(0.0);
    let run_time = || RunTime {
        hours: Some(elapsed() / 3600.0),
        core_hours: Some(cpu() / 3600.0),
    };
    let mut trainer = TrainerRole::open(run, config, open.upload_guard())?;
    refresh_store(&mut trainer, &ui)?;
    run.log(
        "train",
        &format!(
            "started at generation {} with {} games in the replay store",
            trainer.state().generation,
            trainer.store().total_games()
        ),
    )?;
    // A candidate left unevaluated by an interrupted run comes first.
    let pending = pending_candidates(run, &config.evaluation)?;
    evaluate_backlog(
        &pending,
        &lease_check,
        &|| ui.stopping(),
        &mut |generation| {
            let time = RunTime {
                hours: Some(earlier_seconds / 3600.0),
                core_hours: Some(earlier_cpu / 3600.0),
            };
            let summary = evaluate_and_report(
                run,
                config,
                generation,
                time,
                &ui,
                &mut events,
                &lease_check,
            )?;
            ui.say(&summary_line(generation, None, None, Some(&summary)));
            Ok(())
        },
    )?;
    loop {
        lease_check()?;
        if ui.stopping() {
            let line = match &options.resume {
                Some(command) => format!("stopped on request; `{command}` resumes the run"),
                None => "stopped on request; the same command resumes the run".to_owned(),
            };
            ui.say(&line);
            run.log("train", &line)?;
            break;
        }
        let generation = trainer.state().generation;
        if let Some(spent) =
            budget_spent(config, generation, trainer.store().total_games(), elapsed())
        {
            ui.say(&format!("budget spent: {spent}"));
            run.log("train", &format!("budget spent ({spent}); stopping"))?;
            break;
        }
        let missing = config
            .selfplay
            .games_per_generation
            .saturating_sub(trainer.games_since_candidate());
        let best = run.best()?.map_or(0, |best| best.generation);
        let selfplay = if missing > 0 {
            let result = play_with_model(run, config, best, missing, &ui, false)?;
            refresh_store(&mut trainer, &ui)?;
            log_scalars(
                &mut events,
                u64::from(generation + 1),
                &selfplay_scalars(&result.0, result.1)
                    .into_iter()
                    .map(|(t, v)| (t.to_owned(), v))
                    .collect::<Vec<_>>(),
            )?;
            Some(result)
        } else {
            None
        };
        if ui.stopping() {
            continue;
        }
        // No game arrives while this process trains: train all that is owed.
        let training_start = Instant::now();
        let training = train_pending(&mut trainer, &mut events, &ui, &lease_check, u64::MAX)?;
        let mut times = GenerationTimes {
            selfplay: selfplay.as_ref().map_or(Duration::ZERO, |result| result.1),
            training: training_start.elapsed(),
            evaluation: Duration::ZERO,
        };
        if ui.stopping() || !trainer.candidate_due() {
            continue;
        }
        let candidate =
            trainer.write_candidate(config.gating.mode == GatingMode::Off, &lease_check)?;
        // The evaluation below reads the candidate from the run's storage.
        trainer.finish_uploads()?;
        let time = run_time();
        let evaluation_start = Instant::now();
        let summary = if config.evaluation.evaluates(candidate) {
            match evaluate_and_report(run, config, candidate, time, &ui, &mut events, &lease_check)
            {
                Ok(summary) => Some(summary),
                // Stopped in its games: evaluated first at the next start.
                Err(PipelineError::Stopped(_)) => continue,
                Err(err) => return Err(err),
            }
        } else {
            None
        };
        times.evaluation = evaluation_start.elapsed();
        log_scalars(&mut events, u64::from(candidate), &times.scalars())?;
        loop_state.elapsed_seconds = elapsed();
        loop_state.cpu_seconds = cpu();
        run.put_json(LOOP_STATE, &loop_state)?;
        let elapsed_now = loop_state.elapsed_seconds;
        let line = format!(
            "{} | {} | {:02}:{:02}:{:02}",
            summary_line(
                candidate,
                selfplay.as_ref(),
                training.as_ref(),
                summary.as_ref()
            ),
            times.describe(),
            (elapsed_now / 3600.0) as u64,
            (elapsed_now / 60.0) as u64 % 60,
            elapsed_now as u64 % 60
        );
        run.log("train", &line)?;
        ui.say(&line);
    }
    // Steps trained since the last periodic checkpoint are kept (on a stop
    // request in the middle of a generation, say).
    trainer.save_checkpoint(&lease_check)?;
    trainer.finish_uploads()?;
    loop_state.elapsed_seconds = elapsed();
    loop_state.cpu_seconds = cpu();
    run.put_json(LOOP_STATE, &loop_state)?;
    Ok(())
}

/// `sumito selfplay`: plays games with the newest best model, forever (or
/// until `budget.games` games are in the run, or `options.stop`). Any
/// number may run at once, on any machine that sees the run directory.
pub fn selfplay(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    configure_threads(&config.net.threads)
        .map_err(PipelineError::net("configuring libtorch threads"))?;
    let ui = Ui::new(options);
    let mut events = run.event_writer("selfplay")?;
    let mut round = 0u64;
    while !ui.stopping() {
        // A process that lost the run's `open` lease (unrenewed past the
        // lease time) may find the run being deleted: it stops writing.
        open.check_leases()?;
        let Some(best) = run.best()? else {
            ui.say("waiting for the trainer to create the first model...");
            std::thread::sleep(Duration::from_secs(5));
            continue;
        };
        if let Some(limit) = config.budget.games {
            let played = list_games(&run.replay_folder(), config.rules.kind())
                .map_err(RunDirError::from)?
                .len() as u64;
            if played >= limit {
                ui.say(&format!("budget spent: {played} games"));
                break;
            }
        }
        let games = config.selfplay.games_in_parallel as u64 * config.selfplay.workers as u64;
        let (stats, elapsed) = play_with_model(run, config, best.generation, games, &ui, true)?;
        round += 1;
        let scalars: Vec<(String, f64)> = selfplay_scalars(&stats, elapsed)
            .into_iter()
            .map(|(t, v)| (t.to_owned(), v))
            .collect();
        log_scalars(&mut events, round, &scalars)?;
        let line = format!(
            "self-play with gen-{}: {} games, {:.1} positions/s",
            best.generation,
            stats.games,
            stats.positions as f64 / elapsed.as_secs_f64().max(1e-9)
        );
        run.log("selfplay", &line)?;
        ui.say(&line);
    }
    Ok(())
}

/// `sumito trainer`: trains as games arrive and writes a candidate after
/// each generation's worth of games (promoting it at once when gating is off).
pub fn trainer(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    let lease_check = || open.check_leases();
    prepare(run, config)?;
    let ui = Ui::new(options);
    let mut events = run.event_writer("trainer")?;
    let mut trainer = TrainerRole::open(run, config, open.upload_guard())?;
    let report = trainer.read_in_background()?;
    say_skipped(&report, &ui);
    ui.say(&format!(
        "read the {} games in the run in {:.1} s",
        report.new_games,
        report.storage_time.as_secs_f64()
    ));
    let mut waiting_said = false;
    while !ui.stopping() {
        lease_check()?;
        let generation = trainer.state().generation;
        if let Some(spent) = budget_spent(config, generation, trainer.store().total_games(), 0.0) {
            ui.say(&format!("budget spent: {spent}"));
            break;
        }
        refresh_store(&mut trainer, &ui)?;
        if trainer.candidate_due() {
            let candidate =
                trainer.write_candidate(config.gating.mode == GatingMode::Off, &lease_check)?;
            let (storage, total) = trainer.storage_time();
            let share = storage.as_secs_f64() / total.as_secs_f64().max(1e-9);
            log_scalars(
                &mut events,
                u64::from(candidate),
                &[("trainer/storage_share".to_owned(), share)],
            )?;
            ui.say(&format!(
                "candidate gen-{candidate} written ({} games, {} positions; {:.1} % of the trainer's time waiting on storage)",
                trainer.store().total_games(),
                trainer.store().total_positions(),
                100.0 * share
            ));
        } else if trainer.pending_steps() > 0 {
            waiting_said = false;
            // In chunks, so that new games and due candidates are seen.
            let chunk = config.training.checkpoint_every_steps;
            train_pending(&mut trainer, &mut events, &ui, &lease_check, chunk)?;
        } else {
            if !waiting_said {
                ui.say(&format!(
                    "waiting for games: {} of {} for the next candidate",
                    trainer.games_since_candidate(),
                    config.selfplay.games_per_generation
                ));
                waiting_said = true;
            }
            let report = trainer.wait_for_games(Duration::from_secs(2))?;
            say_skipped(&report, &ui);
        }
    }
    trainer.save_checkpoint(&lease_check)?;
    trainer.finish_uploads()?;
    let line = trainer_time_line(&trainer);
    run.log("trainer", &line)?;
    ui.say(&line);
    Ok(())
}

/// What the trainer read and how long it waited on storage, and what the
/// background threads did meanwhile.
fn trainer_time_line(trainer: &TrainerRole) -> String {
    let (storage, total) = trainer.storage_time();
    let share = |part: Duration, whole: Duration| {
        100.0 * part.as_secs_f64() / whole.as_secs_f64().max(1e-9)
    };
    let mut line = format!(
        "read {} games; waited on storage for {:.1} s of {:.1} s ({:.2} %: reading games, uploading checkpoints and candidates)",
        trainer.store().total_games(),
        storage.as_secs_f64(),
        total.as_secs_f64(),
        share(storage, total)
    );
    if let Some((games, startup)) = trainer.startup_read() {
        let (after, whole_after) = (
            storage.saturating_sub(startup),
            total.saturating_sub(startup),
        );
        line += &format!(
            ", of which {:.1} s reading the {games} games there at start; after that {:.1} s of {:.1} s ({:.2} %)",
            startup.as_secs_f64(),
            after.as_secs_f64(),
            whole_after.as_secs_f64(),
            share(after, whole_after)
        );
    }
    let (uploads, upload_time) = trainer.uploads_done();
    line += &format!(
        "; in the background: {uploads} uploads in {:.1} s",
        upload_time.as_secs_f64()
    );
    if let Some((files, read_time)) = trainer.store().background_work() {
        line += &format!(
            ", {files} replay files listed and read in {:.1} s",
            read_time.as_secs_f64()
        );
    }
    line
}

/// `sumito evaluate`: evaluates every candidate as it appears.
pub fn evaluate(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    configure_threads(&config.net.threads)
        .map_err(PipelineError::net("configuring libtorch threads"))?;
    let ui = Ui::new(options);
    let mut events = run.event_writer("evaluate")?;
    while !ui.stopping() {
        open.check_leases()?;
        reconcile_best(run)?;
        let pending = pending_candidates(run, &config.evaluation)?;
        if pending.is_empty() {
            if config.budget.generations.is_some_and(|limit| {
                run.model_generations()
                    .ok()
                    .and_then(|g| g.last().copied())
                    .unwrap_or(0)
                    >= limit
            }) {
                ui.say("budget spent: every generation evaluated");
                break;
            }
            std::thread::sleep(Duration::from_secs(2));
            continue;
        }
        let lease_check = || open.check_leases();
        evaluate_backlog(
            &pending,
            &lease_check,
            &|| ui.stopping(),
            &mut |generation| {
                let summary = evaluate_and_report(
                    run,
                    config,
                    generation,
                    RunTime::default(),
                    &ui,
                    &mut events,
                    &lease_check,
                )?;
                ui.say(&summary_line(generation, None, None, Some(&summary)));
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// Opens the existing run at `location` (a folder or an object store) for
/// `command`, with its stored configuration (for the role commands without
/// `--config`).
pub fn open_run(location: &Location, command: RunCommand) -> Result<OpenRun> {
    let run = RunDir::open_at(location)?;
    let leases = run.enter(&command.label(), command.roles())?;
    let config = Config::parse(&run.config_text()?, &run.config_path())?;
    let mut open = OpenRun {
        run,
        config,
        resumed: true,
        notes: Vec::new(),
        leases: Arc::new(Mutex::new(leases)),
    };
    clean_up(&mut open, command)?;
    Ok(open)
}

/// Starts a run in `root` with the configuration at `config_path`, or
/// resumes the run already there, for `command`. `fresh` deletes an existing
/// run first (see [`RunDir::delete`]: refused while another process works on
/// it). Nothing is written into an existing run before the command holds
/// its leases. A changed configuration is taken over (and logged) by the
/// holder of the trainer role (a command without it takes the role for the
/// moment, and is refused while another process holds it), unless it
/// changes the network's shape or the rules, which would make the run's
/// files meaningless; that is refused with the reason.
pub fn start_or_resume(
    location: &Location,
    config_path: &std::path::Path,
    fresh: bool,
    command: RunCommand,
) -> Result<OpenRun> {
    let text =
        std::fs::read_to_string(config_path).map_err(|source| crate::config::ConfigError::Io {
            path: config_path.to_owned(),
            cause: source,
        })?;
    let config = Config::parse(&text, config_path)?;
    let mut notes = Vec::new();
    let finished = if fresh {
        let finished = RunDir::delete_at(location)?;
        notes.push(format!("deleted the run in {location} (--fresh)"));
        finished
    } else {
        match location {
            Location::Local(root) => crate::rundir::finish_interrupted(root)?,
            // Nothing is built beside a run on an object store.
            _ => Vec::new(),
        }
    };
    notes.extend(finished.iter().map(|removed| format!("removed {removed}")));
    // Another process may create the run at the same moment: then this one
    // resumes it.
    let created = !RunDir::exists_at(location)?
        && match RunDir::create_at(location, &text) {
            Ok(_) => true,
            Err(RunDirError::AlreadyExists { .. }) => false,
            Err(err) => return Err(err.into()),
        };
    let run = RunDir::open_at(location)?;
    let leases = run.enter(&command.label(), command.roles())?;
    let mut open = OpenRun {
        run,
        config,
        resumed: !created,
        notes,
        leases: Arc::new(Mutex::new(leases)),
    };
    for note in &open.notes {
        open.run.log(command.name(), note)?;
    }
    if created {
        open.run.log(
            command.name(),
            &format!("new run with {}", config_path.display()),
        )?;
    } else {
        update_config(&mut open, &text, config_path, command)?;
    }
    clean_up(&mut open, command)?;
    Ok(open)
}

/// Takes over the configuration `text` (read from `config_path`) if it
/// differs from the run's; see [`start_or_resume`].
fn update_config(
    open: &mut OpenRun,
    text: &str,
    config_path: &std::path::Path,
    command: RunCommand,
) -> Result<()> {
    let run = &open.run;
    let stored_text = run.config_text()?;
    if stored_text == text {
        return Ok(());
    }
    let stored = Config::parse(&stored_text, &run.config_path())?;
    let incompatible = |what: &str| RunDirError::Incompatible {
        path: run.root().to_owned(),
        reason: format!(
            "{} changes {what} of the run ({}); use the run's own config, or --fresh to start over",
            config_path.display(),
            run.config_path().display()
        ),
    };
    // The one change of the network a run takes: the push-off planes
    // turned on, given to every checkpoint below.
    let adds_push_off_planes = stored
        .net
        .model
        .gains_push_off_planes(&open.config.net.model);
    if stored.net.model != open.config.net.model && !adds_push_off_planes {
        return Err(incompatible("[net.model]").into());
    }
    if stored.rules.rules() != open.config.rules.rules() {
        return Err(incompatible("the game's [rules]").into());
    }
    let _trainer = if open.holds(TRAINER) {
        None
    } else {
        Some(
            run.acquire_lease(TRAINER, &command.label())
                .map_err(|source| PipelineError::ConfigChange {
                    config: config_path.to_owned(),
                    source,
                })?,
        )
    };
    if adds_push_off_planes {
        let changed = crate::models::add_push_off_planes(run)?;
        let note = format!(
            "[net.model] push_off_planes turned on: {changed} checkpoints of the run were given \
             the two push-off input planes (with zero weights: the networks' outputs are unchanged)"
        );
        run.log(command.name(), &note)?;
        open.notes.push(note);
    }
    run.write_config(text)?;
    let note = format!("configuration updated from {}", config_path.display());
    run.log(command.name(), &note)?;
    open.notes.push(note);
    Ok(())
}

/// Removes what killed processes left in the run (see
/// [`RunDir::remove_leftovers`]), and with the trainer role the trainer's
/// incomplete or superseded checkpoints and incomplete models; logs it.
fn clean_up(open: &mut OpenRun, command: RunCommand) -> Result<()> {
    let run = &open.run;
    let mut removed = run.remove_leftovers()?;
    if open.holds(TRAINER) {
        removed.extend(crate::trainer::prune_checkpoints(run)?);
        removed.extend(crate::models::prune_incomplete(
            run,
            crate::trainer::trainer_generation(run)?,
        )?);
    }
    for removed in removed {
        let note = format!("removed {removed}");
        run.log(command.name(), &note)?;
        open.notes.push(note);
    }
    Ok(())
}

/// The run a role command works on: created or updated from `config_path`
/// when given (as `sumito train` does), else opened with its own config.
pub fn open_for_role(
    location: &Location,
    config_path: Option<&std::path::Path>,
    command: RunCommand,
) -> Result<OpenRun> {
    match config_path {
        Some(path) => start_or_resume(location, path, false, command),
        None => open_run(location, command),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::{EloEntry, EvaluationRecord};
    use std::cell::Cell;
    use std::collections::BTreeMap;

    fn entry(player: &str, elo: f64, half_width: f64) -> EloEntry {
        EloEntry {
            player: player.to_owned(),
            elo,
            low: elo - half_width,
            high: elo + half_width,
            games: 30,
        }
    }

    /// `evaluate_backlog` over candidates 1, 2, 3, where `after_first`
    /// happens once the first is evaluated; the candidates evaluated and
    /// the result.
    fn backlog_with(after_first: &dyn Fn(&Cell<bool>, &AtomicBool)) -> (Vec<u32>, Result<bool>) {
        let (lost, stop) = (Cell::new(false), AtomicBool::new(false));
        let lease_check = || {
            if lost.get() {
                Err(PipelineError::LeaseLost(EVALUATOR.to_owned()))
            } else {
                Ok(())
            }
        };
        let mut evaluated = Vec::new();
        let result = evaluate_backlog(
            &[1, 2, 3],
            &lease_check,
            &|| stop.load(Ordering::Relaxed),
            &mut |generation| {
                evaluated.push(generation);
                after_first(&lost, &stop);
                Ok(())
            },
        );
        (evaluated, result)
    }

    #[test]
    fn a_backlog_stops_at_the_next_candidate_once_the_role_is_lost() {
        // Another evaluator took the role over while the first candidate
        // was evaluated (this process paused past its lease time).
        let (evaluated, result) = backlog_with(&|lost, _| lost.set(true));
        assert_eq!(evaluated, [1]);
        assert!(
            matches!(&result, Err(PipelineError::LeaseLost(role)) if role == EVALUATOR),
            "{result:?}"
        );
    }

    #[test]
    fn a_backlog_stops_at_the_next_candidate_on_a_stop_request() {
        let (evaluated, result) = backlog_with(&|_, stop| stop.store(true, Ordering::Relaxed));
        assert_eq!(evaluated, [1]);
        assert!(matches!(result, Ok(false)), "{result:?}");
        let (evaluated, result) = backlog_with(&|_, _| {});
        assert_eq!(evaluated, [1, 2, 3]);
        assert!(matches!(result, Ok(true)), "{result:?}");
    }

    #[test]
    fn the_summary_line_gives_the_candidates_elo_beside_the_strongest_fixed_opponents() {
        let opponent_scores: BTreeMap<String, f64> = [
            ("alphabeta:depth=2".to_owned(), 0.4),
            ("greedy".to_owned(), 0.8),
            ("random".to_owned(), 1.0),
        ]
        .into_iter()
        .collect();
        let summary = EvaluationSummary {
            record: EvaluationRecord {
                generation: 432,
                promoted: true,
                gating: None,
                opponent_scores,
                games: Vec::new(),
                run_hours: Some(2.0),
                run_core_hours: None,
            },
            elo: Some(vec![
                // An earlier generation above every fixed opponent: not a
                // fixed opponent, so not the reference.
                entry("gen-320", 772.0, 192.0),
                entry("alphabeta:depth=2", 629.0, 56.0),
                entry("gen-432", 571.0, 159.0),
                entry("greedy", 376.0, 56.0),
                entry("random", 0.0, 0.0),
            ]),
        };
        let line = summary_line(432, None, None, Some(&summary));
        assert!(
            line.ends_with(
                " promoted | alphabeta:depth=2 40% | greedy 80% | random 100% | Elo 571 ±159 (alphabeta:depth=2 629)"
            ),
            "{line}"
        );
    }
}
