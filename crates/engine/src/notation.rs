//! Move notation, printed and parsed.
//!
//! **Aba-Pro** (what [`Move`] displays): an inline move is the trailing
//! marble's cell followed by the cell it moves to (`A1B2`); the group's size
//! is not written, so reading it in a position takes the run of the mover's
//! own marbles that starts at the trailing cell and goes in the direction of
//! motion, capped at 3 (with own marbles on A1, B2, C3, `A1B2` moves all
//! three; with a fourth on D4 it is blocked by it). A broadside move is the
//! group's two end cells followed by the destination of the first one
//! (`C3C5D4`: C3-C4-C5 step NE); this crate prints the end with the lower
//! cell index first.
//!
//! **Comma form** (accepted on input, printed by [`Move::to_comma_notation`]):
//! `GROUP,DESTINATION`. `GROUP` is one cell or two end cells joined by `-`
//! (`g5-h6`, `c3-c5`), naming exactly the marbles that move. `DESTINATION` is
//! either
//! * one cell: where the **first named** end of the group goes (`b2,c2`;
//!   `g5-h6,f4` moves g5-h6 inline SW, g5 entering f4; `c3-c5,d4` steps
//!   C3-C5 NE). If that cell is not next to the first end but is next to the
//!   second one, it is where the second end goes (`g5-h6,i7` moves NE); or
//! * two cells: the group's end cells after the move, in either order
//!   (`g5-h6,g4-h5` steps W; `g5-h6,h6-i7` moves inline NE).
//!
//! A destination along the group's line makes an inline move, any other a
//! broadside. Both forms are case-insensitive and ignore spaces between cells.
//!
//! A move text that is not read, or not legal, gives [`MoveTextError`] (the
//! text and a [`MoveProblem`]), the one error of both games' move parsers.

use crate::action::Move;
use crate::board::{Cell, CellParseError, Direction};
use crate::excerpt::excerpt;
use crate::position::{IllegalMove, Position};
use std::fmt;

impl fmt::Display for Move {
    /// Aba-Pro notation; see [`crate::notation`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cells: Vec<Cell> = self.cells().collect();
        let first = cells[0];
        let dest = first
            .neighbour(self.direction())
            .expect("every action's destinations are on the board");
        if self.is_broadside() {
            write!(f, "{first}{}{dest}", cells[cells.len() - 1])
        } else {
            write!(f, "{first}{dest}")
        }
    }
}

impl Move {
    /// The comma form: `b2,c2`; inline groups as `g5-h6,f4` (the end cells
    /// with the leading marble first, then where it goes); broadsides as
    /// `g5-h6,g4-h5` (end cells from the lower index, then their destinations).
    pub fn to_comma_notation(self) -> String {
        let cells: Vec<Cell> = self.cells().collect();
        let dir = self.direction();
        let lower = |cell: Cell| cell.to_string().to_ascii_lowercase();
        let dest = |cell: Cell| {
            lower(
                cell.neighbour(dir)
                    .expect("every action's destinations are on the board"),
            )
        };
        let (first, last) = (cells[0], cells[cells.len() - 1]);
        if cells.len() == 1 {
            format!("{},{}", lower(first), dest(first))
        } else if self.is_broadside() {
            format!(
                "{}-{},{}-{}",
                lower(first),
                lower(last),
                dest(first),
                dest(last)
            )
        } else {
            format!("{}-{},{}", lower(last), lower(first), dest(last))
        }
    }
}

/// A move given as text that could not be read, or is not legal in the
/// position, in either game's grammar: the text (cut to an [`excerpt`], so
/// that a huge input does not make a huge message) and what is wrong with
/// it (`problem`). Both parsers give it, [`Position::parse_move`] and
/// [`crate::general::GeneralPosition::parse_move`], as both position texts
/// give one [`crate::PositionTextError`]. The message quotes the text where
/// the problem's wording puts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveTextError {
    pub text: String,
    pub problem: MoveProblem,
}

/// What is wrong with a move text: the two-player grammar's problems first,
/// then the general game's (`General…`), whose parser says why in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveProblem {
    /// Neither Aba-Pro nor the comma form.
    Syntax,
    /// A cell name that is no cell.
    BadCell(CellParseError),
    /// The group's two ends are not on one line.
    NotInLine { from: Cell, to: Cell },
    /// The group's two ends span more than three marbles.
    TooManyMarbles { from: Cell, to: Cell },
    /// The destination is not next to the group.
    NotAdjacent { dest: Cell },
    /// Two destination cells that are not the group moved one step.
    DestinationMismatch,
    /// A move read, but not legal here.
    Illegal(IllegalMove),
    /// The general game's text is not a move; `why` in words.
    GeneralSyntax { why: String },
    /// The general game's move is not legal here; `reason` in words.
    GeneralIllegal { reason: String },
}

impl MoveTextError {
    pub(crate) fn new(text: &str, problem: MoveProblem) -> Self {
        MoveTextError {
            text: excerpt(text),
            problem,
        }
    }
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        match &self.problem {
            MoveProblem::Syntax => write!(
                f,
                "cannot read {text:?} as a move: expected Aba-Pro (A1B2, C3C5D4) or the comma form (b2,c2 / g5-h6,f4 / g5-h6,g4-h5)"
            ),
            MoveProblem::BadCell(problem) => write!(f, "in move {text:?}: {problem}"),
            MoveProblem::NotInLine { from, to } => {
                write!(f, "move {text:?}: {from} and {to} are not on one line")
            }
            MoveProblem::TooManyMarbles { from, to } => {
                write!(
                    f,
                    "move {text:?}: {from} to {to} spans more than three marbles"
                )
            }
            MoveProblem::NotAdjacent { dest } => {
                write!(f, "move {text:?}: {dest} is not next to the group")
            }
            MoveProblem::DestinationMismatch => write!(
                f,
                "move {text:?}: the destination is not the group moved one step"
            ),
            MoveProblem::Illegal(reason) => write!(f, "move {text:?} is illegal: {reason}"),
            MoveProblem::GeneralSyntax { why } => write!(f, "{text:?} is not a move: {why}"),
            MoveProblem::GeneralIllegal { reason } => {
                write!(f, "{text} is not legal here: {reason}")
            }
        }
    }
}

impl std::error::Error for MoveTextError {}

/// A group named by its two end cells: the first end, the direction towards
/// the other end (`None` for a single marble), and its length.
struct Group {
    first: Cell,
    last: Cell,
    axis: Option<Direction>,
    len: usize,
}

impl Group {
    fn contains(&self, cell: Cell) -> bool {
        let mut current = self.first;
        for _ in 0..self.len {
            if current == cell {
                return true;
            }
            match self.axis.and_then(|axis| current.neighbour(axis)) {
                Some(next) => current = next,
                None => break,
            }
        }
        false
    }
}

fn parse_cell(text: &str, token: &str) -> Result<Cell, MoveTextError> {
    token
        .parse()
        .map_err(|source| MoveTextError::new(text, MoveProblem::BadCell(source)))
}

/// Splits concatenated two-character cell names (`A1B2` → A1, B2).
fn split_cells(text: &str, joined: &str) -> Result<Vec<Cell>, MoveTextError> {
    if !joined.is_ascii() || !joined.len().is_multiple_of(2) {
        return Err(MoveTextError::new(text, MoveProblem::Syntax));
    }
    (0..joined.len())
        .step_by(2)
        .map(|i| parse_cell(text, &joined[i..i + 2]))
        .collect()
}

fn group(text: &str, first: Cell, last: Cell) -> Result<Group, MoveTextError> {
    if first == last {
        return Ok(Group {
            first,
            last,
            axis: None,
            len: 1,
        });
    }
    for axis in Direction::ALL {
        let mut current = first;
        let mut len = 1;
        while let Some(next) = current.neighbour(axis) {
            len += 1;
            if next == last {
                if len > 3 {
                    return Err(MoveTextError::new(
                        text,
                        MoveProblem::TooManyMarbles {
                            from: first,
                            to: last,
                        },
                    ));
                }
                return Ok(Group {
                    first,
                    last,
                    axis: Some(axis),
                    len,
                });
            }
            current = next;
        }
    }
    Err(MoveTextError::new(
        text,
        MoveProblem::NotInLine {
            from: first,
            to: last,
        },
    ))
}

impl Position {
    /// Reads a move in Aba-Pro or comma form (see [`crate::notation`]) and
    /// checks that it is legal here; the error says what is wrong.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveTextError> {
        let trimmed = text.trim();
        let syntax = || MoveTextError::new(text, MoveProblem::Syntax);
        let (group, direction) = if let Some((group_text, dest_text)) = trimmed.split_once(',') {
            let ends: Vec<&str> = group_text.trim().split('-').map(str::trim).collect();
            let dests: Vec<&str> = dest_text.trim().split('-').map(str::trim).collect();
            if ends.len() > 2 || dests.len() > 2 {
                return Err(syntax());
            }
            let first = parse_cell(text, ends[0])?;
            let last = parse_cell(text, ends[ends.len() - 1])?;
            let group = group(text, first, last)?;
            let dests = dests
                .iter()
                .map(|token| parse_cell(text, token))
                .collect::<Result<Vec<Cell>, _>>()?;
            let direction = if dests.len() == 1 {
                single_destination(text, &group, dests[0])?
            } else {
                Direction::ALL
                    .into_iter()
                    .find(|&dir| {
                        let moved = [group.first.neighbour(dir), group.last.neighbour(dir)];
                        moved == [Some(dests[0]), Some(dests[1])]
                            || moved == [Some(dests[1]), Some(dests[0])]
                    })
                    .ok_or_else(|| MoveTextError::new(text, MoveProblem::DestinationMismatch))?
            };
            (group, direction)
        } else {
            let compact: String = trimmed.split_whitespace().collect();
            let cells = split_cells(text, &compact)?;
            match cells[..] {
                [trailing, dest] => {
                    let direction = trailing.direction_to(dest).ok_or_else(|| {
                        MoveTextError::new(text, MoveProblem::NotAdjacent { dest })
                    })?;
                    (self.aba_pro_inline_group(trailing, direction), direction)
                }
                [first, last, dest] => {
                    let group = group(text, first, last)?;
                    let direction = single_destination(text, &group, dest)?;
                    (group, direction)
                }
                _ => return Err(syntax()),
            }
        };
        let axis = group.axis.unwrap_or(direction);
        let mv = Move::from_group(group.first, axis, group.len, direction);
        let illegal = |reason| MoveTextError::new(text, MoveProblem::Illegal(reason));
        // Every move whose marbles and destinations are on the board is in
        // the action space, so a missing one means a marble would fall off.
        let Some(mv) = mv else {
            return Err(illegal(self.off_board_reason(&group, direction)));
        };
        self.check_move(mv).map_err(illegal)?;
        Ok(mv)
    }

    /// The Aba-Pro inline group: the run of own marbles from `trailing`
    /// towards `direction`, at most 3. (A missing or opposing marble on the
    /// trailing cell is left for the legality check to report.)
    fn aba_pro_inline_group(&self, trailing: Cell, direction: Direction) -> Group {
        let mover = self.side_to_move();
        let mut last = trailing;
        let mut len = 1;
        if self.at(trailing) == Some(mover) {
            while len < 3 {
                match last.neighbour(direction) {
                    Some(next) if self.at(next) == Some(mover) => {
                        last = next;
                        len += 1;
                    }
                    _ => break,
                }
            }
        }
        Group {
            first: trailing,
            last,
            axis: (len > 1).then_some(direction),
            len,
        }
    }

    /// Why moving `group` towards `direction` is illegal when the move is not
    /// in the action space: the game is over, a marble is missing or not the
    /// mover's, or else a marble would leave the board.
    fn off_board_reason(&self, group: &Group, direction: Direction) -> IllegalMove {
        let mover = self.side_to_move();
        let mut cells = vec![group.first];
        while cells.len() < group.len {
            let next = group
                .axis
                .and_then(|axis| cells[cells.len() - 1].neighbour(axis))
                .expect("groups lie on the board");
            cells.push(next);
        }
        if self.ending().is_some() {
            return IllegalMove::GameOver;
        }
        for &cell in &cells {
            match self.at(cell) {
                None => return IllegalMove::NoMarble(cell),
                Some(owner) if owner != mover => {
                    return IllegalMove::NotYours { cell, owner, mover };
                }
                Some(_) => {}
            }
        }
        // Inline, only the leading marble can have no cell ahead; broadside,
        // name the first marble that would fall.
        let leaving = cells
            .into_iter()
            .find(|cell| cell.neighbour(direction).is_none())
            .expect("a move outside the action space has a marble leaving the board");
        IllegalMove::OwnMarbleOffBoard(leaving)
    }
}

/// The direction given by one destination cell: where the first named end
/// goes, or else where the second named end goes.
fn single_destination(text: &str, group: &Group, dest: Cell) -> Result<Direction, MoveTextError> {
    [group.first, group.last]
        .into_iter()
        .filter(|_| !group.contains(dest))
        .find_map(|end| end.direction_to(dest))
        .ok_or_else(|| MoveTextError::new(text, MoveProblem::NotAdjacent { dest }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Layout, Rules};

    fn standard() -> Position {
        Position::start(Layout::Standard, Rules::default())
    }

    fn parsed(position: &Position, text: &str) -> Move {
        position
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn error(position: &Position, text: &str) -> String {
        position.parse_move(text).unwrap_err().to_string()
    }

    #[test]
    fn aba_pro_inline_takes_the_run_of_own_marbles() {
        let position = standard();
        // A1 B2 C3 are black: A1B2 moves all three NE into D4.
        let mv = parsed(&position, "A1B2");
        assert_eq!(mv.group_len(), 3);
        assert_eq!(mv.direction(), Direction::NE);
        assert_eq!(mv.to_string(), "A1B2");
        // C3 alone moves NE; B3 and C4 (D5 empty) move NE as a pair.
        assert_eq!(parsed(&position, "C3D4").group_len(), 1);
        assert_eq!(parsed(&position, "b3c4").group_len(), 2);
        assert_eq!(parsed(&position, " B3C4 "), parsed(&position, "b3c4"));
        assert_eq!(parsed(&position, "B3 C4"), parsed(&position, "b3c4"));
        assert_eq!(parsed(&position, "c3 c5 d4"), parsed(&position, "C3C5D4"));
        assert_eq!(
            parsed(&position, "c3 - c5 , d4"),
            parsed(&position, "C3C5D4")
        );
    }

    #[test]
    fn broadside_and_comma_forms() {
        let position = standard();
        let mv = parsed(&position, "C3C5D4");
        assert!(mv.is_broadside());
        assert_eq!(mv.direction(), Direction::NE);
        assert_eq!(mv.to_string(), "C3C5D4");
        assert_eq!(mv.to_comma_notation(), "c3-c5,d4-d6");
        // Either end first, one or two destination cells.
        for text in [
            "c3-c5,d4",
            "C5-C3,D6",
            "c3-c5,d4-d6",
            "c3-c5,d6-d4",
            "C5C3D6",
        ] {
            assert_eq!(parsed(&position, text), mv, "{text}");
        }
        // Single marble.
        let single = parsed(&position, "c3,d4");
        assert_eq!(single, parsed(&position, "C3D4"));
        assert_eq!(single.to_comma_notation(), "c3,d4");
        // Inline pair: destination of the first named end, or beyond the second.
        let pair = parsed(&position, "b3-c4,d5");
        assert_eq!(pair, parsed(&position, "B3C4"));
        assert_eq!(parsed(&position, "c4-b3,d5"), pair);
        assert_eq!(parsed(&position, "b3-c4,c4-d5"), pair);
        assert_eq!(pair.to_comma_notation(), "c4-b3,d5");
        // g5-h6,f4 is the pair moving SW with g5 entering f4; g5-h6,g4-h5 steps W.
        let white = Position::from_fen("5/2w3/2w4/8/9/8/7/6/5 w 0 0").unwrap();
        let inline = parsed(&white, "g5-h6,f4");
        assert_eq!(
            (inline.direction(), inline.is_broadside()),
            (Direction::SW, false)
        );
        assert_eq!(inline.to_string(), "H6G5");
        let across = parsed(&white, "g5-h6,g4-h5");
        assert_eq!(
            (across.direction(), across.is_broadside()),
            (Direction::W, true)
        );
        assert_eq!(across.to_string(), "G5H6G4");
    }

    #[test]
    fn errors_say_why() {
        let position = standard();
        assert!(error(&position, "").contains("cannot read"));
        assert!(error(&position, "A1B").contains("cannot read"));
        assert!(error(&position, "A1B2C3D4").contains("cannot read"));
        assert!(error(&position, "a1-b2-c3,d4").contains("cannot read"));
        assert!(error(&position, "A1Z2").contains("\"Z2\" is not a cell"));
        assert!(error(&position, "A1A6").contains("\"A6\" is not a cell"));
        assert!(error(&position, "E5E6").contains("no marble on E5"));
        assert!(
            error(&position, "I5H5").contains("the marble on I5 is white but black is to move")
        );
        assert!(error(&position, "A1C3").contains("C3 is not next to the group"));
        assert!(error(&position, "a1-a5,b1").contains("more than three marbles"));
        assert!(error(&position, "a1-b3,c3").contains("not on one line"));
        assert!(error(&position, "b1-b3,e5").contains("E5 is not next to the group"));
        assert!(error(&position, "b1-b3,c1-c2").contains("not the group moved one step"));
        // A1A2 names the run A1-A3, which A4 blocks.
        assert!(error(&position, "A1A2").contains("blocked by own marble on A4"));
        assert!(error(&position, "a1,a2").contains("blocked by own marble on A2"));
        assert!(error(&position, "B1B3C1").contains("broadside destination C3 is occupied"));
        assert!(error(&position, "A1A3B1").contains("broadside destination B1 is occupied"));
        assert!(error(&position, "A1A2A0").contains("\"A0\" is not a cell"));
        assert!(error(&position, "A1").contains("cannot read"));
        assert!(error(&position, "é1A2").contains("cannot read"));
        let over = Position::from_fen("5/6/7/8/9/8/7/bbbbbb/bbbbb w 0 6").unwrap();
        assert!(error(&over, "A1B2").contains("the game is over"));
        assert!(error(&over, "A5A6").contains("not a cell"));
    }

    #[test]
    fn a_huge_move_text_is_quoted_back_as_a_short_excerpt() {
        let position = standard();
        let forty = "x".repeat(crate::EXCERPT_CHARS);
        let huge = "x".repeat(1 << 20);
        // The move, and the cell within it, quoted as excerpts.
        for text in [format!("{huge},b2"), format!("{huge}a1"), huge.clone()] {
            let message = error(&position, &text);
            assert!(message.len() < 300, "{}", &message[..300]);
            assert!(message.contains(&format!("{forty}…")), "{message}");
        }
    }
}
