//! An independent reference model of the two-player Abalone rules, written
//! straight from `shared/abalone-rules.md` and sharing no code with the engine.
//!
//! It is deliberately naive: the board is a plain 9×9 array indexed by
//! (row, diagonal), every move is checked by walking the cells one at a time,
//! and every child is a fresh copy of the board. Speed does not matter here;
//! being obviously right does, because the engine's bitboard move generator is
//! judged against it.

use std::fmt;
use std::sync::LazyLock;

/// Marbles a side must push off to win (the default rules).
pub const MARBLES_TO_WIN: u32 = 6;
/// Marbles each side starts with in every named layout.
pub const MARBLES_PER_SIDE: u32 = 14;

/// One of the two players.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Black,
    White,
}

impl Side {
    pub fn opponent(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }

    fn letter(self) -> char {
        match self {
            Side::Black => 'b',
            Side::White => 'w',
        }
    }
}

/// A step between neighbouring cells, as (Δrow, Δdiagonal).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Dir {
    pub drow: i32,
    pub ddiag: i32,
}

impl Dir {
    pub fn opposite(self) -> Dir {
        Dir {
            drow: -self.drow,
            ddiag: -self.ddiag,
        }
    }

    /// Whether `self` runs along the line through `other` (either way).
    pub fn is_parallel_to(self, other: Dir) -> bool {
        self == other || self == other.opposite()
    }

    /// The compass name used by the rules file.
    pub fn name(self) -> &'static str {
        match (self.drow, self.ddiag) {
            (0, 1) => "E",
            (0, -1) => "W",
            (1, 1) => "NE",
            (-1, -1) => "SW",
            (1, 0) => "NW",
            (-1, 0) => "SE",
            _ => unreachable!("not one of the six directions: {self:?}"),
        }
    }
}

/// The six directions of the rules file: E, W, NE, SW, NW, SE.
pub const DIRS: [Dir; 6] = [
    Dir { drow: 0, ddiag: 1 },
    Dir { drow: 0, ddiag: -1 },
    Dir { drow: 1, ddiag: 1 },
    Dir {
        drow: -1,
        ddiag: -1,
    },
    Dir { drow: 1, ddiag: 0 },
    Dir { drow: -1, ddiag: 0 },
];

/// One direction of each of the three lines through a cell (E, NE, NW).
/// A group of 2 or 3 is enumerated once, starting from its end that lies
/// opposite to the chosen line direction.
pub const LINE_DIRS: [Dir; 3] = [DIRS[0], DIRS[2], DIRS[4]];

/// A cell position; it may lie off the board (see [`Coord::exists`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Coord {
    /// 0 = row A … 8 = row I.
    pub row: i32,
    /// 1 … 9.
    pub diag: i32,
}

impl Coord {
    /// The rules file: a cell exists iff |(c−1) − r| ≤ 4.
    pub fn exists(self) -> bool {
        (0..=8).contains(&self.row)
            && (1..=9).contains(&self.diag)
            && ((self.diag - 1) - self.row).abs() <= 4
    }

    pub fn step(self, dir: Dir) -> Coord {
        Coord {
            row: self.row + dir.drow,
            diag: self.diag + dir.ddiag,
        }
    }

    /// Parses "E5" (upper-case row letter, one digit).
    pub fn parse(text: &str) -> Option<Coord> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 || !(b'A'..=b'I').contains(&bytes[0]) {
            return None;
        }
        let coord = Coord {
            row: i32::from(bytes[0] - b'A'),
            diag: i32::from(bytes[1]).checked_sub(i32::from(b'0'))?,
        };
        coord.exists().then_some(coord)
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = char::from(b'A' + u8::try_from(self.row).expect("row 0..=8"));
        write!(f, "{letter}{}", self.diag)
    }
}

/// Every existing cell, row by row from A1 to I9.
pub fn all_cells() -> &'static [Coord] {
    static CELLS: LazyLock<Vec<Coord>> = LazyLock::new(|| {
        let mut cells = Vec::new();
        for row in 0..=8 {
            for diag in 1..=9 {
                let cell = Coord { row, diag };
                if cell.exists() {
                    cells.push(cell);
                }
            }
        }
        cells
    });
    &CELLS
}

/// The existing cells of one row, from the lowest diagonal up.
fn row_cells(row: i32) -> Vec<Coord> {
    (1..=9)
        .map(|diag| Coord { row, diag })
        .filter(|c| c.exists())
        .collect()
}

/// A move: a group of 1–3 cells on one line (listed in line order) and the
/// direction every one of them steps in. Whether it is legal depends on the
/// position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RefMove {
    pub group: Vec<Coord>,
    pub dir: Dir,
}

impl RefMove {
    /// Inline moves run along the group's line; every single-marble move is inline.
    pub fn is_inline(&self) -> bool {
        match self.group.as_slice() {
            [_] => true,
            [first, second, ..] => {
                let line = DIRS
                    .iter()
                    .find(|d| first.step(**d) == *second)
                    .expect("group cells are neighbours");
                self.dir.is_parallel_to(*line)
            }
            [] => unreachable!("a group is never empty"),
        }
    }

    /// The marble that enters a new cell first in an inline move.
    pub fn leading(&self) -> Coord {
        let first = self.group[0];
        let last = *self.group.last().expect("a group is never empty");
        // The leader is the end whose next cell is not part of the group.
        if self.group.contains(&last.step(self.dir)) {
            first
        } else {
            last
        }
    }

    /// The last marble of an inline move (the leader itself for a single marble).
    pub fn trailing(&self) -> Coord {
        let first = self.group[0];
        let last = *self.group.last().expect("a group is never empty");
        if self.leading() == first { last } else { first }
    }

    /// Whether every destination lies on the board, i.e. whether the move can
    /// be legal in some position (for an inline move only the leader's
    /// destination is new; the others move into cells of the group).
    pub fn can_ever_be_legal(&self) -> bool {
        if self.is_inline() {
            self.leading().step(self.dir).exists()
        } else {
            self.group.iter().all(|c| c.step(self.dir).exists())
        }
    }
}

impl fmt::Display for RefMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cells: Vec<String> = self.group.iter().map(Coord::to_string).collect();
        write!(f, "{} {}", cells.join("-"), self.dir.name())
    }
}

/// Every (group, direction) pair on the empty board, legal or not: every cell
/// as a single marble, and every line of 2 or 3 existing cells, each with all
/// six directions.
pub fn all_group_moves() -> Vec<RefMove> {
    let mut moves = Vec::new();
    for &start in all_cells() {
        for group in groups_from(start, |c| c.exists()) {
            for dir in DIRS {
                moves.push(RefMove {
                    group: group.clone(),
                    dir,
                });
            }
        }
    }
    moves
}

/// The groups that start at `start` and extend along E, NE or NW over cells
/// accepted by `member`: `[start]`, then for each line direction the groups of
/// 2 and 3. Each group on the board has exactly one start cell and line
/// direction, so enumerating every start lists every group once.
fn groups_from(start: Coord, member: impl Fn(Coord) -> bool) -> Vec<Vec<Coord>> {
    let mut groups = Vec::new();
    if !member(start) {
        return groups;
    }
    groups.push(vec![start]);
    for line in LINE_DIRS {
        let mut group = vec![start];
        for _ in 0..2 {
            let next = group.last().expect("non-empty").step(line);
            if !next.exists() || !member(next) {
                break;
            }
            group.push(next);
            groups.push(group.clone());
        }
    }
    groups
}

/// A legal move and what it leads to.
#[derive(Clone, Debug)]
pub struct RefChild {
    pub mv: RefMove,
    pub position: RefPosition,
    /// Opponent marbles the move shifted (0 unless it is a sumito).
    pub pushed: usize,
    /// Whether an opponent marble left the board.
    pub pushed_off: bool,
}

/// A position of the text format: the board, the side to move and the
/// marbles each side has lost.
#[derive(Clone, PartialEq, Eq)]
pub struct RefPosition {
    /// `board[row][diag - 1]`; cells that do not exist stay `None`.
    board: [[Option<Side>; 9]; 9],
    pub to_move: Side,
    /// Black marbles pushed off the board.
    pub black_off: u32,
    /// White marbles pushed off the board.
    pub white_off: u32,
}

impl RefPosition {
    /// An empty board with Black to move and nothing off.
    pub fn empty() -> RefPosition {
        RefPosition {
            board: [[None; 9]; 9],
            to_move: Side::Black,
            black_off: 0,
            white_off: 0,
        }
    }

    pub fn at(&self, cell: Coord) -> Option<Side> {
        assert!(cell.exists(), "{cell:?} is not on the board");
        self.board[cell.row as usize][(cell.diag - 1) as usize]
    }

    pub fn set(&mut self, cell: Coord, content: Option<Side>) {
        assert!(cell.exists(), "{cell:?} is not on the board");
        self.board[cell.row as usize][(cell.diag - 1) as usize] = content;
    }

    pub fn off(&self, side: Side) -> u32 {
        match side {
            Side::Black => self.black_off,
            Side::White => self.white_off,
        }
    }

    fn add_off(&mut self, side: Side) {
        match side {
            Side::Black => self.black_off += 1,
            Side::White => self.white_off += 1,
        }
    }

    pub fn count(&self, side: Side) -> u32 {
        let mut count = 0;
        for &cell in all_cells() {
            if self.at(cell) == Some(side) {
                count += 1;
            }
        }
        count
    }

    /// Default rules: the game ends when either side has lost six marbles.
    pub fn is_game_over(&self) -> bool {
        self.black_off >= MARBLES_TO_WIN || self.white_off >= MARBLES_TO_WIN
    }

    /// Parses `<row I>/<row H>/…/<row A> <side> <black off> <white off>`.
    pub fn parse(text: &str) -> Result<RefPosition, String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [board_text, side_text, black_text, white_text] = fields.as_slice() else {
            return Err(format!(
                "expected 4 fields, found {} in {text:?}",
                fields.len()
            ));
        };
        let rows: Vec<&str> = board_text.split('/').collect();
        if rows.len() != 9 {
            return Err(format!("expected 9 rows, found {} in {text:?}", rows.len()));
        }
        let mut position = RefPosition::empty();
        for (i, row_text) in rows.iter().enumerate() {
            let row = 8 - i as i32;
            let cells = row_cells(row);
            let mut filled = 0;
            for ch in row_text.chars() {
                let (content, run) = match ch {
                    'b' => (Some(Side::Black), 1),
                    'w' => (Some(Side::White), 1),
                    '1'..='9' => (None, ch as usize - '0' as usize),
                    _ => return Err(format!("bad character {ch:?} in row {row_text:?}")),
                };
                for _ in 0..run {
                    let Some(&cell) = cells.get(filled) else {
                        return Err(format!(
                            "row {row_text:?} has more than {} cells",
                            cells.len()
                        ));
                    };
                    position.set(cell, content);
                    filled += 1;
                }
            }
            if filled != cells.len() {
                return Err(format!(
                    "row {row_text:?} has {filled} cells, not {}",
                    cells.len()
                ));
            }
        }
        position.to_move = match *side_text {
            "b" => Side::Black,
            "w" => Side::White,
            _ => return Err(format!("bad side {side_text:?}")),
        };
        position.black_off = black_text
            .parse()
            .map_err(|_| format!("bad count {black_text:?}"))?;
        position.white_off = white_text
            .parse()
            .map_err(|_| format!("bad count {white_text:?}"))?;
        Ok(position)
    }

    /// The canonical text: runs of empty cells merged into one digit.
    pub fn to_text(&self) -> String {
        let mut rows = Vec::new();
        for row in (0..=8).rev() {
            let mut text = String::new();
            let mut empty_run = 0;
            for cell in row_cells(row) {
                match self.at(cell) {
                    None => empty_run += 1,
                    Some(side) => {
                        if empty_run > 0 {
                            text.push_str(&empty_run.to_string());
                            empty_run = 0;
                        }
                        text.push(side.letter());
                    }
                }
            }
            if empty_run > 0 {
                text.push_str(&empty_run.to_string());
            }
            rows.push(text);
        }
        format!(
            "{} {} {} {}",
            rows.join("/"),
            self.to_move.letter(),
            self.black_off,
            self.white_off
        )
    }

    /// How many opponent marbles `mv` pushes if the side to move may play
    /// it (0 for a move into empty cells), or `None` if it is illegal.
    pub fn pushed_by(&self, mv: &RefMove) -> Option<usize> {
        if self.is_game_over() {
            return None;
        }
        let me = self.to_move;
        for &cell in &mv.group {
            if !cell.exists() || self.at(cell) != Some(me) {
                return None;
            }
        }
        if !mv.is_inline() {
            // Broadside: every marble steps into its own empty cell.
            for &cell in &mv.group {
                let dest = cell.step(mv.dir);
                if !dest.exists() || self.at(dest).is_some() {
                    return None;
                }
            }
            return Some(0);
        }
        let ahead = mv.leading().step(mv.dir);
        if !ahead.exists() {
            return None; // an own marble would leave the board
        }
        // Count the opponent marbles directly in front, without a gap.
        let mut cursor = ahead;
        let mut opponents = 0;
        while cursor.exists() && self.at(cursor) == Some(me.opponent()) {
            opponents += 1;
            cursor = cursor.step(mv.dir);
        }
        if opponents == 0 {
            // A plain step; an own marble ahead blocks it.
            return self.at(ahead).is_none().then_some(0);
        }
        // Sumito: strictly outnumber them, and the cell behind the last of
        // them must be empty or off the board.
        if opponents >= mv.group.len() || (cursor.exists() && self.at(cursor).is_some()) {
            return None;
        }
        Some(opponents)
    }

    /// Plays `mv` for the side to move if it is legal, else `None`.
    pub fn try_move(&self, mv: &RefMove) -> Option<RefChild> {
        let pushed = self.pushed_by(mv)?;
        let me = self.to_move;
        let opponent = me.opponent();
        // The marbles that move, with their colour: the group, then the
        // pushed opponents in front of the leader.
        let mut moving: Vec<(Coord, Side)> = mv.group.iter().map(|&c| (c, me)).collect();
        if pushed > 0 {
            let mut cursor = mv.leading();
            for _ in 0..pushed {
                cursor = cursor.step(mv.dir);
                moving.push((cursor, opponent));
            }
        }
        // Lift every moving marble, then put each down one step further on.
        let mut next = self.clone();
        for &(cell, _) in &moving {
            next.set(cell, None);
        }
        let mut pushed_off = false;
        for &(cell, side) in &moving {
            let dest = cell.step(mv.dir);
            if dest.exists() {
                next.set(dest, Some(side));
            } else {
                assert_eq!(side, opponent, "own marbles never leave the board");
                next.add_off(side);
                pushed_off = true;
            }
        }
        next.to_move = opponent;
        Some(RefChild {
            mv: mv.clone(),
            position: next,
            pushed,
            pushed_off,
        })
    }

    /// Every (group, direction) pair of the side to move's own marbles,
    /// legal or not; each group is listed once (see [`groups_from`]).
    fn candidate_moves(&self) -> Vec<RefMove> {
        let me = self.to_move;
        let mut moves = Vec::new();
        for &start in all_cells() {
            for group in groups_from(start, |c| self.at(c) == Some(me)) {
                for dir in DIRS {
                    moves.push(RefMove {
                        group: group.clone(),
                        dir,
                    });
                }
            }
        }
        moves
    }

    /// Every legal move with its child; empty once the game is over.
    pub fn children(&self) -> Vec<RefChild> {
        self.candidate_moves()
            .iter()
            .filter_map(|mv| self.try_move(mv))
            .collect()
    }

    /// The number of legal moves, without building the children.
    pub fn legal_move_count(&self) -> usize {
        self.candidate_moves()
            .iter()
            .filter(|mv| self.pushed_by(mv).is_some())
            .count()
    }

    /// Leaf nodes of the move tree `depth` plies deep.
    pub fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.legal_move_count() as u64,
            _ => self
                .children()
                .iter()
                .map(|c| c.position.perft(depth - 1))
                .sum(),
        }
    }
}

/// Failed assertions show the position as text, not as a 9×9 array.
impl fmt::Debug for RefPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// The start layouts of the rules file's table: (name, Black cells, White cells).
/// A range such as `A1–A5` covers one row.
pub const LAYOUT_TABLE: [(&str, &str, &str); 9] = [
    ("standard", "A1–A5 B1–B6 C3 C4 C5", "I5–I9 H4–H9 G5 G6 G7"),
    (
        "belgian-daisy",
        "A1 A2 B1 B2 B3 C2 C3 G7 G8 H7 H8 H9 I8 I9",
        "A4 A5 B4 B5 B6 C5 C6 G4 G5 H4 H5 H6 I5 I6",
    ),
    (
        "german-daisy",
        "B1 B2 C1 C2 C3 D2 D3 F7 F8 G7 G8 G9 H8 H9",
        "B5 B6 C5 C6 C7 D6 D7 F3 F4 G3 G4 G5 H4 H5",
    ),
    (
        "dutch-daisy",
        "A1 A2 B1 B3 B5 C2 C3 G7 G8 H5 H7 H9 I8 I9",
        "A4 A5 B2 B4 B6 C5 C6 G4 G5 H4 H6 H8 I5 I6",
    ),
    (
        "swiss-daisy",
        "B1 B2 C1 C3 C6 D2 D3 F7 F8 G4 G7 G9 H8 H9",
        "B5 B6 C2 C5 C7 D6 D7 F3 F4 G3 G5 G8 H4 H5",
    ),
    (
        "domination",
        "B1 C1 C2 D1 D2 D3 E4 E6 F7 F8 F9 G8 G9 H9",
        "B6 C6 C7 D5 D6 D7 D8 F2 F3 F4 F5 G3 G4 H4",
    ),
    (
        "pyramid",
        "A5 B5 B6 C5 C6 C7 D5 D6 D7 D8 E6 E7 E8 E9",
        "E1 E2 E3 E4 F2 F3 F4 F5 G3 G4 G5 H4 H5 I5",
    ),
    (
        "snakes",
        "D2 D3 E2 E4 F2 F5 F6 G3 H4 I5–I9",
        "A1–A5 B6 C7 D4 D5 D8 E6 E8 F7 F8",
    ),
    ("the-wall", "A3 C2–C6 D1–D8", "F2–F9 G4–G8 I7"),
];

/// Expands a cell list of the layout table ("A1–A5 C3") into cells.
pub fn table_cells(list: &str) -> Vec<Coord> {
    let mut cells = Vec::new();
    for item in list.split_whitespace() {
        match item.split_once('–') {
            None => cells.push(Coord::parse(item).expect("table cell")),
            Some((from, to)) => {
                let from = Coord::parse(from).expect("table range start");
                let to = Coord::parse(to).expect("table range end");
                assert_eq!(from.row, to.row, "table ranges stay on one row");
                for diag in from.diag..=to.diag {
                    cells.push(Coord {
                        row: from.row,
                        diag,
                    });
                }
            }
        }
    }
    cells
}

/// The start position of a named layout, built from the table; Black moves first.
pub fn layout(name: &str) -> RefPosition {
    let (_, black, white) = LAYOUT_TABLE
        .iter()
        .find(|(n, _, _)| *n == name)
        .unwrap_or_else(|| panic!("no layout named {name}"));
    let mut position = RefPosition::empty();
    for (list, side) in [(black, Side::Black), (white, Side::White)] {
        for cell in table_cells(list) {
            assert_eq!(position.at(cell), None, "{name}: {cell} listed twice");
            position.set(cell, Some(side));
        }
    }
    position
}
