//! [`Board`]: a position of either game as the layers above the engine see
//! it: seats taking turns, moves as values and as text, the rules and the
//! end in words. The two-player [`Position`] and the general game's
//! [`GeneralPosition`] implement it, so that what people touch (terminal
//! sessions, saved games) is written once for both; the engines beneath
//! stay separate for speed.
//!
//! Adding a game is one more implementation of this trait (and of
//! `sumito_mcts::Game` for its search).

use std::fmt;

use sumito_engine::general::{GeneralMove, GeneralOutcome, GeneralPosition, SEAT_NAMES};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Color, Move, Outcome, Position, Rules};
use sumito_mcts::Game;

use crate::{AbaloneGame, GameKind, GeneralGame};

/// A position of one of the games.
pub trait Board: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// A move of the game.
    type Move: Copy + Eq + fmt::Debug + Send + Sync + 'static;

    /// The rules of the game as a model records the rules it learned under:
    /// the two-player [`Rules`]; the general game's `[rules]` table
    /// ([`RulesTable`], its layouts included).
    type Rules: Clone + PartialEq + fmt::Debug + Send + Sync + 'static;

    /// Which of the two games this is.
    const KIND: GameKind;

    /// Seats at the board, each played by people or an engine in turn.
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
    fn result_for(&self, side: usize) -> Option<f32>;

    /// The side (a seat, or a team of partners) whose turn it is: the index
    /// of the search's values by side.
    fn mover_side(&self) -> usize;

    /// `black`, `white`, `black+red`...: a side as reports name it.
    fn side_name(&self, side: usize) -> String;

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
        Outcome::Win(color) => format!("{} wins", Position::seat_title(color.index())),
        Outcome::Draw => "Draw".to_string(),
    }
}

impl Board for Position {
    const KIND: GameKind = GameKind::TwoPlayer;
    type Move = Move;
    type Rules = Rules;

    fn seats(&self) -> usize {
        2
    }

    fn seat_to_move(&self) -> usize {
        self.side_to_move().index()
    }

    fn sides(&self) -> usize {
        2
    }

    fn ply(&self) -> u32 {
        Position::ply(self)
    }

    fn legal_moves(&self) -> Vec<Move> {
        Position::legal_moves(self).to_vec()
    }

    fn is_legal(&self, mv: Move) -> bool {
        Position::is_legal(self, mv)
    }

    fn play(&self, mv: Move) -> Position {
        Position::play(self, mv)
    }

    fn push_offs(&self, mv: Move) -> u32 {
        u32::from(self.is_push_off(mv))
    }

    fn parse_move(&self, text: &str) -> Result<Move, String> {
        Position::parse_move(self, text).map_err(|err| err.to_string())
    }

    fn move_text(mv: Move) -> String {
        mv.to_string()
    }

    fn result_text(&self) -> Option<String> {
        let (outcome, reason) = self.outcome()?;
        Some(format!("{} ({reason})", outcome_title(outcome)))
    }

    fn winner_after_resigning(&self, seat: usize) -> Option<String> {
        Some(outcome_title(Outcome::Win(color_of_seat(seat).opponent())))
    }

    fn repetition_hash(&self) -> u64 {
        self.hash()
    }

    fn seat_title(seat: usize) -> String {
        match color_of_seat(seat) {
            Color::Black => "Black",
            Color::White => "White",
        }
        .to_string()
    }

    fn rules_text(&self) -> String {
        self.rules().describe()
    }

    fn is_over(&self) -> bool {
        self.is_game_over()
    }

    fn result_for(&self, side: usize) -> Option<f32> {
        Some(match self.outcome()?.0 {
            Outcome::Win(color) if color.index() == side => 1.0,
            Outcome::Win(_) => -1.0,
            Outcome::Draw => 0.0,
        })
    }

    fn mover_side(&self) -> usize {
        self.side_to_move().index()
    }

    fn side_name(&self, side: usize) -> String {
        Self::seat_title(side).to_lowercase()
    }

    type Searched = AbaloneGame;

    fn searched(&self) -> AbaloneGame {
        AbaloneGame(*self)
    }

    fn of_searched(searched: &AbaloneGame) -> Position {
        searched.0
    }

    fn move_of(&self, action: usize) -> Option<Move> {
        AbaloneGame::move_of(action)
    }

    fn action_of(&self, mv: Move) -> usize {
        mv.action()
    }
}

impl Board for GeneralPosition {
    const KIND: GameKind = GameKind::General;
    type Move = GeneralMove;
    type Rules = RulesTable;

    fn seats(&self) -> usize {
        self.rules().seating.seats()
    }

    fn seat_to_move(&self) -> usize {
        GeneralPosition::seat_to_move(self)
    }

    fn sides(&self) -> usize {
        self.rules().seating.sides()
    }

    fn ply(&self) -> u32 {
        GeneralPosition::ply(self)
    }

    fn legal_moves(&self) -> Vec<GeneralMove> {
        GeneralPosition::legal_moves(self)
    }

    fn is_legal(&self, mv: GeneralMove) -> bool {
        GeneralPosition::is_legal(self, mv)
    }

    fn play(&self, mv: GeneralMove) -> GeneralPosition {
        GeneralPosition::play(self, mv)
    }

    fn push_offs(&self, mv: GeneralMove) -> u32 {
        let side = self.side_to_move();
        self.play(mv)
            .side_score(side)
            .saturating_sub(self.side_score(side))
    }

    fn parse_move(&self, text: &str) -> Result<GeneralMove, String> {
        GeneralPosition::parse_move(self, text).map_err(|err| err.to_string())
    }

    fn move_text(mv: GeneralMove) -> String {
        mv.to_text()
    }

    fn result_text(&self) -> Option<String> {
        self.describe_outcome().map(|text| capitalised(&text))
    }

    fn winner_after_resigning(&self, seat: usize) -> Option<String> {
        let seating = self.rules().seating;
        (seating.sides() == 2).then(|| {
            let winner = 1 - seating.side_of(seat);
            capitalised(&format!("{} wins", seating.side_name(winner)))
        })
    }

    fn repetition_hash(&self) -> u64 {
        self.hash()
    }

    fn seat_title(seat: usize) -> String {
        capitalised(SEAT_NAMES[seat])
    }

    fn rules_text(&self) -> String {
        self.rules().to_string()
    }

    fn is_over(&self) -> bool {
        self.is_game_over()
    }

    fn result_for(&self, side: usize) -> Option<f32> {
        Some(match self.outcome()?.0 {
            GeneralOutcome::Win(winner) if winner == side => 1.0,
            GeneralOutcome::Win(_) => -1.0,
            GeneralOutcome::Draw(sides) if sides & (1 << side) != 0 => 0.0,
            GeneralOutcome::Draw(_) => -1.0,
        })
    }

    fn mover_side(&self) -> usize {
        self.side_to_move()
    }

    fn side_name(&self, side: usize) -> String {
        self.rules().seating.side_name(side)
    }

    type Searched = GeneralGame;

    fn searched(&self) -> GeneralGame {
        GeneralGame(*self)
    }

    fn of_searched(searched: &GeneralGame) -> GeneralPosition {
        searched.0
    }

    fn move_of(&self, action: usize) -> Option<GeneralMove> {
        GeneralMove::from_action(action, self.rules())
    }

    fn action_of(&self, mv: GeneralMove) -> usize {
        mv.action(self.rules())
            .expect("a legal move has an action under its position's rules")
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
