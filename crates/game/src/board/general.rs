//! [`Board`] for the general game (variants, 3 to 6 players, teams): the
//! general engine's [`GeneralPosition`].

use sumito_engine::general::material;
use sumito_engine::general::{GeneralLayout, GeneralMove, GeneralPosition, MAX_SEATS, SEAT_NAMES};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Ending, PositionTextError};

use super::{Board, capitalised};
use crate::{GameKind, GeneralGame};

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

    fn mover_side(&self) -> usize {
        self.side_to_move()
    }

    fn side_name(&self, side: usize) -> String {
        self.rules().seating.side_name(side)
    }

    fn side_of(&self, seat: usize) -> usize {
        self.rules().seating.side_of(seat)
    }

    type Layout = GeneralLayout;

    fn first_position(
        layout: GeneralLayout,
        rules: &RulesTable,
    ) -> Result<GeneralPosition, String> {
        rules.start(layout).map_err(|err| err.to_string())
    }

    fn under_rules(&self, rules: &RulesTable) -> Result<GeneralPosition, String> {
        // Read again under these rules: a record's rules may have been
        // replaced (by a model's) since its start was read.
        rules
            .position_from_text(&self.to_string())
            .map_err(|err| err.to_string())
    }

    const MAX_SEATS: usize = MAX_SEATS;

    fn rules_table(rules: &RulesTable) -> RulesTable {
        rules.clone()
    }

    fn rules_of_table(table: &RulesTable) -> Result<RulesTable, String> {
        Ok(table.clone())
    }

    fn general_layout(layout: GeneralLayout) -> GeneralLayout {
        layout
    }

    fn layout_of_general(layout: GeneralLayout) -> Result<GeneralLayout, String> {
        Ok(layout)
    }

    fn general_move(mv: GeneralMove) -> GeneralMove {
        mv
    }

    fn move_of_general(mv: GeneralMove) -> Option<GeneralMove> {
        Some(mv)
    }

    fn of_general(position: &GeneralPosition) -> Result<GeneralPosition, String> {
        Ok(*position)
    }

    fn position_from_text(
        text: &str,
        table: &RulesTable,
    ) -> Result<GeneralPosition, PositionTextError> {
        table.position_from_text(text)
    }

    fn ending(&self) -> Option<Ending> {
        GeneralPosition::ending(self)
    }

    fn side_score(&self, side: usize) -> u32 {
        GeneralPosition::side_score(self, side)
    }

    fn max_plies(&self) -> Option<u32> {
        self.rules().max_plies
    }

    fn no_push_off_plies(&self) -> Option<u32> {
        self.rules().no_push_off_plies
    }

    fn is_quiet(&self, mv: GeneralMove) -> bool {
        // A push moves another seat's (or a neutral) marble.
        let after = self.play(mv);
        let mover = self.seat_to_move();
        (0..self.rules().seating.seats())
            .filter(|&seat| seat != mover)
            .all(|seat| self.bitboard(seat) == after.bitboard(seat))
            && self.neutral_bitboard() == after.neutral_bitboard()
    }

    fn material_after(&self, mv: GeneralMove, plies: u32) -> Option<i32> {
        (plies > 0).then(|| material::move_value(self, mv, plies))
    }

    fn keeps_material(&self, mv: GeneralMove, at_least: i32, plies: u32) -> bool {
        material::value_at_least(self, mv, plies, at_least)
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
