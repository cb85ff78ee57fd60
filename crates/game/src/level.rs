//! Strength levels: ten named settings of a network player, from a
//! beginner's (1) to full strength (10), for people who want a game they can
//! win. A level weakens the player three ways, as lichess's levels weaken
//! Stockfish: a smaller search (simulations), the move drawn from the
//! search's policy with a temperature instead of the best one, and now and
//! then a random legal move. Every level still pushes off the last marble
//! when it can. What each level is worth is measured, not guessed: `sumito
//! ladder --levels` plays every level against the ladder's classical players
//! and gives each its Elo with an interval (the README's table).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_mcts::SearchResult;

use crate::Board;
use crate::choice::{GameHistory, choose_move};

/// One strength level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// 1 (weakest) to [`FULL_STRENGTH`].
    pub number: u32,
    /// Its name, as the browser offers it.
    pub name: &'static str,
    /// Simulations a move.
    pub simulations: u32,
    /// The move is drawn with probability proportional to its share of the
    /// search's policy to the power `1 / temperature`; 0 plays the best move
    /// (with the checks of [`crate::choice`]).
    pub temperature: f32,
    /// The chance of a random legal move instead.
    pub random_move: f32,
}

/// The strongest level: the network's own play at its default budget.
pub const FULL_STRENGTH: u32 = 10;

/// The levels, weakest first (`LEVELS[n - 1]` is level `n`).
pub const LEVELS: [Level; FULL_STRENGTH as usize] = [
    Level {
        number: 1,
        name: "beginner",
        simulations: 1,
        temperature: 1.0,
        random_move: 0.3,
    },
    Level {
        number: 2,
        name: "novice",
        simulations: 1,
        temperature: 1.0,
        random_move: 0.15,
    },
    Level {
        number: 3,
        name: "casual",
        simulations: 1,
        temperature: 0.7,
        random_move: 0.05,
    },
    Level {
        number: 4,
        name: "club",
        simulations: 4,
        temperature: 0.7,
        random_move: 0.03,
    },
    Level {
        number: 5,
        name: "intermediate",
        simulations: 8,
        temperature: 0.4,
        random_move: 0.0,
    },
    Level {
        number: 6,
        name: "advanced",
        simulations: 24,
        temperature: 0.0,
        random_move: 0.0,
    },
    Level {
        number: 7,
        name: "strong",
        simulations: 40,
        temperature: 0.0,
        random_move: 0.0,
    },
    Level {
        number: 8,
        name: "expert",
        simulations: 64,
        temperature: 0.0,
        random_move: 0.0,
    },
    Level {
        number: 9,
        name: "master",
        simulations: 160,
        temperature: 0.0,
        random_move: 0.0,
    },
    Level {
        number: 10,
        name: "full strength",
        simulations: 400,
        temperature: 0.0,
        random_move: 0.0,
    },
];

/// Level `number`, or why there is none.
pub fn level(number: u32) -> Result<Level, String> {
    number
        .checked_sub(1)
        .and_then(|index| LEVELS.get(index as usize))
        .copied()
        .ok_or_else(|| {
            format!(
                "level {number}: the levels are 1 (beginner) to {FULL_STRENGTH} (full strength)"
            )
        })
}

/// A level as a player plays it: the level and the draws of its chance.
#[derive(Clone, Debug)]
pub struct LevelPlay {
    pub level: Level,
    rng: ChaCha8Rng,
}

impl LevelPlay {
    /// `level`, its chance drawn from `seed`.
    pub fn new(level: Level, seed: u64) -> LevelPlay {
        LevelPlay {
            level,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6c65_7665_6c00),
        }
    }

    /// Whether this level plays as the search says (only fewer simulations).
    pub fn is_plain(&self) -> bool {
        self.level.temperature == 0.0 && self.level.random_move == 0.0
    }

    /// The move this level plays in `position` after `result`: a winning
    /// move if there is one; else, by chance, a random legal move; else one
    /// drawn from the search's policy with the level's temperature; at
    /// temperature 0 the best move with the checks of [`choose_move`].
    pub fn choose<P: Board>(
        &mut self,
        position: &P,
        result: &SearchResult,
        history: Option<&GameHistory>,
        material_plies: u32,
    ) -> Option<P::Move> {
        // (choose_move checks for a winning move itself: once a move.)
        if self.is_plain() {
            return choose_move(position, result, history, material_plies);
        }
        if let Some(win) = position.winning_move() {
            return Some(win);
        }
        if self.level.random_move > 0.0 && self.rng.random::<f32>() < self.level.random_move {
            let moves = position.legal_moves();
            if !moves.is_empty() {
                return Some(moves[self.rng.random_range(0..moves.len())]);
            }
        }
        if self.level.temperature > 0.0 {
            let exponent = 1.0 / f64::from(self.level.temperature);
            let weights: Vec<f64> = result
                .root_actions
                .iter()
                .map(|root| f64::from(root.policy_target.max(0.0)).powf(exponent))
                .collect();
            let total: f64 = weights.iter().sum();
            if total > 0.0 && total.is_finite() {
                let mut draw = self.rng.random::<f64>() * total;
                for (root, weight) in result.root_actions.iter().zip(&weights) {
                    if draw < *weight {
                        return position.move_of(root.action);
                    }
                    draw -= weight;
                }
            }
        }
        choose_move(position, result, history, material_plies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AbaloneGame;
    use sumito_engine::{Layout, Position, Rules};

    use sumito_mcts::{Search, SearchConfig, UniformEvaluator};

    #[test]
    fn levels_are_numbered_in_order_and_grow_stronger() {
        for (index, level) in LEVELS.iter().enumerate() {
            assert_eq!(level.number as usize, index + 1);
            assert_eq!(super::level(level.number), Ok(*level));
        }
        for pair in LEVELS.windows(2) {
            assert!(pair[0].simulations <= pair[1].simulations);
            assert!(pair[0].temperature >= pair[1].temperature);
            assert!(pair[0].random_move >= pair[1].random_move);
            assert_ne!(pair[0], pair[1]);
        }
        for bad in [0, FULL_STRENGTH + 1] {
            assert!(
                super::level(bad)
                    .unwrap_err()
                    .contains("1 (beginner) to 10")
            );
        }
    }

    fn searched(position: Position, simulations: u32) -> SearchResult {
        let config = SearchConfig {
            simulations,
            temperature: 0.0,
            ..SearchConfig::default()
        };
        let mut search = Search::new(AbaloneGame(position), config, 3).unwrap();
        search.search(&UniformEvaluator).unwrap()
    }

    #[test]
    fn weak_levels_vary_their_moves_and_full_strength_plays_the_best() {
        let position = Position::start(Layout::BelgianDaisy, Rules::default());
        let result = searched(position, 32);
        let mut full = LevelPlay::new(level(FULL_STRENGTH).unwrap(), 1);
        assert!(full.is_plain());
        let best = choose_move(&position, &result, None, 0);
        for _ in 0..20 {
            assert_eq!(full.choose(&position, &result, None, 0), best);
        }
        let mut beginner = LevelPlay::new(level(1).unwrap(), 1);
        assert!(!beginner.is_plain());
        let moves: std::collections::HashSet<_> = (0..200)
            .map(|_| beginner.choose(&position, &result, None, 0).unwrap())
            .collect();
        assert!(moves.len() > 10, "{} different moves", moves.len());
        assert!(moves.iter().all(|mv| position.is_legal(*mv)));
        // The same seed, the same moves.
        let mut again = LevelPlay::new(level(1).unwrap(), 1);
        let mut first = LevelPlay::new(level(1).unwrap(), 1);
        for _ in 0..20 {
            assert_eq!(
                again.choose(&position, &result, None, 0),
                first.choose(&position, &result, None, 0)
            );
        }
    }

    #[test]
    fn every_level_takes_the_winning_push() {
        // Black has pushed off five and can push the sixth.
        let position = Position::from_fen("wwwww/www3/7/8/6bbw/8/b6/bbbbbb/bbbbb b 0 5").unwrap();
        let win = position.winning_move().expect("a winning push");
        let result = searched(position, 4);
        for level in LEVELS {
            let mut play = LevelPlay::new(level, 7);
            for _ in 0..10 {
                assert_eq!(play.choose(&position, &result, None, 0), Some(win));
            }
        }
    }
}
