//! Stopping long commands cleanly: the first SIGINT (Ctrl-C), SIGTERM or
//! SIGHUP asks the command to stop at its next safe point (after the current
//! training step, abandoning unfinished self-play and evaluation games, with
//! the trainer's state saved); a second one quits at once. Either way the run resumes
//! where it stopped, since every file is written atomically.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

/// Exit status of a command quit by a second signal (128 + SIGINT).
const QUIT_STATUS: i32 = 130;

/// Installs the process's signal handler; returns the flag it sets (the
/// pipeline's process-wide one, which a start waiting to take over a role
/// also watches). Call once per process, before opening the run, so that a
/// signal during the start is not lost (the pipeline's `RunOptions::stop`
/// takes the flag).
pub fn stop_flag_on_signal() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = sumito_pipeline::run::process_stop_flag();
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("\nsecond interrupt: quitting now (the run resumes from its files)");
            std::process::exit(QUIT_STATUS);
        }
        eprintln!(
            "\nstopping at the next safe point (the current training step \
             finishes; evaluation games under way are played again at the \
             next start; interrupt again to quit at once)"
        );
    })
    .context("installing the signal handler")?;
    Ok(stop)
}
