//! Stopping long commands cleanly: the first SIGINT (Ctrl-C), SIGTERM or
//! SIGHUP asks the command to stop at its next safe point (after the current
//! training step, abandoning unfinished self-play and evaluation games, with
//! the trainer's state saved); a second one quits at once. Either way the run resumes
//! where it stopped, since every file is written atomically.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use sumito_cli::commands::match_observer::install_stop_handler;

/// Installs the process's signal handler; returns the flag it sets (the
/// pipeline's process-wide one, which a start waiting to take over a role
/// also watches). Call once per process, before opening the run, so that a
/// signal during the start is not lost (the pipeline's `RunOptions::stop`
/// takes the flag).
pub fn stop_flag_on_signal() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = sumito_pipeline::stop::process_stop_flag();
    install_stop_handler(
        Arc::clone(&stop),
        "stopping at the next safe point (the current training step \
         finishes; evaluation games under way are played again at the \
         next start; interrupt again to quit at once); run the same \
         command again to resume",
        "quitting now; run the same command again to resume from the run's files",
    )?;
    Ok(stop)
}
