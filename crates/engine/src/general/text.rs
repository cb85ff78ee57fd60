//! The position text of the general game: the two-player text extended to
//! hold every variant. The grammar, in one place:
//!
//! ```text
//! <row I>/<row H>/…/<row A> <to move> <scores> [<ply> <plies since push-off>]
//! ```
//!
//! * Each row lists its cells from the lowest diagonal up, one character a
//!   cell: a seat's marble `b` `w` `r` `g` `u` `y` (black, white, red, green,
//!   blue, yellow: seats 0–5 in turn order), `c` a common marble of the
//!   one-colour game, `n` a neutral marble, `x` an obstacle, `o` a hole, or a
//!   digit 1–9 for that many empty cells.
//! * `<to move>`: the letter of the seat to move.
//! * `<scores>`, with **two players**: two numbers as in the two-player
//!   text, the marbles Black has lost and those White has lost, that is
//!   White's score then Black's (a neutral marble credited to a side counts
//!   as a marble the other side lost). With **3–6 players**: one field, each
//!   seat's score (marbles it pushed off, plus neutral marbles credited to
//!   it) in seat order, separated by commas; the number of seats is the
//!   number of scores.
//! * The ply counters are optional, as in the two-player text, and printed
//!   only when one is not 0.
//! * `won:X` (last, optional): the side of seat `X` won by pushing off a
//!   neutral marble under `neutral_push_off = "pusher-wins"`, the one result
//!   the rest of the text cannot show.
//!
//! The two-player text of [`crate::fen`] is this text without `c`, `n`, `x`
//! and `o`, and it reads and prints back exactly. Examples:
//!
//! ```text
//! wwwww/wwwwww/2www2/8/4n4/8/2bbb2/bbbbbb/bbbbb b 0 0          Standard with a neutral marble on E5
//! 1rrrr/rrr3/rr5/8/9/8/5gg/3ggg/gggg b 0,0,0,0                 (four-player start: see the layouts)
//! 5/6/7/8/4o4/8/7/6/5 w 2 1 40 3                                a hole on E5, White to move, ply 40
//! ```
//!
//! Obstacles and holes are part of the rules: a text read under a rules
//! value must have exactly its obstacles and holes; read without one, it
//! gives them (see [`GeneralPosition::from_text`]).
//!
//! A text that cannot be read gives a [`PositionTextError`], the one error
//! of both position texts ([`crate::position_text`]), as the two-player
//! text does.

use super::position::{CellContent, GeneralPosition};
use super::rules::{GeneralRules, MAX_SEATS, SEAT_LETTERS, Seating};
use crate::board::{Cell, row_max_diag, row_min_diag};
use crate::ending::{EndReason, Ending, Outcome};
use crate::excerpt::excerpt;
use crate::position_text::{MAX_PLY_COUNTER, PositionTextError, TextProblem, fields_with_columns};
use std::fmt;

/// What this grammar reads, as an error about the number of fields says it.
const FIELDS: &str = "the board, the seat to move and the scores (two numbers for two players, a comma list for more), then optionally the two ply counters";

/// The characters of a row, as an error about an unknown one says them.
const ROW_CHARACTERS: &str = "a seat letter b w r g u y, c, n, x, o or a digit 1-9";

const ROW_LETTERS: &[u8; 9] = b"ABCDEFGHI";

/// The parts of a position text before rules are applied.
struct Parsed {
    marbles: [u128; MAX_SEATS],
    neutral: u128,
    obstacles: u128,
    holes: u128,
    common: bool,
    seats: usize,
    to_move: usize,
    scores: [u8; MAX_SEATS],
    counters: Option<(u32, u32)>,
    /// `won:X`: the seat whose side won by a neutral marble.
    neutral_win: Option<usize>,
}

fn role(bits: u128, cell: Cell, obstacles: u128) -> &'static str {
    if obstacles & bits & cell.bit() != 0 {
        "an obstacle"
    } else if bits & cell.bit() != 0 {
        "a hole"
    } else {
        "an open cell"
    }
}

impl GeneralPosition {
    /// Reads a position text (see [`crate::general::text`]). Under `rules`,
    /// the text must match them (players, obstacles, holes, one colour);
    /// without, the rules are the plain ones for the text's players with the
    /// text's obstacles and holes (and the one-colour game if it has common
    /// marbles).
    pub fn from_text(
        text: &str,
        rules: Option<&GeneralRules>,
    ) -> Result<GeneralPosition, PositionTextError> {
        let parsed = parse(text)?;
        let rules = match rules {
            Some(rules) => {
                if rules.seating.seats() != parsed.seats {
                    return Err(TextProblem::SeatCount {
                        found: parsed.seats,
                        expected: rules.seating.seats(),
                    }
                    .into());
                }
                let colours = |common: bool| if common { "one-colour" } else { "coloured" };
                if parsed.common != rules.one_colour && parsed.marbles[0] != 0 {
                    return Err(TextProblem::OneColour {
                        found: colours(parsed.common),
                        expected: colours(rules.one_colour),
                    }
                    .into());
                }
                let both = rules.obstacles | rules.holes;
                let text_both = parsed.obstacles | parsed.holes;
                for cell in Cell::all() {
                    let (in_rules, in_text) = (
                        role(both, cell, rules.obstacles),
                        role(text_both, cell, parsed.obstacles),
                    );
                    if in_rules != in_text {
                        return Err(TextProblem::CellRole {
                            cell,
                            found: in_text,
                            expected: in_rules,
                        }
                        .into());
                    }
                }
                *rules
            }
            None => {
                let seating = Seating::new(parsed.seats, false)
                    .expect("the parser accepts 2 to 6 seats only");
                let mut rules = GeneralRules::plain(seating);
                rules.obstacles = parsed.obstacles;
                rules.holes = parsed.holes;
                rules.one_colour = parsed.common;
                rules
            }
        };
        let position = GeneralPosition::new(
            rules,
            parsed.marbles,
            parsed.neutral,
            parsed.to_move,
            parsed.scores,
        )?;
        let position = match parsed.counters {
            Some((ply, since)) => position.with_ply_counters(ply, since),
            None => position,
        };
        Ok(match parsed.neutral_win {
            Some(seat) => position.with_neutral_win(seat),
            None => position,
        })
    }
}

/// Too few or too many fields (at no one character).
fn field_count(found: usize) -> PositionTextError {
    TextProblem::FieldCount {
        found,
        expected: FIELDS,
    }
    .into()
}

/// A score `field` whose text `value` (at character `at`) is not a score.
fn bad_score(field: String, value: &str, at: usize) -> PositionTextError {
    PositionTextError::at(
        TextProblem::BadNumber {
            field,
            found: excerpt(value),
            max: u32::from(u8::MAX),
        },
        at,
    )
}

fn parse(text: &str) -> Result<Parsed, PositionTextError> {
    let fields = fields_with_columns(text);
    if fields.len() < 3 {
        return Err(field_count(fields.len()));
    }
    let (board_at, board) = fields[0];
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 9 {
        return Err(PositionTextError::at(
            TextProblem::RowCount { found: rows.len() },
            board_at,
        ));
    }
    let mut parsed = Parsed {
        marbles: [0; MAX_SEATS],
        neutral: 0,
        obstacles: 0,
        holes: 0,
        common: false,
        seats: 2,
        to_move: 0,
        scores: [0; MAX_SEATS],
        counters: None,
        neutral_win: None,
    };
    let mut highest_seat: Option<(char, usize, Cell)> = None;
    let mut coloured: Option<(char, Cell)> = None;
    let mut at = board_at;
    for (index, row_text) in rows.iter().enumerate() {
        let row = 8 - index as i32;
        let row_letter = char::from(ROW_LETTERS[row as usize]);
        let expected = (row_max_diag(row) - row_min_diag(row) + 1) as usize;
        let row_at = at;
        let mut diag = row_min_diag(row);
        let mut count = 0usize;
        for (column, ch) in row_text.chars().enumerate() {
            let cell = (count < expected)
                .then(|| Cell::from_row_diag(row as u8, diag as u8))
                .flatten();
            match ch {
                '1'..='9' => {
                    let run = ch as usize - '0' as usize;
                    count += run;
                    diag += run as i32;
                }
                _ => {
                    if !"bwrguycnxo".contains(ch) {
                        return Err(PositionTextError::at(
                            TextProblem::UnknownCharacter {
                                row: row_letter,
                                column: column + 1,
                                found: ch,
                                expected: ROW_CHARACTERS,
                            },
                            at,
                        ));
                    }
                    // Past the end of the row: counted, reported below.
                    if let Some(cell) = cell {
                        let b = cell.bit();
                        match ch {
                            'n' => parsed.neutral |= b,
                            'x' => parsed.obstacles |= b,
                            'o' => parsed.holes |= b,
                            'c' => {
                                if let Some((letter, _)) = coloured {
                                    return Err(TextProblem::MixedColours { letter, cell }.into());
                                }
                                parsed.common = true;
                                parsed.marbles[0] |= b;
                            }
                            letter => {
                                let seat = SEAT_LETTERS
                                    .iter()
                                    .position(|&l| l == letter)
                                    .expect("checked above");
                                if parsed.common {
                                    return Err(TextProblem::MixedColours { letter, cell }.into());
                                }
                                coloured.get_or_insert((letter, cell));
                                parsed.marbles[seat] |= b;
                                if highest_seat.is_none_or(|(_, high, _)| high < seat) {
                                    highest_seat = Some((letter, seat, cell));
                                }
                            }
                        }
                    }
                    count += 1;
                    diag += 1;
                }
            }
            at += 1;
        }
        if count != expected {
            return Err(PositionTextError::at(
                TextProblem::RowLength {
                    row: row_letter,
                    found: count,
                    expected,
                },
                row_at,
            ));
        }
        at += 1; // the '/'
    }
    // Scores: two numbers (two players) or one comma list (3-6 players).
    let (side_at, side) = fields[1];
    let mut rest = &fields[2..];
    let mut won: Option<(usize, &str)> = None;
    if let Some((&(at, last), before)) = rest.split_last()
        && let Some(letter) = last.strip_prefix("won:")
    {
        won = Some((at, letter));
        rest = before;
    }
    if rest.is_empty() {
        return Err(field_count(fields.len()));
    }
    let (scores_len, counters) = if rest[0].1.contains(',') {
        let (scores_at, list) = rest[0];
        let values: Vec<&str> = list.split(',').collect();
        if !(3..=MAX_SEATS).contains(&values.len()) {
            return Err(PositionTextError::at(
                TextProblem::ScoreCount {
                    found: values.len(),
                },
                scores_at,
            ));
        }
        for (seat, value) in values.iter().enumerate() {
            parsed.scores[seat] = value.parse().map_err(|_| {
                bad_score(
                    format!("score of seat {}", SEAT_LETTERS[seat]),
                    value,
                    scores_at,
                )
            })?;
        }
        (values.len(), &rest[1..])
    } else {
        if rest.len() < 2 {
            return Err(field_count(fields.len()));
        }
        for (i, &(score_at, value)) in rest[..2].iter().enumerate() {
            let lost: u8 = value.parse().map_err(|_| {
                bad_score(
                    format!("{} marbles off", ["black", "white"][i]),
                    value,
                    score_at,
                )
            })?;
            // Black's losses are White's score and the other way round.
            parsed.scores[1 - i] = lost;
        }
        (2, &rest[2..])
    };
    parsed.seats = scores_len;
    match counters {
        [] => {}
        [(ply_at, ply), (since_at, since)] => {
            let number = |counter: &'static str, at: usize, text: &str| {
                text.parse::<u32>()
                    .ok()
                    .filter(|&n| n <= MAX_PLY_COUNTER)
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
            let ply = number("plies played", *ply_at, ply)?;
            let since = number("plies since a push-off", *since_at, since)?;
            // As in the two-player text.
            if since > ply {
                return Err(PositionTextError::at(
                    TextProblem::PliesSincePushOffExceedPly { since, ply },
                    *since_at,
                ));
            }
            parsed.counters = Some((ply, since));
        }
        _ => {
            return Err(field_count(fields.len()));
        }
    }
    if let Some((letter, seat, cell)) = highest_seat
        && seat >= parsed.seats
    {
        return Err(TextProblem::SeatOutOfRange {
            letter,
            cell,
            seats: parsed.seats,
        }
        .into());
    }
    if let Some((at, letter)) = won {
        let seat = SEAT_LETTERS[..parsed.seats]
            .iter()
            .position(|l| l.to_string() == letter)
            .ok_or_else(|| {
                PositionTextError::at(
                    TextProblem::BadSeat {
                        field: "won:",
                        found: excerpt(letter),
                        seats: parsed.seats,
                    },
                    at,
                )
            })?;
        parsed.neutral_win = Some(seat);
    }
    let mut letters = side.chars();
    parsed.to_move = match (letters.next(), letters.next()) {
        (Some(letter), None) => SEAT_LETTERS[..parsed.seats]
            .iter()
            .position(|&l| l == letter),
        _ => None,
    }
    .ok_or_else(|| {
        PositionTextError::at(
            TextProblem::BadSeat {
                field: "seat to move",
                found: excerpt(side),
                seats: parsed.seats,
            },
            side_at,
        )
    })?;
    Ok(parsed)
}

impl fmt::Display for GeneralPosition {
    /// The position text (see [`crate::general::text`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..9).rev() {
            let mut empty = 0;
            for diag in row_min_diag(row)..=row_max_diag(row) {
                let cell = Cell::from_row_diag(row as u8, diag as u8).expect("row and diagonal");
                let letter = match self.at(cell) {
                    CellContent::Empty => {
                        empty += 1;
                        continue;
                    }
                    CellContent::Marble(_) if self.rules().one_colour => 'c',
                    CellContent::Marble(seat) => SEAT_LETTERS[seat],
                    CellContent::Neutral => 'n',
                    CellContent::Obstacle => 'x',
                    CellContent::Hole => 'o',
                };
                if empty > 0 {
                    write!(f, "{empty}")?;
                    empty = 0;
                }
                write!(f, "{letter}")?;
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if row > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {}", SEAT_LETTERS[self.seat_to_move()])?;
        let seats = self.rules().seating.seats();
        if seats == 2 {
            write!(f, " {} {}", self.seat_score(1), self.seat_score(0))?;
        } else {
            let scores: Vec<String> = (0..seats).map(|s| self.seat_score(s).to_string()).collect();
            write!(f, " {}", scores.join(","))?;
        }
        if self.ply() != 0 || self.plies_since_push_off() != 0 {
            write!(f, " {} {}", self.ply(), self.plies_since_push_off())?;
        }
        if let Some(Ending {
            outcome: Outcome::Win(side),
            reason: EndReason::NeutralPushedOff,
        }) = self.ending()
        {
            let seat = self.rules().seating.seats_of(side).next().unwrap_or(0);
            write!(f, " won:{}", SEAT_LETTERS[seat])?;
        }
        Ok(())
    }
}
