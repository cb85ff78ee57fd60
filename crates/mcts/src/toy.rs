//! Small complete games for tests, examples and smoke tests of pipelines that
//! are generic over [`Game`]: tic-tac-toe and connect-k on a small board
//! (both solved by brute force in this crate's tests), [`CoinRow`] for three
//! to five sides and for partners moving in a row (solved exactly, max^n, in
//! `tests/many_sides.rs`), [`HashEvaluator`],
//! an evaluator with varied but fixed answers for testing code built on the
//! search, and [`SlowingEvaluator`], one whose evaluations take time and
//! slow, for tests of time limits.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::error::EvalError;
use crate::eval::{EvalBatch, Evaluator, UniformEvaluator};
use crate::values::Wdl;
use crate::values::{MAX_SIDES, SideShares, SideValues, Values, ZeroSum};
use crate::{Game, Side, Terminal};

/// A fixed pseudo-random function of the state: logits in `[-1, 1]` and a WDL
/// that vary from state to state, the same answer for the same state whatever
/// batch it arrives in. Tests use it where a uniform evaluator would hide
/// mistakes (a mixed-up batch order, a search that ignores its priors).
#[derive(Clone, Copy, Debug, Default)]
pub struct HashEvaluator;

impl<G: Game + Hash> Evaluator<G> for HashEvaluator
where
    G::Values: HashedEstimate,
{
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        for slot in batch.slots_mut() {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            slot.state.hash(&mut hasher);
            let hash = hasher.finish();
            for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
                *logit = 2.0 * unit_interval(hash ^ action as u64) - 1.0;
            }
            *slot.value = G::Values::hashed_estimate(hash, slot.state.sides());
        }
        Ok(())
    }
}

/// An evaluator for tests of time limits: [`UniformEvaluator`]'s answers,
/// each position taking `each` (it sleeps rather than computes, so that
/// its time holds on a busy machine), and `slowdown` times that once
/// `fast` positions are evaluated, as a real search slows when its tree
/// grows. With `fast` at [`crate::PROBE_SIMULATIONS`], a timed search
/// planned from its probe's speed takes `slowdown` times its plan.
#[derive(Debug)]
pub struct SlowingEvaluator {
    pub each: std::time::Duration,
    pub fast: usize,
    pub slowdown: f64,
    evaluated: std::sync::atomic::AtomicUsize,
}

impl SlowingEvaluator {
    pub fn new(each: std::time::Duration, fast: usize, slowdown: f64) -> SlowingEvaluator {
        SlowingEvaluator {
            each,
            fast,
            slowdown,
            evaluated: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Positions evaluated so far.
    pub fn evaluated(&self) -> usize {
        self.evaluated.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl<G: Game> Evaluator<G> for SlowingEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        let before = self
            .evaluated
            .fetch_add(batch.len(), std::sync::atomic::Ordering::Relaxed);
        let each = match before < self.fast {
            true => self.each,
            false => self.each.mul_f64(self.slowdown),
        };
        std::thread::sleep(each * batch.len() as u32);
        UniformEvaluator.evaluate(batch)
    }
}

/// Values whose estimate [`HashEvaluator`] can make up from a hash.
pub trait HashedEstimate: Values {
    fn hashed_estimate(hash: u64, sides: usize) -> Self::Estimate;
}

impl HashedEstimate for ZeroSum {
    fn hashed_estimate(hash: u64, _sides: usize) -> Wdl {
        let win = 0.8 * unit_interval(hash.wrapping_add(1));
        let draw = 0.2 * unit_interval(hash.wrapping_add(2));
        Wdl {
            win,
            draw,
            loss: 1.0 - win - draw,
        }
    }
}

impl HashedEstimate for SideValues {
    fn hashed_estimate(hash: u64, sides: usize) -> SideShares {
        let mut win = [0.0; MAX_SIDES];
        for (side, share) in win.iter_mut().enumerate().take(sides) {
            *share = 0.1 + unit_interval(hash.wrapping_add(side as u64 + 1));
        }
        let draw = 0.2 * unit_interval(hash.wrapping_add(7));
        let total: f32 = win.iter().sum::<f32>() + draw;
        win.iter_mut().for_each(|share| *share /= total);
        SideShares {
            win,
            draw: draw / total,
        }
    }
}

/// A well-mixed number in `[0, 1)` from `x` (the splitmix64 finaliser).
fn unit_interval(mut x: u64) -> f32 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// `game` after playing `actions` in turn, or `None` if one is illegal.
pub fn play_all<G: Game>(mut game: G, actions: &[usize]) -> Option<G> {
    let mut legal = Vec::new();
    for &action in actions {
        game.legal_actions(&mut legal);
        if !legal.contains(&action) {
            return None;
        }
        game.apply(action);
    }
    Some(game)
}

/// Who moves after `moves` moves in a game of strict alternation.
fn mover_after(moves: u32) -> Side {
    if moves.is_multiple_of(2) {
        Side::FIRST
    } else {
        Side::SECOND
    }
}

/// Tic-tac-toe. Action `i` marks cell `i` (row-major, 0 is the top left).
/// [`Side::FIRST`] plays X.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TicTacToe {
    /// Bit `i` set: cell `i` holds a mark of that player.
    marks: [u16; 2],
}

impl TicTacToe {
    pub fn new() -> TicTacToe {
        TicTacToe::default()
    }

    /// The position after `actions`, or `None` if one of them is illegal.
    pub fn from_actions(actions: &[usize]) -> Option<TicTacToe> {
        play_all(TicTacToe::new(), actions)
    }

    fn occupied(&self) -> u16 {
        self.marks[0] | self.marks[1]
    }

    fn has_line(marks: u16) -> bool {
        LINES
            .iter()
            .any(|line| line.iter().all(|&cell| marks & (1 << cell) != 0))
    }
}

impl Game for TicTacToe {
    type Values = ZeroSum;
    const NUM_ACTIONS: usize = 9;

    fn to_play(&self) -> Side {
        mover_after(self.occupied().count_ones())
    }

    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        if self.terminal().is_none() {
            out.extend((0..9).filter(|&cell| self.occupied() & (1 << cell) == 0));
        }
    }

    fn apply(&mut self, action: usize) {
        debug_assert!(
            self.occupied() & (1 << action) == 0,
            "cell {action} is taken"
        );
        self.marks[self.to_play().index()] |= 1 << action;
    }

    fn terminal(&self) -> Option<Terminal> {
        if TicTacToe::has_line(self.marks[0]) {
            Some(Terminal::Win(Side::FIRST))
        } else if TicTacToe::has_line(self.marks[1]) {
            Some(Terminal::Win(Side::SECOND))
        } else if self.occupied() == 0x1ff {
            Some(Terminal::Draw)
        } else {
            None
        }
    }
}

impl fmt::Display for TicTacToe {
    /// Three rows of `X`, `O` and `.`, separated by `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for cell in 0..9 {
            if cell > 0 && cell % 3 == 0 {
                write!(f, "/")?;
            }
            let mark = match (self.marks[0] >> cell & 1, self.marks[1] >> cell & 1) {
                (1, _) => 'X',
                (_, 1) => 'O',
                _ => '.',
            };
            write!(f, "{mark}")?;
        }
        Ok(())
    }
}

/// Connect-`K` on a board `W` columns wide and `H` rows high: players drop
/// pieces into columns (action = column) and win with `K` in a row
/// horizontally, vertically or diagonally. `ConnectK<7, 6, 4>` is Connect Four.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ConnectK<const W: usize, const H: usize, const K: usize> {
    /// `cells[column][row]`, row 0 at the bottom: 0 empty, 1 first, 2 second.
    cells: [[u8; H]; W],
    heights: [u8; W],
    moves: u16,
    winner: Option<Side>,
}

impl<const W: usize, const H: usize, const K: usize> Default for ConnectK<W, H, K> {
    fn default() -> Self {
        ConnectK {
            cells: [[0; H]; W],
            heights: [0; W],
            moves: 0,
            winner: None,
        }
    }
}

impl<const W: usize, const H: usize, const K: usize> ConnectK<W, H, K> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The position after dropping into `columns` in turn, or `None` if a
    /// move is illegal.
    pub fn from_actions(columns: &[usize]) -> Option<Self> {
        play_all(Self::new(), columns)
    }

    fn owner(&self, column: isize, row: isize) -> u8 {
        if (0..W as isize).contains(&column) && (0..H as isize).contains(&row) {
            self.cells[column as usize][row as usize]
        } else {
            0
        }
    }

    /// Whether the piece just placed at (column, row) completes a line.
    fn completes_line(&self, column: usize, row: usize) -> bool {
        let piece = self.cells[column][row];
        let (column, row) = (column as isize, row as isize);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let run = |sign: isize| {
                (1..K as isize)
                    .take_while(|&k| {
                        self.owner(column + sign * k * dc, row + sign * k * dr) == piece
                    })
                    .count()
            };
            1 + run(1) + run(-1) >= K
        })
    }
}

impl<const W: usize, const H: usize, const K: usize> Game for ConnectK<W, H, K> {
    type Values = ZeroSum;
    const NUM_ACTIONS: usize = W;

    fn to_play(&self) -> Side {
        mover_after(u32::from(self.moves))
    }

    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        if self.terminal().is_none() {
            out.extend((0..W).filter(|&column| (self.heights[column] as usize) < H));
        }
    }

    fn apply(&mut self, column: usize) {
        let row = self.heights[column] as usize;
        debug_assert!(row < H, "column {column} is full");
        let player = self.to_play();
        self.cells[column][row] = player.index() as u8 + 1;
        self.heights[column] += 1;
        self.moves += 1;
        if self.completes_line(column, row) {
            self.winner = Some(player);
        }
    }

    fn terminal(&self) -> Option<Terminal> {
        match self.winner {
            Some(player) => Some(Terminal::Win(player)),
            None if self.moves as usize == W * H => Some(Terminal::Draw),
            None => None,
        }
    }
}

impl<const W: usize, const H: usize, const K: usize> fmt::Display for ConnectK<W, H, K> {
    /// Rows from the top, `X` first player, `O` second, `.` empty, separated by `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..H).rev() {
            if row + 1 < H {
                write!(f, "/")?;
            }
            for column in 0..W {
                write!(f, "{}", ['.', 'X', 'O'][self.cells[column][row] as usize])?;
            }
        }
        Ok(())
    }
}

/// The most coins of a [`CoinRow`].
pub const MAX_COINS: usize = 12;

/// A game of several sides: coins lie in a row, and the sides take turns (in
/// a fixed order that may give a side several turns in a row, as partners in
/// a row do) taking the coin at either end of the row. When the row is empty
/// the highest total wins; equal highest totals share the result (a draw if
/// every side has it). Small enough to solve exactly (max^n), which this
/// crate's tests do to check the search with more than two sides.
///
/// Actions: 0 takes the left end, 1 the right end (only 0 with one coin left).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CoinRow {
    coins: [u8; MAX_COINS],
    left: u8,
    right: u8,
    /// The turn order: `order[ply % order_len]` is the side to move.
    order: [u8; 8],
    order_len: u8,
    sides: u8,
    ply: u8,
    scores: [u16; MAX_SIDES],
}

impl CoinRow {
    /// A row of `coins` (at most [`MAX_COINS`]) taken by the sides in `order`
    /// (1 to 8 turns, naming every side of `0..sides` at least once).
    pub fn new(coins: &[u8], order: &[usize]) -> Option<CoinRow> {
        let sides = order.iter().max()? + 1;
        let named_all = (0..sides).all(|side| order.contains(&side));
        if coins.len() > MAX_COINS || order.len() > 8 || sides > MAX_SIDES || !named_all {
            return None;
        }
        let mut row = CoinRow {
            coins: [0; MAX_COINS],
            left: 0,
            right: coins.len() as u8,
            order: [0; 8],
            order_len: order.len() as u8,
            sides: sides as u8,
            ply: 0,
            scores: [0; MAX_SIDES],
        };
        row.coins[..coins.len()].copy_from_slice(coins);
        for (to, &side) in row.order.iter_mut().zip(order) {
            *to = side as u8;
        }
        Some(row)
    }

    /// Each side's total so far.
    pub fn scores(&self) -> &[u16] {
        &self.scores[..usize::from(self.sides)]
    }
}

impl Game for CoinRow {
    type Values = SideValues;
    const NUM_ACTIONS: usize = 2;

    fn sides(&self) -> usize {
        usize::from(self.sides)
    }

    fn to_play(&self) -> Side {
        Side::new(usize::from(
            self.order[usize::from(self.ply % self.order_len)],
        ))
    }

    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        match self.right - self.left {
            0 => {}
            1 => out.push(0),
            _ => out.extend([0, 1]),
        }
    }

    fn apply(&mut self, action: usize) {
        let side = self.to_play().index();
        let coin = if action == 0 {
            self.left += 1;
            self.coins[usize::from(self.left) - 1]
        } else {
            self.right -= 1;
            self.coins[usize::from(self.right)]
        };
        self.scores[side] += u16::from(coin);
        self.ply += 1;
    }

    fn terminal(&self) -> Option<Terminal> {
        if self.left < self.right {
            return None;
        }
        let scores = self.scores();
        let best = *scores.iter().max().expect("at least one side");
        let mask = scores
            .iter()
            .enumerate()
            .filter(|&(_, &score)| score == best)
            .fold(0u8, |mask, (side, _)| mask | 1 << side);
        Some(match mask.count_ones() {
            1 => Terminal::Win(Side::new(mask.trailing_zeros() as usize)),
            n if n as usize == scores.len() => Terminal::Draw,
            _ => Terminal::Tie(mask),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tictactoe_rules() {
        let game = TicTacToe::from_actions(&[0, 3, 1, 4, 2]).unwrap();
        assert_eq!(game.terminal(), Some(Terminal::Win(Side::FIRST)));
        assert_eq!(game.to_string(), "XXX/OO./...");
        let mut legal = vec![42];
        game.legal_actions(&mut legal);
        assert!(legal.is_empty());
        assert!(TicTacToe::from_actions(&[0, 0]).is_none());
        let draw = TicTacToe::from_actions(&[0, 1, 2, 4, 3, 5, 7, 6, 8]).unwrap();
        assert_eq!(draw.terminal(), Some(Terminal::Draw));
        let game = TicTacToe::from_actions(&[4]).unwrap();
        assert_eq!(game.to_play(), Side::SECOND);
        game.legal_actions(&mut legal);
        assert_eq!(legal, vec![0, 1, 2, 3, 5, 6, 7, 8]);
    }

    #[test]
    fn connect_rules() {
        type C4 = ConnectK<7, 6, 4>;
        assert_eq!(
            C4::from_actions(&[0, 1, 0, 1, 0, 1, 0]).unwrap().terminal(),
            Some(Terminal::Win(Side::FIRST))
        );
        assert_eq!(
            C4::from_actions(&[0, 0, 1, 1, 2, 2, 3]).unwrap().terminal(),
            Some(Terminal::Win(Side::FIRST))
        );
        // Diagonal for the second player: O at (1,0) (2,1) (3,2) (4,3).
        let diag = C4::from_actions(&[0, 1, 2, 2, 3, 3, 4, 3, 4, 4, 6, 4]).unwrap();
        assert_eq!(diag.terminal(), Some(Terminal::Win(Side::SECOND)), "{diag}");
        assert!(
            C4::from_actions(&[0, 0, 0, 0, 0, 0, 0]).is_none(),
            "column 0 holds six"
        );
        let game = ConnectK::<3, 2, 3>::from_actions(&[0, 0, 1, 1, 2]).unwrap();
        assert_eq!(game.terminal(), Some(Terminal::Win(Side::FIRST)));
        assert_eq!(game.to_string(), "OO./XXX");
        let full = ConnectK::<2, 2, 3>::from_actions(&[0, 0, 1, 1]).unwrap();
        assert_eq!(full.terminal(), Some(Terminal::Draw));
    }
}
