//! [`Board`]: a position of either game as the layers above the engine see
//! it: seats taking turns, moves as values and as text, the rules (as a
//! model records them and as a `[rules]` table), starts, how a game ends,
//! the exact material count of the move choice, and the game as one of the
//! general engine (which writes the one record format). The two-player
//! [`Position`] ([`two_player`]) and the general game's `GeneralPosition`
//! ([`general`]) implement it, so that matches, records, the move choice,
//! terminal sessions and the commands are written once for both; the
//! engines beneath stay separate for speed.
//!
//! A new game implements this trait, `sumito_mcts::Game` for its search,
//! and the network's and the front ends' few interfaces (ARCHITECTURE.md,
//! "What a game is made of").

use std::fmt;

use sumito_engine::general::{GeneralLayout, GeneralMove, GeneralPosition};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Color, Ending, Outcome, Position, PositionTextError};
use sumito_mcts::Game;

use crate::GameKind;

pub mod general;
pub mod two_player;

/// A position of one of the games.
pub trait Board: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// A move of the game.
    type Move: Copy + Eq + fmt::Debug + Send + Sync + 'static;

    /// The rules of the game as a model records the rules it learned under:
    /// the two-player `Rules`; the general game's `[rules]` table
    /// (`RulesTable`, its layouts included).
    type Rules: Clone + PartialEq + fmt::Debug + Send + Sync + 'static;

    /// Which of the two games this is.
    const KIND: GameKind;

    /// Seats at the board, each played by people or a program in turn.
    fn seats(&self) -> usize;

    /// The seat whose turn it is.
    fn seat_to_move(&self) -> usize;

    /// Sides of the result: seats, or teams of partners who share one.
    fn sides(&self) -> usize;

    /// Plies played since the game's first position (its counter may start
    /// above zero in a position given as text).
    fn ply(&self) -> u32;

    fn legal_moves(&self) -> Vec<Self::Move>;

    fn is_legal(&self, mv: Self::Move) -> bool;

    /// The position after `mv`, which is legal here.
    fn play(&self, mv: Self::Move) -> Self;

    /// Opposing marbles `mv` pushes off (what a clock's increment rewards).
    fn push_offs(&self, mv: Self::Move) -> u32;

    /// Reads a move as a person types it and checks that it is legal here;
    /// the error says what is wrong.
    fn parse_move(&self, text: &str) -> Result<Self::Move, String>;

    /// A move as a person writes it (Aba-Pro notation).
    fn move_text(mv: Self::Move) -> String;

    /// The result in words once the game is over, starting with a capital:
    /// `Black wins (enough marbles pushed off)`.
    fn result_text(&self) -> Option<String>;

    /// The game's result when the side of `seat` resigns (only with two
    /// sides, where the other side wins): `White wins`.
    fn winner_after_resigning(&self, seat: usize) -> Option<String>;

    /// A hash of what repeats: marbles, scores and the seat to move.
    fn repetition_hash(&self) -> u64;

    /// `Black`, `White`, `Red`...: the seat as a sentence names it.
    fn seat_title(seat: usize) -> String;

    /// The rules in words.
    fn rules_text(&self) -> String;

    /// Whether the game has ended.
    fn is_over(&self) -> bool;

    /// Once the game is over, its result for `side`: 1 a win, -1 a loss, 0
    /// a draw it shares (with more sides, a draw among some of them is a
    /// loss for the others).
    fn result_for(&self, side: usize) -> Option<f32> {
        let outcome = self.ending()?.outcome;
        Some(match outcome {
            Outcome::Win(winner) if winner == side => 1.0,
            Outcome::Win(_) => -1.0,
            Outcome::Draw(_) if outcome.shared_by(side) => 0.0,
            Outcome::Draw(_) => -1.0,
        })
    }

    /// The side (a seat, or a team of partners) whose turn it is: the index
    /// of the search's values by side.
    fn mover_side(&self) -> usize;

    /// `black`, `white`, `black+red`...: a side as reports name it.
    fn side_name(&self, side: usize) -> String;

    /// The side (a seat, or a team of partners) that `seat` plays for.
    fn side_of(&self, seat: usize) -> usize;

    // Where games start (records, matches, the commands).

    /// A start as records and matches name it: a layout.
    type Layout: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static;

    /// The first position of `layout` under `rules`; the error names what
    /// does not fit.
    fn first_position(layout: Self::Layout, rules: &Self::Rules) -> Result<Self, String>;

    /// This position under `rules` (a position read as text, or the start
    /// of a record whose rules were replaced by a model's); the error names
    /// what does not fit.
    fn under_rules(&self, rules: &Self::Rules) -> Result<Self, String>;

    // The game as one of the general engine, which writes the one record
    // format and reads every `[rules]` table (records, the commands).

    /// The most seats a game of this kind has.
    const MAX_SEATS: usize;

    /// `rules` as a `[rules]` table.
    fn rules_table(rules: &Self::Rules) -> RulesTable;

    /// The rules of `table` in this game; the error says why `table` is
    /// not rules of it.
    fn rules_of_table(table: &RulesTable) -> Result<Self::Rules, String>;

    /// `layout` as the general engine names it.
    fn general_layout(layout: Self::Layout) -> GeneralLayout;

    /// The layout of this game that `layout` is; the error says why there
    /// is none.
    fn layout_of_general(layout: GeneralLayout) -> Result<Self::Layout, String>;

    /// `mv` as a move of the general engine.
    fn general_move(mv: Self::Move) -> GeneralMove;

    /// The move of this game that `mv` is, if it is one.
    fn move_of_general(mv: GeneralMove) -> Option<Self::Move>;

    /// The position of this game that the general engine's `position` is,
    /// under the rules it resolved to (the browser keeps every game in the
    /// general engine); the error says why it is none.
    fn of_general(position: &GeneralPosition) -> Result<Self, String>;

    /// A position of this game written as text (the notation `Display`
    /// writes, a FEN for two players), under the rules of `table`; the
    /// error names what does not fit, and the character where it is.
    fn position_from_text(text: &str, table: &RulesTable) -> Result<Self, PositionTextError>;

    // How games end (matches, their reports, records).

    /// How the game ended (who, and why), once it is over: the engine's
    /// one type for both games.
    fn ending(&self) -> Option<Ending>;

    /// Marbles `side` has pushed off: what decides a game at the move limit,
    /// and what orders the sides behind the winner.
    fn side_score(&self, side: usize) -> u32;

    /// The move limit in plies, if the rules have one.
    fn max_plies(&self) -> Option<u32>;

    /// The limit on plies without a push-off, if the rules have one.
    fn no_push_off_plies(&self) -> Option<u32>;

    /// Whether the rules end every game (a move limit, or a limit on plies
    /// without a push-off), so that players who cannot make progress still
    /// finish.
    fn ends_surely(&self) -> bool {
        self.max_plies().is_some() || self.no_push_off_plies().is_some()
    }

    /// Whether a random opening may play `mv`: it pushes no marble, so that
    /// no side starts ahead.
    fn is_quiet(&self, mv: Self::Move) -> bool;

    // What the move choice checks exactly (`crate::choice`).

    /// A move that ends the game at once with the mover's side winning.
    fn winning_move(&self) -> Option<Self::Move> {
        let me = self.mover_side();
        self.legal_moves()
            .into_iter()
            .find(|&mv| self.play(mv).result_for(me) == Some(1.0))
    }

    /// Whether the side to move in `after`, played from `self`, is another
    /// side than `self`'s mover (partners may move in a row).
    fn other_side_moves_in(&self, after: &Self) -> bool {
        after.mover_side() != self.mover_side()
    }

    /// Whether the mover's side is strictly ahead on what decides the game
    /// at the move limit (marbles pushed off), so that a cycle would win it.
    fn mover_is_ahead(&self) -> bool {
        let me = self.mover_side();
        let mine = self.side_score(me);
        (0..self.sides()).all(|side| side == me || self.side_score(side) < mine)
    }

    /// The material after `mv` and `plies - 1` more plies of best play
    /// (`None` for 0 plies): the mover's marbles won minus lost, counted
    /// exactly by the engine (`sumito_engine::material`; in the general
    /// game one side against all the others).
    fn material_after(&self, mv: Self::Move, plies: u32) -> Option<i32>;

    /// Whether `mv` keeps at least `at_least` material over `plies` plies of
    /// best play (a cheaper question than [`Self::material_after`]).
    fn keeps_material(&self, mv: Self::Move, at_least: i32, plies: u32) -> bool;

    /// The position as the search plays it ([`sumito_mcts::Game`]).
    type Searched: Game + PartialEq + fmt::Display;

    fn searched(&self) -> Self::Searched;

    /// The position of one the search plays.
    fn of_searched(searched: &Self::Searched) -> Self;

    /// The move of one of the search's actions here (`None` if the action
    /// is no move of this position's rules).
    fn move_of(&self, action: usize) -> Option<Self::Move>;

    /// The search's action of `mv`, a move of this position's rules.
    fn action_of(&self, mv: Self::Move) -> usize;
}

/// `text` with its first letter in upper case.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

/// The colour of a two-player seat: Black is seat 0.
pub fn color_of_seat(seat: usize) -> Color {
    if seat == 0 {
        Color::Black
    } else {
        Color::White
    }
}

/// "Black wins", "White wins" or "Draw".
pub fn outcome_title(outcome: Outcome) -> String {
    match outcome {
        Outcome::Win(side) => format!("{} wins", Position::seat_title(side)),
        Outcome::Draw(_) => "Draw".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
    use sumito_engine::{Layout, Rules};

    #[test]
    fn both_games_read_and_write_their_moves_and_count_push_offs() {
        let two = Position::start(Layout::Standard, Rules::default());
        let mv = Board::parse_move(&two, "A1B2").unwrap();
        assert_eq!(Position::move_text(mv), "A1B2");
        assert_eq!(
            (two.seats(), two.seat_to_move(), two.push_offs(mv)),
            (2, 0, 0)
        );
        assert!(Board::parse_move(&two, "hint").is_err());
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let three = GeneralSetup::layout(layout).start(&rules).unwrap();
        assert_eq!((three.seats(), three.sides()), (3, 3));
        let first = Board::legal_moves(&three)[0];
        let text = GeneralPosition::move_text(first);
        assert_eq!(Board::parse_move(&three, &text), Ok(first));
        assert_eq!(Board::play(&three, first).seat_to_move(), 1);
        assert_eq!(GeneralPosition::seat_title(2), "Red");
        assert_eq!(Position::seat_title(1), "White");
    }

    #[test]
    fn resigning_names_a_winner_only_between_two_sides() {
        let two = Position::start(Layout::Standard, Rules::default());
        assert_eq!(two.winner_after_resigning(0).as_deref(), Some("White wins"));
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let three = GeneralSetup::layout(layout).start(&rules).unwrap();
        assert_eq!(three.winner_after_resigning(1), None);
        let layout = GeneralLayout::from_name("four-player").unwrap();
        let rules = GeneralRules::plain(Seating::new(4, true).unwrap());
        let teams = GeneralSetup::layout(layout).start(&rules).unwrap();
        let winner = teams.winner_after_resigning(0).unwrap();
        assert!(
            winner.ends_with(" wins") && winner.contains('+'),
            "{winner}"
        );
    }
}
