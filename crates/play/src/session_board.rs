//! [`SessionBoard`]: what a terminal session needs of a game beyond
//! [`Board`]: the board drawn for a terminal, and its saved games (the
//! two-player [`GameRecord`] and the general game's [`GeneralRecord`]).

use std::path::Path;
use std::time::Duration;

use sumito_arena::general_record::GeneralRecord;
use sumito_arena::record::{AnyRecord, GameRecord};
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
    /// A saved game: its start, rules, players, moves and result.
    type Record: Clone;

    /// The board as text, with `notes` beside it.
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, Self>) -> String;

    fn read_record(path: &Path) -> Result<Self::Record, String>;

    fn write_record(record: &Self::Record, path: &Path) -> Result<(), String>;

    /// The start and the moves of `record`; an error when they do not
    /// replay.
    fn replay(record: &Self::Record) -> Result<(Self, Vec<Self::Move>), String>;

    /// The record of a game from `template`'s start and rules: `names` by
    /// seat, `moves` from the start, ending in `last`.
    fn record_of(
        template: &Self::Record,
        names: &[String],
        moves: &[Self::Move],
        last: &Self,
    ) -> Self::Record;

    /// `record` under the rules of `model` (the rules a model at the board
    /// plays under, the only ones it knows), with a note for the person
    /// when they differ; an error when the game cannot go on under them.
    fn under_rules_of(
        record: &Self::Record,
        model: &Self::Record,
    ) -> Result<(Self::Record, Option<String>), String>;
}

impl SessionBoard for Position {
    type Record = GameRecord;

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

    fn read_record(path: &Path) -> Result<GameRecord, String> {
        GameRecord::read(path).map_err(|err| err.to_string())
    }

    fn write_record(record: &GameRecord, path: &Path) -> Result<(), String> {
        record.write(path).map_err(|err| err.to_string())
    }

    fn replay(record: &GameRecord) -> Result<(Position, Vec<sumito_engine::Move>), String> {
        // A parsed record's moves are legal from its start.
        Ok((record.start_position(), record.moves.clone()))
    }

    fn record_of(
        template: &GameRecord,
        names: &[String],
        moves: &[sumito_engine::Move],
        last: &Position,
    ) -> GameRecord {
        let name = |seat: usize| names.get(seat).cloned().unwrap_or_default();
        GameRecord {
            black: name(0),
            white: name(1),
            opening_plies: 0,
            moves: moves.to_vec(),
            result: last.outcome(),
            ..template.clone()
        }
    }

    fn under_rules_of(
        record: &GameRecord,
        model: &GameRecord,
    ) -> Result<(GameRecord, Option<String>), String> {
        crate::analysis::record_under_rules(record, model.rules)
    }
}

impl SessionBoard for GeneralPosition {
    type Record = GeneralRecord;

    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, GeneralPosition>) -> String {
        draw_general_board(self, style, notes.labels, notes.clocks)
    }

    fn read_record(path: &Path) -> Result<GeneralRecord, String> {
        // Any record, a two-player one too (the general engine plays it).
        AnyRecord::read(path)
            .map(AnyRecord::into_general)
            .map_err(|err| err.to_string())
    }

    fn write_record(record: &GeneralRecord, path: &Path) -> Result<(), String> {
        record.write(path).map_err(|err| err.to_string())
    }

    fn replay(
        record: &GeneralRecord,
    ) -> Result<(GeneralPosition, Vec<sumito_engine::general::GeneralMove>), String> {
        let positions = record.positions()?;
        Ok((positions[0], record.moves.clone()))
    }

    fn record_of(
        template: &GeneralRecord,
        names: &[String],
        moves: &[sumito_engine::general::GeneralMove],
        last: &GeneralPosition,
    ) -> GeneralRecord {
        GeneralRecord {
            seats: names.to_vec(),
            opening_plies: 0,
            moves: moves.to_vec(),
            result: last.describe_outcome(),
            ..template.clone()
        }
    }

    fn under_rules_of(
        record: &GeneralRecord,
        model: &GeneralRecord,
    ) -> Result<(GeneralRecord, Option<String>), String> {
        if record.rules == model.rules {
            Ok((record.clone(), None))
        } else {
            Err(
                "the record's [rules] are not those the model was trained under, the only ones it plays"
                    .to_string(),
            )
        }
    }
}
