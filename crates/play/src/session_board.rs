//! [`SessionBoard`]: what a terminal session needs of a game beyond
//! [`Board`]: the board drawn for a terminal, and its saved games
//! ([`GameRecord`]).

use std::path::Path;
use std::time::Duration;

use sumito_arena::record::GameRecord;
use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;
use sumito_game::Board;

use crate::board_text::{BoardAnnotations, BoardStyle, draw_board};
use crate::general_view::draw_general_board;
use crate::motion::marble_steps;

/// What the board shows beside the marbles.
#[derive(Clone, Copy, Debug)]
pub struct SeatNotes<'a, B: Board> {
    /// Who plays each seat ("you", an engine's name).
    pub labels: &'a [String],
    /// Time left on each seat's clock, in a timed game.
    pub clocks: Option<&'a [Duration]>,
    /// The last move and the position before it.
    pub last_move: Option<(B, B::Move)>,
}

/// A game the terminal session plays.
pub trait SessionBoard: Board {
    /// The board as text, with `notes` beside it.
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, Self>) -> String;

    /// A saved game of this game (a two-player record read for the
    /// general game is played by the general engine).
    fn read_record(path: &Path) -> Result<GameRecord<Self>, String> {
        GameRecord::read(path).map_err(|err| err.to_string())
    }

    fn write_record(record: &GameRecord<Self>, path: &Path) -> Result<(), String> {
        record.write(path).map_err(|err| err.to_string())
    }

    /// The start and the moves of `record`; an error when they do not
    /// replay.
    fn replay(record: &GameRecord<Self>) -> Result<(Self, Vec<Self::Move>), String> {
        let positions = record.positions()?;
        Ok((positions[0], record.moves.clone()))
    }

    /// The record of a game from `template`'s start and rules: `names` by
    /// seat, `moves` from the start, ending in `last`.
    fn record_of(
        template: &GameRecord<Self>,
        names: &[String],
        moves: &[Self::Move],
        last: &Self,
    ) -> GameRecord<Self> {
        GameRecord {
            players: names.to_vec(),
            opening_plies: 0,
            moves: moves.to_vec(),
            result: last.ending(),
            ..template.clone()
        }
    }
}

impl SessionBoard for Position {
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, Position>) -> String {
        let label = |seat: usize| notes.labels.get(seat).cloned().unwrap_or_default();
        let annotations = BoardAnnotations {
            clocks: notes.clocks.map(|clocks| [clocks[0], clocks[1]]),
            players: [label(0), label(1)],
            last_move: notes
                .last_move
                .map(|(before, mv)| marble_steps(&before, mv))
                .unwrap_or_default(),
        };
        draw_board(self, style, &annotations)
    }
}

impl SessionBoard for GeneralPosition {
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, GeneralPosition>) -> String {
        draw_general_board(self, style, notes.labels, notes.clocks)
    }
}
