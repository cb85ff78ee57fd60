//! The position text format ("FEN"), read and written with an exact round trip:
//!
//! ```text
//! <row I>/<row H>/…/<row A> <side> <black off> <white off>
//! ```
//!
//! Each row lists its cells from the lowest diagonal up: `b` a black marble,
//! `w` a white one, a digit 1–9 that many empty cells (adjacent digits add
//! up; printing always merges them). The side to move is `b` or `w`; the last
//! two numbers say how many black and white marbles are already off the
//! board. The Standard start is
//! `wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0`.
//!
//! Two more numbers may follow: the plies played and the plies since a
//! marble was last pushed off, which the move limit and the no-push-off rule
//! count (and the network's input, which sees how near the move limit is):
//!
//! ```text
//! <row I>/<row H>/…/<row A> <side> <black off> <white off> [<ply> <plies since push-off>]
//! ```
//!
//! Without them a position starts at ply 0; they are printed only when one
//! of them is not 0, so a text without them reads and prints back exactly
//! (and `… 0 0 0 0` prints as `… 0 0`). For example, 57 plies into a game
//! whose last push-off was 12 plies ago:
//! `wwww1/wwwwww/2ww3/8/4b4/8/2bb3/bbbbbb/bbbbb w 0 1 57 12`.
//!
//! The text carries no rules: a position read from text is under the default
//! [`Rules`] (see [`Position::with_rules`]).
//!
//! A text that cannot be read gives a [`PositionTextError`], the one error
//! of both position texts ([`crate::position_text`]): what is wrong, and the
//! character where.

use crate::board::{Cell, Color, row_max_diag, row_min_diag};
use crate::excerpt::excerpt;
use crate::position::{Position, Rules, check_marble_total};
use crate::position_text::{MAX_PLY_COUNTER, PositionTextError, TextProblem, fields_with_columns};
use crate::rule_values::MARBLES_PER_SIDE;
use std::fmt;
use std::str::FromStr;

const ROW_LETTERS: &[u8; 9] = b"ABCDEFGHI";

/// What this grammar reads, as an error about the number of fields says it.
const FIELDS: &str = "4 fields separated by spaces (board, side to move, black marbles off, white marbles off), or 6 with the ply counters (plies played, plies since a push-off)";

/// The characters of a row, as an error about an unknown one says them.
const ROW_CHARACTERS: &str = "b, w or a digit 1-9";

impl Position {
    /// Reads the position text format (see [`crate::fen`]) under default [`Rules`].
    pub fn from_fen(text: &str) -> Result<Position, PositionTextError> {
        let fields = fields_with_columns(text);
        let (fields, counters) = match fields.len() {
            4 => (&fields[..], None),
            6 => (&fields[..4], Some((fields[4], fields[5]))),
            found => {
                return Err(PositionTextError {
                    problem: TextProblem::FieldCount {
                        found,
                        expected: FIELDS,
                    },
                    // The first field too many, if there are too many.
                    column: fields
                        .get(if found == 5 { 4 } else { 6 })
                        .map(|(at, _)| *at),
                });
            }
        };
        let [
            (board_at, board),
            (side_at, side),
            (black_at, black_off),
            (white_at, white_off),
        ] = fields[..]
        else {
            unreachable!("four fields, split off above");
        };
        // Each row with the character it starts at.
        let mut rows = Vec::new();
        let mut row_at = board_at;
        for row_text in board.split('/') {
            rows.push((row_at, row_text));
            row_at += row_text.chars().count() + 1;
        }
        if rows.len() != 9 {
            return Err(PositionTextError::at(
                TextProblem::RowCount { found: rows.len() },
                rows.get(9).map_or(row_at - 1, |(at, _)| *at),
            ));
        }
        let mut marbles = [0u128; 2];
        for (text_row, &(row_at, row_text)) in rows.iter().enumerate() {
            let row = 8 - text_row as u8;
            let letter = char::from(ROW_LETTERS[usize::from(row)]);
            let first = row_min_diag(i32::from(row)) as u8;
            let expected =
                (row_max_diag(i32::from(row)) - row_min_diag(i32::from(row)) + 1) as usize;
            let mut filled = 0usize;
            for (column, ch) in row_text.chars().enumerate() {
                let color = match ch {
                    'b' => Some(Color::Black),
                    'w' => Some(Color::White),
                    '1'..='9' => None,
                    _ => {
                        return Err(PositionTextError::at(
                            TextProblem::UnknownCharacter {
                                row: letter,
                                column: column + 1,
                                found: ch,
                                expected: ROW_CHARACTERS,
                            },
                            row_at + column,
                        ));
                    }
                };
                match color {
                    Some(color) => {
                        // Cells past the row's end are reported below as a
                        // length error (and would overflow the diagonal).
                        if filled < expected
                            && let Some(cell) = Cell::from_row_diag(row, first + filled as u8)
                        {
                            marbles[color.index()] |= cell.bit();
                        }
                        filled += 1;
                    }
                    None => filled += ch as usize - '0' as usize,
                }
            }
            if filled != expected {
                return Err(PositionTextError::at(
                    TextProblem::RowLength {
                        row: letter,
                        found: filled,
                        expected,
                    },
                    row_at,
                ));
            }
        }
        let side = match side {
            "b" => Color::Black,
            "w" => Color::White,
            _ => {
                return Err(PositionTextError::at(
                    TextProblem::BadSeat {
                        field: "side to move",
                        found: excerpt(side),
                        seats: 2,
                    },
                    side_at,
                ));
            }
        };
        let mut off = [0u8; 2];
        for (color, text, at) in [
            (Color::Black, black_off, black_at),
            (Color::White, white_off, white_at),
        ] {
            let count = text
                .parse::<u8>()
                .ok()
                .filter(|&n| n <= MARBLES_PER_SIDE && text.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    PositionTextError::at(
                        TextProblem::BadNumber {
                            field: format!("{color} marbles off"),
                            found: excerpt(text),
                            max: u32::from(MARBLES_PER_SIDE),
                        },
                        at,
                    )
                })?;
            check_marble_total(color, marbles[color.index()].count_ones(), count)?;
            off[color.index()] = count;
        }
        let position = Position::from_parts(marbles, side, off, Rules::default());
        let Some(((ply_at, ply), (since_at, since))) = counters else {
            return Ok(position);
        };
        let number = |counter: &'static str, text: &str, at: usize| {
            text.parse::<u32>()
                .ok()
                .filter(|&n| n <= MAX_PLY_COUNTER && text.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    PositionTextError::at(
                        TextProblem::BadNumber {
                            field: counter.to_owned(),
                            found: excerpt(text),
                            max: MAX_PLY_COUNTER,
                        },
                        at,
                    )
                })
        };
        let ply = number("plies played", ply, ply_at)?;
        let since = number("plies since a push-off", since, since_at)?;
        if since > ply {
            return Err(PositionTextError::at(
                TextProblem::PliesSincePushOffExceedPly { since, ply },
                since_at,
            ));
        }
        Ok(position.with_ply_counters(ply, since))
    }
}

impl FromStr for Position {
    type Err = PositionTextError;
    fn from_str(text: &str) -> Result<Position, PositionTextError> {
        Position::from_fen(text)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..9u8).rev() {
            let mut empty_run = 0;
            for diag in row_min_diag(i32::from(row))..=row_max_diag(i32::from(row)) {
                let cell = Cell::from_row_diag(row, diag as u8).expect("diagonal within the row");
                match self.at(cell) {
                    None => empty_run += 1,
                    Some(color) => {
                        if empty_run > 0 {
                            write!(f, "{empty_run}")?;
                            empty_run = 0;
                        }
                        write!(f, "{}", color.letter())?;
                    }
                }
            }
            if empty_run > 0 {
                write!(f, "{empty_run}")?;
            }
            if row > 0 {
                f.write_str("/")?;
            }
        }
        write!(
            f,
            " {} {} {}",
            self.side_to_move().letter(),
            self.marbles_off(Color::Black),
            self.marbles_off(Color::White)
        )?;
        if self.ply() != 0 || self.plies_since_push_off() != 0 {
            write!(f, " {} {}", self.ply(), self.plies_since_push_off())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position_text::quote_position_text;

    const STANDARD: &str = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0";

    #[test]
    fn standard_round_trip() {
        let position = Position::from_fen(STANDARD).unwrap();
        assert_eq!(position.to_string(), STANDARD);
        assert_eq!(position.marble_count(Color::Black), 14);
        assert_eq!(position.marble_count(Color::White), 14);
        assert_eq!(position.at("C3".parse().unwrap()), Some(Color::Black));
        assert_eq!(position.at("G7".parse().unwrap()), Some(Color::White));
        assert_eq!(position.at("C2".parse().unwrap()), None);
        assert_eq!(position.side_to_move(), Color::Black);
    }

    #[test]
    fn ply_counters_are_optional_and_round_trip() {
        let text = "wwww1/wwwwww/2ww3/8/4b4/8/2bb3/bbbbbb/bbbbb w 0 1 57 12";
        let position = Position::from_fen(text).unwrap();
        assert_eq!((position.ply(), position.plies_since_push_off()), (57, 12));
        assert_eq!(position.to_string(), text);
        // Played on, the counters follow the game.
        let start = Position::from_fen(STANDARD).unwrap();
        let mv = start.legal_moves()[0];
        let after = start.play(mv);
        assert_eq!(after.ply(), 1);
        assert_eq!(Position::from_fen(&after.to_string()), Ok(after));
        // Zero counters print as the four-field form.
        let zero = Position::from_fen(&format!("{STANDARD} 0 0")).unwrap();
        assert_eq!(zero.to_string(), STANDARD);
        assert!(error(&format!("{STANDARD} 5")).contains("found 5"));
        assert!(error(&format!("{STANDARD} 5 x")).contains("plies since a push-off \"x\""));
        assert!(error(&format!("{STANDARD} -1 0")).contains("plies played \"-1\""));
        // Counters near u32::MAX would overflow as the game goes on.
        assert!(
            error(&format!("{STANDARD} 4294967295 0"))
                .contains("plies played \"4294967295\" is not a whole number from 0 to 1000000000")
        );
        let last = Position::from_fen(&format!("{STANDARD} {MAX_PLY_COUNTER} 7")).unwrap();
        assert_eq!(last.play(last.legal_moves()[0]).ply(), MAX_PLY_COUNTER + 1);
        let text = error(&format!("{STANDARD} 3 4"));
        assert!(
            text.contains("cannot exceed the plies played (3)"),
            "{text}"
        );
    }

    #[test]
    fn printing_merges_empty_runs() {
        let position = Position::from_fen("5/6/7/8/54/8/7/6/32 w 3 4").unwrap();
        assert_eq!(position.to_string(), "5/6/7/8/9/8/7/6/5 w 3 4");
        let position = Position::from_fen("5/6/7/8/1b1b1b3/8/7/6/32  w\t0 0").unwrap();
        assert_eq!(position.to_string(), "5/6/7/8/1b1b1b3/8/7/6/5 w 0 0");
    }

    fn error(text: &str) -> String {
        Position::from_fen(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_say_what_and_where() {
        assert!(error("").contains("found 0"));
        assert!(error(STANDARD.strip_suffix(" 0").unwrap()).contains("found 3"));
        assert!(error(&format!("{STANDARD} 7")).contains("found 5"));
        assert!(error("5/6/7/8/9/8/7/6 b 0 0").contains("8 rows"));
        assert_eq!(
            error("5/6/7/8/9/8/7/6/4 b 0 0"),
            "row A has 4 cells, expected 5"
        );
        assert_eq!(
            error("5/6/7/8/bbbbbbbbbb/8/7/6/5 b 0 0"),
            "row E has 10 cells, expected 9"
        );
        assert_eq!(
            error("5/6/7/8/4x4/8/7/6/5 b 0 0"),
            "row E, character 2: unknown 'x' (expected b, w or a digit 1-9)"
        );
        assert!(error("5/6/7/8/405/8/7/6/5 b 0 0").contains("unknown '0'"));
        assert!(error("5/6/7/8/9/8/7/6/5 B 0 0").contains("side to move \"B\""));
        assert!(error("5/6/7/8/9/8/7/6/5 b x 0").contains("black marbles off \"x\""));
        assert!(error("5/6/7/8/9/8/7/6/5 b 0 15").contains("white marbles off \"15\""));
        assert!(error("5/6/7/8/9/8/7/6/5 b +1 0").contains("black marbles off"));
        assert_eq!(
            error("5/6/7/8/9/8/bbbbbbb/bbbbbb/bbbbb b 0 0"),
            "18 black marbles on the board, at most 14 allowed"
        );
        assert_eq!(
            error(&STANDARD.replace("b 0 0", "b 0 1")),
            "white has 14 marbles on the board and 1 off, 15 in all; each side has 14"
        );
        // Game-over positions are fine.
        assert!(Position::from_fen("5/6/7/8/9/8/7/6/bbbbb w 0 6").is_ok());
    }

    fn column(text: &str) -> Option<usize> {
        Position::from_fen(text).unwrap_err().column
    }

    #[test]
    fn errors_point_at_the_character_where_the_problem_is() {
        assert_eq!(column("5/6/7/8/4x4/8/7/6/5 b 0 0"), Some(10));
        assert_eq!(column("5/6/7/8/9/8/7/6/4 b 0 0"), Some(17));
        assert_eq!(column("5/6/7/8/9/8/7/6/5/9/9 b 0 0"), Some(19));
        // Where the missing row would start.
        assert_eq!(column("5/6/7/8/9/8/7/6 b 0 0"), Some(16));
        assert_eq!(column("  5/6/7/8/9/8/7/6/5 B 0 0"), Some(21));
        assert_eq!(column("5/6/7/8/9/8/7/6/5 b 0 x"), Some(23));
        assert_eq!(column("5/6/7/8/9/8/7/6/5 b 0 0 extra"), Some(25));
        assert_eq!(column("5/6/7/8/9/8/7/6/5 b"), None);
        assert_eq!(column("5/6/7/8/9/8/bbbbbbb/bbbbbb/bbbbb b 0 0"), None);
    }

    #[test]
    fn a_huge_text_is_quoted_back_as_a_short_excerpt() {
        let side = "x".repeat(100_000);
        let text = format!("5/6/7/8/9/8/7/6/5 {side} 0 0");
        let err = Position::from_fen(&text).unwrap_err();
        let message = err.to_string();
        assert!(message.len() < 100, "{message}");
        assert!(
            message.contains(&format!("\"{}…\"", "x".repeat(crate::EXCERPT_CHARS))),
            "{message}"
        );
        let quoted = quote_position_text(&text, err.column);
        assert_eq!(
            quoted,
            format!(
                "\"5/6/7/8/9/8/7/6/5 {}…\" (100022 characters, at character 19)",
                "x".repeat(22)
            )
        );
        // Hundreds of marbles in a row: an error, not an overflow.
        let long_row = format!("5/6/7/8/{}/8/7/6/5 b 0 0", "w".repeat(300));
        let err = Position::from_fen(&long_row).unwrap_err();
        assert_eq!(err.to_string(), "row E has 300 cells, expected 9");
        let board = format!("{}/6/7/8/9/8/7/6/5 b 0 0", "5".repeat(1000));
        let err = Position::from_fen(&board).unwrap_err();
        assert_eq!(err.to_string(), "row I has 5000 cells, expected 5");
    }
}
