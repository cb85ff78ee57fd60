//! A page's searches as the server runs them: its seat players' moves, its
//! analyses, its reviews and the moves it tries in learn mode. Each runs on a blocking thread with one of the
//! server's search slots ([`crate::slots`], shared fairly between pages) and,
//! for a model, memory reserved from the server's budget while it runs
//! (never while a game merely waits). Each has a time limit, enforced here
//! by the server's clock, and a stop flag of its own that the search checks
//! at every batch of its evaluations: it is set when the page goes, when
//! the page moves on (sends another message), and at the limit, so a search
//! ends within one batch of any of them. A review is a sequence of bounded
//! searches, one a position, that gives its slot back between positions; a
//! move tried in learn mode one search, bounded as a review's position.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use sumito_play::review::{render_review_svg, review_json};
use tokio::time::Instant;

use crate::menu::{
    MODEL_SEARCH_MB, PagePolicy, REVIEW_POSITION_DEADLINE, REVIEW_POSITION_LIMIT, Reservation,
};
use crate::page::{Page, PageLink};
use crate::protocol::ServerMessage;
use crate::seat_player::{PlayerMove, PlayerTurn};
use crate::session::learn::Attempting;
use crate::session::{GameSession, error};
use crate::slots::SlotUser;

/// A search's stop flag, set when this is dropped: a search stops when the
/// server stops waiting for it, however that happens (the page went, moved
/// on, or the time is up).
#[derive(Debug, Default)]
pub(crate) struct SearchStop(Arc<AtomicBool>);

impl SearchStop {
    pub(crate) fn new() -> SearchStop {
        SearchStop::default()
    }

    /// The flag the search checks.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

impl Drop for SearchStop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a page's searches share with the other pages'.
pub(crate) struct Shares<'a> {
    pub slots: &'a SlotUser,
    pub policy: &'a PagePolicy,
}

impl Shares<'_> {
    /// `mb` megabytes of the budget, or why not.
    fn memory(&self, mb: u32) -> Result<Reservation, String> {
        self.policy.memory.reserve(mb)
    }
}

/// How a seat player's turn ended.
pub(crate) enum TurnEnd {
    /// It answered within its deadline: a move, or why it has none.
    Answered(PlayerTurn, Result<PlayerMove, String>),
    /// Its deadline passed and its search, stopped there, had no move (it
    /// was stopped before it searched at all). Stopped later, it answers
    /// with the move of what it searched ([`TurnEnd::Answered`]).
    OverLimit(PlayerTurn),
    /// Its thread ended without an answer (it panicked).
    Lost,
}

/// Plays `turn`: its player thinks on a blocking thread, aiming at the
/// turn's cap, and is stopped at its deadline by the server's clock (its
/// search ends within a batch). Dropped before it ends (the page went), it
/// stops the search too.
pub(crate) async fn think_within_limit(mut turn: PlayerTurn) -> TurnEnd {
    let stop = SearchStop::new();
    turn.player.set_stop(stop.flag());
    let deadline = turn.deadline;
    let mut job = tokio::task::spawn_blocking(move || {
        let answer = turn.player.think(&turn.position, Some(turn.cap));
        (turn, answer)
    });
    match tokio::time::timeout(deadline, &mut job).await {
        Ok(Ok((turn, answer))) => TurnEnd::Answered(turn, answer),
        Ok(Err(_)) => TurnEnd::Lost,
        Err(_) => {
            drop(stop);
            match job.await {
                Ok((turn, answer @ Ok(_))) => TurnEnd::Answered(turn, answer),
                Ok((turn, Err(_))) => TurnEnd::OverLimit(turn),
                Err(_) => TurnEnd::Lost,
            }
        }
    }
}

/// Runs the players whose turn it is, sending the state after each move;
/// `false` when the page is gone.
pub(crate) async fn run_players(
    page: &mut Page,
    session: &mut GameSession,
    shares: &Shares<'_>,
) -> bool {
    while let Some(seat) = session.player_to_move() {
        let Some(turn) = session.take_player(seat) else {
            break;
        };
        // Players that search take a slot; random and greedy answer at once.
        let slot = match turn.searches {
            true => match page.wait(shares.slots.acquire()).await {
                Some(slot) => Some(slot),
                None => return false,
            },
            false => None,
        };
        let reservation = match shares.memory(turn.search_mb) {
            Ok(reservation) => reservation,
            Err(message) => {
                session.give_back(turn);
                return page.send(&error(message)).await;
            }
        };
        // A page that goes drops the turn's thinking, which stops it.
        let Some(end) = page.wait(think_within_limit(turn)).await else {
            return false;
        };
        drop((slot, reservation));
        let (turn, answer) = match end {
            TurnEnd::Answered(turn, answer) => (turn, answer),
            TurnEnd::OverLimit(turn) => {
                let deadline = turn.deadline;
                session.give_back(turn);
                return page
                    .send(&error(format!(
                        "the player could not move within its limit of {deadline:?}"
                    )))
                    .await;
            }
            TurnEnd::Lost => return page.send(&error("the player stopped unexpectedly")).await,
        };
        if let Err(message) = session.player_done(turn.seat, turn.player, turn.position, answer) {
            return page
                .send(&error(format!("the player could not move: {message}")))
                .await;
        }
        if !page.send(&ServerMessage::State(session.state())).await {
            return false;
        }
    }
    true
}

/// Runs an analysis the page asked for, streaming its updates; the reply
/// to send after it, or `None` when the page is gone. It ends at its
/// `limit` (the server's is [`crate::menu::MODEL_THINK_LIMIT`]) or when the
/// page sends another message (the page has moved on), with all it
/// searched as its result (a stopped search answers with the simulations
/// it completed). The limit is the server's clock's, not the search's:
/// at it the stop flag ends the search at its next batch of evaluations,
/// however long the search's steps between its updates have grown.
pub(crate) async fn analyse(
    page: &mut impl PageLink,
    session: &mut GameSession,
    shares: &Shares<'_>,
    simulations: Option<u32>,
    position: Option<&str>,
    limit: Duration,
) -> Option<ServerMessage> {
    let (target, sims) = match session.analysis_target(simulations, position) {
        Ok(target) => target,
        Err(message) => return Some(error(message)),
    };
    let slot = page.wait(shares.slots.acquire()).await?;
    let reservation = match shares.memory(MODEL_SEARCH_MB) {
        Ok(reservation) => reservation,
        Err(message) => return Some(error(message)),
    };
    // The search runs on a blocking thread and streams its updates here
    // through a channel.
    let (updates, mut received) = tokio::sync::mpsc::unbounded_channel();
    let model = session.shared_model();
    let stop = SearchStop::new();
    let flag = stop.flag();
    let deadline = Instant::now() + limit;
    let mut job = tokio::task::spawn_blocking(move || {
        let result = model.analyse(&target, sims, flag, &mut |analysis| {
            updates.send(analysis.clone()).is_ok()
        });
        (target, result)
    });
    let mut last = None;
    let mut timed_out = false;
    let mut moved_on = false;
    loop {
        // A message from the page (a stop, a move, a step to another
        // position) ends the analysis at once: the page has moved on, and
        // its message is not kept waiting for the search's next update.
        let update =
            match tokio::time::timeout_at(deadline, page.until_message(received.recv())).await {
                Ok(Some(Some(update))) => update,
                Ok(Some(None)) => {
                    moved_on = true;
                    break;
                }
                Ok(None) => return None,
                Err(_) => {
                    timed_out = true;
                    break;
                }
            };
        let Some(analysis) = update else {
            break; // the search is done
        };
        // Every update but the last goes out as it comes.
        if let Some(earlier) = last.replace(analysis)
            && !page
                .send(&GameSession::analysis_message(&target, &earlier, false))
                .await
        {
            return None;
        }
    }
    drop(stop);
    drop(received);
    let joined = page.wait(&mut job).await?;
    drop((slot, reservation));
    let (target, analysis) = match joined {
        Ok((target, Ok(analysis))) => (target, analysis),
        // Failed, or stopped before its root was evaluated: its last
        // update, if any, is its result.
        Ok((target, Err(message))) => match last {
            Some(analysis) => (target, analysis),
            None if timed_out => {
                return Some(error(format!(
                    "the analysis reached its limit of {limit:?} before its first result"
                )));
            }
            // Stopped by the page before its first result: the page hears
            // that it ended (and asks again for its new position).
            None if moved_on => {
                return Some(error("the analysis was stopped before its first result"));
            }
            None => return Some(error(message)),
        },
        Err(_) => return Some(error("the analysis stopped unexpectedly")),
    };
    session.note_analysis(&target, &analysis);
    let message = GameSession::analysis_message(&target, &analysis, true);
    if !page.send(&message).await {
        return None;
    }
    Some(ServerMessage::State(session.state()))
}

/// The model's review thread asks for its next position this way: which
/// position is next, of how many, and where to say whether to go on.
type NextPosition = (usize, usize, std::sync::mpsc::SyncSender<bool>);

/// Runs a review the page asked for, streaming its progress; the reply to
/// send after it, or `None` when the page is gone. Each position is a
/// search of its own, within [`REVIEW_POSITION_LIMIT`], with a slot taken
/// for it and given back after it. A message from the page (the page has
/// moved on) ends the review at once, the search in progress within a
/// batch of its evaluations, as the page going does.
pub(crate) async fn review(
    page: &mut Page,
    session: &mut GameSession,
    shares: &Shares<'_>,
    simulations: Option<u32>,
) -> Option<ServerMessage> {
    let target = match session.review_target(simulations, REVIEW_POSITION_LIMIT) {
        Ok(target) => target,
        Err(message) => return Some(error(message)),
    };
    // Kept with the review for the exercises of learn mode.
    let judged = target.clone();
    let (progress, mut received) = tokio::sync::mpsc::unbounded_channel::<NextPosition>();
    let model = session.shared_model();
    let stop = SearchStop::new();
    let flag = stop.flag();
    // Before each position the model's thread waits here for the server's
    // go: a slot of its own.
    let mut job = tokio::task::spawn_blocking(move || {
        model.review(&target, flag, &mut |done, total| {
            let (go, wait) = std::sync::mpsc::sync_channel(1);
            progress.send((done, total, go)).is_ok() && wait.recv().unwrap_or(false)
        })
    });
    let mut slot = None;
    let mut reservation = None;
    let mut overran = false;
    loop {
        // A position's search, from its go to the next progress. A message
        // from the page (a stop, a new game, an undo) ends it at once, as
        // it ends an analysis: the page has moved on, and neither the rest
        // of this position's search nor its message waits for it.
        let next = match tokio::time::timeout(
            REVIEW_POSITION_DEADLINE,
            page.until_message(received.recv()),
        )
        .await
        {
            Ok(Some(Some(next))) => next,
            Ok(Some(None)) => break,
            Ok(None) => return None,
            Err(_) => {
                overran = true;
                break;
            }
        };
        let Some((done, total, go)) = next else {
            break; // the review is done
        };
        // Given back between positions: others' searches go first if they
        // searched less.
        slot = None;
        if !page
            .send(&ServerMessage::ReviewProgress { done, total })
            .await
        {
            return None;
        }
        if done < total {
            // Waiting for a slot ends the same way.
            slot = match page.until_message(shares.slots.acquire()).await? {
                Some(slot) => Some(slot),
                None => break,
            };
            if reservation.is_none() {
                match shares.memory(MODEL_SEARCH_MB) {
                    Ok(held) => reservation = Some(held),
                    Err(message) => return Some(error(message)),
                }
            }
        }
        // (A thread gone already has stopped.)
        let _ = go.send(true);
    }
    // Whatever ended the loop, the review's searches end with it.
    drop(stop);
    drop(received);
    let joined = page.wait(&mut job).await?;
    drop((slot, reservation));
    match joined {
        Ok(Ok(mut review)) => {
            review.meta = session.review_meta(judged.simulations);
            let message = ServerMessage::Review {
                review: review_json(&review),
                svg: render_review_svg(&review, "Review of the game"),
                lines: GameSession::review_lines(&judged, &review),
            };
            session.keep_review(judged, review);
            Some(message)
        }
        Ok(Err(_)) if overran => Some(error(format!(
            "the review stopped: a position's search ran past {REVIEW_POSITION_DEADLINE:?}"
        ))),
        Ok(Err(message)) => Some(error(message)),
        Err(_) => Some(error("the review stopped unexpectedly")),
    }
}

/// Judges a move the page tried in place of move `ply` of the game's last
/// review (learn mode): the reply to send, or `None` when the page is gone.
/// A move that needs a search is searched by the model after it is played,
/// with a slot of its own and the review's simulations, within
/// [`REVIEW_POSITION_DEADLINE`], as bounded as a review's position. A
/// message from the page ends it at once, as the page going does. Stopped,
/// it is scored on all it searched (stopped before anything, on its last
/// update, if any).
pub(crate) async fn try_move(
    page: &mut Page,
    session: &mut GameSession,
    shares: &Shares<'_>,
    ply: usize,
    text: &str,
) -> Option<ServerMessage> {
    let search = match session.attempt(ply, text) {
        Ok(Attempting::Answered(message)) => return Some(message),
        Ok(Attempting::Search(search)) => search,
        Err(message) => return Some(error(message)),
    };
    let slot = page.wait(shares.slots.acquire()).await?;
    let reservation = match shares.memory(MODEL_SEARCH_MB) {
        Ok(reservation) => reservation,
        Err(message) => return Some(error(message)),
    };
    let model = session.shared_model();
    let stop = SearchStop::new();
    let flag = stop.flag();
    // The last update, the score of a search stopped at the deadline.
    let last = Arc::new(std::sync::Mutex::new(None::<f32>));
    let seen = last.clone();
    let (after, side, simulations) = (search.after, search.side, search.simulations);
    let mut job = tokio::task::spawn_blocking(move || {
        let score = |values: &[f32]| values.get(side).map(|value| 50.0 * (1.0 + value));
        model
            .analyse(&after, simulations, flag, &mut |analysis| {
                if let Ok(mut seen) = seen.lock() {
                    *seen = score(&analysis.side_values);
                }
                true
            })
            .map(|analysis| score(&analysis.side_values))
    });
    // A message from the page (a stop, another move tried, an undo) ends
    // the search at once, as it ends an analysis: the page has moved on.
    let mut moved_on = false;
    let joined =
        match tokio::time::timeout(REVIEW_POSITION_DEADLINE, page.until_message(&mut job)).await {
            Ok(Some(Some(joined))) => joined,
            Ok(Some(None)) => {
                moved_on = true;
                drop(stop);
                page.wait(&mut job).await?
            }
            Ok(None) => return None,
            Err(_) => {
                drop(stop);
                page.wait(&mut job).await?
            }
        };
    drop((slot, reservation));
    let stopped_at = last.lock().ok().and_then(|last| *last);
    let score = match joined {
        Ok(Ok(Some(score))) => score,
        Ok(Ok(None)) => return Some(error("the model gave no value for the mover")),
        Ok(Err(message)) => match stopped_at {
            Some(score) => score,
            // Stopped by the page before its first result: the page hears
            // that it ended.
            None if moved_on => {
                return Some(error("the judgement was stopped before its first result"));
            }
            None => {
                return Some(error(format!(
                    "the model could not judge the move: {message}"
                )));
            }
        },
        Err(_) => return Some(error("the judgement stopped unexpectedly")),
    };
    Some(search.verdict(score))
}

#[cfg(test)]
mod review_tests;
#[cfg(test)]
mod tests;
