//! The trainer: samples the replay store, trains the network a configured
//! number of samples per generated position, checkpoints itself atomically
//! (weights + optimiser) so that a killed trainer resumes where it was, and
//! writes a candidate model after each generation's worth of new games.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sumito_game::with_board;
use sumito_net::{TrainMetrics, Trainer};
use sumito_store::{Replaced, Version};
use tch::Device;

use crate::config::Config;
use crate::error::BeforeWriting;
use crate::error::{PipelineError, Result};
use crate::models::{device, load_model, save_model};
use crate::replay::files::ReplayFolder;
use crate::replay::replay_game::ReplayGame;
use crate::replay::store::{RefreshReport, ReplayStore};
use crate::run_board::RunBoard;
use crate::rundir::{MODEL_MANIFEST, Removed, RunDir, RunDirError};
use crate::uploader::{UploadGuard, Uploader};

/// The trainer's objects in the run: its state and its checkpoints.
const TRAINER: &str = "trainer/";
const TRAINER_STATE: &str = "trainer/state.json";
/// Uploads that may wait or run while the trainer trains.
const UPLOADS_QUEUED: usize = 3;

/// `trainer/state.json`: where the trainer stands. Written after the
/// checkpoint it names, so it never names a missing one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainerState {
    /// The newest candidate written (0: only the random start).
    pub generation: u32,
    /// Samples trained on so far.
    pub trained_samples: u64,
    /// Games in the replay store when the newest candidate was decided.
    pub games_at_candidate: u64,
    /// The checkpoint directory inside `trainer/` (none before the first save).
    pub checkpoint: Option<String>,
    /// The trainer that wrote it (`HOST-PID-N at TIME`): each start
    /// writes its own, so that a write still in flight from the trainer it
    /// took over from finds the record changed and is refused. Absent in
    /// states written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
}

/// The replay window the trainer samples, whatever the game: a
/// [`ReplayStore`] over the run's replay files, which draws its own batches
/// of training samples ([`ReplayGame::training_batch`]). The trainer sees this and the
/// network's samples, never the game's types.
pub trait TrainingData: std::fmt::Debug + Send {
    /// Games ever read into the store.
    fn total_games(&self) -> u64;
    /// Training positions ever read into the store.
    fn total_positions(&self) -> u64;
    /// Training positions in the window.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn refresh(&mut self) -> std::result::Result<RefreshReport, sumito_store::StoreError>;
    fn wait_for_games(
        &mut self,
        timeout: Duration,
    ) -> std::result::Result<RefreshReport, sumito_store::StoreError>;
    fn catch_up(&mut self) -> std::result::Result<RefreshReport, sumito_store::StoreError>;
    fn read_in_background(&mut self);
    /// The background reader's files and time (see
    /// [`ReplayStore::background_work`]).
    fn background_work(&self) -> Option<(u64, Duration)>;
    /// One optimiser step of `trainer` on `batch_size` samples drawn
    /// uniformly from the window (the store must not be empty).
    fn train_step(
        &self,
        trainer: &mut Trainer,
        rng: &mut ChaCha8Rng,
        config: &Config,
        batch_size: usize,
    ) -> std::result::Result<TrainMetrics, sumito_net::NetError>;
}

impl<G: ReplayGame> TrainingData for ReplayStore<G> {
    fn total_games(&self) -> u64 {
        ReplayStore::total_games(self)
    }

    fn total_positions(&self) -> u64 {
        ReplayStore::total_positions(self)
    }

    fn len(&self) -> usize {
        ReplayStore::len(self)
    }

    fn refresh(&mut self) -> std::result::Result<RefreshReport, sumito_store::StoreError> {
        ReplayStore::refresh(self)
    }

    fn wait_for_games(
        &mut self,
        timeout: Duration,
    ) -> std::result::Result<RefreshReport, sumito_store::StoreError> {
        ReplayStore::wait_for_games(self, timeout)
    }

    fn catch_up(&mut self) -> std::result::Result<RefreshReport, sumito_store::StoreError> {
        ReplayStore::catch_up(self)
    }

    fn read_in_background(&mut self) {
        ReplayStore::read_in_background(self);
    }

    fn background_work(&self) -> Option<(u64, Duration)> {
        ReplayStore::background_work(self)
    }

    fn train_step(
        &self,
        trainer: &mut Trainer,
        rng: &mut ChaCha8Rng,
        config: &Config,
        batch_size: usize,
    ) -> std::result::Result<TrainMetrics, sumito_net::NetError> {
        trainer.train_step(&ReplayStore::training_batch(self, rng, config, batch_size))
    }
}

/// The replay window of the run's game, as its rules say: the replay
/// files of that game (and the older `.game` or `.vgame` ones).
fn training_data(run: &RunDir, config: &Config) -> Box<dyn TrainingData> {
    let (folder, training) = (ReplayFolder::of_run(run), config.training.clone());
    with_board!(
        config.rules.kind(),
        B => Box::new(ReplayStore::<<B as RunBoard>::Replay>::new(folder, training))
    )
}

/// The trainer with its replay store.
#[derive(Debug)]
pub struct TrainerRole {
    run: RunDir,
    config: Config,
    device: Device,
    trainer: Trainer,
    store: Box<dyn TrainingData>,
    state: TrainerState,
    rng: ChaCha8Rng,
    /// Samples owed when the current generation's games were complete.
    generation_boundary: Option<u64>,
    /// Time spent waiting on the run's storage: reading games, sharing
    /// checkpoints and candidates (see [`TrainerRole::storage_time`]).
    storage: Duration,
    opened: Instant,
    /// Shares checkpoints, the state and candidates with the run's storage
    /// in the background, in order.
    uploader: Uploader,
    /// Games read at start by the background reader, and the time it took.
    startup_read: Option<(u64, Duration)>,
    /// The version of `trainer/state.json` this trainer wrote last: each
    /// write is conditional on it (shared with the background uploads).
    state_version: Arc<Mutex<Option<Version>>>,
    /// The state last written or queued to be written.
    saved_state: TrainerState,
}

impl TrainerRole {
    /// Resumes the trainer of `run` from its checkpoint, or starts it from
    /// the newest candidate (generation 0 at first).
    /// The trainer of `run`; `guard` is asked right before each background
    /// upload (the role's leases), so that a trainer paused past its lease
    /// time and resumed after a takeover does not write what it had queued
    /// (a state naming its checkpoint over the new holder's): its error
    /// stops the uploads and is returned by the next save.
    pub fn open(run: &RunDir, config: &Config, guard: UploadGuard) -> Result<TrainerRole> {
        let device = device(config)?;
        let (state, version) = match run.get_json_versioned(TRAINER_STATE)? {
            Some((state, version)) => (Some(state), Some(version)),
            None => (None, None),
        };
        let state: TrainerState = state.unwrap_or(TrainerState {
            generation: 0,
            trained_samples: 0,
            games_at_candidate: 0,
            checkpoint: None,
            holder: None,
        });
        let trainer = match &state.checkpoint {
            Some(name) => {
                let key = format!("{TRAINER}{name}");
                let path = run.fetch_folder(&key, MODEL_MANIFEST)?.ok_or_else(|| {
                    RunDirError::Malformed {
                        path: run.object_path(TRAINER_STATE),
                        problem: format!("it names the checkpoint {name}, which is not there"),
                    }
                })?;
                Trainer::load_checkpoint(&path, &config.net.model, &config.net.training, device)
                    .map_err(PipelineError::net(format!(
                        "resuming the trainer from {}",
                        path.display()
                    )))?
                    .0
            }
            None => {
                let net = load_model(run, state.generation, config, device)?;
                Trainer::new(net, &config.net.training)
                    .map_err(PipelineError::net("starting the trainer"))?
            }
        };
        let store = training_data(run, config);
        let rng = ChaCha8Rng::seed_from_u64(state.trained_samples ^ 0x5EED);
        let mut role = TrainerRole {
            run: run.clone(),
            config: config.clone(),
            device,
            trainer,
            store,
            // Written below, as this start's own.
            saved_state: state.clone(),
            state,
            rng,
            generation_boundary: None,
            storage: Duration::ZERO,
            opened: Instant::now(),
            // A checkpoint and a candidate in flight at most: a slow store
            // holds the trainer back rather than pile up files to upload.
            uploader: Uploader::guarded(UPLOADS_QUEUED, guard),
            startup_read: None,
            state_version: Arc::new(Mutex::new(version)),
        };
        // The fence: this start's own state, written over the version read,
        // so that a write of the trainer taken over (one still in flight,
        // or queued by one paused past its lease) is refused by the store.
        static OPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        role.state.holder = Some(format!(
            "{}-{}-{} at {}",
            crate::fsutil::hostname(),
            std::process::id(),
            OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            crate::fsutil::utc_timestamp()
        ));
        write_state(run, &role.state, &role.state_version)?;
        role.saved_state = role.state.clone();
        // A crash between saving the state and exporting the candidate
        // leaves the candidate missing: export it again from the checkpoint.
        if role.state.generation > 0 && !run.has_model(role.state.generation)? {
            role.export_candidate()?;
            // Evaluated next, from the run's storage.
            role.finish_uploads()?;
        }
        Ok(role)
    }

    pub fn state(&self) -> &TrainerState {
        &self.state
    }

    pub fn store(&self) -> &dyn TrainingData {
        self.store.as_ref()
    }

    pub fn step(&self) -> u64 {
        self.trainer.step()
    }

    /// Reads new replay files (with a background reader, takes those it
    /// read); skipped files are logged with their names.
    pub fn refresh(&mut self) -> Result<RefreshReport> {
        let report = self.store.refresh().map_err(RunDirError::from)?;
        self.take_report(report)
    }

    /// From now on, new replay files are listed and read in a background
    /// thread while the trainer trains (the `trainer` role; `train` plays
    /// and trains in turns and reads synchronously).
    /// Waits for the games there are now (the first listing; with a
    /// background reader), and returns what that read (its storage time:
    /// how long it took).
    pub fn read_in_background(&mut self) -> Result<RefreshReport> {
        self.store.read_in_background();
        let report = self.store.catch_up().map_err(RunDirError::from)?;
        let report = self.take_report(report)?;
        self.startup_read = Some((report.new_games, report.storage_time));
        Ok(report)
    }

    /// The games read at start by [`TrainerRole::read_in_background`] and
    /// how long it took.
    pub fn startup_read(&self) -> Option<(u64, Duration)> {
        self.startup_read
    }

    /// Waits up to `timeout` for new replay files and takes them.
    pub fn wait_for_games(&mut self, timeout: Duration) -> Result<RefreshReport> {
        let report = self
            .store
            .wait_for_games(timeout)
            .map_err(RunDirError::from)?;
        self.take_report(report)
    }

    fn take_report(&mut self, report: RefreshReport) -> Result<RefreshReport> {
        // Listing and reading only: decoding games is the trainer's work.
        self.storage += report.storage_time;
        for (name, why) in &report.skipped {
            self.run.log(
                "trainer",
                &format!("warning: skipped replay file {name}: {why}"),
            )?;
        }
        let (games, owed) = (self.store.total_games(), self.owed_samples());
        if let Some(rebased) = rebased_on_replay(&self.state, games, owed) {
            self.run.log(
                "trainer",
                &format!(
                    "the replay holds {games} games, fewer than the {} counted at generation {} (trimmed or lost): the next candidate comes after {} new games, training owed from the positions it holds",
                    self.state.games_at_candidate,
                    self.state.generation,
                    self.config.selfplay.games_per_generation
                ),
            )?;
            self.state = rebased;
        }
        Ok(report)
    }

    /// Optimiser steps still owed to the positions generated so far
    /// (`samples_per_position` samples each). None while the window holds
    /// less than one batch.
    pub fn pending_steps(&self) -> u64 {
        self.steps_owed_for(self.owed_samples())
    }

    fn owed_samples(&self) -> u64 {
        (self.store.total_positions() as f64 * self.config.training.samples_per_position) as u64
    }

    fn steps_owed_for(&self, samples: u64) -> u64 {
        let batch = self.config.net.training.batch_size as u64;
        if (self.store.len() as u64) < batch {
            return 0;
        }
        samples.saturating_sub(self.state.trained_samples) / batch
    }

    /// Whether a generation's worth of games arrived since the last
    /// candidate and the training owed to the positions generated up to that
    /// point is done. (Positions that arrive later belong to the next
    /// generation, so that self-play running faster than training never
    /// holds candidates back.)
    pub fn candidate_due(&mut self) -> bool {
        if self.games_since_candidate() < self.config.selfplay.games_per_generation {
            return false;
        }
        let owed = self.owed_samples();
        let boundary = *self.generation_boundary.get_or_insert(owed);
        self.steps_owed_for(boundary) == 0
    }

    /// Games in the store since the newest candidate.
    pub fn games_since_candidate(&self) -> u64 {
        self.store
            .total_games()
            .saturating_sub(self.state.games_at_candidate)
    }

    /// One optimiser step on a batch drawn uniformly from the window, each
    /// sample under a random allowed symmetry. Checkpoints every
    /// `training.checkpoint_every_steps` steps (see
    /// [`TrainerRole::save_checkpoint`] for `before_writing`).
    pub fn train_step(&mut self, before_writing: BeforeWriting<'_>) -> Result<TrainMetrics> {
        let batch_size = self.config.net.training.batch_size;
        let trained =
            self.store
                .train_step(&mut self.trainer, &mut self.rng, &self.config, batch_size);
        let metrics = trained.map_err(PipelineError::net("training step"))?;
        self.state.trained_samples += batch_size as u64;
        if self
            .trainer
            .step()
            .is_multiple_of(self.config.training.checkpoint_every_steps)
        {
            self.save_checkpoint(before_writing)?;
        }
        Ok(metrics)
    }

    /// Saves weights and optimiser under a new name; then, in the
    /// background, shares it, then the state naming it, then removes the
    /// previous checkpoint. With no step trained since the checkpoint the
    /// state names, only a changed state is written (a candidate decided
    /// without a step since: its training was done when a stop came before
    /// it was written). `before_writing` is called first: its error (the
    /// trainer role lost, say after the process was paused) stops the save
    /// before anything is written.
    pub fn save_checkpoint(&mut self, before_writing: BeforeWriting<'_>) -> Result<()> {
        let name = format!("ckpt-{:09}", self.trainer.step());
        let key = format!("{TRAINER}{name}");
        let path = self.run.root().join(&key);
        // Nothing trained since the checkpoint the state names: it is this
        // one already (and deleting it to rewrite it would risk losing it).
        if self.state.checkpoint.as_deref() == Some(name.as_str()) && path.exists() {
            if self.state != self.saved_state {
                before_writing()?;
                let (run, state) = (self.run.clone(), self.state.clone());
                let version = Arc::clone(&self.state_version);
                self.saved_state = state.clone();
                self.storage += self
                    .uploader
                    .submit(move || write_state(&run, &state, &version))?;
            }
            return Ok(());
        }
        before_writing()?;
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(PipelineError::io(&path))?;
        }
        let dir = self.run.trainer_dir();
        std::fs::create_dir_all(&dir).map_err(PipelineError::io(&dir))?;
        self.trainer
            .save_checkpoint(&path, Some(self.config.rules.rules()))
            .map_err(PipelineError::net(format!(
                "saving the trainer checkpoint {}",
                path.display()
            )))?;
        let previous = self.state.checkpoint.replace(name.clone());
        let (run, state) = (self.run.clone(), self.state.clone());
        let version = Arc::clone(&self.state_version);
        self.saved_state = state.clone();
        self.storage += self.uploader.submit(move || {
            run.publish_folder(&key, MODEL_MANIFEST)?;
            write_state(&run, &state, &version)?;
            if let Some(previous) = previous.filter(|previous| *previous != name) {
                // A leftover is pruned at the next start.
                let _ = run.delete_folder(&format!("{TRAINER}{previous}"), MODEL_MANIFEST);
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Writes the next candidate: first the trainer's own checkpoint and
    /// state (which count the candidate as made), then the model, and makes
    /// it the best when `promote` (gating off); the storage gets them in
    /// that order, in the background. Returns its generation. Nothing is
    /// written unless `before_writing` allows it.
    pub fn write_candidate(
        &mut self,
        promote: bool,
        before_writing: BeforeWriting<'_>,
    ) -> Result<u32> {
        before_writing()?;
        self.state.generation += 1;
        self.state.games_at_candidate = self.store.total_games();
        self.generation_boundary = None;
        self.save_checkpoint(before_writing)?;
        self.export_candidate()?;
        let generation = self.state.generation;
        if promote {
            let run = self.run.clone();
            self.storage += self
                .uploader
                .submit(move || Ok(run.set_best(generation)?))?;
        }
        self.run.log(
            "trainer",
            &format!(
                "candidate gen-{generation}: {} training steps, {} samples, {} games, {} positions",
                self.trainer.step(),
                self.state.trained_samples,
                self.store.total_games(),
                self.store.total_positions()
            ),
        )?;
        Ok(generation)
    }

    fn export_candidate(&mut self) -> Result<()> {
        let generation = self.state.generation;
        save_model(
            self.trainer.net(),
            &self.run.model_path(generation),
            self.trainer.step(),
            &self.config,
        )?;
        let run = self.run.clone();
        self.storage += self
            .uploader
            .submit(move || Ok(run.publish_model(generation)?))?;
        Ok(())
    }

    /// Waits until everything saved is shared with the run's storage (before
    /// another part of the process reads it there, and before exiting).
    pub fn finish_uploads(&mut self) -> Result<()> {
        self.storage += self.uploader.finish()?;
        Ok(())
    }

    /// Uploads finished in the background and the time they took.
    pub fn uploads_done(&self) -> (u64, Duration) {
        self.uploader.work_done()
    }

    /// Time spent waiting on the run's storage since the role was opened
    /// (reading games; uploading checkpoints, candidates and the state: on
    /// a folder those are in place already), and the whole time since.
    pub fn storage_time(&self) -> (Duration, Duration) {
        (self.storage, self.opened.elapsed())
    }

    pub fn device(&self) -> Device {
        self.device
    }
}

/// The generation of the newest candidate the trainer wrote (0 before its
/// first), as its state says: the one it exports again when its model is
/// missing ([`TrainerRole::open`]).
pub(crate) fn trainer_generation(run: &RunDir) -> Result<u32> {
    Ok(run
        .get_json::<TrainerState>(TRAINER_STATE)?
        .map_or(0, |state| state.generation))
}

/// Removes the trainer checkpoints (`trainer/ckpt-*`) that its state does
/// not name: one a killed trainer was writing (incomplete), or one it wrote
/// or had replaced but never got to name or remove. Call it holding the
/// trainer role; returns what it removed.
///
/// It checks before it removes anything: a state that names a checkpoint
/// that is not there whole (what a partial sync or a restore from backup
/// leaves) is refused, naming it and the checkpoints there, and nothing is
/// removed, since the one it would remove may be the only one left.
pub fn prune_checkpoints(run: &RunDir) -> Result<Vec<Removed>> {
    let named = run
        .get_json::<TrainerState>(TRAINER_STATE)?
        .and_then(|state| state.checkpoint);
    // Every checkpoint folder with its objects (in a folder: its files).
    let mut folders: Vec<(String, bool)> = run
        .checkpoint_folders(&format!("{TRAINER}ckpt-"))?
        .into_iter()
        .map(|(key, complete)| (key[TRAINER.len()..].to_owned(), complete))
        .collect();
    if !run.is_remote() {
        // Folders a killed trainer left empty hold no object.
        let dir = run.trainer_dir();
        for entry in std::fs::read_dir(&dir).map_err(PipelineError::io(&dir))? {
            let name = entry.map_err(PipelineError::io(&dir))?.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("ckpt-") && !folders.iter().any(|(known, _)| *known == name) {
                folders.push((name.into_owned(), false));
            }
        }
    }
    if let Some(named) = &named
        && !folders
            .iter()
            .any(|(name, complete)| name == named && *complete)
    {
        let incomplete = folders.iter().any(|(name, _)| name == named);
        let mut there: Vec<String> = folders
            .iter()
            .map(|(name, complete)| {
                if *complete {
                    name.clone()
                } else {
                    format!("{name} (incomplete)")
                }
            })
            .collect();
        there.sort();
        let there = if there.is_empty() {
            "there is none".to_owned()
        } else {
            format!("there are {}", there.join(", "))
        };
        return Err(RunDirError::Malformed {
            path: run.object_path(TRAINER_STATE),
            problem: format!(
                "it names the trainer checkpoint {named}, which {} (of the trainer's checkpoints in {}, {there}); nothing was removed: restore {named}, or name one of those in it",
                if incomplete {
                    "is incomplete (it has no manifest)"
                } else {
                    "is not there"
                },
                run.object_path(TRAINER).display(),
            ),
        }
        .into());
    }
    let mut removed = Vec::new();
    for (name, complete) in folders {
        if named.as_deref() == Some(name.as_str()) {
            continue;
        }
        let key = format!("{TRAINER}{name}");
        run.delete_folder(&key, MODEL_MANIFEST)?;
        removed.push(Removed {
            path: run.object_path(&key),
            what: if complete {
                "a trainer checkpoint its state does not name"
            } else {
                "an incomplete trainer checkpoint"
            },
        });
    }
    Ok(removed)
}

/// Writes `state` as `trainer/state.json` if the record is still in the
/// version this trainer wrote or read last (`version`, then the new one):
/// once another trainer wrote it (a takeover), the write is refused and
/// this trainer stops.
fn write_state(run: &RunDir, state: &TrainerState, version: &Mutex<Option<Version>>) -> Result<()> {
    let mut version = version.lock().expect("state version lock");
    match run.replace_json(TRAINER_STATE, state, version.as_ref())? {
        Replaced::Written(written) => {
            *version = Some(written);
            Ok(())
        }
        Replaced::Changed => Err(PipelineError::Overwritten {
            path: run.object_path(TRAINER_STATE),
            role: "trainer".into(),
        }),
    }
}

/// The trainer's counts when the replay holds fewer games than its state
/// counted (a replay trimmed to carry a run elsewhere, or lost): counted
/// from what the replay holds, so that the next candidate comes after a
/// generation's worth of new games and the positions read are trained on,
/// instead of waiting for self-play to make up the missing games. None when
/// the replay holds at least the games counted.
fn rebased_on_replay(state: &TrainerState, games: u64, owed_samples: u64) -> Option<TrainerState> {
    (games < state.games_at_candidate).then(|| TrainerState {
        games_at_candidate: games,
        trained_samples: state.trained_samples.min(owed_samples),
        ..state.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use crate::rundir::Location;

    /// A whole checkpoint folder in `run` (its files only: nothing loads it).
    fn checkpoint(run: &RunDir, name: &str, complete: bool) {
        let key = format!("{TRAINER}{name}");
        run.store()
            .put(&format!("{key}/weights.safetensors"), b"weights")
            .unwrap();
        if complete {
            run.store()
                .put(&format!("{key}/{MODEL_MANIFEST}"), b"{}")
                .unwrap();
        }
    }

    fn names(run: &RunDir) -> Vec<String> {
        let mut names: Vec<String> = run
            .checkpoint_folders(&format!("{TRAINER}ckpt-"))
            .unwrap()
            .into_iter()
            .map(|(key, _)| key[TRAINER.len()..].to_owned())
            .collect();
        names.sort();
        names
    }

    fn name_in_state(run: &RunDir, checkpoint: &str) {
        let state = TrainerState {
            generation: 3,
            trained_samples: 96,
            games_at_candidate: 24,
            checkpoint: Some(checkpoint.to_owned()),
            holder: None,
        };
        run.put_json(TRAINER_STATE, &state).unwrap();
    }

    /// What a partial sync or a restore from backup leaves: the state names
    /// a checkpoint that is not there (or not whole). Refused, naming it and
    /// those there, and the only real checkpoint is kept.
    fn a_state_naming_a_missing_checkpoint_is_refused_and_nothing_removed(run: &RunDir) {
        checkpoint(run, "ckpt-000000177", true);
        name_in_state(run, "ckpt-000000200");
        let err = prune_checkpoints(run).unwrap_err().to_string();
        assert!(
            err.contains("state.json")
                && err.contains("ckpt-000000200, which is not there")
                && err.contains("there are ckpt-000000177")
                && err.contains("nothing was removed"),
            "{err}"
        );
        assert_eq!(names(run), ["ckpt-000000177"]);

        // Named but without its manifest (a sync half-way): refused too.
        checkpoint(run, "ckpt-000000200", false);
        let err = prune_checkpoints(run).unwrap_err().to_string();
        assert!(
            err.contains("ckpt-000000200, which is incomplete")
                && err.contains("ckpt-000000177, ckpt-000000200 (incomplete)"),
            "{err}"
        );
        assert_eq!(names(run), ["ckpt-000000177", "ckpt-000000200"]);

        // Named and whole: the others are pruned as before.
        name_in_state(run, "ckpt-000000177");
        checkpoint(run, "ckpt-000000150", true);
        let removed = prune_checkpoints(run).unwrap();
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert_eq!(names(run), ["ckpt-000000177"]);
    }

    #[test]
    fn a_state_naming_a_missing_checkpoint_is_refused_in_a_folder() {
        let dir = TempDir::new("missing-checkpoint");
        let run = RunDir::create(dir.path(), "").unwrap();
        a_state_naming_a_missing_checkpoint_is_refused_and_nothing_removed(&run);
        assert!(run.trainer_dir().join("ckpt-000000177").is_dir());
    }

    #[test]
    fn a_state_naming_a_missing_checkpoint_is_refused_on_an_object_store() {
        let location = Location::parse("memory://trainer-missing-checkpoint").unwrap();
        let run = RunDir::create_at(&location, "").unwrap();
        a_state_naming_a_missing_checkpoint_is_refused_and_nothing_removed(&run);
        RunDir::delete_at(&location).unwrap();
    }

    #[test]
    fn a_trimmed_replay_rebases_the_counts_on_what_it_holds() {
        let state = TrainerState {
            generation: 139,
            trained_samples: 4_000_000,
            games_at_candidate: 26_000,
            checkpoint: Some("ckpt-000007500".to_owned()),
            holder: None,
        };
        // The whole replay, or more: nothing changes.
        assert_eq!(rebased_on_replay(&state, 26_000, 4_100_000), None);
        assert_eq!(rebased_on_replay(&state, 26_512, 4_100_000), None);
        // A trimmed one: the next candidate after a generation of new games,
        // training owed for positions read from now on.
        let rebased = rebased_on_replay(&state, 7_680, 1_200_000).unwrap();
        assert_eq!(
            rebased,
            TrainerState {
                games_at_candidate: 7_680,
                trained_samples: 1_200_000,
                ..state.clone()
            }
        );
        // Already trained less than the trimmed replay owes: kept.
        let behind = TrainerState {
            trained_samples: 1_000_000,
            ..state
        };
        assert_eq!(
            rebased_on_replay(&behind, 7_680, 1_200_000)
                .unwrap()
                .trained_samples,
            1_000_000
        );
    }
}
