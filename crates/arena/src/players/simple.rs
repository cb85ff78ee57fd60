//! The two players that do not search: `random` and `greedy`.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_engine::{Move, Outcome, Position};

use crate::eval::{EvalWeights, evaluate};
use crate::player::{Entrant, Player, PlayerError, PlayerFactory, SearchLimit};
use crate::spec::{PlayerSpec, SpecError};

/// A uniformly random legal move, from a ChaCha8 stream seeded per game.
#[derive(Debug)]
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose_move(&mut self, position: &Position, _: &SearchLimit) -> Result<Move, PlayerError> {
        let moves = position.legal_moves();
        if moves.is_empty() {
            return Err(PlayerError::NoLegalMove);
        }
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

#[derive(Debug)]
pub struct RandomFactory;

impl PlayerFactory for RandomFactory {
    fn kind(&self) -> &str {
        "random"
    }

    fn help(&self) -> String {
        "random: a uniformly random legal move (no parameters)".to_string()
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant, SpecError> {
        spec.params().finish()?;
        Ok(Entrant::new(
            spec.to_string(),
            SearchLimit::default(),
            |seed| Box::new(RandomPlayer::new(seed)),
        ))
    }
}

/// Score of a move that wins the game at once, above any evaluation.
const WIN: i32 = i32::MAX / 2;

/// One ply: the move after which the evaluation is best for the mover; a
/// move that ends the game counts as a win, draw or loss. Ties are broken
/// uniformly at random.
#[derive(Debug)]
pub struct GreedyPlayer {
    name: String,
    weights: Arc<EvalWeights>,
    rng: ChaCha8Rng,
}

impl GreedyPlayer {
    pub fn new(name: String, weights: Arc<EvalWeights>, seed: u64) -> GreedyPlayer {
        GreedyPlayer {
            name,
            weights,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The score of playing `mv` for the side to move of `position`.
    fn score(&self, position: &Position, mv: Move) -> i32 {
        let child = position.play(mv);
        match child.ending().map(|ending| ending.outcome) {
            Some(Outcome::Win(winner)) if winner == position.side_to_move().index() => WIN,
            Some(Outcome::Win(_)) => -WIN,
            Some(Outcome::Draw(_)) => 0,
            None => -evaluate(&child, &self.weights),
        }
    }
}

impl Player for GreedyPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_move(&mut self, position: &Position, _: &SearchLimit) -> Result<Move, PlayerError> {
        let mut best = Vec::new();
        let mut best_score = i32::MIN;
        for &mv in position.legal_moves().iter() {
            let score = self.score(position, mv);
            if score > best_score {
                best_score = score;
                best.clear();
            }
            if score == best_score {
                best.push(mv);
            }
        }
        if best.is_empty() {
            return Err(PlayerError::NoLegalMove);
        }
        Ok(best[self.rng.random_range(0..best.len())])
    }
}

#[derive(Debug)]
pub struct GreedyFactory;

impl PlayerFactory for GreedyFactory {
    fn kind(&self) -> &str {
        "greedy"
    }

    fn help(&self) -> String {
        "greedy[:weights=PATH]: the best move by the evaluation one ply ahead, ties at random"
            .to_string()
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant, SpecError> {
        let mut params = spec.params();
        let weights = crate::eval::weights_param(&mut params)?;
        params.finish()?;
        let name = spec.to_string();
        Ok(Entrant::new(
            name.clone(),
            SearchLimit::default(),
            move |seed| Box::new(GreedyPlayer::new(name.clone(), Arc::clone(&weights), seed)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules};

    #[test]
    fn random_is_seeded_and_legal() {
        let start = Position::start(Layout::BelgianDaisy, Rules::default());
        let pick = |seed| {
            let mut player = RandomPlayer::new(seed);
            (0..20)
                .map(|_| player.choose_move(&start, &SearchLimit::default()).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(pick(3), pick(3));
        assert_ne!(pick(3), pick(4));
        assert!(pick(5).iter().all(|&mv| start.is_legal(mv)));
    }

    #[test]
    fn greedy_takes_the_winning_push_off() {
        // White has lost 5; Black's E7-E8 can push E9 off and win.
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5").unwrap();
        let mut player = GreedyPlayer::new("greedy".into(), Arc::default(), 1);
        let mv = player
            .choose_move(&position, &SearchLimit::default())
            .unwrap();
        assert_eq!(mv.to_string(), "E7E8");
    }

    #[test]
    fn greedy_breaks_ties_at_random() {
        // A black marble in the centre and six white ones three steps away in
        // the six directions: every move is the image of every other under a
        // rotation, so all score the same.
        let position = Position::from_fen("5/1w2w1/7/8/1w2b2w1/8/7/1w2w1/5 b 0 0").unwrap();
        let chosen: std::collections::HashSet<Move> = (0..40)
            .map(|seed| {
                GreedyPlayer::new("greedy".into(), Arc::default(), seed)
                    .choose_move(&position, &SearchLimit::default())
                    .unwrap()
            })
            .collect();
        assert!(chosen.len() > 1, "{chosen:?}");
    }
}
