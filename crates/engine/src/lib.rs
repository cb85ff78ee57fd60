//! The complete rules of two-player Abalone on bitboards: positions, legal
//! moves, the fixed action space, notation, start layouts, symmetries, game
//! end and perft. This crate knows nothing of tree search or networks; its
//! one minimax, [`alphabeta`], is a game-agnostic alpha-beta that the exact
//! material counts ([`material`], [`general::material`]) and the arena's
//! alpha-beta players share.
//!
//! # Board and bitboards
//!
//! The 61 [`Cell`]s are numbered 0..61 row by row: A1..A5, B1..B6, …, I5..I9
//! (row A at the bottom, Black's side; diagonals 1..9 from the left). A
//! [`Position`] keeps one `u128` bitboard per colour in which cell
//! `(row, diag)` (row 0 = A … 8 = I) is bit `(row + 1) * 10 + diag`. Column 0
//! of every row and the rows below A and above I are padding and never hold a
//! marble, so a step in a [`Direction`] is a constant shift (E +1, W −1,
//! NE +11, SW −11, NW +10, SE −10) and a marble stepping off the board lands
//! on a padding bit rather than on another cell. Move generation works on
//! whole bitboards: for each direction a few shifts and ands give the set of
//! trailing marbles of every legal inline move of each group size (including
//! the sumitos 2-1, 3-1, 3-2 and push-offs), and for each of the three group
//! axes and four sideways directions the first cells of every legal
//! broadside; a table per set turns each bit into an action index. Counting
//! the moves of a position adds up the sizes of these sets with carry-save
//! adders and five popcounts, which is how [`perft`] counts the last ply
//! without making the moves ([`Position::count_legal_moves`]).
//!
//! # Action space
//!
//! A [`Move`] is one of the [`ACTION_COUNT`] = 1734 (group, direction) pairs
//! that can ever be legal, identified by its action index (the network's
//! policy index): 312 single-marble moves, then 462 inline moves of 2–3
//! marbles, then 960 broadsides. The exact, stable ordering is documented in
//! [`action`] and pinned by tests. [`Symmetry`] maps action indices under the
//! 12 symmetries of the hexagon.
//!
//! # Game end
//!
//! [`Rules`] (part of each position) say when the game ends: at
//! `marbles_to_win` marbles pushed off (6 by default), optionally at a move
//! limit, and optionally after K plies without a push-off (then row E
//! decides). Both limits count plies, i.e. single turns. A finished position
//! has no legal moves. How a game ended is an [`Ending`] (who: [`Outcome`];
//! why: [`EndReason`]), one type for both engines and the layers above
//! ([`ending`]).
//!
//! # Text
//!
//! Positions read and print the text format of [`fen`]
//! (`wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0`), moves print in
//! Aba-Pro notation and parse in Aba-Pro or the comma form ([`notation`]).

pub mod action;
pub mod alphabeta;
pub mod bitboard;
mod board;
pub mod ending;
mod excerpt;
pub mod fen;
pub mod general;
mod layout;
pub mod material;
pub mod notation;
mod perft;
mod playout;
mod position;
pub mod position_text;
mod push_off;
mod rule_values;
pub mod rules_table;
mod symmetry;

pub use action::{ACTION_COUNT, MAX_LEGAL_MOVES, Move, MoveList, MoveListIntoIter};
pub use board::{CELL_COUNT, Cell, CellParseError, Color, Direction};
pub use ending::{EndReason, Ending, Outcome};
pub use excerpt::{EXCERPT_CHARS, MESSAGE_CHARS, excerpt, shorten_quotes};
pub use layout::{Layout, LayoutError};
pub use notation::{MoveProblem, MoveTextError};
pub use perft::{perft, perft_divide};
pub use playout::{midgame_positions, random_playout};
pub use position::{BoardError, IllegalMove, Position, Rules};
pub use position_text::{MAX_PLY_COUNTER, PositionTextError, TextProblem, quote_position_text};
pub use push_off::PushOffThreat;
pub use rule_values::{MARBLES_PER_SIDE, RuleValueError, check_rule_values};
pub use symmetry::Symmetry;
