//! Not a subcommand: what `arena` and `ladder` watch their matches with,
//! and the process's one signal handler ([`install_stop_handler`]).
//! The progress bar (unless `--quiet`), and a stop at the next move on the
//! first SIGINT (Ctrl-C), SIGTERM or SIGHUP; a second one quits at once.
//! The games finished by then keep their records; the match is not scored.
//! (`bench tactics` stops on the same signals, [`stop_on_signal`].)

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use sumito_game::Board;

use anyhow::Context;
use sumito_arena::arena::{MatchObserver, PlayedGame, Standings};
use sumito_arena::report::ProgressObserver;

/// Exit status of a command quit by a second signal (128 + SIGINT).
const QUIT_STATUS: i32 = 130;

/// The observer of a command's match.
#[derive(Debug)]
pub struct CommandObserver {
    progress: Option<ProgressObserver>,
    stop: Arc<AtomicBool>,
}

impl CommandObserver {
    /// Shows progress unless `quiet`; installs the signal handler (once a
    /// process).
    pub fn new(quiet: bool) -> anyhow::Result<CommandObserver> {
        Ok(CommandObserver {
            progress: (!quiet).then(ProgressObserver::new),
            stop: stop_on_signal()?,
        })
    }
}

/// The flag the first SIGINT, SIGTERM or SIGHUP sets (the handler is
/// installed at the first call; a second signal quits at once).
pub fn stop_on_signal() -> anyhow::Result<Arc<AtomicBool>> {
    // Held while the handler is installed: two threads asking at once (the
    // tests of one binary) must not both install it, which fails.
    static STOP: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);
    let mut installed = STOP.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(stop) = &*installed {
        return Ok(Arc::clone(stop));
    }
    let stop = Arc::new(AtomicBool::new(false));
    install_stop_handler(
        Arc::clone(&stop),
        "stopping at the next move or position (the games finished keep their \
         records; interrupt again to quit at once)",
        "quitting now",
    )?;
    *installed = Some(Arc::clone(&stop));
    Ok(stop)
}

/// The process's one signal handler (SIGINT, SIGTERM, SIGHUP): the first
/// signal sets `stop` and says `first`; a second says `second` and quits
/// at once with status 130 (128 + SIGINT).
pub fn install_stop_handler(
    stop: Arc<AtomicBool>,
    first: &'static str,
    second: &'static str,
) -> anyhow::Result<()> {
    ctrlc::set_handler(move || {
        if stop.swap(true, Ordering::SeqCst) {
            eprintln!("\nsecond interrupt: {second}");
            std::process::exit(QUIT_STATUS);
        }
        eprintln!("\n{first}");
    })
    .context("installing the signal handler")
}

impl<B: Board> MatchObserver<B> for CommandObserver {
    fn match_started(&self, standings: &Standings) {
        if let Some(progress) = &self.progress {
            MatchObserver::<B>::match_started(progress, standings);
        }
    }

    fn game_finished(&self, game: &PlayedGame<B>, standings: &Standings) {
        if let Some(progress) = &self.progress {
            progress.game_finished(game, standings);
        }
    }

    fn match_finished(&self, standings: &Standings) {
        if let Some(progress) = &self.progress {
            MatchObserver::<B>::match_finished(progress, standings);
        }
    }

    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}
