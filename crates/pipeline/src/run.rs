//! The loop: `train` runs self-play → training → candidate → evaluation →
//! promotion in one process, one generation after another ([`generation`]:
//! in turns, or self-play beside the trainer when [`overlap`] says), and
//! keeps its hours and CPU time (`loop.json`).
//! The same steps run as separate long-lived roles ([`roles`]: `selfplay`,
//! `trainer`, `evaluate`) on one shared run directory; a command opens the
//! run and holds its leases through [`open`]; what a run shows is
//! [`display`]'s, its TensorBoard scalars [`scalars`]'.

mod display;
mod generation;
mod open;
mod overlap;
mod roles;
mod scalars;
mod steps;
mod workers;

use std::time::Instant;

use serde::{Deserialize, Serialize};

use display::{Ui, summary_line};
use generation::{Generation, LoopParts};
pub(crate) use open::prepare;
pub use open::{
    EVALUATOR, OpenRun, RunCommand, RunOptions, TRAINER, open_for_role, open_run, start_or_resume,
};
use overlap::{Overlap, Round, Standing, next_round};
pub use roles::{evaluate, selfplay, trainer};
use scalars::log_scalars;
use steps::{budget_spent, evaluate_pending, refresh_store};

use crate::error::Result;
use crate::evaluation::pending_candidates;
use crate::ratings::RunTime;
pub use crate::rundir::Location;
use crate::rundir::{LOOP_STATE, RunDir, RunDirError};
use crate::tensorboard::EventWriter;
use crate::trainer::TrainerRole;

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

/// `sumito train`: the whole loop in one process, until the budget is spent
/// or `options.stop` is set.
pub fn train(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    let lease_check = || open.check_leases();
    prepare(run, config)?;
    let ui = Ui::new(options);
    let mut events = EventWriter::for_run(run, "train")?;
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
    let time = RunTime {
        hours: Some(earlier_seconds / 3600.0),
        core_hours: Some(earlier_cpu / 3600.0),
    };
    evaluate_pending(run, config, &pending, time, &ui, &mut events, &lease_check)?;
    // Decided once, for the whole session.
    let overlap = Overlap::here(config);
    ui.say(&overlap.describe());
    run.log("train", &overlap.describe())?;
    let parts = LoopParts {
        run,
        config,
        ui: &ui,
        lease_check: &lease_check,
        run_time: &run_time,
    };
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
        let spent = budget_spent(config, generation, trainer.store().total_games(), elapsed());
        let done = if overlap.on {
            let standing = Standing {
                generation,
                games_since_candidate: trainer.games_since_candidate(),
                games_per_generation: config.selfplay.games_per_generation,
                generations_limit: config.budget.generations,
            };
            match next_round(standing, spent) {
                Round::Stop(spent) => Err(spent),
                Round::Play(games) => Ok(generation::overlapped(
                    &parts,
                    &mut trainer,
                    &mut events,
                    games,
                    overlap.rating_threads,
                )?),
            }
        } else {
            match spent {
                Some(spent) => Err(spent),
                None => Ok(generation::in_turns(&parts, &mut trainer, &mut events)?),
            }
        };
        let Generation {
            selfplay,
            turn,
            times,
        } = match done {
            Ok(done) => done,
            Err(spent) => {
                ui.say(&format!("budget spent: {spent}"));
                run.log("train", &format!("budget spent ({spent}); stopping"))?;
                break;
            }
        };
        // Stopped in the middle (in the evaluation's games, say): the
        // candidate, if written, is evaluated first at the next start.
        let Some(candidate) = turn.candidate.filter(|_| !ui.stopping()) else {
            continue;
        };
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
                turn.training.as_ref(),
                turn.evaluation.as_ref()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::EvaluationSummary;
    use crate::ratings::{EloEntry, EvaluationRecord};
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
