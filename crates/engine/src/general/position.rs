//! The position of the general game, its legal moves, playing a move, and
//! how the game ends.

use super::moves::{GeneralMove, MoveKind, rotation_moves, shield_moves};
use super::rules::{GeneralRules, MAX_SEATS, NeutralPushOff, Seating};
use crate::action::Move;
use crate::board::{BOARD_MASK, Cell, Direction, ROW_E_MASK, bits};
use crate::ending::{EndReason, Ending, Outcome};
use crate::push_off::{PushOffThreat, threats_of};
use std::collections::HashSet;

/// What stands on a cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CellContent {
    Empty,
    /// A marble of this seat (in the one-colour game: seat 0 holds every
    /// common marble).
    Marble(usize),
    Neutral,
    Obstacle,
    Hole,
}

/// Why a general position cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeneralBoardError {
    #[error("{cell} holds more than one marble")]
    Overlap { cell: Cell },
    #[error("{cell} is {what} but holds a marble")]
    MarbleOnClosedCell { cell: Cell, what: &'static str },
    #[error("seat {seat} plays, but only {seats} seats are in these rules")]
    NoSuchSeat { seat: usize, seats: usize },
    #[error("{seat} has marbles, but the one-colour game keeps every marble common")]
    ColouredInOneColour { seat: &'static str },
}

/// A position of the general game: the marbles of up to six seats, the
/// neutral marbles, the seat to move, each seat's score (marbles it pushed
/// off, and neutral marbles credited to it), the ply counters, the result
/// once the game has ended, and the rules in force. `Copy`.
///
/// In the one-colour game every marble is common and kept as seat 0's.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GeneralPosition {
    marbles: [u128; MAX_SEATS],
    neutral: u128,
    to_move: u8,
    scores: [u8; MAX_SEATS],
    ply: u32,
    plies_since_push_off: u32,
    result: Option<Ending>,
    rules: GeneralRules,
}

/// The sets one seat's move generation works on (bitboards).
struct MoverView {
    /// Marbles the mover may move alone (and that may be the rear of a group).
    own: u128,
    /// Marbles that may make up the rest of an inline group (own and partners').
    team: u128,
    /// Marbles a push may move: every opposing and neutral marble (in the
    /// one-colour game, every marble).
    pushable: u128,
    /// Cells a moving marble may enter: on the board, open, unoccupied.
    empty: u128,
    /// Holes: a pushed marble falls in, a moving one may not enter.
    holes: u128,
}

fn bit(cell: Cell) -> u128 {
    cell.bit()
}

fn cells(board: u128) -> impl Iterator<Item = Cell> {
    bits(board).filter_map(Cell::from_bit)
}

impl GeneralPosition {
    /// A position from its parts, after checking them. The result is worked
    /// out at once (a finished position has no legal moves); when the seat to
    /// move cannot move, play passes on as after a move.
    pub fn new(
        rules: GeneralRules,
        marbles: [u128; MAX_SEATS],
        neutral: u128,
        to_move: usize,
        scores: [u8; MAX_SEATS],
    ) -> Result<GeneralPosition, GeneralBoardError> {
        let seats = rules.seating.seats();
        if to_move >= seats {
            return Err(GeneralBoardError::NoSuchSeat {
                seat: to_move,
                seats,
            });
        }
        let mut seen = 0u128;
        for (seat, &board) in marbles.iter().enumerate() {
            if board != 0 && seat >= seats {
                return Err(GeneralBoardError::NoSuchSeat { seat, seats });
            }
            if rules.one_colour && seat > 0 && board != 0 {
                return Err(GeneralBoardError::ColouredInOneColour {
                    seat: super::rules::SEAT_NAMES[seat],
                });
            }
            if let Some(cell) = cells(seen & board).next() {
                return Err(GeneralBoardError::Overlap { cell });
            }
            seen |= board;
        }
        if let Some(cell) = cells(seen & neutral).next() {
            return Err(GeneralBoardError::Overlap { cell });
        }
        let all = (seen | neutral) & BOARD_MASK;
        for (closed, what) in [(rules.obstacles, "an obstacle"), (rules.holes, "a hole")] {
            if let Some(cell) = cells(all & closed).next() {
                return Err(GeneralBoardError::MarbleOnClosedCell { cell, what });
            }
        }
        let mut position = GeneralPosition {
            marbles: marbles.map(|board| board & BOARD_MASK),
            neutral: neutral & BOARD_MASK,
            to_move: to_move as u8,
            scores,
            ply: 0,
            plies_since_push_off: 0,
            result: None,
            rules,
        };
        position.settle(None, to_move, true);
        Ok(position)
    }

    /// The same position with these ply counters (the game end is worked out
    /// again).
    pub fn with_ply_counters(mut self, ply: u32, plies_since_push_off: u32) -> GeneralPosition {
        self.ply = ply;
        self.plies_since_push_off = plies_since_push_off;
        // A neutral marble pushed off decided the game for good; anything
        // else is worked out again with the new counters.
        if !matches!(
            self.result,
            Some(Ending {
                reason: EndReason::NeutralPushedOff,
                ..
            })
        ) {
            self.result = None;
            self.settle(None, self.seat_to_move(), true);
        }
        self
    }

    /// The same position, won by seat `seat`'s side by a neutral marble
    /// pushed off (`won:X` of the position text).
    pub(crate) fn with_neutral_win(mut self, seat: usize) -> GeneralPosition {
        self.result = Some(Ending {
            outcome: Outcome::Win(self.rules.seating.side_of(seat)),
            reason: EndReason::NeutralPushedOff,
        });
        self
    }

    pub fn rules(&self) -> &GeneralRules {
        &self.rules
    }

    /// The seat to move.
    pub fn seat_to_move(&self) -> usize {
        usize::from(self.to_move)
    }

    /// The side to move.
    pub fn side_to_move(&self) -> usize {
        self.rules.seating.side_of(self.seat_to_move())
    }

    /// Plies played.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Plies since a marble was last pushed off.
    pub fn plies_since_push_off(&self) -> u32 {
        self.plies_since_push_off
    }

    /// Marbles seat `seat` pushed off (and neutral marbles credited to it).
    pub fn seat_score(&self, seat: usize) -> u8 {
        self.scores[seat]
    }

    /// Every seat's score.
    pub fn scores(&self) -> [u8; MAX_SEATS] {
        self.scores
    }

    /// The score of side `side`: its seats' scores together.
    pub fn side_score(&self, side: usize) -> u32 {
        self.rules
            .seating
            .seats_of(side)
            .map(|seat| u32::from(self.scores[seat]))
            .sum()
    }

    /// The marbles of seat `seat` as a bitboard (see [`crate::bitboard`]).
    pub fn bitboard(&self, seat: usize) -> u128 {
        self.marbles[seat]
    }

    /// The neutral marbles as a bitboard.
    pub fn neutral_bitboard(&self) -> u128 {
        self.neutral
    }

    /// The marbles of seat `seat`.
    pub fn marble_count(&self, seat: usize) -> u32 {
        self.marbles[seat].count_ones()
    }

    /// What stands on `cell`.
    pub fn at(&self, cell: Cell) -> CellContent {
        let b = bit(cell);
        if self.rules.obstacles & b != 0 {
            CellContent::Obstacle
        } else if self.rules.holes & b != 0 {
            CellContent::Hole
        } else if self.neutral & b != 0 {
            CellContent::Neutral
        } else if let Some(seat) = self.marbles.iter().position(|&m| m & b != 0) {
            CellContent::Marble(seat)
        } else {
            CellContent::Empty
        }
    }

    /// The result, once the game has ended.
    pub fn ending(&self) -> Option<Ending> {
        self.result
    }

    /// The result in words: `black wins (enough marbles pushed off)`,
    /// `draw between black and red (move limit ...)`.
    pub fn describe_outcome(&self) -> Option<String> {
        self.result
            .map(|ending| describe_ending(self.rules.seating, ending))
    }

    pub fn is_game_over(&self) -> bool {
        self.result.is_some()
    }

    /// A hash of the marbles, the seat to move and the scores (not the ply
    /// counters or the rules): equal for positions that repeat.
    pub fn hash(&self) -> u64 {
        let mut h = 0x5375_6D69_746F_0002u64;
        let mut mix = |word: u64| {
            h = (h ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            h ^= h >> 29;
        };
        for board in self.marbles.iter().chain([&self.neutral]) {
            mix(*board as u64);
            mix((*board >> 64) as u64);
        }
        mix(u64::from(self.to_move));
        mix(u64::from_le_bytes([
            self.scores[0],
            self.scores[1],
            self.scores[2],
            self.scores[3],
            self.scores[4],
            self.scores[5],
            0,
            0,
        ]));
        h
    }

    fn occupied(&self) -> u128 {
        self.marbles.iter().fold(self.neutral, |all, m| all | m)
    }

    fn view(&self, seat: usize) -> MoverView {
        let seating = self.rules.seating;
        let occupied = self.occupied();
        let (own, team, pushable) = if self.rules.one_colour {
            let common = self.marbles[0];
            (common, common, common | self.neutral)
        } else {
            let mut team = 0;
            let mut opposing = 0;
            for other in 0..seating.seats() {
                if seating.same_side(seat, other) {
                    team |= self.marbles[other];
                } else {
                    opposing |= self.marbles[other];
                }
            }
            (self.marbles[seat], team, opposing | self.neutral)
        };
        MoverView {
            own,
            team,
            pushable,
            empty: self.rules.open_cells() & !occupied,
            holes: self.rules.holes,
        }
    }

    /// The legal moves of the seat to move (none once the game is over). In
    /// the one-colour game moves with the same resulting position are one
    /// move: the one with the lowest [`GeneralMove::index`] stands for all.
    pub fn legal_moves(&self) -> Vec<GeneralMove> {
        if self.result.is_some() {
            return Vec::new();
        }
        let moves = self.moves_of(self.seat_to_move());
        if !self.rules.one_colour {
            return moves;
        }
        let mut seen = HashSet::new();
        moves
            .into_iter()
            .filter(|&mv| {
                let after = self.apply(mv);
                seen.insert((after.marbles, after.neutral, after.scores))
            })
            .collect()
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: GeneralMove) -> bool {
        self.legal_moves().contains(&mv)
    }

    /// Every move seat `seat` could make, in index order (duplicates of the
    /// one-colour game included).
    fn moves_of(&self, seat: usize) -> Vec<GeneralMove> {
        let view = self.view(seat);
        let mut out = Vec::new();
        for trailing in cells(view.own) {
            for dir in Direction::ALL {
                inline_moves(&view, trailing, dir, &mut |len| {
                    out.push(GeneralMove::group(
                        Move::inline(trailing, dir, len).expect("on-board groups are actions"),
                    ));
                });
            }
        }
        for first in cells(view.own) {
            for axis in [Direction::E, Direction::NE, Direction::NW] {
                let mut group = vec![first];
                for _ in 0..2 {
                    let Some(next) = group.last().and_then(|c| c.neighbour(axis)) else {
                        break;
                    };
                    if view.own & bit(next) == 0 {
                        break;
                    }
                    group.push(next);
                    for dir in Direction::ALL {
                        if dir.is_parallel(axis) {
                            continue;
                        }
                        let free = group.iter().all(|cell| {
                            cell.neighbour(dir)
                                .is_some_and(|to| view.empty & bit(to) != 0)
                        });
                        if free {
                            out.push(GeneralMove::group(
                                Move::broadside(first, axis, group.len(), dir)
                                    .expect("on-board groups are actions"),
                            ));
                        }
                    }
                }
            }
        }
        if self.rules.shield_moves {
            for (index, shield) in shield_moves().iter().enumerate() {
                let group = shield.cells.iter().fold(0, |b, &c| b | bit(c));
                if view.own & group != group {
                    continue;
                }
                let entered = shield
                    .cells
                    .iter()
                    .fold(0, |b, &c| b | c.neighbour(shield.dir).map_or(0, bit))
                    & !group;
                if entered & view.empty == entered {
                    out.push(GeneralMove::shield(index));
                }
            }
        }
        if self.rules.rotation_moves {
            for (index, rotation) in rotation_moves().iter().enumerate() {
                let group = bit(rotation.middle) | bit(rotation.ends[0]) | bit(rotation.ends[1]);
                let to = bit(rotation.to[0]) | bit(rotation.to[1]);
                if view.own & group == group && view.empty & to == to {
                    out.push(GeneralMove::rotation(index));
                }
            }
        }
        out.sort();
        out
    }

    /// Whether seat `seat` has any legal move.
    fn can_move(&self, seat: usize) -> bool {
        let view = self.view(seat);
        // A marble next to an empty cell can always step there.
        let steps = view.own.count_ones() > 0
            && cells(view.own).any(|cell| {
                Direction::ALL.into_iter().any(|dir| {
                    cell.neighbour(dir)
                        .is_some_and(|to| view.empty & bit(to) != 0)
                })
            });
        steps || !self.moves_of(seat).is_empty()
    }

    /// The position after `mv`, which must be legal here.
    pub fn play(&self, mv: GeneralMove) -> GeneralPosition {
        debug_assert!(self.is_legal(mv), "{mv:?} is not legal");
        let mut next = self.apply(mv);
        next.ply = self.ply + 1;
        let mover = self.seat_to_move();
        let pushed_off = next.scores != self.scores || next.result.is_some();
        next.plies_since_push_off = if pushed_off {
            0
        } else {
            self.plies_since_push_off + 1
        };
        let forced = next.result;
        next.settle(forced, mover, false);
        next
    }

    /// The marbles moved and scores credited by `mv` (no turn, counters or
    /// game end; a neutral marble pushed off under `pusher-wins` sets the
    /// result).
    fn apply(&self, mv: GeneralMove) -> GeneralPosition {
        let mut next = *self;
        let mover = self.seat_to_move();
        let view = self.view(mover);
        let moves: Vec<(Cell, Option<Cell>)> = match mv.kind() {
            MoveKind::Group(group) => {
                let dir = group.direction();
                let mut moves = Vec::new();
                if !group.is_broadside() {
                    // The pushed line, from the far end back, then the group.
                    if let Some(push) = pushed_line(&view, group) {
                        for &cell in push.line.iter().rev() {
                            moves.push((cell, cell.neighbour(dir)));
                        }
                    }
                    for cell in group.cells().collect::<Vec<_>>().into_iter().rev() {
                        moves.push((cell, cell.neighbour(dir)));
                    }
                } else {
                    for cell in group.cells() {
                        moves.push((cell, cell.neighbour(dir)));
                    }
                }
                moves
            }
            MoveKind::Shield(shield) => shield
                .cells
                .iter()
                .map(|&cell| (cell, cell.neighbour(shield.dir)))
                .collect(),
            MoveKind::Rotation(rotation) => vec![
                (rotation.ends[0], Some(rotation.to[0])),
                (rotation.ends[1], Some(rotation.to[1])),
            ],
        };
        // Lift every moving marble, then put each down (or off).
        let lifted: Vec<(CellContent, Option<Cell>)> = moves
            .iter()
            .map(|&(from, to)| {
                let content = next.at(from);
                next.clear(from);
                (content, to)
            })
            .collect();
        for (content, to) in lifted {
            let fell = to.is_none_or(|cell| self.rules.holes & bit(cell) != 0);
            match (content, fell) {
                (CellContent::Marble(seat), false) => {
                    next.marbles[seat] |= bit(to.expect("not fallen"));
                }
                (CellContent::Neutral, false) => next.neutral |= bit(to.expect("not fallen")),
                (CellContent::Neutral, true) => match self.rules.neutral_push_off {
                    NeutralPushOff::OpponentScores => {
                        let credited = self.first_opponent_after(mover);
                        next.scores[credited] = next.scores[credited].saturating_add(1);
                    }
                    NeutralPushOff::PusherWins => {
                        next.result = Some(Ending {
                            outcome: Outcome::Win(self.rules.seating.side_of(mover)),
                            reason: EndReason::NeutralPushedOff,
                        });
                    }
                },
                (CellContent::Marble(_), true) => {
                    next.scores[mover] = next.scores[mover].saturating_add(1);
                }
                // Only marbles are ever lifted (a move that is not legal
                // may name empty cells: nothing moves there).
                _ => {}
            }
        }
        next
    }

    /// The marbles seat `seat` could push off the board (over the rim or
    /// into a hole) with one of its moves if it were its turn (whoever is
    /// to move), in cell order: other sides' marbles and neutral ones. Empty
    /// once the game is over, and for a seat that cannot move. The general
    /// game's [`crate::Position::push_off_targets`].
    pub fn push_off_targets(&self, seat: usize) -> impl Iterator<Item = Cell> + use<> {
        cells(self.push_off_target_board(seat))
    }

    /// The marbles each seat could push off with one move if it were its
    /// turn, seat 0's first ([`GeneralPosition::push_off_targets`] of every
    /// seat, in the type both engines give: [`PushOffThreat`]).
    pub fn push_off_threats(&self) -> Vec<PushOffThreat> {
        let seats = self.rules.seating.seats();
        threats_of((0..seats).map(|seat| self.push_off_target_board(seat)))
    }

    /// [`GeneralPosition::push_off_targets`] as a bitboard.
    fn push_off_target_board(&self, seat: usize) -> u128 {
        if self.result.is_some() || seat >= self.rules.seating.seats() {
            return 0;
        }
        let view = self.view(seat);
        let mut targets = 0;
        for mv in self.moves_of(seat) {
            let MoveKind::Group(group) = mv.kind() else {
                continue; // shields and rotations push nothing
            };
            if group.is_broadside() {
                continue;
            }
            if let Some(Push { line, off: true }) = pushed_line(&view, group) {
                targets |= line.last().map_or(0, |&cell| bit(cell));
            }
        }
        targets
    }

    /// The same position with these marbles (for symmetries).
    pub(crate) fn with_boards(
        mut self,
        marbles: [u128; MAX_SEATS],
        neutral: u128,
    ) -> GeneralPosition {
        self.marbles = marbles;
        self.neutral = neutral;
        self
    }

    /// The marbles seat `seat` may move alone.
    pub(crate) fn own_of(&self, seat: usize) -> u128 {
        self.view(seat).own
    }

    /// The marbles that may make up an inline group of seat `seat`.
    pub(crate) fn team_of(&self, seat: usize) -> u128 {
        self.view(seat).team
    }

    /// The marbles moved by `mv`, legal or not (nothing else changes).
    pub(crate) fn apply_unchecked(&self, mv: GeneralMove) -> GeneralPosition {
        self.apply(mv)
    }

    /// Whether the marbles and scores are the same.
    pub(crate) fn same_board(&self, other: &GeneralPosition) -> bool {
        (self.marbles, self.neutral, self.scores) == (other.marbles, other.neutral, other.scores)
    }

    fn clear(&mut self, cell: Cell) {
        let keep = !bit(cell);
        for board in &mut self.marbles {
            *board &= keep;
        }
        self.neutral &= keep;
    }

    /// The first seat after `seat` in turn order that plays for another side.
    fn first_opponent_after(&self, seat: usize) -> usize {
        let seating = self.rules.seating;
        let mut other = seating.next(seat);
        while seating.same_side(other, seat) {
            other = seating.next(other);
        }
        other
    }

    /// Works out the game end after a move by `mover` (or, for a new
    /// position, with `mover`'s turn next when `fresh`), and whose turn it is.
    fn settle(&mut self, forced: Option<Ending>, mover: usize, fresh: bool) {
        let seating = self.rules.seating;
        // A finished game still names the seat whose turn it would be (as
        // the two-player engine does).
        if !fresh {
            self.to_move = seating.next(mover) as u8;
        }
        if let Some(result) = forced {
            self.result = Some(result);
            return;
        }
        let sides = seating.sides();
        // A side that reached its target wins; after a move only the mover's
        // side or (by a neutral marble) one other side can have scored.
        let reached: Vec<usize> = (0..sides)
            .filter(|&side| self.side_score(side) >= u32::from(self.rules.target(side)))
            .collect();
        if let Some(&side) = reached
            .iter()
            .find(|&&side| side == seating.side_of(mover))
            .or(reached.first())
        {
            self.result = Some(Ending {
                outcome: Outcome::Win(side),
                reason: EndReason::MarblesOff,
            });
            return;
        }
        if self.rules.max_plies.is_some_and(|limit| self.ply >= limit) {
            self.result = Some(Ending::new(
                self.best_by(|side| self.side_score(side)),
                EndReason::MoveLimit,
            ));
            return;
        }
        if self
            .rules
            .no_push_off_plies
            .is_some_and(|limit| self.plies_since_push_off >= limit)
        {
            let row_e = |side: usize| {
                seating
                    .seats_of(side)
                    .map(|seat| (self.marbles[seat] & ROW_E_MASK).count_ones())
                    .sum::<u32>()
            };
            self.result = Some(Ending::new(self.best_by(row_e), EndReason::NoPushOff));
            return;
        }
        // Whose turn: the next seat that can move (two players: the next
        // seat, which loses if it cannot).
        let order = seating.turn_order();
        let start = if fresh { mover } else { seating.next(mover) };
        if seating.seats() == 2 {
            self.to_move = start as u8;
            if !self.can_move(start) {
                let winner = seating.side_of(seating.next(start));
                self.result = Some(Ending {
                    outcome: Outcome::Win(winner),
                    reason: EndReason::NoLegalMoves,
                });
            }
            return;
        }
        let mut seat = start;
        for _ in 0..order.len() {
            if self.can_move(seat) {
                self.to_move = seat as u8;
                return;
            }
            seat = seating.next(seat);
        }
        self.to_move = start as u8;
        self.result = Some(Ending::new(
            self.best_by(|side| self.side_score(side)),
            EndReason::NoLegalMoves,
        ));
    }

    /// The side with the highest `value`, or a draw among all that share it.
    fn best_by(&self, value: impl Fn(usize) -> u32) -> Outcome {
        let sides = self.rules.seating.sides();
        let best = (0..sides).map(&value).max().unwrap_or(0);
        let leaders: Vec<usize> = (0..sides).filter(|&side| value(side) == best).collect();
        if let [winner] = leaders[..] {
            Outcome::Win(winner)
        } else {
            Outcome::Draw(leaders.iter().fold(0, |mask, side| mask | 1 << side))
        }
    }
}

/// The marbles an inline move pushes.
struct Push {
    /// From the marble ahead of the group's leading one to the far end.
    line: Vec<Cell>,
    /// Whether the far one leaves the board (over the rim or into a hole).
    off: bool,
}

/// What the inline move of `group` pushes, if anything: only a line the
/// group outnumbers, with a free cell, a hole or the rim behind it (in the
/// one-colour game the marbles ahead may be more than the group can push,
/// when the move is a plain step).
fn pushed_line(view: &MoverView, group: Move) -> Option<Push> {
    let dir = group.direction();
    let leading = group.cells().last().expect("groups hold a marble");
    let mut line = Vec::new();
    let mut ahead = leading.neighbour(dir);
    while let Some(cell) = ahead {
        if view.pushable & bit(cell) == 0 || line.len() == 2 {
            break;
        }
        line.push(cell);
        ahead = cell.neighbour(dir);
    }
    let off = ahead.is_none_or(|c| view.holes & bit(c) != 0);
    let pushes = !line.is_empty()
        && line.len() < group.group_len()
        && (off || ahead.is_some_and(|c| view.empty & bit(c) != 0));
    pushes.then_some(Push { line, off })
}

/// Calls `legal(len)` for each group size `len` of a legal inline move of the
/// group trailing at `trailing` towards `dir`.
fn inline_moves(view: &MoverView, trailing: Cell, dir: Direction, legal: &mut dyn FnMut(usize)) {
    let mut len = 1;
    let mut ahead = trailing.neighbour(dir);
    loop {
        let Some(cell) = ahead else { return }; // own marbles never leave the board
        let b = bit(cell);
        if view.empty & b != 0 {
            legal(len);
            return;
        }
        if view.pushable & b != 0 {
            // The pushed line and the cell behind it.
            let mut line = 1;
            let mut behind = cell.neighbour(dir);
            while let Some(next) = behind {
                if view.pushable & bit(next) == 0 {
                    break;
                }
                line += 1;
                behind = next.neighbour(dir);
            }
            let free_behind =
                behind.is_none_or(|c| view.empty & bit(c) != 0 || view.holes & bit(c) != 0);
            if line < len && free_behind {
                legal(len);
            }
        }
        // The group grows over the team's marbles (the mover's own or a
        // partner's), up to three.
        if view.team & b == 0 || len == 3 {
            return;
        }
        len += 1;
        ahead = cell.neighbour(dir);
    }
}

/// A game's result in words for the sides of `seating`, as records and
/// reports give it ([`GeneralPosition::describe_outcome`]).
pub fn describe_ending(seating: Seating, ending: Ending) -> String {
    let end = ending.reason;
    match ending.outcome {
        Outcome::Win(side) => format!("{} wins ({end})", seating.side_name(side)),
        Outcome::Draw(mask) => {
            let sides: Vec<String> = (0..seating.sides())
                .filter(|side| mask >> side & 1 == 1)
                .map(|side| seating.side_name(side))
                .collect();
            format!("draw between {} ({end})", sides.join(" and "))
        }
    }
}

/// Counts the leaf positions `depth` plies ahead (moves that end the game
/// end their line).
pub fn general_perft(position: &GeneralPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = position.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|mv| general_perft(&position.play(mv), depth - 1))
        .sum()
}
