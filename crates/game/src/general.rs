//! The general game (variants, 3 to 6 players) as a [`sumito_mcts::Game`]:
//! the search's sides are the seating's sides (a player, or a team of
//! partners who share one result), so the search sees fewer sides than seats
//! in team games and lets a side move again when partners move in a row.
//!
//! * State: [`GeneralGame`], a newtype over the engine's `Copy`
//!   [`GeneralPosition`] (its rules travel with it).
//! * Actions: the rules value's policy indices ([`GeneralMove::action`]): the
//!   1734 group moves, then shield moves and rotations where the rules allow
//!   them; [`GENERAL_ACTIONS`] is the largest such space.
//! * Values: [`SideValues`], one per side (max^n), for every seating, two
//!   sides included, so that one network head serves every variant.
//! * Terminal: a win by a side, a draw among every side, or a tie among
//!   some of them (the move limit with equal best counts), from the engine's
//!   `Outcome` ([`crate::terminal_of`]).

use std::fmt;

use sumito_engine::ACTION_COUNT;
use sumito_engine::general::moves::{ROTATION_COUNT, SHIELD_COUNT};
use sumito_engine::general::{GeneralMove, GeneralPosition};
use sumito_mcts::{Game, Side, SideValues, Terminal};

/// The largest action space of any rules value: group, shield and rotation moves.
pub const GENERAL_ACTIONS: usize = ACTION_COUNT + SHIELD_COUNT + ROTATION_COUNT;

/// A position of the general game that the search can play.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GeneralGame(pub GeneralPosition);

impl GeneralGame {
    pub fn position(&self) -> &GeneralPosition {
        &self.0
    }

    /// The move of an action index under this position's rules.
    pub fn move_of(&self, action: usize) -> Option<GeneralMove> {
        GeneralMove::from_action(action, self.0.rules())
    }
}

impl From<GeneralPosition> for GeneralGame {
    fn from(position: GeneralPosition) -> Self {
        GeneralGame(position)
    }
}

impl fmt::Display for GeneralGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Game for GeneralGame {
    type Values = SideValues;
    const NUM_ACTIONS: usize = GENERAL_ACTIONS;

    fn sides(&self) -> usize {
        self.0.rules().seating.sides()
    }

    fn to_play(&self) -> Side {
        Side::new(self.0.side_to_move())
    }

    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        let rules = self.0.rules();
        out.extend(self.0.legal_moves().into_iter().map(|mv| {
            mv.action(rules)
                .expect("a legal move is in its rules' action space")
        }));
    }

    fn apply(&mut self, action: usize) {
        let mv = self
            .move_of(action)
            .expect("the search applies only legal actions");
        self.0 = self.0.play(mv);
    }

    fn terminal(&self) -> Option<Terminal> {
        let ending = self.0.ending()?;
        Some(crate::terminal_of(ending.outcome, self.sides()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
    use sumito_mcts::{GumbelConfig, Search, SearchConfig, UniformEvaluator};

    fn start(layout: &str, rules: GeneralRules) -> GeneralGame {
        let layout = GeneralLayout::from_name(layout).unwrap();
        GeneralGame(GeneralSetup::layout(layout).start(&rules).unwrap())
    }

    #[test]
    fn sides_and_actions_follow_the_rules() {
        let three = start(
            "three-player",
            GeneralRules::plain(Seating::new(3, false).unwrap()),
        );
        assert_eq!(three.sides(), 3);
        let mut actions = Vec::new();
        three.legal_actions(&mut actions);
        assert_eq!(actions.len(), three.0.legal_moves().len());
        for &action in &actions {
            assert!(action < GENERAL_ACTIONS);
            let mut next = three;
            next.apply(action);
            assert_eq!(next.to_play(), Side::new(1), "three players in turn");
        }
        // Partners in a row: the same side moves twice.
        let four = start(
            "four-player",
            GeneralRules::plain(Seating::new(4, true).unwrap()),
        );
        assert_eq!(four.sides(), 2);
        let mut game = four;
        let mut sides = Vec::new();
        for _ in 0..4 {
            sides.push(game.to_play().index());
            game.legal_actions(&mut actions);
            game.apply(actions[0]);
        }
        assert_eq!(sides, vec![0, 0, 1, 1]);
    }

    /// Plays the first legal move until one of the mover's moves ends the
    /// game with a win for the mover; returns that position and move.
    fn a_win_in_one(mut game: GeneralGame) -> (GeneralGame, usize) {
        let mut actions = Vec::new();
        for ply in 0..2000 {
            game.legal_actions(&mut actions);
            assert!(!actions.is_empty(), "game over before a win in one");
            for &action in &actions {
                let mut next = game;
                next.apply(action);
                if next.terminal() == Some(Terminal::Win(game.to_play())) {
                    return (game, action);
                }
            }
            // Spread the moves without randomness.
            game.apply(actions[(ply * 7919) % actions.len()]);
        }
        panic!("no win in one found");
    }

    #[test]
    fn the_search_never_misses_a_win_in_one_with_three_players() {
        // One marble pushed off wins: such positions come quickly.
        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.marbles_to_win = [1; 6];
        let (position, win) = a_win_in_one(start("three-player", rules));
        let narrow = SearchConfig {
            simulations: 4,
            gumbel: Some(GumbelConfig {
                considered_actions: 2,
                ..GumbelConfig::default()
            }),
            ..SearchConfig::default()
        };
        for seed in 0..5 {
            let mut search = Search::new(position, narrow.clone(), seed).unwrap();
            let result = search.search(&UniformEvaluator).unwrap();
            let mut after = position;
            after.apply(result.best_action);
            assert_eq!(
                after.terminal(),
                Some(Terminal::Win(position.to_play())),
                "seed {seed}: plays {} where {win} wins",
                result.best_action
            );
            assert_eq!(result.solved, Some(1.0));
            assert_eq!(result.side_values.len(), 3);
        }
    }

    #[test]
    fn draws_among_some_sides_are_ties() {
        use crate::terminal_of;
        use sumito_engine::Outcome;
        assert_eq!(terminal_of(Outcome::Draw(0b111), 3), Terminal::Draw);
        assert_eq!(terminal_of(Outcome::Draw(0b101), 3), Terminal::Tie(0b101));
        assert_eq!(terminal_of(Outcome::Win(2), 3), Terminal::Win(Side::new(2)));
        assert_eq!(terminal_of(Outcome::draw_of_all(2), 2), Terminal::Draw);
    }
}
