//! The roles as separate long-lived processes on one shared run directory:
//! `sumito selfplay` (any number), `sumito trainer` and `sumito evaluate`
//! (one each), coordinating only through its files.

use std::time::Duration;

use sumito_net::configure_threads;

use super::display::{Ui, say_skipped, trainer_time_line};
use super::open::{OpenRun, RunOptions, prepare};
use super::scalars::{log_scalars, selfplay_scalars};
use super::steps::{budget_spent, evaluate_pending, refresh_store, train_pending};
use super::workers::play_with_model;
use crate::config::GatingMode;
use crate::error::{PipelineError, Result};
use crate::evaluation::{pending_candidates, reconcile_best};
use crate::ratings::RunTime;
use crate::replay::files::{ReplayFolder, list_games};
use crate::rundir::RunDirError;
use crate::tensorboard::EventWriter;
use crate::trainer::TrainerRole;

/// `sumito selfplay`: plays games with the newest best model, forever (or
/// until `budget.games` games are in the run, or `options.stop`). Any
/// number may run at once, on any machine that sees the run directory.
pub fn selfplay(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    configure_threads(&config.net.threads)
        .map_err(PipelineError::net("configuring libtorch threads"))?;
    let ui = Ui::new(options);
    let mut events = EventWriter::for_run(run, "selfplay")?;
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
            let played = list_games(&ReplayFolder::of_run(run), config.rules.kind())
                .map_err(RunDirError::from)?
                .len() as u64;
            if played >= limit {
                ui.say(&format!("budget spent: {played} games"));
                break;
            }
        }
        let games = config.selfplay.games_in_parallel as u64 * config.selfplay.workers as u64;
        let (stats, elapsed) =
            play_with_model(run, config, best.generation, games, &ui, true, &|| {
                ui.stopping()
            })?;
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
    let mut events = EventWriter::for_run(run, "trainer")?;
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
            train_pending(&mut trainer, &mut events, &ui, &lease_check, chunk, &|| {
                ui.stopping()
            })?;
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

/// `sumito evaluate`: evaluates every candidate as it appears.
pub fn evaluate(open: &OpenRun, options: &RunOptions) -> Result<()> {
    let (run, config) = (&open.run, &open.config);
    configure_threads(&config.net.threads)
        .map_err(PipelineError::net("configuring libtorch threads"))?;
    let ui = Ui::new(options);
    let mut events = EventWriter::for_run(run, "evaluate")?;
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
        evaluate_pending(
            run,
            config,
            &pending,
            RunTime::default(),
            &ui,
            &mut events,
            &lease_check,
        )?;
    }
    Ok(())
}
