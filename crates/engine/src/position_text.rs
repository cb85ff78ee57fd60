//! What the two position texts share: their one error,
//! [`PositionTextError`] (what is wrong, a [`TextProblem`], and the
//! character where it is), the quoting of a text in a message
//! ([`quote_position_text`]), the bound of the ply counters and the fields
//! of a text with their places. The two-player text is read in
//! [`crate::fen`], the general game's in [`crate::general::text`]; both
//! give this error, so that a caller handles one type whichever grammar it
//! reads, and never converts one grammar's error into the other's.

use crate::board::Cell;
use crate::excerpt::excerpt;
use crate::general::position::GeneralBoardError;
use crate::general::rules::SEAT_LETTERS;
use crate::position::BoardError;

/// The largest ply counter a position text (and a game record's start) may
/// give: far beyond any game, and far enough below `u32::MAX` that playing
/// on, and every `ply + 1` of the code above, cannot overflow (a text at
/// `u32::MAX` made the next move panic).
pub const MAX_PLY_COUNTER: u32 = 1_000_000_000;

/// A position given as text that could not be read, in either game's
/// grammar or under the rules asked for: what is wrong (`problem`, whose
/// message names the row or the field at fault, a field quoted back cut to
/// an [`excerpt`] so that a huge input does not make a huge message), and
/// the character of the text (1-based) where it is, where it has one place
/// (`column`), so that a caller can quote the text around it
/// ([`quote_position_text`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{problem}")]
pub struct PositionTextError {
    pub problem: TextProblem,
    pub column: Option<usize>,
}

/// What is wrong with a position text (either grammar's).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextProblem {
    /// Too few or too many fields; `expected` says what the grammar reads.
    #[error("expected {expected}; found {found} fields")]
    FieldCount {
        found: usize,
        expected: &'static str,
    },
    #[error("the board has {found} rows separated by '/', expected 9 (row I first, row A last)")]
    RowCount { found: usize },
    #[error("row {row} has {found} cells, expected {expected}")]
    RowLength {
        row: char,
        found: usize,
        expected: usize,
    },
    /// A character of a row that is no cell: `column` is its place in the
    /// row (1-based), `expected` the characters the grammar reads.
    #[error("row {row}, character {column}: unknown {found:?} (expected {expected})")]
    UnknownCharacter {
        row: char,
        column: usize,
        found: char,
        expected: &'static str,
    },
    /// `field` (the side or seat to move, the seat of `won:`) is not the
    /// letter of one of the `seats` seats that play.
    #[error("{field} {found:?} must be {}", seat_letters(*seats))]
    BadSeat {
        field: &'static str,
        found: String,
        seats: usize,
    },
    /// A number field (marbles off, a score, a ply counter) that is not a
    /// whole number from 0 to `max`.
    #[error("{field} {found:?} is not a whole number from 0 to {max}")]
    BadNumber {
        field: String,
        found: String,
        max: u32,
    },
    #[error("{found} scores: 3 to 6 players, or two numbers for two players")]
    ScoreCount { found: usize },
    #[error("plies since a push-off ({since}) cannot exceed the plies played ({ply})")]
    PliesSincePushOffExceedPly { since: u32, ply: u32 },
    #[error("a marble of seat {letter:?} on {cell}, but only {seats} players play")]
    SeatOutOfRange {
        letter: char,
        cell: Cell,
        seats: usize,
    },
    #[error("common marbles (c) and seat marbles cannot be mixed: {cell} holds {letter:?}")]
    MixedColours { letter: char, cell: Cell },
    #[error("{cell} is {found} in the text but {expected} in the rules")]
    CellRole {
        cell: Cell,
        found: &'static str,
        expected: &'static str,
    },
    #[error("the text has {found} players but the rules are for {expected}")]
    SeatCount { found: usize, expected: usize },
    #[error("the text is {found} but the rules are {expected}")]
    OneColour {
        found: &'static str,
        expected: &'static str,
    },
    /// Too many marbles of one colour in the two-player text (the other
    /// [`BoardError`]s cannot arise from a text, which places each marble
    /// on one cell).
    #[error(transparent)]
    Board(#[from] BoardError),
    /// A general position that cannot be, under its rules.
    #[error(transparent)]
    GeneralBoard(#[from] GeneralBoardError),
    /// A problem of the whole text in words (its players against the
    /// rules' layouts, say).
    #[error("{0}")]
    Other(String),
}

/// The seat letters of `seats` seats, as a message lists them: `b or w`,
/// `b, w or r`, ….
fn seat_letters(seats: usize) -> String {
    let letters: Vec<String> = SEAT_LETTERS[..seats.clamp(1, SEAT_LETTERS.len())]
        .iter()
        .map(char::to_string)
        .collect();
    match letters.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => letters.concat(),
    }
}

impl PositionTextError {
    /// `problem` at character `column` (1-based) of the text.
    pub fn at(problem: TextProblem, column: usize) -> PositionTextError {
        PositionTextError {
            problem,
            column: Some(column),
        }
    }

    /// An error of the whole text (its rules, say), in words, at no one
    /// character.
    pub fn of_text(message: impl Into<String>) -> PositionTextError {
        TextProblem::Other(message.into()).into()
    }
}

/// A problem of the whole text, at no one character.
impl From<TextProblem> for PositionTextError {
    fn from(problem: TextProblem) -> PositionTextError {
        PositionTextError {
            problem,
            column: None,
        }
    }
}

impl From<BoardError> for PositionTextError {
    fn from(err: BoardError) -> PositionTextError {
        TextProblem::Board(err).into()
    }
}

impl From<GeneralBoardError> for PositionTextError {
    fn from(err: GeneralBoardError) -> PositionTextError {
        TextProblem::GeneralBoard(err).into()
    }
}

/// How an error message quotes a position text given by the user: whole
/// (as a Rust string literal) when it is short; otherwise about 40
/// characters around character `at` (1-based; the start without one), with
/// `…` where it is cut, and the text's length. `at` is named either way.
/// Characters that print escaped count as their escapes, as in [`excerpt`].
pub fn quote_position_text(text: &str, at: Option<usize>) -> String {
    const SHORT: usize = 80;
    const HALF: usize = 20;
    let place = at.map(|at| format!("at character {at}"));
    let length = text.chars().count();
    let printed: usize = text.chars().map(|ch| ch.escape_debug().count()).sum();
    if printed <= SHORT {
        return match place {
            Some(place) => format!("{text:?} ({place})"),
            None => format!("{text:?}"),
        };
    }
    let centre = at.unwrap_or(1).saturating_sub(1).min(length);
    let start = centre.saturating_sub(HALF);
    let window: String = text.chars().skip(start).take(2 * HALF).collect();
    // (The window is cut again if its characters print escaped.)
    let mut shown = excerpt(&window);
    if start > 0 {
        shown.insert(0, '…');
    }
    if start + 2 * HALF < length && !shown.ends_with('…') {
        shown.push('…');
    }
    match place {
        Some(place) => format!("{shown:?} ({length} characters, {place})"),
        None => format!("{shown:?} ({length} characters)"),
    }
}

/// The fields of `text` separated by whitespace, each with the character
/// (1-based) it starts at.
pub(crate) fn fields_with_columns(text: &str) -> Vec<(usize, &str)> {
    let mut fields = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    for (column, (byte, ch)) in text.char_indices().enumerate() {
        if ch.is_whitespace() {
            if let Some((from, at)) = start.take() {
                fields.push((at, &text[from..byte]));
            }
        } else if start.is_none() {
            start = Some((byte, column + 1));
        }
    }
    if let Some((from, at)) = start {
        fields.push((at, &text[from..]));
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_letters_are_listed_as_a_message_names_them() {
        assert_eq!(seat_letters(2), "b or w");
        assert_eq!(seat_letters(3), "b, w or r");
        assert_eq!(seat_letters(6), "b, w, r, g, u or y");
    }

    #[test]
    fn an_error_says_what_and_where() {
        let err = PositionTextError::at(TextProblem::RowCount { found: 8 }, 16);
        assert_eq!(
            err.to_string(),
            "the board has 8 rows separated by '/', expected 9 (row I first, row A last)"
        );
        assert_eq!(err.column, Some(16));
        let err = PositionTextError::of_text("under these rules: no");
        assert_eq!(err.to_string(), "under these rules: no");
        assert_eq!(err.column, None);
    }

    #[test]
    fn a_long_text_is_quoted_around_its_place() {
        let board = format!("{}/6/7/8/9/8/7/6/5 b 0 0", "5".repeat(1000));
        assert_eq!(
            quote_position_text(&board, Some(600)),
            format!(
                "\"…{}…\" (1022 characters, at character 600)",
                "5".repeat(40)
            )
        );
        assert_eq!(quote_position_text("9/9 b 0 0", None), "\"9/9 b 0 0\"");
        // Characters that print escaped count as their escapes: 60 of
        // U+E0001 would print as 540 characters.
        let tags = "\u{e0001}".repeat(60);
        assert_eq!(
            quote_position_text(&tags, None),
            format!("\"{}…\" (60 characters)", "\\u{e0001}".repeat(4))
        );
        assert_eq!(
            quote_position_text("9/9 b", Some(1)),
            "\"9/9 b\" (at character 1)"
        );
    }
}
