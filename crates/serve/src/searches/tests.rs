//! The tests of a page's searches.

use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_engine::Position;
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_mcts::{EvalBatch, EvalError, Evaluator, Game, PROBE_SIMULATIONS, UniformEvaluator};

use super::*;
use crate::seat_player::SeatPlayer;

/// A position's evaluation while the search is young.
const EVALUATION: Duration = Duration::from_millis(10);
/// How much slower each evaluation is once the first
/// [`PROBE_SIMULATIONS`] are done.
const SLOWDOWN: f64 = 1.25;

/// An evaluator whose evaluations slow by a quarter after the probe that
/// measures a first timed search's speed, as a real search slows when its
/// tree grows: a search planned from that speed takes 1.25 times its plan.
/// It sleeps rather than computes, so that its time holds on a busy machine.
#[derive(Default)]
struct Slowing {
    evaluated: AtomicUsize,
}

impl<G: Game> Evaluator<G> for Slowing {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        let before = self.evaluated.fetch_add(batch.len(), Ordering::Relaxed);
        let each = match before < PROBE_SIMULATIONS as usize {
            true => EVALUATION,
            false => EVALUATION.mul_f64(SLOWDOWN),
        };
        std::thread::sleep(each * batch.len() as u32);
        UniformEvaluator.evaluate(batch)
    }
}

/// A model's timed move at `simulations=4294967295` (its budget is its
/// time) plans its search from the speed its probe measured. Its search
/// then slows, and a plan aimed at the whole limit overran it (35.4 s for a
/// limit of 30 s, issue #67): the server then stops it there, with no move.
/// Aimed at a share of the limit, the move comes within it. The limit here
/// is 2 s: the plan aimed at the limit would take about 2.2 s, the one
/// aimed at its share about 1.8 s.
#[tokio::test]
async fn a_models_timed_move_comes_within_its_limit_though_its_search_slows() {
    let limit = Duration::from_secs(2);
    let search = NetworkSearch::<Position>::new(
        "slowing",
        Box::new(Slowing::default()),
        SearchBudget::Simulations(u32::MAX),
        7,
    )
    .keeping_tree(false);
    let position = RulesTable::default()
        .start(GeneralLayout::from_name("standard").unwrap())
        .unwrap();
    let turn = PlayerTurn::new(
        0,
        position,
        SeatPlayer::searching(search),
        limit,
        true,
        true,
        0,
    );
    let started = Instant::now();
    let end = think_within_limit(turn).await;
    let took = started.elapsed();
    match end {
        TurnEnd::Answered(turn, Ok(answer)) => {
            assert!(turn.position.is_legal(answer.mv));
            assert!(took <= limit, "{took:?}");
        }
        TurnEnd::Answered(_, Err(message)) => panic!("no move: {message}"),
        TurnEnd::OverLimit(_) => panic!(
            "the move was stopped at its limit of {limit:?} (after {took:?}): its search aimed too \
             close to the limit"
        ),
        TurnEnd::Lost => panic!("the player's thread ended without an answer"),
    }
}

#[tokio::test]
async fn a_turn_over_its_limit_is_stopped_there_with_no_move() {
    // Its search is planned for 10 s (a classical player aims at its
    // deadline, so the cap is the deadline), but stopped at 0.3 s.
    let search = NetworkSearch::<Position>::new(
        "slowing",
        Box::new(Slowing::default()),
        SearchBudget::Simulations(u32::MAX),
        7,
    );
    let position = RulesTable::default()
        .start(GeneralLayout::from_name("standard").unwrap())
        .unwrap();
    let mut turn = PlayerTurn::new(
        0,
        position,
        SeatPlayer::searching(search),
        Duration::from_secs(10),
        false,
        true,
        0,
    );
    turn.deadline = Duration::from_millis(300);
    let started = Instant::now();
    let end = think_within_limit(turn).await;
    let took = started.elapsed();
    assert!(matches!(end, TurnEnd::OverLimit(_)), "{took:?}");
    // Stopped within a batch of its deadline.
    assert!(took < Duration::from_secs(2), "{took:?}");
}
