//! The board drawn as text for a terminal, in the layout Abalone players
//! know from Aba-Pro: row letters on the left, diagonal numbers along the
//! lower right edge, Black at the bottom.
//!
//! ```text
//!     I O O O O O         White  off 0/6  10:00
//!    H O O O O O O
//!   G . . O O O . .
//!  F . . . . . . . .
//! E . . . . . . . . .
//!  D . . . . . . . . 9
//!   C . . @ @ @ . . 8
//!    B @ @ @ @ @ @ 7
//!     A @ @ @ @ @ 6       Black  off 0/6  10:00  <- to move
//!        1 2 3 4 5
//! ```
//!
//! [`BoardStyle::Ascii`] draws exactly that (`@` Black, `O` White, `.` an
//! empty cell); [`BoardStyle::Ansi`] draws marbles as coloured discs with
//! ANSI escape codes and highlights the cells the last move changed.

use std::time::Duration;

use sumito_engine::{Cell, Color, Position};

use crate::color_title;
use crate::motion::MarbleStep;

/// How the board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardStyle {
    /// Plain ASCII: for pipes, files and terminals without colour.
    Ascii,
    /// Coloured discs with ANSI escape codes.
    Ansi,
}

impl BoardStyle {
    /// Colour when standard output is a terminal and `NO_COLOR` is unset or
    /// empty (<https://no-color.org>), ASCII otherwise.
    pub fn detect(stdout_is_terminal: bool, no_color: Option<&str>) -> BoardStyle {
        let colour_refused = no_color.is_some_and(|value| !value.is_empty());
        if stdout_is_terminal && !colour_refused {
            BoardStyle::Ansi
        } else {
            BoardStyle::Ascii
        }
    }
}

/// What the panel beside the board shows besides the marbles off.
#[derive(Clone, Debug, Default)]
pub struct BoardAnnotations {
    /// Time left on each player's clock (Black, White), if the game is timed.
    pub clocks: Option<[Duration; 2]>,
    /// Labels such as "you" or "alphabeta:depth=3" (Black, White).
    pub players: [String; 2],
    /// The last move's marbles: highlighted in colour, bracketed in plain
    /// text.
    pub last_move: Vec<MarbleStep>,
    /// Whether the board is turned half round, White's side at the bottom.
    pub flipped: bool,
}

pub(crate) const RESET: &str = "\x1b[0m";
const BLACK_MARBLE: &str = "\x1b[1;34m●\x1b[0m";
const WHITE_MARBLE: &str = "\x1b[1;97m○\x1b[0m";
const EMPTY_CELL: &str = "\x1b[2m·\x1b[0m";
/// Yellow background for the cells the last move touched.
pub(crate) const HIGHLIGHT: &str = "\x1b[43m";
const DIM: &str = "\x1b[2m";

/// Time on a clock as `m:ss`, with tenths under ten seconds.
pub fn format_clock(left: Duration) -> String {
    let total = left.as_secs_f64();
    if total < 10.0 {
        format!("0:{:04.1}", (total * 10.0).floor() / 10.0)
    } else {
        let seconds = left.as_secs();
        format!("{}:{:02}", seconds / 60, seconds % 60)
    }
}

/// The text column of cell (row, diag) within its line; the same formula
/// places the labels that sit one step outside the board.
fn column(row: i32, diag: i32) -> usize {
    (2 * diag - row + 4) as usize
}

/// Columns of a board line: the widest label sits in column 19, so that a
/// board turned half round (column `c` drawn at `20 - c`) fits the same 21.
const GRID_WIDTH: usize = 21;

/// The board as a grid of one-character cells (a cell's text may carry ANSI
/// escapes): rows I to A, then the line of diagonal numbers; each row
/// begins with its letter, and rows A to D end with their diagonal's
/// number. With `flipped` the board is turned half round (White's side at
/// the bottom): the lines in the other order, each read backwards, which
/// for this layout is exactly the rotation (cell (row, diag) goes to
/// (8 − row, 10 − diag), column `c` to `20 − c`). Shared by both games'
/// boards.
pub(crate) struct BoardGrid {
    lines: Vec<Vec<String>>,
    flipped: bool,
}

impl BoardGrid {
    /// The grid with `cell_text(cell)` drawn on each cell.
    pub(crate) fn new(flipped: bool, cell_text: impl Fn(Cell) -> String) -> BoardGrid {
        let blank = || vec![" ".to_string(); GRID_WIDTH];
        let mut lines = Vec::with_capacity(10);
        for row in (0..9i32).rev() {
            let first = (row - 3).max(1);
            let last = (row + 5).min(9);
            let mut line = blank();
            line[column(row, first) - 2] = char::from(b'A' + row as u8).to_string();
            for diag in first..=last {
                let cell = Cell::from_row_diag(row as u8, diag as u8).expect("cell within the row");
                line[column(row, diag)] = cell_text(cell);
            }
            // Diagonals 6..9 are numbered past the right end of rows A..D.
            if row < 4 {
                line[column(row, last + 1)] = (row + 6).to_string();
            }
            lines.push(line);
        }
        let mut numbers = blank();
        for diag in 1..=5 {
            numbers[column(-1, diag)] = diag.to_string();
        }
        lines.push(numbers);
        if flipped {
            lines.reverse();
            for line in &mut lines {
                line.reverse();
            }
        }
        BoardGrid { lines, flipped }
    }

    /// Where `cell` is drawn: its line and column.
    fn place(&self, cell: Cell) -> (usize, usize) {
        let (row, diag) = (i32::from(cell.row()), i32::from(cell.diag()));
        let (line, col) = (8 - row as usize, column(row, diag));
        if self.flipped {
            (self.lines.len() - 1 - line, GRID_WIDTH - 1 - col)
        } else {
            (line, col)
        }
    }

    /// Marks `cells` for a plain-text terminal: each between brackets,
    /// `(@)`, with `|` between two marked neighbours on a line, `(@|@)`.
    pub(crate) fn bracket(&mut self, cells: &[Cell]) {
        for &cell in cells {
            let (line, col) = self.place(cell);
            let line = &mut self.lines[line];
            line[col - 1] = if line[col - 1] == ")" { "|" } else { "(" }.to_string();
            line[col + 1] = if line[col + 1] == "(" { "|" } else { ")" }.to_string();
        }
    }

    /// The line of the board's top row (`true`) or bottom row: where the
    /// panel of the side sitting there goes.
    pub(crate) fn edge_line(&self, top: bool) -> usize {
        match (top, self.flipped) {
            (true, false) => 0,
            (false, false) => 8,
            (true, true) => 1,
            (false, true) => 9,
        }
    }

    /// The lines as text, without trailing spaces; `panel(line)` is written
    /// from column 24 of the lines it gives text for.
    pub(crate) fn render(&self, panel: impl Fn(usize) -> Option<String>) -> String {
        let mut out = String::new();
        for (index, cells) in self.lines.iter().enumerate() {
            let mut line = cells.concat();
            if let Some(text) = panel(index) {
                let width = cells
                    .iter()
                    .rposition(|c| c != " ")
                    .map_or(0, |last| last + 1);
                let mut shown = cells[..width].concat();
                shown.push_str(&" ".repeat(24usize.saturating_sub(width)));
                shown.push_str(&text);
                line = shown;
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Draws the board with the side panel: one line per row and a line of
/// diagonal numbers, each ending in a newline. The last move's cells are
/// highlighted in colour, or bracketed in plain text; `flipped` turns the
/// board half round, White's side at the bottom (for a person playing
/// White).
pub fn draw_board(position: &Position, style: BoardStyle, notes: &BoardAnnotations) -> String {
    let changed: Vec<Cell> = notes
        .last_move
        .iter()
        .flat_map(|step| [Some(step.from), step.to])
        .flatten()
        .collect();
    let mut grid = BoardGrid::new(notes.flipped, |cell| {
        let marble = match (style, position.at(cell)) {
            (BoardStyle::Ascii, Some(Color::Black)) => "@",
            (BoardStyle::Ascii, Some(Color::White)) => "O",
            (BoardStyle::Ascii, None) => ".",
            (BoardStyle::Ansi, Some(Color::Black)) => BLACK_MARBLE,
            (BoardStyle::Ansi, Some(Color::White)) => WHITE_MARBLE,
            (BoardStyle::Ansi, None) => EMPTY_CELL,
        };
        if style == BoardStyle::Ansi && changed.contains(&cell) {
            format!("{HIGHLIGHT}{marble}{RESET}")
        } else {
            marble.to_string()
        }
    });
    if style == BoardStyle::Ascii {
        grid.bracket(&changed);
    }
    // Each side's panel beside its own home rows.
    let (top, bottom) = if notes.flipped {
        (Color::Black, Color::White)
    } else {
        (Color::White, Color::Black)
    };
    let (top_line, bottom_line) = (grid.edge_line(true), grid.edge_line(false));
    grid.render(|line| {
        let color = if line == top_line {
            top
        } else if line == bottom_line {
            bottom
        } else {
            return None;
        };
        Some(side_panel(position, color, style, notes))
    })
}

/// "White  off 0/6  9:58  you  <- to move"
fn side_panel(
    position: &Position,
    color: Color,
    style: BoardStyle,
    notes: &BoardAnnotations,
) -> String {
    let mut panel = format!(
        "{:<5}  off {}/{}",
        color_title(color),
        position.marbles_off(color),
        position.rules().marbles_to_win
    );
    if let Some(clocks) = &notes.clocks {
        panel.push_str(&format!("  {:>5}", format_clock(clocks[color.index()])));
    }
    let label = &notes.players[color.index()];
    if !label.is_empty() {
        panel.push_str(&format!("  {label}"));
    }
    if position.side_to_move() == color && !position.is_game_over() {
        match style {
            BoardStyle::Ascii => panel.push_str("  <- to move"),
            BoardStyle::Ansi => panel.push_str(&format!("  {DIM}◀ to move{RESET}")),
        }
    }
    panel
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion::marble_steps;
    use sumito_engine::{Layout, Rules};

    #[test]
    fn the_start_position_in_ascii() {
        let start = Position::start(Layout::Standard, Rules::default());
        let notes = BoardAnnotations {
            clocks: Some([Duration::from_secs(600), Duration::from_millis(9_470)]),
            players: ["you".into(), "alphabeta:depth=3".into()],
            last_move: Vec::new(),
            flipped: false,
        };
        let text = draw_board(&start, BoardStyle::Ascii, &notes);
        let expected = "    I O O O O O         White  off 0/6  0:09.4  alphabeta:depth=3
   H O O O O O O
  G . . O O O . .
 F . . . . . . . .
E . . . . . . . . .
 D . . . . . . . . 9
  C . . @ @ @ . . 8
   B @ @ @ @ @ @ 7
    A @ @ @ @ @ 6       Black  off 0/6  10:00  you  <- to move
       1 2 3 4 5
";
        assert_eq!(text, expected);
    }

    #[test]
    fn ansi_highlights_the_last_move_and_ascii_has_no_escapes() {
        let start = Position::start(Layout::Standard, Rules::default());
        let mv = start.parse_move("A1B2").unwrap();
        let after = start.play(mv);
        let notes = BoardAnnotations {
            last_move: marble_steps(&start, mv),
            ..BoardAnnotations::default()
        };
        let colour = draw_board(&after, BoardStyle::Ansi, &notes);
        // A1 (left empty), B2, C3 and D4 are highlighted.
        assert_eq!(colour.matches(HIGHLIGHT).count(), 4);
        assert_eq!(colour.matches('●').count(), 14);
        assert_eq!(colour.matches('○').count(), 14);
        let plain = draw_board(&after, BoardStyle::Ascii, &notes);
        assert!(!plain.contains('\x1b'));
        assert_eq!(plain.matches('@').count(), 14);
    }

    #[test]
    fn plain_text_brackets_the_last_move() {
        let start = Position::start(Layout::Standard, Rules::default());
        let mv = start.parse_move("C3C5D4").unwrap();
        let after = start.play(mv);
        let notes = BoardAnnotations {
            last_move: marble_steps(&start, mv),
            ..BoardAnnotations::default()
        };
        let text = draw_board(&after, BoardStyle::Ascii, &notes);
        // C3-C5 step to D4-D6: three neighbours left, three reached.
        assert!(text.contains("\n D . . .(@|@|@). . 9\n"), "{text}");
        assert!(text.contains("\n  C . .(.|.|.). . 8\n"), "{text}");
        assert_eq!(text.matches('@').count(), 14);
    }

    #[test]
    fn a_flipped_board_is_turned_half_round() {
        let start = Position::start(Layout::Standard, Rules::default());
        let mv = start.parse_move("A1B2").unwrap();
        let after = start.play(mv);
        let notes = BoardAnnotations {
            players: ["greedy".into(), "you".into()],
            last_move: marble_steps(&start, mv),
            flipped: true,
            ..BoardAnnotations::default()
        };
        let text = draw_board(&after, BoardStyle::Ascii, &notes);
        let expected = "     5 4 3 2 1
    6 @ @ @ @(.)A       Black  off 0/6  greedy
   7 @ @ @ @(@)@ B
  8 . . @ @(@). . C
 9 . . . .(@). . . D
  . . . . . . . . . E
   . . . . . . . . F
    . . O O O . . G
     O O O O O O H
      O O O O O I       White  off 0/6  you  <- to move
";
        assert_eq!(text, expected, "\n{text}");
    }

    #[test]
    fn style_follows_the_terminal_and_no_color() {
        assert_eq!(BoardStyle::detect(true, None), BoardStyle::Ansi);
        assert_eq!(BoardStyle::detect(true, Some("")), BoardStyle::Ansi);
        assert_eq!(BoardStyle::detect(true, Some("1")), BoardStyle::Ascii);
        assert_eq!(BoardStyle::detect(false, None), BoardStyle::Ascii);
    }

    #[test]
    fn clocks_show_tenths_only_in_the_last_ten_seconds() {
        assert_eq!(format_clock(Duration::from_secs(600)), "10:00");
        assert_eq!(format_clock(Duration::from_millis(61_900)), "1:01");
        assert_eq!(format_clock(Duration::from_millis(9_470)), "0:09.4");
        assert_eq!(format_clock(Duration::ZERO), "0:00.0");
    }
}
