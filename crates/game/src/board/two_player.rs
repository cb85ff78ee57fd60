//! [`Board`] for the two-player game: the fast engine's [`Position`].

use sumito_engine::general::{GeneralLayout, GeneralMove, GeneralPosition};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{
    Color, Ending, Layout, Move, Outcome, Position, PositionTextError, Rules, material,
};

use super::{Board, color_of_seat, outcome_title};
use crate::{AbaloneGame, GameKind};

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
        let Ending { outcome, reason } = self.ending()?;
        Some(format!("{} ({reason})", outcome_title(outcome)))
    }

    fn winner_after_resigning(&self, seat: usize) -> Option<String> {
        Some(outcome_title(Outcome::win_of(
            color_of_seat(seat).opponent(),
        )))
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

    fn mover_side(&self) -> usize {
        self.side_to_move().index()
    }

    fn side_name(&self, side: usize) -> String {
        Self::seat_title(side).to_lowercase()
    }

    fn side_of(&self, seat: usize) -> usize {
        seat
    }

    type Layout = Layout;

    fn first_position(layout: Layout, rules: &Rules) -> Result<Position, String> {
        Ok(Position::start(layout, *rules))
    }

    fn under_rules(&self, rules: &Rules) -> Result<Position, String> {
        Ok(self.with_rules(*rules))
    }

    const MAX_SEATS: usize = 2;

    fn rules_table(rules: &Rules) -> RulesTable {
        RulesTable::of_two_player(*rules)
    }

    fn rules_of_table(table: &RulesTable) -> Result<Rules, String> {
        if table.is_general() {
            return Err(format!(
                "the rules are {}, not the plain two-player game's",
                table.describe()
            ));
        }
        table.two_player_rules().map_err(|err| err.to_string())
    }

    fn general_layout(layout: Layout) -> GeneralLayout {
        GeneralLayout::Two(layout)
    }

    fn layout_of_general(layout: GeneralLayout) -> Result<Layout, String> {
        match layout {
            GeneralLayout::Two(layout) => Ok(layout),
            layout => Err(format!(
                "the layout {layout} seats more than two players: the two-player game does not play it"
            )),
        }
    }

    fn general_move(mv: Move) -> GeneralMove {
        GeneralMove::group(mv)
    }

    fn move_of_general(mv: GeneralMove) -> Option<Move> {
        mv.as_group()
    }

    fn of_general(position: &GeneralPosition) -> Result<Position, String> {
        let rules = position.rules();
        let two = Position::from_fen(&position.to_string()).map_err(|err| err.to_string())?;
        Ok(two.with_rules(Rules {
            marbles_to_win: rules.target(0),
            max_plies: rules.max_plies,
            no_push_off_plies: rules.no_push_off_plies,
        }))
    }

    fn position_from_text(text: &str, table: &RulesTable) -> Result<Position, PositionTextError> {
        let position = Position::from_fen(text)?;
        let rules = Self::rules_of_table(table).map_err(PositionTextError::of_text)?;
        Ok(position.with_rules(rules))
    }

    fn ending(&self) -> Option<Ending> {
        Position::ending(self)
    }

    fn side_score(&self, side: usize) -> u32 {
        // The marbles the other colour lost.
        u32::from(self.marbles_off(color_of_seat(1 - side)))
    }

    fn max_plies(&self) -> Option<u32> {
        self.rules().max_plies
    }

    fn no_push_off_plies(&self) -> Option<u32> {
        self.rules().no_push_off_plies
    }

    fn is_quiet(&self, mv: Move) -> bool {
        !self.is_push(mv)
    }

    fn material_after(&self, mv: Move, plies: u32) -> Option<i32> {
        (plies > 0).then(|| material::move_value(self, mv, plies))
    }

    fn keeps_material(&self, mv: Move, at_least: i32, plies: u32) -> bool {
        material::value_at_least(self, mv, plies, at_least)
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
