//! The general game (variants, 3–6 players) drawn for a terminal and as SVG,
//! in the same layout as the two-player board ([`crate::board_text`],
//! [`crate::svg`]).
//!
//! Plain ASCII: `@` black, `O` white, `R` red, `G` green, `U` blue, `Y`
//! yellow, `*` a common marble of the one-colour game, `+` a neutral marble,
//! `#` an obstacle, `_` a hole, `.` an empty cell. With colour (ANSI) the
//! marbles are coloured discs. A panel below the board lists every seat with
//! its score and target, and whose turn it is.

use std::time::Duration;

use sumito_arena::record::GameRecord;
use sumito_engine::Cell;
use sumito_engine::general::{CellContent, GeneralMove, GeneralPosition, SEAT_NAMES};
use sumito_game::Board;

use crate::board_text::{BoardGrid, BoardStyle, HIGHLIGHT, RESET, format_clock};
use crate::motion::MarbleStep;
use crate::svg::{PanelLine, SvgBoard};

const ASCII_SEATS: [&str; 6] = ["@", "O", "R", "G", "U", "Y"];
const ANSI_SEATS: [&str; 6] = [
    "\x1b[1;34m●\x1b[0m",
    "\x1b[1;97m○\x1b[0m",
    "\x1b[1;31m●\x1b[0m",
    "\x1b[1;32m●\x1b[0m",
    "\x1b[1;36m●\x1b[0m",
    "\x1b[1;33m●\x1b[0m",
];

fn cell_text(position: &GeneralPosition, cell: Cell, style: BoardStyle) -> &'static str {
    let common = position.rules().one_colour;
    match (style, position.at(cell)) {
        (BoardStyle::Ascii, CellContent::Empty) => ".",
        (BoardStyle::Ascii, CellContent::Marble(_)) if common => "*",
        (BoardStyle::Ascii, CellContent::Marble(seat)) => ASCII_SEATS[seat],
        (BoardStyle::Ascii, CellContent::Neutral) => "+",
        (BoardStyle::Ascii, CellContent::Obstacle) => "#",
        (BoardStyle::Ascii, CellContent::Hole) => "_",
        (BoardStyle::Ansi, CellContent::Empty) => "\x1b[2m·\x1b[0m",
        (BoardStyle::Ansi, CellContent::Marble(_)) if common => "\x1b[1;35m●\x1b[0m",
        (BoardStyle::Ansi, CellContent::Marble(seat)) => ANSI_SEATS[seat],
        (BoardStyle::Ansi, CellContent::Neutral) => "\x1b[1;90m◍\x1b[0m",
        (BoardStyle::Ansi, CellContent::Obstacle) => "\x1b[33m■\x1b[0m",
        (BoardStyle::Ansi, CellContent::Hole) => "\x1b[2m◌\x1b[0m",
    }
}

/// One line per seat: `Black   score 2/6  <- to move` (teams show the
/// team's score), each with `labels[seat]` (who plays it) when not empty
/// and the time left on its clock in a timed game.
pub fn seat_lines(
    position: &GeneralPosition,
    labels: &[String],
    clocks: Option<&[Duration]>,
) -> Vec<String> {
    let rules = position.rules();
    let seating = rules.seating;
    (0..seating.seats())
        .map(|seat| {
            let side = seating.side_of(seat);
            let mut line = format!("{:<7}", GeneralPosition::seat_title(seat));
            if seating.teams() {
                line.push_str(&format!(
                    " score {} (team {}: {}/{})",
                    position.seat_score(seat),
                    seating.side_name(side),
                    position.side_score(side),
                    rules.target(side)
                ));
            } else {
                line.push_str(&format!(
                    " score {}/{}",
                    position.side_score(side),
                    rules.target(side)
                ));
            }
            line.push_str(&format!("  marbles {}", position.marble_count(seat)));
            if let Some(label) = labels.get(seat).filter(|l| !l.is_empty()) {
                line.push_str(&format!("  {label}"));
            }
            if let Some(left) = clocks.and_then(|clocks| clocks.get(seat)) {
                line.push_str(&format!("  {}", format_clock(*left)));
            }
            if position.seat_to_move() == seat && !position.is_game_over() {
                line.push_str("  <- to move");
            }
            line
        })
        .collect()
}

/// How the general board is drawn for a terminal.
#[derive(Clone, Copy, Debug)]
pub struct GeneralView<'a> {
    pub style: BoardStyle,
    /// Who plays each seat.
    pub labels: &'a [String],
    /// Time left on each seat's clock, in a timed game.
    pub clocks: Option<&'a [Duration]>,
    /// The cells the last move changed: highlighted in colour, bracketed
    /// in plain text.
    pub changed: &'a [Cell],
    /// Whether the board is turned half round.
    pub flipped: bool,
}

/// The cells whose content differs between `before` and `after` (the
/// position a move led to): what that move changed.
pub fn changed_cells(before: &GeneralPosition, after: &GeneralPosition) -> Vec<Cell> {
    Cell::all()
        .filter(|&cell| before.at(cell) != after.at(cell))
        .collect()
}

/// The board as text, rows I to A (turned half round if asked), then the
/// seats' panel.
pub fn draw_general_board(position: &GeneralPosition, view: &GeneralView<'_>) -> String {
    let style = view.style;
    let mut grid = BoardGrid::new(view.flipped, |cell| {
        let text = cell_text(position, cell, style);
        if style == BoardStyle::Ansi && view.changed.contains(&cell) {
            format!("{HIGHLIGHT}{text}{RESET}")
        } else {
            text.to_string()
        }
    });
    if style == BoardStyle::Ascii {
        grid.bracket(view.changed);
    }
    let mut out = grid.render(|_| None);
    if let Some(result) = position.describe_outcome() {
        out.push_str(&format!("Game over: {result}\n"));
    }
    for line in seat_lines(position, view.labels, view.clocks) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The SVG class of what stands on a cell.
fn svg_class(position: &GeneralPosition, cell: Cell) -> Option<&'static str> {
    match position.at(cell) {
        CellContent::Empty => None,
        CellContent::Marble(_) if position.rules().one_colour => Some("common"),
        CellContent::Marble(seat) => Some(SEAT_NAMES[seat]),
        CellContent::Neutral => Some("neutral"),
        CellContent::Obstacle => Some("obstacle"),
        CellContent::Hole => Some("hole"),
    }
}

/// The general game's board (marbles of every seat, neutral marbles,
/// obstacles, holes), and one line per seat with its score, the marbles it
/// pushed off drawn beside it; no arrows.
impl SvgBoard for GeneralPosition {
    fn svg_result(&self) -> Option<String> {
        self.describe_outcome()
    }

    fn svg_content(&self, cell: Cell) -> Option<&'static str> {
        svg_class(self, cell)
    }

    fn svg_steps(&self, _: GeneralMove) -> Vec<MarbleStep> {
        Vec::new()
    }

    fn svg_panel(&self) -> Vec<PanelLine> {
        seat_lines(self, &[], None)
            .into_iter()
            .enumerate()
            .map(|(seat, text)| PanelLine {
                text,
                marbles: u32::from(self.seat_score(seat)),
                class: SEAT_NAMES[seat],
            })
            .collect()
    }

    fn start_title(record: &GameRecord<GeneralPosition>) -> String {
        format!("Start. {}", record.players.join(", "))
    }

    fn move_title(number: usize, _: &GeneralPosition, mv: GeneralMove) -> String {
        format!("{number}. {}", mv.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};

    fn start(layout: &str, neutral: &[&str], holes: &[&str]) -> GeneralPosition {
        let layout = GeneralLayout::from_name(layout).unwrap();
        let rules = GeneralRules::plain(Seating::new(layout.seats(), false).unwrap())
            .with_cells(
                &[],
                &holes.iter().map(|c| c.parse().unwrap()).collect::<Vec<_>>(),
            )
            .unwrap();
        let setup = GeneralSetup {
            layout,
            neutral: neutral.iter().map(|c| c.parse().unwrap()).collect(),
            removed: Vec::new(),
        };
        setup.start(&rules).unwrap()
    }

    #[test]
    fn every_seat_and_cell_role_is_drawn_in_ascii_and_svg() {
        let six = start("six-player", &["E5"], &["E1"]);
        let view = |style| GeneralView {
            style,
            labels: &[],
            clocks: None,
            changed: &[],
            flipped: false,
        };
        let text = draw_general_board(&six, &view(BoardStyle::Ascii));
        let (board, panel) = text.split_once("1 2 3 4 5").unwrap();
        // (The row letter G is not a marble: skip the letters.)
        let cells: String = board
            .lines()
            .filter_map(|line| line.trim_start().get(1..))
            .collect();
        for symbol in ["@", "O", "R", "G", "U", "Y"] {
            assert_eq!(cells.matches(symbol).count(), 6, "{symbol}\n{text}");
        }
        assert_eq!(cells.matches('+').count(), 1);
        assert_eq!(cells.matches('_').count(), 1);
        assert!(
            panel.contains("Black   score 0 (team black+green: 0/6)"),
            "{text}"
        );
        assert!(text.contains("<- to move"));
        assert!(!text.contains('\x1b'));
        let svg = crate::svg::render_svg(&six, None, "six");
        for name in SEAT_NAMES {
            assert_eq!(
                svg.matches(&format!(r#"class="marble {name}""#)).count(),
                6,
                "{name}"
            );
        }
        assert_eq!(svg.matches(r#"class="marble neutral""#).count(), 1);
        assert_eq!(svg.matches(r#"class="hole""#).count(), 1);
        assert!(roxmltree_like_balanced(&svg));
        let colour = draw_general_board(&six, &view(BoardStyle::Ansi));
        assert_eq!(colour.matches('●').count(), 6 * 5);
    }

    /// Every `<` opens a tag that is closed or self-closed (a light check
    /// that the document is well formed).
    fn roxmltree_like_balanced(svg: &str) -> bool {
        svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>")
    }
}
