//! The steps the loop and the roles share: training the steps owed to the
//! replay, reading new games, evaluating a candidate or a backlog of them,
//! and whether the budget is spent.

use sumito_game::with_board;

use super::display::{Ui, say_skipped, summary_line};
use super::scalars::{evaluation_scalars, log_scalars};
use crate::config::Config;
use crate::error::{PipelineError, Result};
use crate::evaluation::{EvaluationSummary, evaluate_candidate};
use crate::ratings::RunTime;
use crate::rundir::RunDir;
use crate::tensorboard::EventWriter;
use crate::trainer::TrainerRole;

/// Trains the steps owed to the store, with a bar, until `stop()`; returns
/// the last metrics.
pub(super) fn train_pending(
    trainer: &mut TrainerRole,
    events: &mut EventWriter,
    ui: &Ui,
    lease_check: &dyn Fn() -> Result<()>,
    max_steps: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Option<sumito_net::TrainMetrics>> {
    let steps = trainer.pending_steps().min(max_steps);
    if steps == 0 {
        return Ok(None);
    }
    let bar = ui.bar(steps, "training", "steps");
    let mut last = None;
    for _ in 0..steps {
        if stop() {
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
pub(super) fn refresh_store(trainer: &mut TrainerRole, ui: &Ui) -> Result<()> {
    let report = trainer.refresh()?;
    say_skipped(&report, ui);
    Ok(())
}

pub(super) fn budget_spent(
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

/// Evaluates candidate `generation` with a bar and logs its scalars; the
/// leases are checked again after its games, before it writes.
pub(super) fn evaluate_and_report(
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

/// Evaluates the candidates `pending` (oldest first) as `evaluate_backlog`
/// does, each with `evaluate_and_report` and its summary line; `run_time` is
/// the run's time to record beside each rating.
pub(super) fn evaluate_pending(
    run: &RunDir,
    config: &Config,
    pending: &[u32],
    run_time: RunTime,
    ui: &Ui,
    events: &mut EventWriter,
    lease_check: &dyn Fn() -> Result<()>,
) -> Result<bool> {
    evaluate_backlog(pending, lease_check, &|| ui.stopping(), &mut |generation| {
        let summary =
            evaluate_and_report(run, config, generation, run_time, ui, events, lease_check)?;
        ui.say(&summary_line(generation, None, None, Some(&summary)));
        Ok(())
    })
}

/// Evaluates the candidates `pending` (oldest first) with `evaluate_one`,
/// each only once `lease_check` confirms this process still holds its roles
/// (one paused past its lease time and resumed must not write once another
/// took its role over) and no stop was asked for (Ctrl-C or SIGTERM is
/// honoured between candidates, not after the whole backlog). Returns
/// whether every candidate was evaluated.
pub(super) fn evaluate_backlog(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::EVALUATOR;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};

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
}
