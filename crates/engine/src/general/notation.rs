//! Moves of the general game as text, both ways, and why a move is illegal.
//!
//! Group moves are written as in the two-player game ([`crate::notation`]).
//! The extra moves:
//!
//! | move | Aba-Pro form | comma form |
//! |---|---|---|
//! | shield: triangle A1 A2 B2 steps NW | `A1A2B2B1`: the three cells (lowest index first), then where the first goes | `a1-a2-b2,b1-b2-c2`: the three cells, then where each goes, in the same order |
//! | rotation: C3 D4 E5 turns anticlockwise about D4 | `C3D4E5+`: an end (the lower index), the middle, the other end, then `+` anticlockwise or `-` clockwise | `c3-d4-e5,c4-d4-d5`: end, middle, end, then where each is after the turn |
//!
//! Both forms print and read back exactly ([`GeneralMove::to_text`],
//! [`GeneralMove::to_comma`], [`GeneralPosition::parse_move`]). In Aba-Pro
//! form an inline group's size is the run of the mover's marbles (in team
//! play also the partner's; in the one-colour game the common ones) from the
//! trailing cell, capped at 3. In the one-colour game a move that gives the
//! same position as a legal move is read as that move.

use super::moves::{GeneralMove, MoveKind, rotation_moves, shield_moves};
use super::position::{CellContent, GeneralPosition};
use super::rules::SEAT_NAMES;
use crate::action::Move;
use crate::board::{Cell, Direction};
use crate::ending::Ending;
use crate::notation::{MoveProblem, MoveTextError};

impl GeneralMove {
    /// Aba-Pro form (see [`crate::general::notation`]).
    pub fn to_text(self) -> String {
        match self.kind() {
            MoveKind::Group(mv) => mv.to_string(),
            MoveKind::Shield(shield) => {
                let [a, b, c] = shield.cells;
                let to = a
                    .neighbour(shield.dir)
                    .expect("shield destinations are on the board");
                format!("{a}{b}{c}{to}")
            }
            MoveKind::Rotation(rotation) => format!(
                "{}{}{}{}",
                rotation.ends[0],
                rotation.middle,
                rotation.ends[1],
                if rotation.anticlockwise { '+' } else { '-' }
            ),
        }
    }

    /// Comma form (see [`crate::general::notation`]).
    pub fn to_comma(self) -> String {
        let lower = |cells: &[Cell]| {
            cells
                .iter()
                .map(|c| c.to_string().to_ascii_lowercase())
                .collect::<Vec<_>>()
                .join("-")
        };
        match self.kind() {
            MoveKind::Group(mv) => mv.to_comma_notation(),
            MoveKind::Shield(shield) => {
                let to: Vec<Cell> = shield
                    .cells
                    .iter()
                    .map(|c| c.neighbour(shield.dir).expect("on the board"))
                    .collect();
                format!("{},{}", lower(&shield.cells), lower(&to))
            }
            MoveKind::Rotation(r) => format!(
                "{},{}",
                lower(&[r.ends[0], r.middle, r.ends[1]]),
                lower(&[r.to[0], r.middle, r.to[1]])
            ),
        }
    }
}

/// A move read from text, before it is checked against the position.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Aba-Pro inline: the size comes from the position.
    Inline {
        trailing: Cell,
        dir: Direction,
    },
    Move(GeneralMove),
}

fn cells_in(text: &str) -> Result<Vec<Cell>, String> {
    let bytes: Vec<char> = text.chars().collect();
    if !bytes.len().is_multiple_of(2) {
        return Err("cells are a row letter and a diagonal number each, like E5".into());
    }
    bytes
        .chunks(2)
        .map(|pair| {
            let name: String = pair.iter().collect();
            name.parse::<Cell>().map_err(|err| err.to_string())
        })
        .collect()
}

fn shield_of(cells: [Cell; 3], first_to: Cell) -> Option<GeneralMove> {
    let dir = cells[0].direction_to(first_to)?;
    let mut sorted = cells;
    sorted.sort();
    shield_moves()
        .iter()
        .position(|s| s.cells == sorted && s.dir == dir)
        .map(GeneralMove::shield)
}

fn rotation_of(
    ends: [Cell; 2],
    middle: Cell,
    to: Option<[Cell; 2]>,
    anticlockwise: Option<bool>,
) -> Option<GeneralMove> {
    rotation_moves()
        .iter()
        .position(|r| {
            r.middle == middle
                && ((r.ends == ends && to.is_none_or(|to| r.to == to))
                    || (r.ends == [ends[1], ends[0]] && to.is_none_or(|to| r.to == [to[1], to[0]])))
                && anticlockwise.is_none_or(|a| a == r.anticlockwise)
        })
        .map(GeneralMove::rotation)
}

/// The group of the cells from `a` to `b` on one line (at most 3).
fn line_between(a: Cell, b: Cell) -> Option<(Direction, usize)> {
    Direction::ALL.into_iter().find_map(|dir| {
        let next = a.neighbour(dir)?;
        if next == b {
            return Some((dir, 2));
        }
        (next.neighbour(dir)? == b).then_some((dir, 3))
    })
}

fn parse_shape(text: &str) -> Result<Shape, String> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_uppercase();
    if let Some((left, right)) = compact.split_once(',') {
        let group: Vec<Cell> = left
            .split('-')
            .map(cells_in)
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        let dest: Vec<Cell> = right
            .split('-')
            .map(cells_in)
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        return match (group.len(), dest.len()) {
            (1, 1) => {
                let dir = group[0]
                    .direction_to(dest[0])
                    .ok_or("the destination is not next to the marble")?;
                Ok(Shape::Move(GeneralMove::group(
                    Move::inline(group[0], dir, 1).ok_or("off the board")?,
                )))
            }
            (2, 1) | (2, 2) => {
                let (a, b) = (group[0], group[1]);
                let (axis, len) = if a == b {
                    return Err("the two ends are the same cell".into());
                } else {
                    line_between(a, b)
                        .ok_or("the two ends are not on one line within three cells")?
                };
                let dir = if dest.len() == 1 {
                    a.direction_to(dest[0])
                        .or_else(|| b.direction_to(dest[0]))
                        .ok_or("the destination is next to neither end")?
                } else {
                    Direction::ALL
                        .into_iter()
                        .find(|&d| {
                            let (x, y) = (a.neighbour(d), b.neighbour(d));
                            (x == Some(dest[0]) && y == Some(dest[1]))
                                || (x == Some(dest[1]) && y == Some(dest[0]))
                        })
                        .ok_or("the ends after the move are not one step from the group")?
                };
                // The first named end is used as given when it also leads the
                // move; an inline move along the line takes the trailing end.
                let _ = dest;
                Move::from_group(a, axis, len, dir)
                    .map(|mv| Shape::Move(GeneralMove::group(mv)))
                    .ok_or_else(|| "not a move on the board".into())
            }
            (3, 3) => {
                let [a, b, c] = [group[0], group[1], group[2]];
                let mutually = a.direction_to(b).is_some()
                    && a.direction_to(c).is_some()
                    && b.direction_to(c).is_some();
                if mutually {
                    let moved =
                        shield_of([a, b, c], dest[0]).ok_or("not a shield move on the board")?;
                    // Every marble of the triangle must step the same way.
                    let dir = a.direction_to(dest[0]).expect("checked by shield_of");
                    if b.neighbour(dir) != Some(dest[1]) || c.neighbour(dir) != Some(dest[2]) {
                        return Err("a shield moves all three marbles the same way".into());
                    }
                    return Ok(Shape::Move(moved));
                }
                if dest[1] != b {
                    return Err(
                        "a rotation keeps its middle marble in place (end-middle-end, twice)"
                            .into(),
                    );
                }
                rotation_of([a, c], b, Some([dest[0], dest[2]]), None)
                    .map(Shape::Move)
                    .ok_or_else(|| "not a rotation of a lance or arc by 60 degrees".into())
            }
            _ => Err("expected GROUP,DESTINATION with 1-3 cells on each side".into()),
        };
    }
    if let Some(body) = compact
        .strip_suffix('+')
        .or_else(|| compact.strip_suffix('-'))
    {
        let anticlockwise = compact.ends_with('+');
        let cells = cells_in(body)?;
        let [a, m, b] = cells[..] else {
            return Err("a rotation is an end, the middle and the other end, then + or -".into());
        };
        return rotation_of([a, b], m, None, Some(anticlockwise))
            .map(Shape::Move)
            .ok_or_else(|| "not a lance or arc about its middle cell".into());
    }
    let cells = cells_in(&compact)?;
    match cells[..] {
        [trailing, to] => {
            let dir = trailing.direction_to(to).ok_or("the second cell is not next to the first")?;
            Ok(Shape::Inline { trailing, dir })
        }
        [a, b, to] => {
            let (axis, len) = line_between(a, b).ok_or("the two ends are not on one line within three cells")?;
            let dir = a.direction_to(to).ok_or("the destination is not next to the first end")?;
            if dir.is_parallel(axis) {
                return Err("a three-cell move is a broadside: the destination must be off the group's line".into());
            }
            Move::broadside(a, axis, len, dir)
                .map(|mv| Shape::Move(GeneralMove::group(mv)))
                .ok_or_else(|| "not a move on the board".into())
        }
        [a, b, c, to] => shield_of([a, b, c], to)
            .map(Shape::Move)
            .ok_or_else(|| "not a shield move: three mutually adjacent cells, then where the first goes".into()),
        _ => Err("expected 2 cells (inline), 3 (broadside), 4 (shield), 3 and +/- (rotation), or the comma form".into()),
    }
}

impl GeneralPosition {
    /// Reads a move in either form (see [`crate::general::notation`]) and
    /// checks it is legal here; an illegal move gets the reason.
    pub fn parse_move(&self, text: &str) -> Result<GeneralMove, MoveTextError> {
        let syntax = |why: String| MoveTextError::new(text, MoveProblem::GeneralSyntax { why });
        let shape = parse_shape(text).map_err(syntax)?;
        let mv = match shape {
            Shape::Move(mv) => mv,
            Shape::Inline { trailing, dir } => {
                let team = self.team_of(self.seat_to_move());
                let mut run = 1;
                let mut cell = trailing;
                while run < 3 {
                    match cell.neighbour(dir) {
                        Some(next) if team & next.bit() != 0 => {
                            run += 1;
                            cell = next;
                        }
                        _ => break,
                    }
                }
                // The run of the mover's marbles is the group. In the
                // one-colour game a shorter group may push the rest of the
                // run (all legal sizes give the same position): the longest
                // legal one is read.
                let candidates: Vec<GeneralMove> = (1..=run)
                    .rev()
                    .filter_map(|len| Move::inline(trailing, dir, len).map(GeneralMove::group))
                    .collect();
                let legal = self.legal_moves();
                candidates
                    .iter()
                    .copied()
                    .find(|mv| {
                        legal.contains(mv)
                            || (self.rules().one_colour && self.why_illegal(*mv).is_none())
                    })
                    .or_else(|| candidates.first().copied())
                    .ok_or_else(|| syntax("the group would leave the board".into()))?
            }
        };
        let legal = self.legal_moves();
        if legal.contains(&mv) {
            return Ok(mv);
        }
        if let Some(reason) = self.why_illegal(mv) {
            return Err(MoveTextError::new(
                text.trim(),
                MoveProblem::GeneralIllegal { reason },
            ));
        }
        // One colour: a move whose position a legal move already gives.
        let after = self.apply_unchecked(mv);
        legal
            .into_iter()
            .find(|&other| self.apply_unchecked(other).same_board(&after))
            .ok_or_else(|| {
                MoveTextError::new(
                    text.trim(),
                    MoveProblem::GeneralIllegal {
                        reason: "it is not a legal move here".into(),
                    },
                )
            })
    }

    /// Why `mv` is not legal here, or `None` if nothing is wrong with it
    /// (a legal move, or in the one-colour game one that another stands for).
    pub fn why_illegal(&self, mv: GeneralMove) -> Option<String> {
        if let Some(Ending { outcome, reason }) = self.ending() {
            return Some(format!("the game is over ({outcome:?}: {reason})"));
        }
        let rules = self.rules();
        let seat = self.seat_to_move();
        let mover = SEAT_NAMES[seat];
        let team = self.team_of(seat);
        let own = self.own_of(seat);
        let describe = |cell: Cell| -> String {
            match self.at(cell) {
                CellContent::Empty => format!("{cell} is empty"),
                CellContent::Obstacle => format!("{cell} is an obstacle"),
                CellContent::Hole => format!("{cell} is a hole"),
                CellContent::Neutral => format!("{cell} holds a neutral marble"),
                CellContent::Marble(other) => {
                    if rules.one_colour {
                        format!("{cell} holds a marble")
                    } else if other == seat {
                        format!("{cell} holds a {mover} marble")
                    } else if rules.seating.same_side(seat, other) {
                        format!("{cell} holds the partner's ({}) marble", SEAT_NAMES[other])
                    } else {
                        format!("{cell} holds a {} marble", SEAT_NAMES[other])
                    }
                }
            }
        };
        let enter = |to: Option<Cell>, from: Cell| -> Option<String> {
            let Some(to) = to else {
                return Some(format!(
                    "the marble on {from} would leave the board (a moving marble never does)"
                ));
            };
            match self.at(to) {
                CellContent::Empty => None,
                CellContent::Hole => Some(format!("{to} is a hole: no moving marble may enter it")),
                CellContent::Obstacle => Some(format!("{to} is an obstacle")),
                _ => Some(format!("{}: the cell must be empty", describe(to))),
            }
        };
        match mv.kind() {
            MoveKind::Group(group) => {
                let cells: Vec<Cell> = group.cells().collect();
                let dir = group.direction();
                if group.is_broadside() || cells.len() == 1 {
                    if let Some(&cell) = cells.iter().find(|c| own & c.bit() == 0) {
                        let why = describe(cell);
                        return Some(if group.is_broadside() {
                            format!("{why}; a broadside moves only the mover's own marbles")
                        } else {
                            format!("{why}; {mover} is to move")
                        });
                    }
                } else {
                    if own & cells[0].bit() == 0 {
                        return Some(format!(
                            "{}; the rearmost marble of a group must be the mover's own",
                            describe(cells[0])
                        ));
                    }
                    if let Some(&cell) = cells[1..].iter().find(|c| team & c.bit() == 0) {
                        return Some(format!(
                            "{}; a group holds only the mover's side's marbles",
                            describe(cell)
                        ));
                    }
                }
                if group.is_broadside() {
                    return cells.iter().find_map(|&c| enter(c.neighbour(dir), c));
                }
                let leading = *cells.last().expect("a group has a marble");
                let ahead = leading.neighbour(dir);
                let Some(first) = ahead else {
                    return enter(None, leading);
                };
                match self.at(first) {
                    CellContent::Empty => None,
                    CellContent::Hole | CellContent::Obstacle => enter(ahead, leading),
                    CellContent::Marble(other)
                        if !rules.one_colour && rules.seating.same_side(seat, other) =>
                    {
                        Some(format!(
                            "{}: blocked (a group is at most three marbles)",
                            describe(first)
                        ))
                    }
                    _ => {
                        let pushable = |c: Cell| match self.at(c) {
                            CellContent::Neutral => true,
                            CellContent::Marble(other) => {
                                rules.one_colour || !rules.seating.same_side(seat, other)
                            }
                            _ => false,
                        };
                        let mut line = 1;
                        let mut behind = first.neighbour(dir);
                        while let Some(c) = behind {
                            if !pushable(c) {
                                break;
                            }
                            line += 1;
                            behind = c.neighbour(dir);
                        }
                        if line >= cells.len() {
                            return Some(if line == cells.len() {
                                format!(
                                    "{line} against {line} is a pac: the pushing line must outnumber the pushed one"
                                )
                            } else {
                                format!(
                                    "{} marble(s) cannot push {line}: the pushing line must outnumber the pushed one",
                                    cells.len()
                                )
                            });
                        }
                        match behind.map(|c| self.at(c)) {
                            None | Some(CellContent::Empty) | Some(CellContent::Hole) => None,
                            Some(_) => Some(format!(
                                "the push is blocked: {}",
                                describe(behind.expect("on the board"))
                            )),
                        }
                    }
                }
            }
            MoveKind::Shield(shield) => {
                if !rules.shield_moves {
                    return Some("shield moves are not in these rules".into());
                }
                if let Some(&cell) = shield.cells.iter().find(|c| own & c.bit() == 0) {
                    return Some(format!(
                        "{}; a shield moves three of the mover's own marbles",
                        describe(cell)
                    ));
                }
                shield.cells.iter().find_map(|&c| {
                    let to = c.neighbour(shield.dir);
                    if to.is_some_and(|to| shield.cells.contains(&to)) {
                        None
                    } else {
                        enter(to, c)
                    }
                })
            }
            MoveKind::Rotation(rotation) => {
                if !rules.rotation_moves {
                    return Some("rotation moves are not in these rules".into());
                }
                let group = [rotation.ends[0], rotation.middle, rotation.ends[1]];
                if let Some(&cell) = group.iter().find(|c| own & c.bit() == 0) {
                    return Some(format!(
                        "{}; a rotation turns three of the mover's own marbles",
                        describe(cell)
                    ));
                }
                rotation
                    .ends
                    .iter()
                    .zip(rotation.to)
                    .find_map(|(&from, to)| enter(Some(to), from))
            }
        }
    }
}
