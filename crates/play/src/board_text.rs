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
    /// The last move's marbles, highlighted in colour.
    pub last_move: Vec<MarbleStep>,
}

const RESET: &str = "\x1b[0m";
const BLACK_MARBLE: &str = "\x1b[1;34m●\x1b[0m";
const WHITE_MARBLE: &str = "\x1b[1;97m○\x1b[0m";
const EMPTY_CELL: &str = "\x1b[2m·\x1b[0m";
/// Yellow background for the cells the last move touched.
const HIGHLIGHT: &str = "\x1b[43m";
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

/// Draws the board with the side panel: one line per row and a line of
/// diagonal numbers, each ending in a newline.
pub fn draw_board(position: &Position, style: BoardStyle, notes: &BoardAnnotations) -> String {
    let changed: Vec<Cell> = notes
        .last_move
        .iter()
        .flat_map(|step| [Some(step.from), step.to])
        .flatten()
        .collect();
    let mut out = String::new();
    for row in (0..9i32).rev() {
        let first = (row - 3).max(1);
        let last = (row + 5).min(9);
        let mut line = " ".repeat((row - 4).unsigned_abs() as usize);
        line.push(char::from(b'A' + row as u8));
        let mut width = line.len();
        for diag in first..=last {
            let cell = Cell::from_row_diag(row as u8, diag as u8).expect("cell within the row");
            line.push(' ');
            let highlighted = style == BoardStyle::Ansi && changed.contains(&cell);
            if highlighted {
                line.push_str(HIGHLIGHT);
            }
            line.push_str(match (style, position.at(cell)) {
                (BoardStyle::Ascii, Some(Color::Black)) => "@",
                (BoardStyle::Ascii, Some(Color::White)) => "O",
                (BoardStyle::Ascii, None) => ".",
                (BoardStyle::Ansi, Some(Color::Black)) => BLACK_MARBLE,
                (BoardStyle::Ansi, Some(Color::White)) => WHITE_MARBLE,
                (BoardStyle::Ansi, None) => EMPTY_CELL,
            });
            if highlighted {
                line.push_str(RESET);
            }
            width += 2;
        }
        debug_assert_eq!(width, column(row, last) + 1);
        // Diagonals 6..9 are numbered past the right end of rows A..D.
        if row < 4 {
            line.push_str(&format!(" {}", row + 6));
            width += 2;
        }
        let panel = match row {
            8 => Some(Color::White),
            0 => Some(Color::Black),
            _ => None,
        };
        if let Some(color) = panel {
            line.push_str(&" ".repeat(24usize.saturating_sub(width)));
            line.push_str(&side_panel(position, color, style, notes));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let numbers: Vec<String> = (1..=5).map(|d| d.to_string()).collect();
    out.push_str(&" ".repeat(column(-1, 1)));
    out.push_str(&numbers.join(" "));
    out.push('\n');
    out
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
