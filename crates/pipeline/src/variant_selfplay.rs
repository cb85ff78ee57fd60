//! Self-play of the general game (variants, 3 to 6 players): many games
//! advanced in lockstep by the MCTS multi-game driver over `VariantGame`
//! (max^n values, one per side), every searched position recorded with its
//! search policy, and each finished game turned into training samples for a
//! network of the general game (`sumito_net::VariantTrainingSample`).
//!
//! The two-player self-play (`crate::selfplay`) stays separate: it writes
//! the compact two-player replay files and resigns, which this does not.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_engine::variant::{MAX_SEATS, VariantMove, VariantPosition};
use sumito_game::VariantGame;
use sumito_game::variant::outcome_of;
use sumito_mcts::{Evaluator, MultiGameDriver, Outcome, Search, SearchConfig, SearchError};
use sumito_net::VariantTrainingSample;

/// One searched position of a general-game self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantPositionRecord {
    pub position: VariantPosition,
    /// The move played from here.
    pub played: VariantMove,
    /// The search's values by side at the root.
    pub side_values: Vec<f32>,
    /// The search's policy over legal moves, for a full search (playout cap
    /// randomisation leaves cheap searches without one).
    pub policy: Option<Vec<(VariantMove, f32)>>,
}

/// A finished general-game self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantGameRecord {
    pub outcome: Outcome,
    /// Marbles each seat had pushed off at the end.
    pub final_scores: [u8; MAX_SEATS],
    pub positions: Vec<VariantPositionRecord>,
}

impl VariantGameRecord {
    /// A training sample for every position with a policy target.
    pub fn training_samples(&self) -> Vec<VariantTrainingSample> {
        self.positions
            .iter()
            .filter_map(|record| {
                let policy = record.policy.clone()?;
                Some(VariantTrainingSample::from_game(
                    record.position,
                    policy,
                    self.outcome,
                    self.final_scores,
                ))
            })
            .collect()
    }
}

/// Plays `games` self-play games from `start` (all at once, one driver
/// round evaluating the leaves of every game together) and returns them
/// finished, in the order they finished.
pub fn play_variant_games<E: Evaluator<VariantGame> + ?Sized>(
    evaluator: &E,
    start: VariantPosition,
    search: &SearchConfig,
    games: usize,
    seed: u64,
) -> Result<Vec<VariantGameRecord>, SearchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut driver = MultiGameDriver::new();
    let mut records: Vec<Vec<VariantPositionRecord>> = Vec::new();
    for _ in 0..games {
        driver.push(Search::new(
            VariantGame(start),
            search.clone(),
            rng.random(),
        )?);
        records.push(Vec::new());
    }
    let sides = start.rules().seating.sides();
    let mut finished = Vec::new();
    let mut playing = games;
    while playing > 0 {
        for (index, result) in driver.step(evaluator)? {
            let game = *driver.search(index).root();
            let position = *game.position();
            let move_of = |action: usize| {
                game.move_of(action)
                    .expect("the search plays the rules' actions")
            };
            let policy = result.full_search.then(|| {
                result
                    .policy_target()
                    .map(|(action, target)| (move_of(action), target))
                    .collect()
            });
            records[index].push(VariantPositionRecord {
                position,
                played: move_of(result.action),
                side_values: result.side_values.clone(),
                policy,
            });
            driver.search_mut(index).advance(result.action)?;
            let after = *driver.search(index).root().position();
            if let Some((outcome, _)) = after.outcome() {
                finished.push(VariantGameRecord {
                    outcome: outcome_of(outcome, sides),
                    final_scores: after.scores(),
                    positions: std::mem::take(&mut records[index]),
                });
                playing -= 1;
            }
        }
    }
    Ok(finished)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::variant::{Seating, VariantLayout, VariantRules, VariantSetup};
    use sumito_net::{
        DirectEvaluator, NetGame, PolicyValueNet, SymmetryMode, Trainer, TrainingConfig,
    };

    fn start(layout: &str, seating: Seating, max_plies: u32) -> VariantPosition {
        let mut rules = VariantRules::plain(seating);
        rules.max_plies = Some(max_plies);
        let layout = VariantLayout::from_name(layout).unwrap();
        VariantSetup::layout(layout).start(&rules).unwrap()
    }

    fn variant_net() -> PolicyValueNet {
        tch::manual_seed(2);
        let model = crate::players::tests::tiny_model(NetGame::Variant);
        PolicyValueNet::new(&model, tch::Device::Cpu).unwrap()
    }

    #[test]
    fn three_and_four_player_games_are_played_out_and_trained_on() {
        for (layout, seating) in [
            ("three-player", Seating::new(3, false).unwrap()),
            ("four-player", Seating::new(4, false).unwrap()),
        ] {
            let start = start(layout, seating, 12);
            let evaluator = DirectEvaluator::new(variant_net(), SymmetryMode::None);
            let search = SearchConfig {
                simulations: 8,
                ..SearchConfig::default()
            };
            let games = play_variant_games(&evaluator, start, &search, 2, 7).unwrap();
            assert_eq!(games.len(), 2);
            for game in &games {
                // The move limit ends the game after 12 plies at the latest.
                assert!(!game.positions.is_empty() && game.positions.len() <= 12);
                let mut position = start;
                for record in &game.positions {
                    assert_eq!(record.position, position, "{layout}: the records replay");
                    assert_eq!(record.side_values.len(), seating.sides());
                    position = position.play(record.played);
                }
                assert!(position.outcome().is_some());
                assert_eq!(game.final_scores, position.scores());
            }
            let samples: Vec<_> = games
                .iter()
                .flat_map(VariantGameRecord::training_samples)
                .collect();
            assert!(!samples.is_empty());
            let mut trainer =
                Trainer::new(evaluator.into_inner(), &TrainingConfig::default()).unwrap();
            let metrics = trainer.train_step(&samples).unwrap();
            assert!(metrics.loss.is_finite(), "{layout}: {metrics:?}");
        }
    }
}
