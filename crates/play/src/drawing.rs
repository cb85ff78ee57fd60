//! The board drawn for a terminal session: [`DrawBoard`], implemented once
//! per game.

use std::time::Duration;

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;
use sumito_game::Board;

use crate::board_text::{BoardAnnotations, BoardStyle, draw_board};
use crate::general_view::{GeneralView, changed_cells, draw_general_board};
use crate::motion::marble_steps;

/// What the board shows beside the marbles.
#[derive(Clone, Copy, Debug)]
pub struct SeatNotes<'a, B: Board> {
    /// Who plays each seat ("you", a player's name).
    pub labels: &'a [String],
    /// Time left on each seat's clock, in a timed game.
    pub clocks: Option<&'a [Duration]>,
    /// The last move and the position before it.
    pub last_move: Option<(B, B::Move)>,
    /// Whether the board is turned half round (the second seat's side at
    /// the bottom), for a person playing it.
    pub flipped: bool,
}

/// A game whose board a terminal session draws.
pub trait DrawBoard: Board {
    /// The board as text in `style`, with `notes` beside it.
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, Self>) -> String;
}

/// The two-player board, with the last move's marbles marked.
impl DrawBoard for Position {
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, Position>) -> String {
        let label = |seat: usize| notes.labels.get(seat).cloned().unwrap_or_default();
        let annotations = BoardAnnotations {
            clocks: notes.clocks.map(|clocks| [clocks[0], clocks[1]]),
            players: [label(0), label(1)],
            last_move: notes
                .last_move
                .map(|(before, mv)| marble_steps(&before, mv))
                .unwrap_or_default(),
            flipped: notes.flipped,
        };
        draw_board(self, style, &annotations)
    }
}

/// The general game's board, any layout and number of seats, with the last
/// move's cells marked.
impl DrawBoard for GeneralPosition {
    fn draw(&self, style: BoardStyle, notes: &SeatNotes<'_, GeneralPosition>) -> String {
        let changed = notes
            .last_move
            .map(|(before, _)| changed_cells(&before, self))
            .unwrap_or_default();
        let view = GeneralView {
            style,
            labels: notes.labels,
            clocks: notes.clocks,
            changed: &changed,
            flipped: notes.flipped,
        };
        draw_general_board(self, &view)
    }
}
