//! One generation of `sumito train`: in turns (self-play, then the
//! trainer), or overlapped (the trainer beside self-play, on a thread of its
//! own; [`super::overlap`] says when and what each round plays). The
//! trainer's turn is the same in both: the steps owed, the candidate once
//! its games are all read, and its evaluation.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::display::{GenerationTimes, Ui};
use super::scalars::{log_scalars, selfplay_scalars};
use super::steps::{evaluate_and_report, refresh_store, train_pending};
use super::workers::play_with_model;
use crate::config::{Config, GatingMode};
use crate::error::{PipelineError, Result};
use crate::evaluation::EvaluationSummary;
use crate::ratings::RunTime;
use crate::rundir::RunDir;
use crate::selfplay::SelfPlayStats;
use crate::tensorboard::EventWriter;
use crate::trainer::TrainerRole;

/// What a generation of the loop works with, beside the trainer and the
/// event file.
pub(super) struct LoopParts<'a> {
    pub(super) run: &'a RunDir,
    pub(super) config: &'a Config,
    pub(super) ui: &'a Ui,
    pub(super) lease_check: &'a (dyn Fn() -> Result<()> + Sync),
    /// The run's time so far, recorded beside a rating.
    pub(super) run_time: &'a (dyn Fn() -> RunTime + Sync),
}

/// What the trainer did in one turn.
#[derive(Default)]
pub(super) struct TrainerTurn {
    pub(super) training: Option<sumito_net::TrainMetrics>,
    /// The candidate written, if one was due.
    pub(super) candidate: Option<u32>,
    /// Its evaluation, if it was evaluated to the end.
    pub(super) evaluation: Option<EvaluationSummary>,
    pub(super) training_time: Duration,
    pub(super) evaluation_time: Duration,
}

/// One generation's work: the games played, the trainer's turn, and where
/// the time went.
pub(super) struct Generation {
    pub(super) selfplay: Option<(SelfPlayStats, Duration)>,
    pub(super) turn: TrainerTurn,
    pub(super) times: GenerationTimes,
}

/// The trainer's turn: trains every step owed to the games read, until
/// `stop()`; then, when the candidate is due, writes it (promoted at once
/// with gating off) and evaluates it if this generation is evaluated.
pub(super) fn trainer_turn(
    parts: &LoopParts<'_>,
    trainer: &mut TrainerRole,
    events: &mut EventWriter,
    stop: &dyn Fn() -> bool,
) -> Result<TrainerTurn> {
    let LoopParts {
        run,
        config,
        ui,
        lease_check,
        run_time,
    } = *parts;
    let training_start = Instant::now();
    let training = train_pending(trainer, events, ui, lease_check, u64::MAX, stop)?;
    let mut turn = TrainerTurn {
        training,
        training_time: training_start.elapsed(),
        ..TrainerTurn::default()
    };
    if stop() || !trainer.candidate_due() {
        return Ok(turn);
    }
    let candidate = trainer.write_candidate(config.gating.mode == GatingMode::Off, lease_check)?;
    turn.candidate = Some(candidate);
    // The evaluation reads the candidate from the run's storage, and the
    // next generation's self-play the best model.
    trainer.finish_uploads()?;
    if config.evaluation.evaluates(candidate) {
        let evaluation_start = Instant::now();
        match evaluate_and_report(run, config, candidate, run_time(), ui, events, lease_check) {
            Ok(summary) => turn.evaluation = Some(summary),
            // Stopped in its games: evaluated first at the next start.
            Err(PipelineError::Stopped(_)) => {}
            Err(err) => return Err(err),
        }
        turn.evaluation_time = evaluation_start.elapsed();
    }
    Ok(turn)
}

/// Self-play's games of a generation, read into the trainer's store and
/// logged: at the step of the candidate they will be trained into.
fn read_games(
    trainer: &mut TrainerRole,
    events: &mut EventWriter,
    ui: &Ui,
    played: &(SelfPlayStats, Duration),
) -> Result<()> {
    refresh_store(trainer, ui)?;
    let scalars: Vec<(String, f64)> = selfplay_scalars(&played.0, played.1)
        .into_iter()
        .map(|(tag, value)| (tag.to_owned(), value))
        .collect();
    log_scalars(events, u64::from(trainer.state().generation + 1), &scalars)
}

/// A generation in turns: self-play plays the games the next candidate
/// lacks with the best model, then the trainer trains all that is owed (no
/// game arrives while it trains) and writes the candidate.
pub(super) fn in_turns(
    parts: &LoopParts<'_>,
    trainer: &mut TrainerRole,
    events: &mut EventWriter,
) -> Result<Generation> {
    let (run, config, ui) = (parts.run, parts.config, parts.ui);
    let missing = config
        .selfplay
        .games_per_generation
        .saturating_sub(trainer.games_since_candidate());
    let best = run.best()?.map_or(0, |best| best.generation);
    let stop = || ui.stopping();
    let selfplay = if missing > 0 {
        let played = play_with_model(run, config, best, missing, ui, false, &stop)?;
        read_games(trainer, events, ui, &played)?;
        Some(played)
    } else {
        None
    };
    let turn = if ui.stopping() {
        TrainerTurn::default()
    } else {
        // On a thread that ends with the turn: libtorch's OpenMP keeps a
        // team of threads for each thread that ran a parallel operation, and
        // once there are more of them than cores, libgomp's idle threads
        // stop spinning (GOMP_SPINCOUNT) and sleep at once. A trainer's team
        // kept on this thread did that to every later self-play's network
        // on 2 cores (about 700 positions/s from the second generation on,
        // against 1,340 in the first); self-play's own threads already end
        // with each generation.
        std::thread::scope(|scope| {
            scope
                .spawn(|| trainer_turn(parts, trainer, events, &stop))
                .join()
                .expect("the trainer's thread panicked")
        })?
    };
    let selfplay_time = selfplay.as_ref().map_or(Duration::ZERO, |played| played.1);
    let times = GenerationTimes {
        selfplay: selfplay_time,
        training: turn.training_time,
        evaluation: turn.evaluation_time,
        wall: selfplay_time + turn.training_time + turn.evaluation_time,
        overlapped: false,
    };
    Ok(Generation {
        selfplay,
        turn,
        times,
    })
}

/// An overlapped round: the trainer's turn on a thread of its own, on the
/// games read before the round, while this thread plays `games` games (the
/// next generation's) with the best model there is now; the new games are
/// read once both have finished. The trainer's turn runs in a rayon pool of
/// `rating_threads` (at least one), where its rating's fixed opponents
/// choose their moves: the cores self-play leaves (`overlap::Overlap`). A
/// failure of either stops the other at its next safe point, and is
/// returned (the trainer's, if both failed).
pub(super) fn overlapped(
    parts: &LoopParts<'_>,
    trainer: &mut TrainerRole,
    events: &mut EventWriter,
    games: u64,
    rating_threads: usize,
) -> Result<Generation> {
    let (run, config, ui) = (parts.run, parts.config, parts.ui);
    let rating_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rating_threads.max(1))
        .thread_name(|index| format!("rating-{index}"))
        .build()
        .map_err(|err| {
            PipelineError::Evaluation(format!(
                "starting the rating's {rating_threads} threads: {err}"
            ))
        })?;
    let best = run.best()?.map_or(0, |best| best.generation);
    let failed = AtomicBool::new(false);
    let stop = || ui.stopping() || failed.load(Ordering::Relaxed);
    let started = Instant::now();
    let (stop, failed) = (&stop, &failed);
    let (lane_trainer, lane_events) = (&mut *trainer, &mut *events);
    let (selfplay, turn) = std::thread::scope(|scope| {
        let rating_pool = &rating_pool;
        let trainer_lane = scope.spawn(move || {
            let turn = rating_pool.install(|| trainer_turn(parts, lane_trainer, lane_events, stop));
            if turn.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            turn
        });
        let selfplay = (games > 0).then(|| {
            let played = play_with_model(run, config, best, games, ui, false, stop);
            if played.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            played
        });
        let turn = trainer_lane.join().expect("the trainer's thread panicked");
        (selfplay, turn)
    });
    let wall = started.elapsed();
    let turn = turn?;
    let selfplay = selfplay.transpose()?;
    if let Some(played) = &selfplay {
        read_games(trainer, events, ui, played)?;
    }
    let times = GenerationTimes {
        selfplay: selfplay.as_ref().map_or(Duration::ZERO, |played| played.1),
        training: turn.training_time,
        evaluation: turn.evaluation_time,
        wall,
        overlapped: true,
    };
    Ok(Generation {
        selfplay,
        turn,
        times,
    })
}
