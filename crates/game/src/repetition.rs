//! Keeping a game out of cycles. Abalone has no repetition rule, and two
//! players that choose their move from the position alone, deterministically,
//! repeat the whole cycle once one position repeats, until the move limit
//! ends the game (in matches of the quick model against alpha-beta nearly
//! every game did, the first repetition around ply 33–55). So a network
//! player remembers the positions of the game and, unless it is ahead in
//! marbles pushed off, does not walk back into one of them when it has a
//! move nearly as good; a player that is ahead may repeat, since a cycle then
//! ends the game at the move limit, which it wins on marbles. This is the
//! contempt of chess engines, who avoid a draw by repetition when they think
//! themselves stronger.

use std::collections::HashSet;

use sumito_engine::{Move, Position};
use sumito_mcts::SearchResult;

use crate::AbaloneGame;

/// How much worse (in the search's value, from −1 to 1) a move may be than
/// the best one and still be played to avoid a repetition.
pub const REPETITION_MARGIN: f32 = 0.15;

/// The positions a game has passed through (by their Zobrist hash: the
/// marbles, the marbles pushed off and the side to move).
#[derive(Clone, Debug, Default)]
pub struct GameHistory {
    seen: HashSet<u64>,
}

impl GameHistory {
    pub fn new() -> GameHistory {
        GameHistory::default()
    }

    /// Forgets the game (a new one starts).
    pub fn clear(&mut self) {
        self.seen.clear();
    }

    /// Notes that the game passed through `position`.
    pub fn record(&mut self, position: &Position) {
        self.seen.insert(position.hash());
    }

    /// Whether the game has passed through `position`.
    pub fn contains(&self, position: &Position) -> bool {
        self.seen.contains(&position.hash())
    }

    /// The move to play in `position` after a search of it: the search's
    /// best move, unless it leads back to a position of the game while the
    /// side to move is not ahead in marbles pushed off; then the best other
    /// move (by the search's policy target: visit share, or Gumbel's improved
    /// policy) that does not, whose value is within [`REPETITION_MARGIN`] of
    /// the best move's. Without such a move, the best move.
    pub fn choose(&self, position: &Position, result: &SearchResult) -> Option<Move> {
        let best = AbaloneGame::move_of(result.best_action)?;
        let me = position.side_to_move();
        let ahead = position.marbles_off(me.opponent()) > position.marbles_off(me);
        if ahead || !self.contains(&position.play(best)) {
            return Some(best);
        }
        let value_of = |action: usize| {
            result
                .root_actions
                .iter()
                .find(|root| root.action == action)
                .and_then(|root| root.q)
        };
        let floor =
            value_of(result.best_action).map_or(f32::NEG_INFINITY, |q| q - REPETITION_MARGIN);
        let mut others: Vec<_> = result
            .root_actions
            .iter()
            .filter(|root| root.action != result.best_action && root.q.is_some_and(|q| q >= floor))
            .collect();
        others.sort_by(|a, b| {
            b.policy_target
                .total_cmp(&a.policy_target)
                .then(b.visits.cmp(&a.visits))
        });
        others
            .into_iter()
            .filter_map(|root| AbaloneGame::move_of(root.action))
            .find(|mv| !self.contains(&position.play(*mv)))
            .or(Some(best))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules};
    use sumito_mcts::RootAction;

    /// A search result that rates `moves` in order (the first best), with
    /// the values `q`.
    fn rated(moves: &[Move], q: &[f32]) -> SearchResult {
        let root_actions: Vec<RootAction> = moves
            .iter()
            .zip(q)
            .enumerate()
            .map(|(rank, (mv, &q))| RootAction {
                action: mv.action(),
                prior: 0.1,
                visits: 100 - rank as u32,
                q: Some(q),
                policy_target: 0.5 / (rank as f32 + 1.0),
            })
            .collect();
        SearchResult {
            action: moves[0].action(),
            best_action: moves[0].action(),
            full_search: true,
            simulations: 100,
            value: q[0],
            wdl: sumito_mcts::Wdl {
                win: 0.5,
                draw: 0.0,
                loss: 0.5,
            },
            root_actions,
            principal_variation: vec![moves[0].action()],
        }
    }

    #[test]
    fn a_player_not_ahead_steps_out_of_a_cycle_when_it_costs_little() {
        let start = Position::start(Layout::Standard, Rules::default());
        let moves = start.legal_moves();
        let (best, second, third) = (moves[0], moves[1], moves[2]);
        let mut history = GameHistory::new();
        history.record(&start);
        let result = rated(&[best, second, third], &[0.2, 0.1, 0.15]);
        // Nothing repeats: the best move.
        assert_eq!(history.choose(&start, &result), Some(best));
        // The best move repeats: the best-ranked other one within the margin.
        history.record(&start.play(best));
        assert_eq!(history.choose(&start, &result), Some(second));
        // Alternatives much worse than a repetition: repeat.
        let costly = rated(&[best, second, third], &[0.2, -0.5, -0.4]);
        assert_eq!(history.choose(&start, &costly), Some(best));
        // Every alternative repeats too: the best move.
        history.record(&start.play(second));
        history.record(&start.play(third));
        assert_eq!(history.choose(&start, &result), Some(best));
        history.clear();
        assert!(!history.contains(&start));
    }

    #[test]
    fn a_player_ahead_may_repeat() {
        // Black to move, having pushed off one of White's marbles.
        let ahead =
            Position::from_fen("wwww1/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 1").unwrap();
        let moves = ahead.legal_moves();
        let mut history = GameHistory::new();
        history.record(&ahead.play(moves[0]));
        let result = rated(&[moves[0], moves[1]], &[0.3, 0.29]);
        assert_eq!(history.choose(&ahead, &result), Some(moves[0]));
    }
}
