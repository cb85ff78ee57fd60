//! The two-player game as the search plays it: [`AbaloneGame`], the
//! engine's [`Position`] as an `mcts::Game`, and the sides of its colours.

use std::fmt;

use sumito_engine::{ACTION_COUNT, Color, Move, Position};
use sumito_mcts::{Game, Side, Terminal, ZeroSum};

use crate::terminal::terminal_of;

/// An Abalone position that the search can play.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AbaloneGame(pub Position);

impl AbaloneGame {
    pub fn position(&self) -> &Position {
        &self.0
    }

    /// The move of an action index (`None` outside `0..ACTION_COUNT`).
    pub fn move_of(action: usize) -> Option<Move> {
        Move::from_action(action)
    }
}

impl From<Position> for AbaloneGame {
    fn from(position: Position) -> Self {
        AbaloneGame(position)
    }
}

impl fmt::Display for AbaloneGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The search's player for a colour: Black moves first.
pub fn player_of(color: Color) -> Side {
    match color {
        Color::Black => Side::FIRST,
        Color::White => Side::SECOND,
    }
}

/// The colour of a search player (the two-player game has sides 0 and 1).
pub fn color_of(player: Side) -> Color {
    if player == Side::FIRST {
        Color::Black
    } else {
        Color::White
    }
}

impl Game for AbaloneGame {
    type Values = ZeroSum;
    const NUM_ACTIONS: usize = ACTION_COUNT;

    fn to_play(&self) -> Side {
        player_of(self.0.side_to_move())
    }

    /// In the engine's generation order, which is deterministic: putting
    /// them in action order cost a sort per expansion, a third of the
    /// search's own time (`sumito bench mcts`, uniform evaluator: 1.33 to
    /// 1.68 times the simulations per second without it).
    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        out.extend(self.0.legal_moves_unordered().iter().map(|mv| mv.action()));
    }

    fn apply(&mut self, action: usize) {
        let mv = Move::from_action(action).expect("the search applies only legal actions");
        self.0 = self.0.play(mv);
    }

    fn terminal(&self) -> Option<Terminal> {
        self.0.ending().map(|ending| terminal_of(ending.outcome, 2))
    }

    /// A push-off may reach the marbles to win; any move may reach the move
    /// limit or the no-push-off limit when it is one ply away. Only a move
    /// that leaves the opponent without a legal move (a blockade, all but
    /// unknown in play) ends the game otherwise, and the search finds that
    /// one when it visits it. Saves counting the replies to every root move
    /// before each search (about 5 % of self-play's search time).
    fn may_end_game(&self, action: usize) -> bool {
        let position = &self.0;
        let rules = position.rules();
        let next_ply = position.ply() + 1;
        rules.max_plies.is_some_and(|limit| next_ply >= limit)
            || rules
                .no_push_off_plies
                .is_some_and(|limit| position.plies_since_push_off() + 1 >= limit)
            || Move::from_action(action).is_some_and(|mv| position.is_push_off(mv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules, midgame_positions};

    #[test]
    fn every_move_that_ends_the_game_may_end_it() {
        // Each way a move can end the game, alone and met often: a small
        // target, a short move limit, a short no-push-off limit.
        let plain = Rules {
            marbles_to_win: 6,
            max_plies: None,
            no_push_off_plies: None,
        };
        for rules in [
            Rules {
                marbles_to_win: 1,
                ..plain
            },
            Rules {
                max_plies: Some(30),
                ..plain
            },
            Rules {
                no_push_off_plies: Some(10),
                ..plain
            },
        ] {
            let (mut ending, mut skipped) = (0, 0);
            for seed in 0..30 {
                let start = Position::start(Layout::BelgianDaisy, rules);
                for position in sumito_engine::random_playout(&start, 40, seed) {
                    let game = AbaloneGame(position);
                    let mut actions = Vec::new();
                    game.legal_actions(&mut actions);
                    for action in actions {
                        let mut after = game;
                        after.apply(action);
                        if game.may_end_game(action) {
                            ending += usize::from(after.terminal().is_some());
                        } else {
                            skipped += 1;
                            assert_eq!(after.terminal(), None, "{rules:?}: {position} {action}");
                        }
                    }
                }
            }
            assert!(
                ending > 20 && skipped > 10_000,
                "{rules:?}: {ending} {skipped}"
            );
        }
    }

    #[test]
    fn actions_round_trip_through_the_engine() {
        for position in midgame_positions() {
            let game = AbaloneGame(position);
            let mut actions = Vec::new();
            game.legal_actions(&mut actions);
            // The engine's moves, each once, in its generation order (the
            // same every time for the same position).
            let mut sorted = actions.clone();
            sorted.sort_unstable();
            let engine: Vec<usize> = position
                .legal_moves()
                .iter()
                .map(|mv| mv.action())
                .collect();
            assert_eq!(sorted, engine);
            let mut again = Vec::new();
            game.legal_actions(&mut again);
            assert_eq!(again, actions);
            for &action in &actions {
                assert!(action < AbaloneGame::NUM_ACTIONS);
                let mut next = game;
                next.apply(action);
                assert_eq!(next.0, position.play(AbaloneGame::move_of(action).unwrap()));
                assert_eq!(next.to_play(), game.to_play().opponent());
            }
        }
    }

    #[test]
    fn players_and_outcomes_follow_colours() {
        let start = AbaloneGame(Position::start(Layout::Standard, Rules::default()));
        assert_eq!(start.to_play(), Side::FIRST);
        assert_eq!(start.terminal(), None);
        assert_eq!(color_of(player_of(Color::White)), Color::White);
        // White has just pushed the sixth black marble off.
        let won: Position = "w4/1w4/2w4/8/bbbb5/bbbb4/7/wwwwww/wwwww b 6 0"
            .parse()
            .unwrap();
        assert_eq!(
            AbaloneGame(won).terminal(),
            Some(Terminal::Win(Side::SECOND))
        );
        let mut legal = vec![1];
        AbaloneGame(won).legal_actions(&mut legal);
        assert!(legal.is_empty(), "a finished game has no legal actions");
    }
}
