//! Positions, the rules of play, game end and Zobrist hashing.

use crate::action::{
    ACTION_COUNT, ACTION_TABLES, ACTIONS, AXES, Move, MoveList, broadside_table, inline_table,
};
use crate::bitboard::step;
use crate::board::{BOARD_MASK, CELL_BIT, CELL_COUNT, Cell, Color, DIR_SHIFT, ROW_E_MASK, bits};
use crate::ending::{EndReason, Ending, Outcome};
use crate::push_off::{PushOffThreat, threats_of};
use crate::rule_values::{MARBLES_PER_SIDE, RuleValueError, check_rule_values};

/// How a game ends. Part of every [`Position`]; small and `Copy`.
///
/// Both limits count **plies** (single turns of one player), not full moves.
/// A position where the game has ended has no legal moves. When several
/// conditions hold at once they are checked in this order: marbles pushed off,
/// the move limit, the no-push-off rule (and, outside these rules, a side to
/// move without any legal move loses).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// The first player to push off this many opposing marbles wins (6 by the
    /// rule sheets; other values give handicap games).
    pub marbles_to_win: u8,
    /// Move limit in plies: once `ply` reaches it the game ends and the player
    /// who pushed off more marbles wins; equal is a draw.
    pub max_plies: Option<u32>,
    /// "No push-off within K plies": after K consecutive plies without a
    /// marble pushed off the game ends and the player holding more cells of
    /// row E (the centre line) wins; equal is a draw. The rule sheets use 15.
    pub no_push_off_plies: Option<u32>,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            marbles_to_win: 6,
            max_plies: None,
            no_push_off_plies: None,
        }
    }
}

impl Rules {
    /// The rules in words, as every front end shows them: "the first to
    /// push off 6 marbles wins; after 200 plies the player who pushed off
    /// more wins (equal: draw)", or "...; no move limit".
    pub fn describe(&self) -> String {
        let mut text = format!("the first to push off {} marbles wins", self.marbles_to_win);
        match self.max_plies {
            Some(limit) => text.push_str(&format!(
                "; after {limit} plies the player who pushed off more wins (equal: draw)"
            )),
            None => text.push_str("; no move limit"),
        }
        if let Some(limit) = self.no_push_off_plies {
            text.push_str(&format!(
                "; after {limit} plies without a push-off the player holding more of row E wins"
            ));
        }
        text
    }

    /// Checks the values (see [`check_rule_values`]).
    pub fn validate(&self) -> Result<(), RuleValueError> {
        check_rule_values(
            &[self.marbles_to_win],
            self.max_plies,
            self.no_push_off_plies,
        )
    }
}

/// What is wrong with the marbles given for a position (by
/// [`Position::from_cell_masks`] or a position text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("{color} has a marble on cell index {index}, but the cells are numbered 0-60")]
    OffBoard { color: Color, index: u32 },
    #[error("{0} holds both a black and a white marble")]
    Overlap(Cell),
    #[error("{count} {color} marbles on the board, at most 14 allowed")]
    TooManyOnBoard { color: Color, count: u32 },
    #[error(
        "{color} has {on_board} marbles on the board and {off} off, {} in all; each side has 14",
        on_board + u32::from(*off)
    )]
    TooManyMarbles {
        color: Color,
        on_board: u32,
        off: u8,
    },
}

/// Checks one colour's marble count: at most 14 on the board, and at most 14
/// on and off the board together (which also bounds `off`, an index into the
/// Zobrist keys).
pub(crate) fn check_marble_total(color: Color, on_board: u32, off: u8) -> Result<(), BoardError> {
    if on_board > u32::from(MARBLES_PER_SIDE) {
        return Err(BoardError::TooManyOnBoard {
            color,
            count: on_board,
        });
    }
    if on_board + u32::from(off) > u32::from(MARBLES_PER_SIDE) {
        return Err(BoardError::TooManyMarbles {
            color,
            on_board,
            off,
        });
    }
    Ok(())
}

/// Why a move is not legal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("the game is over")]
    GameOver,
    #[error("there is no marble on {0}")]
    NoMarble(Cell),
    #[error("the marble on {cell} is {owner} but {mover} is to move")]
    NotYours {
        cell: Cell,
        owner: Color,
        mover: Color,
    },
    #[error("the marble on {0} would leave the board (own marbles never move off)")]
    OwnMarbleOffBoard(Cell),
    #[error("blocked by own marble on {0}")]
    BlockedByOwn(Cell),
    #[error("{0} against {0} is a pac: the pushing line must outnumber the opponent's")]
    Pac(u8),
    #[error(
        "{pushers} marble(s) cannot push {opponents}: the pushing line must outnumber the opponent's"
    )]
    NotOutnumbering { pushers: u8, opponents: u8 },
    #[error("the push is blocked by own marble on {0} behind the opponent's marbles")]
    PushBlockedByOwn(Cell),
    #[error("broadside destination {0} is occupied")]
    BroadsideOccupied(Cell),
}

/// Zobrist keys: one per (colour, bitboard bit) (zero for padding bits), one
/// for White to move, one per (colour, marbles off).
struct ZobristKeys {
    marble: [[u64; 128]; 2],
    white_to_move: u64,
    off: [[u64; MARBLES_PER_SIDE as usize + 1]; 2],
}

const fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn build_zobrist() -> ZobristKeys {
    let mut state = 0x5375_6D69_746F_2121; // "Sumito!!"
    let mut keys = ZobristKeys {
        marble: [[0; 128]; 2],
        white_to_move: 0,
        off: [[0; MARBLES_PER_SIDE as usize + 1]; 2],
    };
    let mut color = 0;
    while color < 2 {
        let mut cell = 0;
        while cell < CELL_COUNT {
            keys.marble[color][CELL_BIT[cell] as usize] = splitmix64(&mut state);
            cell += 1;
        }
        let mut n = 0;
        while n <= MARBLES_PER_SIDE as usize {
            keys.off[color][n] = splitmix64(&mut state);
            n += 1;
        }
        color += 1;
    }
    keys.white_to_move = splitmix64(&mut state);
    keys
}

const ZOBRIST_KEYS: ZobristKeys = build_zobrist();
static ZOBRIST: ZobristKeys = ZOBRIST_KEYS;

/// For each colour and action: how the mover's own marbles change the hash
/// (the group leaves its cells and enters its destinations).
const fn build_action_hash() -> [[u64; ACTION_COUNT]; 2] {
    let mut out = [[0; ACTION_COUNT]; 2];
    let mut color = 0;
    while color < 2 {
        let mut action = 0;
        while action < ACTION_COUNT {
            let changed = ACTIONS[action].from_bits ^ ACTIONS[action].to_bits;
            let mut bit = 0;
            while bit < 128 {
                if changed >> bit & 1 == 1 {
                    out[color][action] ^= ZOBRIST_KEYS.marble[color][bit];
                }
                bit += 1;
            }
            action += 1;
        }
        color += 1;
    }
    out
}

static ACTION_HASH: [[u64; ACTION_COUNT]; 2] = build_action_hash();

/// A game position: the marbles of both colours as bitboards (see the crate
/// docs for the layout), the side to move, how many marbles of each colour
/// have been pushed off, the ply count, the plies since the last push-off,
/// the [`Rules`] in force, and a Zobrist hash kept up to date incrementally.
///
/// The hash covers the marbles, the side to move and the off counts; not the
/// ply counters and not the rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    marbles: [u128; 2],
    side: Color,
    off: [u8; 2],
    ply: u32,
    plies_since_push_off: u32,
    rules: Rules,
    hash: u64,
}

/// The legal inline moves (groups of 1, 2, 3) in direction `D`, as the sets
/// of their trailing marbles T.
#[inline(always)]
fn inline_sets<const D: usize>(own: u128, opp: u128, free: u128, empty: u128) -> [u128; 3] {
    let s = DIR_SHIFT[D];
    // Cells X that a group's leading marble may enter, by group size: empty
    // for any group; an opponent's marble with a free cell (empty or off the
    // board) behind it for 2 or 3 (x push 1); two opponent's marbles then a
    // free cell for 3 (3 push 2). Shifted bits are read only where the cells
    // before them are on the board, so padding bits make them exact.
    let push_1 = opp & step(free, -s);
    let push_2 = opp & step(push_1, -s);
    let enter_2 = empty | push_1;
    let enter_3 = enter_2 | push_2;
    // T + D and T + 2·D own.
    let own_1 = own & step(own, -s);
    let own_2 = own_1 & step(own, -2 * s);
    [
        own & step(empty, -s),
        own_1 & step(enter_2, -2 * s),
        own_2 & step(enter_3, -3 * s),
    ]
}

/// The legal broadside moves of groups of 2 and 3 along axis slot `A` (E,
/// NE, NW) stepping towards `D`, as the sets of the groups' first cells.
/// `ready[D]` holds the own marbles whose neighbour towards `D` is empty.
#[inline(always)]
fn broadside_sets<const A: usize, const D: usize>(ready: &[u128; 6]) -> [u128; 2] {
    let a = DIR_SHIFT[AXES[A]];
    let pairs = ready[D] & step(ready[D], -a);
    [pairs, pairs & step(pairs, -a)]
}

/// Own marbles whose neighbour in each direction is an empty cell.
#[inline(always)]
fn ready_to_step(own: u128, empty: u128) -> [u128; 6] {
    [
        own & step(empty, -DIR_SHIFT[0]),
        own & step(empty, -DIR_SHIFT[1]),
        own & step(empty, -DIR_SHIFT[2]),
        own & step(empty, -DIR_SHIFT[3]),
        own & step(empty, -DIR_SHIFT[4]),
        own & step(empty, -DIR_SHIFT[5]),
    ]
}

/// Calls `$visit!(A, D)` for the 12 (axis slot, sideways direction) pairs of
/// broadside moves: axis E steps NE, SW, NW, SE; axis NE steps E, W, NW, SE;
/// axis NW steps E, W, NE, SW.
macro_rules! for_each_broadside {
    ($visit:ident) => {
        $visit!(0, 2);
        $visit!(0, 3);
        $visit!(0, 4);
        $visit!(0, 5);
        $visit!(1, 0);
        $visit!(1, 1);
        $visit!(1, 4);
        $visit!(1, 5);
        $visit!(2, 0);
        $visit!(2, 1);
        $visit!(2, 2);
        $visit!(2, 3);
    };
}

/// Calls `$visit!(D)` for the six directions.
macro_rules! for_each_direction {
    ($visit:ident) => {
        $visit!(0);
        $visit!(1);
        $visit!(2);
        $visit!(3);
        $visit!(4);
        $visit!(5);
    };
}

/// Lists the legal moves of the side owning `own` into `list`.
fn generate(own: u128, opp: u128, list: &mut MoveList) {
    let free = !(own | opp);
    let empty = free & BOARD_MASK;
    let mut add = |cells: u128, table: usize| {
        let table = &ACTION_TABLES[table];
        for bit in bits(cells) {
            list.push_action(table[bit as usize]);
        }
    };
    macro_rules! inline {
        ($d:literal) => {
            let [one, two, three] = inline_sets::<$d>(own, opp, free, empty);
            add(one, inline_table(1, $d));
            add(two, inline_table(2, $d));
            add(three, inline_table(3, $d));
        };
    }
    for_each_direction!(inline);
    let ready = ready_to_step(own, empty);
    macro_rules! broadside {
        ($a:literal, $d:literal) => {
            let [two, three] = broadside_sets::<$a, $d>(&ready);
            add(two, broadside_table(2, $a, $d));
            add(three, broadside_table(3, $a, $d));
        };
    }
    for_each_broadside!(broadside);
}

/// The opponent's marbles that the side owning `own` can push off with one
/// inline move, found by whole-board shifts rather than by listing the moves
/// (the network encodes these for both sides of every position it
/// evaluates). A marble falls when the rim is behind it and either two own
/// marbles stand in line before it (2 push 1, 3 push 1) or one more
/// opponent's marble and then three own ones (3 push 2). As in
/// [`inline_sets`], a shifted bit is read only where the cells before it are
/// on the board, so the padding bits make this exact.
#[inline]
fn push_off_target_bits(own: u128, opp: u128) -> u128 {
    let off = !BOARD_MASK;
    let mut targets = 0;
    for &s in &DIR_SHIFT {
        // Opponent's marbles with the rim right behind them (towards D).
        let last = opp & step(off, -s);
        // Cells whose neighbour away from D is own, and whose next one is too.
        let own_1 = step(own, s);
        let own_2 = own_1 & step(own, 2 * s);
        let by_two = last & own_2;
        let own_3 = own_2 & step(own, 3 * s);
        let by_three_on_two = last & step(opp, s) & step(own_3, s);
        targets |= by_two | by_three_on_two;
    }
    targets
}

/// A sum of the popcounts of many bitboards, kept bit-sliced (carry-save
/// adders) so that only five popcounts are needed at the end. Each bit may be
/// added at most 31 times.
#[derive(Default)]
struct BitSum {
    planes: [u128; 5],
}

/// Full adder on bitboards: (sum, carry).
#[inline(always)]
fn carry_save(a: u128, b: u128, c: u128) -> (u128, u128) {
    let half = a ^ b;
    (half ^ c, (a & b) | (half & c))
}

impl BitSum {
    #[inline(always)]
    fn add4(&mut self, a: u128, b: u128, c: u128, d: u128) {
        let [ones, twos, fours, eights, sixteens] = &mut self.planes;
        let (sum, carry_a) = carry_save(*ones, a, b);
        let (sum, carry_b) = carry_save(sum, c, d);
        *ones = sum;
        let (sum, carry) = carry_save(*twos, carry_a, carry_b);
        *twos = sum;
        let carry_8 = *fours & carry;
        *fours ^= carry;
        let carry_16 = *eights & carry_8;
        *eights ^= carry_8;
        *sixteens ^= carry_16;
    }

    #[inline(always)]
    fn total(&self) -> u32 {
        self.planes
            .iter()
            .enumerate()
            .map(|(weight, plane)| plane.count_ones() << weight)
            .sum()
    }
}

/// Counts the legal moves of the side owning `own` without listing them.
///
/// For one trailing marble and direction at most one inline group size can
/// move (a group of k needs its k-th cell ahead own and the (k+1)-th not), so
/// the three inline sets of a direction are disjoint and merge into one. Each
/// bit is then counted at most 6 (inline) + 24 (broadside first cell) = 30 times.
#[inline]
fn count(own: u128, opp: u128) -> u32 {
    let free = !(own | opp);
    let empty = free & BOARD_MASK;
    let mut sum = BitSum::default();
    let mut inline = [0u128; 6];
    macro_rules! inline {
        ($d:literal) => {
            let [one, two, three] = inline_sets::<$d>(own, opp, free, empty);
            inline[$d] = one | two | three;
        };
    }
    for_each_direction!(inline);
    let ready = ready_to_step(own, empty);
    let mut broadside = [0u128; 24];
    let mut next = 0;
    macro_rules! broadside {
        ($a:literal, $d:literal) => {
            let [two, three] = broadside_sets::<$a, $d>(&ready);
            broadside[next] = two;
            broadside[next + 1] = three;
            next += 2;
        };
    }
    for_each_broadside!(broadside);
    debug_assert_eq!(next, 24);
    sum.add4(inline[0], inline[1], inline[2], inline[3]);
    sum.add4(inline[4], inline[5], broadside[0], broadside[1]);
    for four in broadside[2..22].chunks_exact(4) {
        sum.add4(four[0], four[1], four[2], four[3]);
    }
    sum.add4(broadside[22], broadside[23], 0, 0);
    sum.total()
}

impl Position {
    /// A position from raw parts; the caller guarantees disjoint on-board
    /// bitboards and consistent counts.
    pub(crate) fn from_parts(
        marbles: [u128; 2],
        side: Color,
        off: [u8; 2],
        rules: Rules,
    ) -> Position {
        debug_assert_eq!(marbles[0] & marbles[1], 0);
        debug_assert_eq!((marbles[0] | marbles[1]) & !BOARD_MASK, 0);
        let mut position = Position {
            marbles,
            side,
            off,
            ply: 0,
            plies_since_push_off: 0,
            rules,
            hash: 0,
        };
        position.hash = position.compute_hash();
        position
    }

    /// A position from its contents, checked: `cell_masks` holds the marbles
    /// of Black and White (by [`Color::index`]) with bit `i` for the cell of
    /// [`Cell::index`] `i` (0 = A1 … 60 = I9), the compact form that stored
    /// games use (see [`Position::cell_mask`]). Builds the bitboards directly
    /// rather than through the position text, so loading stored games costs
    /// no formatting and parsing.
    ///
    /// Refuses bits above 60, a cell held by both colours, and a colour with
    /// more than 14 marbles on the board or on and off it together. The hash
    /// is computed from the contents.
    pub fn from_cell_masks(
        cell_masks: [u64; 2],
        side: Color,
        off: [u8; 2],
        rules: Rules,
        ply: u32,
        plies_since_push_off: u32,
    ) -> Result<Position, BoardError> {
        let mut marbles = [0u128; 2];
        for color in Color::ALL {
            let mask = cell_masks[color.index()];
            if mask >> CELL_COUNT != 0 {
                return Err(BoardError::OffBoard {
                    color,
                    index: 63 - mask.leading_zeros(),
                });
            }
            marbles[color.index()] = bits(u128::from(mask))
                .fold(0, |board, index| board | 1 << CELL_BIT[index as usize]);
        }
        let both = cell_masks[0] & cell_masks[1];
        if both != 0 {
            let index = both.trailing_zeros() as usize;
            return Err(BoardError::Overlap(
                Cell::new(index).expect("bits above 60 were refused"),
            ));
        }
        for color in Color::ALL {
            let on_board = cell_masks[color.index()].count_ones();
            check_marble_total(color, on_board, off[color.index()])?;
        }
        Ok(Position::from_parts(marbles, side, off, rules)
            .with_ply_counters(ply, plies_since_push_off))
    }

    /// The marbles of `color` with bit `i` for the cell of [`Cell::index`]
    /// `i`: the compact form read by [`Position::from_cell_masks`].
    pub fn cell_mask(&self, color: Color) -> u64 {
        self.marbles(color)
            .fold(0, |mask, cell| mask | 1 << cell.index())
    }

    /// The same position with other marbles on the board (hash recomputed).
    pub(crate) fn with_marbles(self, marbles: [u128; 2]) -> Position {
        let mut position = Position { marbles, ..self };
        position.hash = position.compute_hash();
        position
    }

    /// The same position under other rules.
    pub fn with_rules(self, rules: Rules) -> Position {
        Position { rules, ..self }
    }

    /// The same position with other ply counters (for games resumed from a
    /// position text, which does not carry them).
    pub fn with_ply_counters(self, ply: u32, plies_since_push_off: u32) -> Position {
        Position {
            ply,
            plies_since_push_off,
            ..self
        }
    }

    /// The rules in force.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The player to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// How many marbles of `color` have been pushed off the board.
    pub fn marbles_off(&self, color: Color) -> u8 {
        self.off[color.index()]
    }

    /// Plies played since the start (or since the position text was read).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Plies since a marble was last pushed off.
    pub fn plies_since_push_off(&self) -> u32 {
        self.plies_since_push_off
    }

    /// The incrementally maintained Zobrist hash.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The Zobrist hash computed from scratch; always equals [`Position::hash`].
    pub fn compute_hash(&self) -> u64 {
        let mut hash = 0;
        for color in Color::ALL {
            for bit in bits(self.marbles[color.index()]) {
                hash ^= ZOBRIST.marble[color.index()][bit as usize];
            }
            hash ^= ZOBRIST.off[color.index()][usize::from(self.off[color.index()])];
        }
        if self.side == Color::White {
            hash ^= ZOBRIST.white_to_move;
        }
        hash
    }

    /// The marble on `cell`, if any.
    pub fn at(&self, cell: Cell) -> Option<Color> {
        let bit = cell.bit();
        Color::ALL
            .into_iter()
            .find(|color| self.marbles[color.index()] & bit != 0)
    }

    /// The cells holding marbles of `color`, in cell order.
    pub fn marbles(&self, color: Color) -> impl Iterator<Item = Cell> + use<> {
        bits(self.marbles[color.index()]).filter_map(Cell::from_bit)
    }

    /// The marbles of `color` as a bitboard in the layout of
    /// [`crate::bitboard`], for evaluations that work on whole bitboards.
    pub fn bitboard(&self, color: Color) -> u128 {
        self.marbles[color.index()]
    }

    /// Number of marbles of `color` on the board.
    pub fn marble_count(&self, color: Color) -> u32 {
        self.marbles[color.index()].count_ones()
    }

    /// Cells of row E held by `color`.
    pub fn row_e_count(&self, color: Color) -> u32 {
        (self.marbles[color.index()] & ROW_E_MASK).count_ones()
    }

    /// The game's end under its rules, not counting a side without moves.
    fn ending_by_rules(&self) -> Option<Ending> {
        let black_off = self.off[Color::Black.index()];
        let white_off = self.off[Color::White.index()];
        // The player who pushed off more (= whose opponent has more off) wins.
        let by_marbles_off = || match black_off.cmp(&white_off) {
            std::cmp::Ordering::Less => Outcome::win_of(Color::Black),
            std::cmp::Ordering::Greater => Outcome::win_of(Color::White),
            std::cmp::Ordering::Equal => Outcome::draw_of_all(2),
        };
        if black_off.max(white_off) >= self.rules.marbles_to_win {
            return Some(Ending::new(by_marbles_off(), EndReason::MarblesOff));
        }
        if self.rules.max_plies.is_some_and(|limit| self.ply >= limit) {
            return Some(Ending::new(by_marbles_off(), EndReason::MoveLimit));
        }
        if self
            .rules
            .no_push_off_plies
            .is_some_and(|limit| self.plies_since_push_off >= limit)
        {
            let black = self.row_e_count(Color::Black);
            let white = self.row_e_count(Color::White);
            let outcome = match black.cmp(&white) {
                std::cmp::Ordering::Less => Outcome::win_of(Color::White),
                std::cmp::Ordering::Greater => Outcome::win_of(Color::Black),
                std::cmp::Ordering::Equal => Outcome::draw_of_all(2),
            };
            return Some(Ending::new(outcome, EndReason::NoPushOff));
        }
        None
    }

    /// `Some` once the game is over: who won (or a draw) and why. See [`Rules`].
    pub fn ending(&self) -> Option<Ending> {
        self.ending_by_rules().or_else(|| {
            (self.count_moves() == 0).then(|| {
                Ending::new(
                    Outcome::win_of(self.side.opponent()),
                    EndReason::NoLegalMoves,
                )
            })
        })
    }

    /// Whether the game is over.
    pub fn is_game_over(&self) -> bool {
        self.ending().is_some()
    }

    fn count_moves(&self) -> u32 {
        let us = self.side.index();
        count(self.marbles[us], self.marbles[us ^ 1])
    }

    /// Number of legal moves, without listing them (fast; used by perft).
    pub fn count_legal_moves(&self) -> usize {
        if self.ending_by_rules().is_some() {
            0
        } else {
            self.count_moves() as usize
        }
    }

    /// Every legal move, in increasing action order; empty once the game is over.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = self.legal_moves_unordered();
        list.sort();
        list
    }

    /// The legal moves in generation order, which is deterministic (the same
    /// for the same position) but not the action order: for perft and the
    /// search, which need no order and save the sort.
    pub fn legal_moves_unordered(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.ending_by_rules().is_none() {
            let us = self.side.index();
            generate(self.marbles[us], self.marbles[us ^ 1], &mut list);
        }
        list
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv).is_ok()
    }

    /// `Ok` if `mv` is legal here, otherwise why not. Works cell by cell,
    /// independently of the bitboard move generator.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        if self.ending().is_some() {
            return Err(IllegalMove::GameOver);
        }
        let mover = self.side;
        for cell in mv.cells() {
            match self.at(cell) {
                None => return Err(IllegalMove::NoMarble(cell)),
                Some(owner) if owner != mover => {
                    return Err(IllegalMove::NotYours { cell, owner, mover });
                }
                Some(_) => {}
            }
        }
        let dir = mv.direction();
        if mv.is_broadside() {
            for cell in mv.cells() {
                let dest = cell
                    .neighbour(dir)
                    .ok_or(IllegalMove::OwnMarbleOffBoard(cell))?;
                if self.at(dest).is_some() {
                    return Err(IllegalMove::BroadsideOccupied(dest));
                }
            }
            return Ok(());
        }
        let leading = mv.cells().last().expect("groups are never empty");
        let ahead = leading
            .neighbour(dir)
            .ok_or(IllegalMove::OwnMarbleOffBoard(leading))?;
        match self.at(ahead) {
            None => Ok(()),
            Some(owner) if owner == mover => Err(IllegalMove::BlockedByOwn(ahead)),
            Some(_) => {
                let pushers = mv.group_len() as u8;
                let mut opponents = 1u8;
                let mut last = ahead;
                let behind = loop {
                    match last.neighbour(dir) {
                        Some(next) if self.at(next) == Some(mover.opponent()) => {
                            opponents += 1;
                            last = next;
                        }
                        other => break other,
                    }
                };
                if opponents == pushers {
                    Err(IllegalMove::Pac(pushers))
                } else if opponents > pushers {
                    Err(IllegalMove::NotOutnumbering { pushers, opponents })
                } else {
                    match behind {
                        Some(cell) if self.at(cell).is_some() => {
                            Err(IllegalMove::PushBlockedByOwn(cell))
                        }
                        _ => Ok(()),
                    }
                }
            }
        }
    }

    /// Where the opponent's marbles pushed by inline move `mv` end up:
    /// `None` if `mv` pushes nothing, `Some(None)` if the last one goes off the
    /// board, `Some(Some(bit))` otherwise. `mv` must be legal.
    #[inline]
    fn push_destination(&self, mv: Move) -> Option<Option<u8>> {
        let info = mv.info();
        let opp = self.marbles[self.side.index() ^ 1];
        if info.broadside || opp >> info.ahead[0] & 1 == 0 {
            return None;
        }
        let dest = if opp >> info.ahead[1] & 1 == 0 {
            info.ahead[1]
        } else {
            info.ahead[2]
        };
        Some((BOARD_MASK >> dest & 1 == 1).then_some(dest))
    }

    /// Whether `mv` moves opponent marbles. `mv` must be legal.
    pub fn is_push(&self, mv: Move) -> bool {
        self.push_destination(mv).is_some()
    }

    /// Whether `mv` pushes an opponent marble off the board. `mv` must be legal.
    pub fn is_push_off(&self, mv: Move) -> bool {
        self.push_destination(mv) == Some(None)
    }

    /// The marbles that `attacker` could push off the board with one move if
    /// it were its turn (whoever is to move): the cell of each marble that
    /// would fall, in cell order. Empty once the game is over. The network
    /// reads these as input planes (threats it may take, and threats it must
    /// meet).
    pub fn push_off_targets(&self, attacker: Color) -> impl Iterator<Item = Cell> + use<> {
        bits(self.push_off_target_board(attacker)).filter_map(Cell::from_bit)
    }

    /// The marbles each side could push off with one move if it were its
    /// turn, Black's first ([`Position::push_off_targets`] of both, in the
    /// type both engines give: [`PushOffThreat`]).
    pub fn push_off_threats(&self) -> Vec<PushOffThreat> {
        threats_of(Color::ALL.map(|attacker| self.push_off_target_board(attacker)))
    }

    /// [`Position::push_off_targets`] as a bitboard.
    fn push_off_target_board(&self, attacker: Color) -> u128 {
        if self.ending_by_rules().is_some() {
            return 0;
        }
        let us = attacker.index();
        push_off_target_bits(self.marbles[us], self.marbles[us ^ 1])
    }

    /// The position after the legal move `mv` (copy-make).
    pub fn play(&self, mv: Move) -> Position {
        debug_assert!(self.is_legal(mv), "illegal move {mv} in {self}");
        let us = self.side.index();
        let them = us ^ 1;
        let info = mv.info();
        let mut next = *self;
        next.marbles[us] ^= info.from_bits ^ info.to_bits;
        next.hash ^= ACTION_HASH[us][mv.action()];
        let mut pushed_off = false;
        if let Some(dest) = self.push_destination(mv) {
            // The opponent's line moves one cell: its first cell is now ours,
            // and one marble appears at `dest` or leaves the board.
            let first = info.ahead[0] as usize;
            next.marbles[them] ^= 1u128 << first;
            next.hash ^= ZOBRIST.marble[them][first];
            match dest {
                Some(bit) => {
                    next.marbles[them] |= 1u128 << bit;
                    next.hash ^= ZOBRIST.marble[them][usize::from(bit)];
                }
                None => {
                    let off = usize::from(self.off[them]);
                    next.hash ^= ZOBRIST.off[them][off] ^ ZOBRIST.off[them][off + 1];
                    next.off[them] += 1;
                    pushed_off = true;
                }
            }
        }
        next.side = self.side.opponent();
        next.hash ^= ZOBRIST.white_to_move;
        next.ply += 1;
        next.plies_since_push_off = if pushed_off {
            0
        } else {
            self.plies_since_push_off + 1
        };
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Direction, Layout};

    #[test]
    fn push_off_targets_are_the_marbles_each_push_off_drops() {
        // Worked out cell by cell: walk the pushed line from the group's
        // front to the marble with the rim behind it.
        let walked = |position: &Position, attacker: Color| {
            let turned = Position {
                side: attacker,
                ..*position
            };
            let mut cells = Vec::new();
            for &mv in turned.legal_moves().iter() {
                if !turned.is_push_off(mv) {
                    continue;
                }
                let dir = mv.direction();
                let front = mv
                    .cells()
                    .find(|cell| {
                        cell.neighbour(dir)
                            .is_none_or(|next| turned.at(next) != Some(attacker))
                    })
                    .unwrap();
                let mut last = front.neighbour(dir).unwrap();
                while let Some(next) = last.neighbour(dir) {
                    if turned.at(next) != Some(attacker.opponent()) {
                        break;
                    }
                    last = next;
                }
                assert!(last.neighbour(dir).is_none(), "{mv} in {turned}");
                cells.push(last);
            }
            cells.sort();
            cells.dedup();
            cells
        };
        let mut found = 0;
        for seed in 0..12 {
            let start = Position::start(Layout::NAMED[seed as usize % 3], Rules::default());
            for position in crate::playout::random_playout(&start, 400, seed) {
                for attacker in Color::ALL {
                    let targets: Vec<Cell> = position.push_off_targets(attacker).collect();
                    assert_eq!(
                        targets,
                        walked(&position, attacker),
                        "{attacker:?} in {position}"
                    );
                    found += targets.len();
                }
            }
        }
        assert!(found > 100, "only {found} targets in the playouts");
    }

    #[test]
    fn rules_are_described_in_words_with_every_limit() {
        let plain = Rules::default();
        assert_eq!(
            plain.describe(),
            "the first to push off 6 marbles wins; no move limit"
        );
        let limited = Rules {
            marbles_to_win: 4,
            max_plies: Some(200),
            no_push_off_plies: Some(50),
        };
        assert_eq!(
            limited.describe(),
            "the first to push off 4 marbles wins; after 200 plies the player who pushed off more \
             wins (equal: draw); after 50 plies without a push-off the player holding more of row \
             E wins"
        );
    }

    #[test]
    fn rule_values_outside_their_range_are_refused_naming_the_key_and_range() {
        assert_eq!(Rules::default().validate(), Ok(()));
        let limits = Rules {
            marbles_to_win: MARBLES_PER_SIDE,
            max_plies: Some(1),
            no_push_off_plies: Some(1),
        };
        assert_eq!(limits.validate(), Ok(()));
        for (rules, message) in [
            (
                Rules {
                    marbles_to_win: 0,
                    ..Rules::default()
                },
                "marbles_to_win is 0, must be 1 to 14",
            ),
            (
                Rules {
                    marbles_to_win: MARBLES_PER_SIDE + 1,
                    ..Rules::default()
                },
                "marbles_to_win is 15, must be 1 to 14",
            ),
            (
                Rules {
                    max_plies: Some(0),
                    ..Rules::default()
                },
                "max_plies is 0, must be at least 1 (leave it out for no limit)",
            ),
            (
                Rules {
                    no_push_off_plies: Some(0),
                    ..Rules::default()
                },
                "no_push_off_plies is 0, must be at least 1 (leave it out for none)",
            ),
        ] {
            assert_eq!(rules.validate().unwrap_err().to_string(), message);
        }
        // Targets per side: each one is checked.
        let err = check_rule_values(&[6, 0, 4], None, None).unwrap_err();
        assert_eq!((err.key, err.value), ("marbles_to_win", 0));
    }

    fn cell(name: &str) -> Cell {
        name.parse().unwrap()
    }

    /// A position with Black's and White's marbles on the named cells (space
    /// separated), `side` to move.
    pub(crate) fn setup(black: &str, white: &str, side: Color) -> Position {
        let mut marbles = [0u128; 2];
        for (color, list) in [(0, black), (1, white)] {
            for name in list.split_whitespace() {
                marbles[color] |= cell(name).bit();
            }
        }
        Position::from_parts(marbles, side, [0, 0], Rules::default())
    }

    /// The move written in Aba-Pro, parsed in `position` (legal or not).
    fn check(position: &Position, text: &str) -> Result<Position, IllegalMove> {
        match position.parse_move(text) {
            Ok(mv) => Ok(position.play(mv)),
            Err(crate::MoveTextError {
                problem: crate::MoveProblem::Illegal(reason),
                ..
            }) => Err(reason),
            Err(other) => panic!("{text}: {other}"),
        }
    }

    fn cells_of(position: &Position, color: Color) -> String {
        position
            .marbles(color)
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn standard_start_has_44_moves() {
        let position = Position::start(Layout::Standard, Rules::default());
        let moves = position.legal_moves();
        assert_eq!(moves.len(), 44);
        assert_eq!(position.count_legal_moves(), 44);
        let singles = moves.iter().filter(|m| m.group_len() == 1).count();
        let inline = moves
            .iter()
            .filter(|m| m.group_len() > 1 && !m.is_broadside())
            .count();
        let broadside = moves.iter().filter(|m| m.is_broadside()).count();
        assert_eq!((singles, inline, broadside), (14, 20, 10));
        assert!(moves.windows(2).all(|w| w[0] < w[1]), "sorted by action");
        for &mv in moves.iter() {
            assert!(position.is_legal(mv));
        }
        let legal: Vec<Move> = Move::all().filter(|&m| position.is_legal(m)).collect();
        assert_eq!(legal, moves.to_vec());
    }

    #[test]
    fn three_push_one_into_an_empty_cell_even_with_a_marble_beyond() {
        let position = setup("E1 E2 E3", "E4 E6", Color::Black);
        let next = check(&position, "E1E2").unwrap();
        assert_eq!(cells_of(&next, Color::Black), "E2 E3 E4");
        assert_eq!(cells_of(&next, Color::White), "E5 E6");
        assert!(position.is_push(position.parse_move("E1E2").unwrap()));
        assert!(!position.is_push_off(position.parse_move("E1E2").unwrap()));
    }

    #[test]
    fn own_marble_behind_the_opponent_blocks_the_push() {
        let position = setup("E1 E2 E3 E5", "E4", Color::Black);
        assert_eq!(
            check(&position, "E1E2"),
            Err(IllegalMove::PushBlockedByOwn(cell("E5")))
        );
        let position = setup("E1 E2 E3 E6", "E4 E5", Color::Black);
        assert_eq!(
            check(&position, "E1E2"),
            Err(IllegalMove::PushBlockedByOwn(cell("E6")))
        );
    }

    #[test]
    fn a_pac_cannot_push() {
        let position = setup("E1", "E2", Color::Black);
        assert_eq!(check(&position, "E1E2"), Err(IllegalMove::Pac(1)));
        let position = setup("E1 E2", "E3 E4", Color::Black);
        assert_eq!(check(&position, "E1E2"), Err(IllegalMove::Pac(2)));
        let position = setup("E1 E2 E3", "E4 E5 E6", Color::Black);
        assert_eq!(check(&position, "E1E2"), Err(IllegalMove::Pac(3)));
        let position = setup("E1 E2", "E3 E4 E5", Color::Black);
        assert_eq!(
            check(&position, "E1E2"),
            Err(IllegalMove::NotOutnumbering {
                pushers: 2,
                opponents: 3
            })
        );
        // The side to move matters: White's pair cannot push Black's pair either way.
        let position = setup("E3 E4", "E1 E2", Color::White);
        assert_eq!(check(&position, "E1E2"), Err(IllegalMove::Pac(2)));
    }

    #[test]
    fn four_in_line_push_with_their_front_three() {
        let position = setup("E1 E2 E3 E4", "E5 E6", Color::Black);
        let next = check(&position, "E2E3").unwrap();
        assert_eq!(cells_of(&next, Color::Black), "E1 E3 E4 E5");
        assert_eq!(cells_of(&next, Color::White), "E6 E7");
        // Naming the rearmost marble names the group E1-E3, which its own E4 blocks.
        assert_eq!(
            check(&position, "E1E2"),
            Err(IllegalMove::BlockedByOwn(cell("E4")))
        );
        assert_eq!(
            check(&position, "e1-e3,e4"),
            Err(IllegalMove::BlockedByOwn(cell("E4")))
        );
    }

    #[test]
    fn pushing_off_the_edge_counts_the_marble_off() {
        // 3 push 1 off.
        let position = setup("E6 E7 E8", "E9", Color::Black).with_ply_counters(10, 10);
        let mv = position.parse_move("E6E7").unwrap();
        assert!(position.is_push_off(mv));
        let next = position.play(mv);
        assert_eq!(next.marbles_off(Color::White), 1);
        assert_eq!(next.marble_count(Color::White), 0);
        assert_eq!(next.plies_since_push_off(), 0);
        assert_eq!(next.ply(), 11);
        assert_eq!(next.hash(), next.compute_hash());
        // 2 push 1 off.
        let position = setup("E7 E8", "E9", Color::Black);
        let next = check(&position, "E7E8").unwrap();
        assert_eq!(next.marbles_off(Color::White), 1);
        assert_eq!(cells_of(&next, Color::Black), "E8 E9");
        // 3 push 2, the last goes off.
        let position = setup("E5 E6 E7", "E8 E9", Color::Black);
        let next = check(&position, "E5E6").unwrap();
        assert_eq!(next.marbles_off(Color::White), 1);
        assert_eq!(cells_of(&next, Color::White), "E9");
        assert_eq!(cells_of(&next, Color::Black), "E6 E7 E8");
        // Down the board towards row A, diagonally.
        let position = setup("A1", "B2 C3 D4", Color::White);
        let next = check(&position, "D4C3").unwrap();
        assert_eq!(next.marbles_off(Color::Black), 1);
        assert_eq!(cells_of(&next, Color::White), "A1 B2 C3");
        assert_eq!(next.side_to_move(), Color::Black);
    }

    #[test]
    fn broadside_needs_every_destination_empty_and_on_the_board() {
        let position = setup("C3 C4 C5", "D6", Color::Black);
        assert_eq!(
            check(&position, "C3C5D4"),
            Err(IllegalMove::BroadsideOccupied(cell("D6")))
        );
        let position = setup("C3 C4 C5 D5", "", Color::Black);
        assert_eq!(
            check(&position, "C3C5D4"),
            Err(IllegalMove::BroadsideOccupied(cell("D5")))
        );
        let position = setup("C3 C4 C5", "", Color::Black);
        let next = check(&position, "C3C5D4").unwrap();
        assert_eq!(cells_of(&next, Color::Black), "D4 D5 D6");
        // B6 would step SE off the board.
        let position = setup("B5 B6", "", Color::Black);
        assert_eq!(
            check(&position, "B5B6A5"),
            Err(IllegalMove::OwnMarbleOffBoard(cell("B6")))
        );
        let next = check(&position, "b5-b6,a4-a5").unwrap();
        assert_eq!(cells_of(&next, Color::Black), "A4 A5");
    }

    #[test]
    fn gap_between_opponent_and_own_marble_lets_the_push_through() {
        let position = setup("E1 E2 E5", "E3", Color::Black);
        let next = check(&position, "E1E2").unwrap();
        assert_eq!(cells_of(&next, Color::White), "E4");
        assert_eq!(cells_of(&next, Color::Black), "E2 E3 E5");
    }

    #[test]
    fn own_marbles_never_leave_the_board() {
        // Inline at the edge with nothing ahead but the edge.
        let position = setup("E8 E9", "", Color::Black);
        assert_eq!(
            check(&position, "E8E9"),
            Err(IllegalMove::OwnMarbleOffBoard(cell("E9")))
        );
        assert_eq!(
            check(&position, "e9,e8"),
            Err(IllegalMove::BlockedByOwn(cell("E8")))
        );
        let position = setup("A1 B2 C3", "", Color::Black);
        assert_eq!(
            check(&position, "C3B2"),
            Err(IllegalMove::OwnMarbleOffBoard(cell("A1")))
        );
        // Such moves are not even in the action space.
        assert_eq!(Move::inline(cell("E9"), Direction::E, 1), None);
        assert_eq!(Move::inline(cell("C3"), Direction::SW, 3), None);
        // A lone marble in a corner has exactly its three inward moves.
        let position = setup("A1", "", Color::Black);
        assert_eq!(position.legal_moves().len(), 3);
    }

    #[test]
    fn marbles_off_ends_the_game() {
        let over = Position::from_fen("5/6/7/8/9/8/7/bbbbbb/bbbbb w 0 6").unwrap();
        assert_eq!(
            over.ending(),
            Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::MarblesOff
            })
        );
        assert!(over.legal_moves().is_empty());
        assert_eq!(over.count_legal_moves(), 0);
        let mv = Move::inline(cell("A1"), Direction::NE, 1).unwrap();
        assert_eq!(over.check_move(mv), Err(IllegalMove::GameOver));
        let close = Position::from_fen("5/6/7/8/4w4/8/7/bbbbbb/bbbbb w 0 5").unwrap();
        assert_eq!(close.ending(), None);
        // Handicap: fewer push-offs needed.
        let handicap = close.with_rules(Rules {
            marbles_to_win: 5,
            ..Rules::default()
        });
        assert_eq!(
            handicap.ending(),
            Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::MarblesOff
            })
        );
        // The winning push itself.
        let position = Position::from_fen("5/6/7/8/5bbbw/8/7/6/5 b 0 5").unwrap();
        let next = position.play(position.parse_move("E6E7").unwrap());
        assert_eq!(next.marbles_off(Color::White), 6);
        assert_eq!(
            next.ending(),
            Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::MarblesOff
            })
        );
    }

    #[test]
    fn move_limit_is_adjudicated_by_marbles_off() {
        let rules = Rules {
            max_plies: Some(2),
            ..Rules::default()
        };
        let start = Position::start(Layout::Standard, rules);
        let first = start.play(start.legal_moves()[0]);
        assert_eq!(first.ending(), None);
        let second = first.play(first.legal_moves()[0]);
        assert_eq!(second.ply(), 2);
        assert_eq!(
            second.ending(),
            Some(Ending {
                outcome: Outcome::draw_of_all(2),
                reason: EndReason::MoveLimit
            })
        );
        assert!(second.legal_moves().is_empty());
        let ahead = Position::from_fen("5/6/7/8/9/8/7/6/bbbbb b 1 3")
            .unwrap()
            .with_rules(Rules {
                max_plies: Some(10),
                ..Rules::default()
            });
        assert_eq!(ahead.with_ply_counters(9, 0).ending(), None);
        assert_eq!(
            ahead.with_ply_counters(10, 0).ending(),
            Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::MoveLimit
            })
        );
    }

    #[test]
    fn no_push_off_rule_is_decided_by_row_e() {
        let rules = Rules {
            no_push_off_plies: Some(15),
            ..Rules::default()
        };
        let position = Position::from_fen("5/6/7/8/bbw6/8/7/6/w4 b 0 0")
            .unwrap()
            .with_rules(rules);
        assert_eq!(position.row_e_count(Color::Black), 2);
        assert_eq!(position.with_ply_counters(30, 14).ending(), None);
        assert_eq!(
            position.with_ply_counters(30, 15).ending(),
            Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::NoPushOff
            })
        );
        let level = Position::from_fen("5/6/7/8/bw7/8/7/6/5 w 0 0")
            .unwrap()
            .with_rules(rules)
            .with_ply_counters(15, 15);
        assert_eq!(
            level.ending(),
            Some(Ending {
                outcome: Outcome::draw_of_all(2),
                reason: EndReason::NoPushOff
            })
        );
        assert!(level.legal_moves().is_empty());
        // The counter runs with play and restarts at a push-off.
        let start = Position::start(
            Layout::Standard,
            Rules {
                no_push_off_plies: Some(3),
                ..Rules::default()
            },
        );
        let mut position = start;
        for _ in 0..3 {
            assert_eq!(position.ending(), None);
            position = position.play(position.legal_moves()[0]);
        }
        assert_eq!(position.plies_since_push_off(), 3);
        assert_eq!(
            position.ending(),
            Some(Ending {
                outcome: Outcome::draw_of_all(2),
                reason: EndReason::NoPushOff
            })
        );
        // Checked after marbles off and the move limit.
        let both = position.with_rules(Rules {
            max_plies: Some(3),
            no_push_off_plies: Some(3),
            ..Rules::default()
        });
        assert_eq!(
            both.ending().map(|ending| ending.reason),
            Some(EndReason::MoveLimit)
        );
    }

    #[test]
    fn a_side_without_moves_loses() {
        // Black's last marble, in a corner behind three backed-up white pairs.
        let position = Position::from_fen("5/6/7/8/9/8/w1w4/ww4/bww2 b 13 0")
            .unwrap()
            .with_rules(Rules {
                marbles_to_win: 14,
                ..Rules::default()
            });
        assert!(position.legal_moves().is_empty());
        assert_eq!(
            position.ending(),
            Some(Ending {
                outcome: Outcome::win_of(Color::White),
                reason: EndReason::NoLegalMoves
            })
        );
    }

    #[test]
    fn play_keeps_counters_and_hash() {
        let mut position = Position::start(Layout::BelgianDaisy, Rules::default());
        for ply in 1..=40 {
            let moves = position.legal_moves();
            position = position.play(moves[ply * 7 % moves.len()]);
            assert_eq!(position.ply(), ply as u32);
            assert_eq!(position.hash(), position.compute_hash());
        }
        let standard = Position::start(Layout::Standard, Rules::default());
        let white_to_move =
            Position::from_fen(&standard.to_string().replace(" b ", " w ")).unwrap();
        assert_ne!(standard.hash(), white_to_move.hash());
        let one_off = Position::from_fen("5/6/7/8/9/8/7/6/5 b 1 0").unwrap();
        let none_off = Position::from_fen("5/6/7/8/9/8/7/6/5 b 0 0").unwrap();
        assert_ne!(one_off.hash(), none_off.hash());
    }

    /// `position` rebuilt from its cell masks and other parts.
    fn rebuilt(position: &Position) -> Result<Position, BoardError> {
        Position::from_cell_masks(
            [
                position.cell_mask(Color::Black),
                position.cell_mask(Color::White),
            ],
            position.side_to_move(),
            [
                position.marbles_off(Color::Black),
                position.marbles_off(Color::White),
            ],
            position.rules(),
            position.ply(),
            position.plies_since_push_off(),
        )
    }

    #[test]
    fn cell_masks_round_trip_every_position_of_random_games() {
        let rules = Rules {
            marbles_to_win: 6,
            max_plies: Some(200),
            no_push_off_plies: Some(50),
        };
        for (seed, layout) in Layout::NAMED.into_iter().enumerate() {
            let start = Position::start(layout, rules);
            for position in crate::random_playout(&start, 200, seed as u64) {
                // Equality covers the bitboards, counters, rules and hash.
                assert_eq!(rebuilt(&position), Ok(position), "{position}");
            }
        }
        let mask = setup("A1 I9", "E5", Color::White).cell_mask(Color::Black);
        assert_eq!(mask, 1 | 1 << 60, "A1 is bit 0, I9 bit 60");
    }

    #[test]
    fn cell_masks_refuse_impossible_boards() {
        let build = |black: u64, white: u64, off: [u8; 2]| {
            Position::from_cell_masks([black, white], Color::Black, off, Rules::default(), 0, 0)
        };
        assert_eq!(
            build(1 << 61, 0, [0, 0]),
            Err(BoardError::OffBoard {
                color: Color::Black,
                index: 61
            })
        );
        assert_eq!(
            build(0, 1 << 63 | 1, [0, 0]),
            Err(BoardError::OffBoard {
                color: Color::White,
                index: 63
            })
        );
        let e5 = cell("E5");
        assert_eq!(
            build(1 << e5.index() | 1, 1 << e5.index(), [0, 0]),
            Err(BoardError::Overlap(e5))
        );
        assert_eq!(
            build((1 << 15) - 1, 0, [0, 0]),
            Err(BoardError::TooManyOnBoard {
                color: Color::Black,
                count: 15
            })
        );
        assert_eq!(
            build(0, 0b111, [0, 12]),
            Err(BoardError::TooManyMarbles {
                color: Color::White,
                on_board: 3,
                off: 12
            })
        );
        // Off counts beyond 14 are refused even without marbles on the board.
        assert!(build(0, 0, [15, 0]).is_err());
        assert_eq!(
            build(0, 1 << e5.index(), [0, 13]).map(|position| position.at(e5)),
            Ok(Some(Color::White))
        );
    }
}
