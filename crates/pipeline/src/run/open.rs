//! Opening a run for a command, and leaving it: which command holds which
//! role, the leases it holds while it works (`OpenRun`), starting a run or
//! resuming it with its stored configuration, and the clean-up before work.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sumito_net::configure_threads;

use crate::config::Config;
use crate::error::{PipelineError, Result};
use crate::evaluation::reconcile_best;
use crate::models::ensure_initial_model;
use crate::rundir::{Leases, Location, RunDir, RunDirError};
use crate::uploader::UploadGuard;

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

    pub(super) fn label(self) -> String {
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
    pub(super) fn check_leases(&self) -> Result<()> {
        check(&self.leases)
    }

    /// [`OpenRun::check_leases`] for a background thread.
    pub(super) fn upload_guard(&self) -> UploadGuard {
        let leases = Arc::clone(&self.leases);
        Arc::new(move || check(&leases))
    }

    /// Whether the command holds the lease `name`.
    pub(super) fn holds(&self, name: &str) -> bool {
        self.leases.lock().expect("leases lock").holds(name)
    }
}

/// An error once another process took over one of `leases`.
pub(super) fn check(leases: &Mutex<Leases>) -> Result<()> {
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

pub(crate) fn prepare(run: &RunDir, config: &Config) -> Result<()> {
    configure_threads(&config.net.threads)
        .map_err(PipelineError::net("configuring libtorch threads"))?;
    ensure_initial_model(run, config, 0x5u64)?;
    reconcile_best(run)
}

/// How long a role waits for a run that is not there yet, or is being
/// created, to be created: roles are started together on a new run (the
/// deploy examples start all at once), and the one with the configuration
/// creates it.
pub const RUN_CREATION_WAIT: Duration = Duration::from_secs(120);

/// How often a role waiting for a run's creation looks again.
const CREATION_POLL: Duration = Duration::from_millis(250);

/// Opens the run at `location` and takes `command`'s leases, waiting up to
/// `wait` (saying so once on standard error) while the run is not there
/// yet or another process is creating it.
fn open_and_enter(
    location: &Location,
    command: RunCommand,
    wait: Duration,
) -> Result<(RunDir, Leases)> {
    let started = Instant::now();
    let mut said = false;
    loop {
        let opened = RunDir::open_at(location)
            .and_then(|run| Ok((run.enter(&command.label(), command.roles())?, run)));
        match opened {
            Ok((leases, run)) => return Ok((run, leases)),
            Err(RunDirError::NotARun { .. } | RunDirError::BeingCreated { .. })
                if started.elapsed() < wait && may_be_created(location) =>
            {
                if !said {
                    eprintln!(
                        "sumito {}: no run at {location} yet: waiting up to {} s for its creation \
                         (by the role started with --config, or `sumito train`)",
                        command.name(),
                        wait.as_secs()
                    );
                    said = true;
                }
                std::thread::sleep(CREATION_POLL);
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// Whether a run may yet appear at `location`: a folder appears whole (it
/// is built aside and renamed into place), so one that holds files but no
/// run is no run being created, and is refused at once; an object store's
/// run gets its `run.json` last.
fn may_be_created(location: &Location) -> bool {
    match location {
        Location::Local(root) => {
            std::fs::read_dir(root).map_or(true, |mut entries| entries.next().is_none())
        }
        _ => true,
    }
}

/// Opens the existing run at `location` (a folder or an object store) for
/// `command`, with its stored configuration (for the role commands without
/// `--config`); a run not created yet is waited for ([`RUN_CREATION_WAIT`]).
pub fn open_run(location: &Location, command: RunCommand) -> Result<OpenRun> {
    open_run_within(location, command, RUN_CREATION_WAIT)
}

/// [`open_run`], waiting up to `wait` for the run's creation.
pub fn open_run_within(
    location: &Location,
    command: RunCommand,
    wait: Duration,
) -> Result<OpenRun> {
    let (run, leases) = open_and_enter(location, command, wait)?;
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
    let text = sumito_fsio::read_text_capped(config_path, sumito_fsio::MAX_TEXT_FILE_BYTES)
        .map_err(|source| crate::config::ConfigError::Io {
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
    // (Another process's creation on an object store is waited for.)
    let (run, leases) = open_and_enter(location, command, RUN_CREATION_WAIT)?;
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
pub(super) fn update_config(
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
pub(super) fn clean_up(open: &mut OpenRun, command: RunCommand) -> Result<()> {
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

    fn tiny_config() -> String {
        let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(repo.join("configs/tiny.toml")).unwrap()
    }

    /// A role started with the run's creator waits for its creation, on a
    /// folder and on an object store; with nothing created it gives up
    /// after its wait, naming the run.
    #[test]
    fn a_role_started_before_its_run_is_created_waits_for_it() {
        let folder = std::env::temp_dir().join(format!("sumito-wait-run-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        for location in [
            Location::Local(folder.join("run")),
            Location::parse("memory://wait-for-creation").unwrap(),
        ] {
            let creator = {
                let location = location.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(600));
                    RunDir::create_at(&location, &tiny_config()).unwrap();
                })
            };
            let started = Instant::now();
            let open =
                open_run_within(&location, RunCommand::SelfPlay, Duration::from_secs(20)).unwrap();
            assert!(started.elapsed() >= Duration::from_millis(500));
            assert!(open.resumed);
            creator.join().unwrap();
        }
        let never = Location::Local(folder.join("never"));
        let err =
            open_run_within(&never, RunCommand::Evaluate, Duration::from_millis(300)).unwrap_err();
        assert!(err.to_string().contains("no run.json"), "{err}");
        // A folder of other files is no run being created: refused at once.
        let foreign = folder.join("foreign");
        std::fs::create_dir_all(&foreign).unwrap();
        std::fs::write(foreign.join("notes.txt"), "keep me").unwrap();
        let started = Instant::now();
        let err = open_run_within(
            &Location::Local(foreign),
            RunCommand::Evaluate,
            Duration::from_secs(60),
        )
        .unwrap_err();
        assert!(err.to_string().contains("no run.json"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&folder);
    }
}
