//! SVG pictures of positions: the hexagonal board with its row letters and
//! diagonal numbers, the marbles, the last move as arrows, and the marbles
//! pushed off each side.
//!
//! The document is plain SVG 1.1 with no scripts or external references, so
//! any browser or image viewer shows it. Elements carry classes that say
//! what they are, which tests (and style sheets) can rely on:
//!
//! | element | class | attribute |
//! |---|---|---|
//! | a cell of the board (61) | `cell` | `data-cell="E5"` |
//! | a marble on the board | `marble black` / `marble white` | `data-cell` |
//! | a marble pushed off | `off black` / `off white` | |
//! | an arrow of the last move | `arrow` (the mover's marble) / `arrow pushed` | `data-from`, `data-to` (`off` when pushed off) |
//! | a row letter / diagonal number | `coordinate` | |

use std::fmt::Write as _;

use sumito_arena::record::{GameRecord, Start};
use sumito_engine::{Cell, Color, Move, Position};
use sumito_game::Board;

use crate::color_title;
use crate::motion::{MarbleStep, marble_steps};

/// Distance between the centres of neighbouring cells, in pixels.
const SPACING: f64 = 44.0;
const MARBLE_RADIUS: f64 = 19.0;
const CELL_RADIUS: f64 = 20.0;
pub(crate) const OFF_RADIUS: f64 = 9.0;
pub(crate) const MARGIN: f64 = 20.0;
pub(crate) const HEADER: f64 = 44.0;
/// How far (in cell steps) coordinates sit outside the outermost cells.
const LABEL_OFFSET: f64 = 1.3;
/// The board spans diagonal units −2.5 (row letters) to 8.5 (right edge).
const LEFT_UNITS: f64 = 2.5;
pub(crate) const WIDTH: f64 = 2.0 * MARGIN + 11.0 * SPACING;
const ROW_HEIGHT: f64 = SPACING * 0.866_025_403_784_438_6;
/// The centre of cell (row 0, diagonal 0); rows go up, diagonals right.
const ORIGIN_Y: f64 = HEADER + SPACING + 8.0 * ROW_HEIGHT;
const ORIGIN_X: f64 = MARGIN + LEFT_UNITS * SPACING;
pub(crate) const OFF_PANEL_Y: f64 = ORIGIN_Y + ROW_HEIGHT + 44.0;

/// What the picture of a position shows of a game, implemented once per
/// game; the picture itself is drawn once, [`render_svg`], and a recorded
/// game's pictures once, [`render_game`].
pub trait SvgBoard: Board {
    /// How the game ended, as the picture's top right says it (`None`
    /// while it goes on: then whose turn it is).
    fn svg_result(&self) -> Option<String>;
    /// The class of what stands on `cell` (a marble's colour `black`,
    /// `red`, ..., `common`, `neutral`, `obstacle`, `hole`), `None` where
    /// it is empty.
    fn svg_content(&self, cell: Cell) -> Option<&'static str>;
    /// The marbles that `mv`, played in this position, moves, drawn as
    /// arrows on the picture after it (none where the game draws no arrows).
    fn svg_steps(&self, mv: Self::Move) -> Vec<MarbleStep>;
    /// The lines below the board, one a colour or seat: its text, and how
    /// many marbles of which class are drawn beside it.
    fn svg_panel(&self) -> Vec<PanelLine>;
    /// The title of a recorded game's first picture.
    fn start_title(record: &GameRecord<Self>) -> String;
    /// The title of the picture after move `number` (from 1), `mv` played
    /// in `before`.
    fn move_title(number: usize, before: &Self, mv: Self::Move) -> String;
}

/// A line below the board: its text and the marbles drawn beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanelLine {
    pub text: String,
    /// How many marbles.
    pub marbles: u32,
    /// Their class (`black`, `red`, ...).
    pub class: &'static str,
}

/// The centre of the point at `row` (0 = A) and `diag` (1..=9), which may
/// lie off the board (labels, marbles pushed off).
pub(crate) fn point(row: f64, diag: f64) -> (f64, f64) {
    (
        ORIGIN_X + SPACING * (diag - row / 2.0),
        ORIGIN_Y - ROW_HEIGHT * row,
    )
}

pub(crate) fn cell_point(cell: Cell) -> (f64, f64) {
    point(f64::from(cell.row()), f64::from(cell.diag()))
}

pub(crate) use sumito_arena::chart::escape;

fn color_class(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

pub(crate) const STYLE: &str = "\
.board{fill:#d8b27a;stroke:#7a5a30;stroke-width:3}
.cell{fill:#b48a55;stroke:#8a6638;stroke-width:1}
.marble.black{fill:#1e1e1e;stroke:#000;stroke-width:1.5}
.marble.white{fill:#f5f5f0;stroke:#555;stroke-width:1.5}
.off.black{fill:#1e1e1e;stroke:#000}
.off.white{fill:#f5f5f0;stroke:#555}
.marble.red,.off.red{fill:#c8322d;stroke:#6a1410;stroke-width:1.5}
.marble.green,.off.green{fill:#2f8a3b;stroke:#134d1c;stroke-width:1.5}
.marble.blue,.off.blue{fill:#2f5fc8;stroke:#142d6a;stroke-width:1.5}
.marble.yellow,.off.yellow{fill:#e8c61e;stroke:#7a6608;stroke-width:1.5}
.marble.neutral{fill:#9a9a9a;stroke:#444;stroke-width:1.5}
.marble.common{fill:#6b4a8a;stroke:#2e1a40;stroke-width:1.5}
.obstacle{fill:#4a3420;stroke:#2a1a08;stroke-width:2}
.hole{fill:#1a120a;stroke:#5a3d1a;stroke-width:3}
.coordinate{font:bold 15px sans-serif;fill:#5a3d1a;text-anchor:middle;dominant-baseline:central}
.title{font:18px sans-serif;fill:#222}
.label{font:15px sans-serif;fill:#222;dominant-baseline:central}
.arrow{stroke:#d62020;stroke-width:4;stroke-linecap:round;fill:none}
.arrow.pushed{stroke:#e08a00;stroke-dasharray:7 5}
";

/// The document's start: prologue, style, arrow heads, background and the
/// title line.
pub(crate) fn open_document(svg: &mut String, title: &str, height: f64) {
    // `write!` into a String cannot fail.
    let _ = writeln!(
        svg,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{WIDTH:.0}" height="{height:.0}" viewBox="0 0 {WIDTH:.0} {height:.0}">
<title>{}</title>
<defs>
<style>
{STYLE}</style>
<marker id="head" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#d62020"/></marker>
<marker id="head-pushed" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#e08a00"/></marker>
</defs>
<rect width="100%" height="100%" fill="#fbf8f0"/>"##,
        escape(title)
    );
    let _ = writeln!(
        svg,
        r#"<text class="title" x="{MARGIN}" y="{:.1}">{}</text>"#,
        HEADER - 14.0,
        escape(title)
    );
}

/// The SVG document of `position`, with `title` at the top (typically which
/// move led here) and `last_move`, if given (the position before it and the
/// move), drawn as arrows.
pub fn render_svg<B: SvgBoard>(
    position: &B,
    last_move: Option<(B, B::Move)>,
    title: &str,
) -> String {
    let panel = position.svg_panel();
    let height = OFF_PANEL_Y + 30.0 * panel.len() as f64 + MARGIN;
    let mut svg = String::with_capacity(16 * 1024);
    open_document(&mut svg, title, height);
    let status = position
        .svg_result()
        .unwrap_or_else(|| format!("{} to move", B::seat_title(position.seat_to_move())));
    let _ = writeln!(
        svg,
        r#"<text class="title" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
        WIDTH - MARGIN,
        HEADER - 14.0,
        escape(&status)
    );
    write_board_cells(&mut svg, &|cell| position.svg_content(cell));
    if let Some((before, mv)) = last_move {
        write_arrows(&mut svg, &before.svg_steps(mv));
    }
    write_panel(&mut svg, &panel);
    svg.push_str("</svg>\n");
    svg
}

/// The board, with on each cell what `content` says: the class of a marble
/// (`black`, `red`, `neutral`, ...), `obstacle`, `hole`, or nothing.
pub(crate) fn write_board_cells(svg: &mut String, content: &dyn Fn(Cell) -> Option<&'static str>) {
    // The board's outline: the six corner cells pushed outwards from E5.
    let centre = point(4.0, 5.0);
    let corners = [
        (0.0, 1.0),
        (0.0, 5.0),
        (4.0, 9.0),
        (8.0, 9.0),
        (8.0, 5.0),
        (4.0, 1.0),
    ];
    let outline: Vec<String> = corners
        .iter()
        .map(|&(row, diag)| {
            let (x, y) = point(row, diag);
            let scale = 1.0 + 0.65 / 4.0;
            format!(
                "{:.1},{:.1}",
                centre.0 + (x - centre.0) * scale,
                centre.1 + (y - centre.1) * scale
            )
        })
        .collect();
    let _ = writeln!(
        svg,
        r#"<polygon class="board" points="{}"/>"#,
        outline.join(" ")
    );
    for cell in Cell::all() {
        let (x, y) = cell_point(cell);
        let _ = writeln!(
            svg,
            r#"<circle class="cell" data-cell="{cell}" cx="{x:.1}" cy="{y:.1}" r="{CELL_RADIUS}"/>"#
        );
    }
    for cell in Cell::all() {
        let (x, y) = cell_point(cell);
        match content(cell) {
            None => {}
            Some("obstacle") => {
                let half = MARBLE_RADIUS * 0.9;
                let _ = writeln!(
                    svg,
                    r#"<rect class="obstacle" data-cell="{cell}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4"/>"#,
                    x - half,
                    y - half,
                    2.0 * half,
                    2.0 * half
                );
            }
            Some("hole") => {
                let _ = writeln!(
                    svg,
                    r#"<circle class="hole" data-cell="{cell}" cx="{x:.1}" cy="{y:.1}" r="{:.1}"/>"#,
                    CELL_RADIUS - 2.0
                );
            }
            Some(class) => {
                let _ = writeln!(
                    svg,
                    r#"<circle class="marble {class}" data-cell="{cell}" cx="{x:.1}" cy="{y:.1}" r="{MARBLE_RADIUS}"/>"#
                );
            }
        }
    }
    // Row letters left of each row's first cell; diagonal numbers
    // south-east of each diagonal's lowest cell, as on a real board; both
    // just outside the board's edge.
    for row in 0u8..9 {
        let first = (1u8..=9)
            .find(|&diag| Cell::from_row_diag(row, diag).is_some())
            .expect("every row has cells");
        let (x, y) = point(f64::from(row), f64::from(first) - LABEL_OFFSET);
        let _ = writeln!(
            svg,
            r#"<text class="coordinate" x="{x:.1}" y="{y:.1}">{}</text>"#,
            char::from(b'A' + row)
        );
    }
    for diag in 1u8..=9 {
        let lowest = (0u8..9)
            .find(|&row| Cell::from_row_diag(row, diag).is_some())
            .expect("every diagonal has cells");
        let (x, y) = point(f64::from(lowest) - LABEL_OFFSET, f64::from(diag));
        let _ = writeln!(
            svg,
            r#"<text class="coordinate" x="{x:.1}" y="{y:.1}">{diag}</text>"#
        );
    }
}

fn write_arrows(svg: &mut String, steps: &[MarbleStep]) {
    for step in steps {
        let (x1, y1) = cell_point(step.from);
        let (dr, dd) = step.direction.delta();
        // A marble pushed off still gets its arrow, pointing off the board.
        let (x2, y2) = point(
            f64::from(step.from.row()) + f64::from(dr),
            f64::from(step.from.diag()) + f64::from(dd),
        );
        // Shorten both ends so that the arrow sits between the two centres.
        let (dx, dy) = (x2 - x1, y2 - y1);
        let (ax, ay) = (x1 + dx * 0.2, y1 + dy * 0.2);
        let (bx, by) = (x1 + dx * 0.75, y1 + dy * 0.75);
        let (class, marker) = if step.pushed {
            ("arrow pushed", "head-pushed")
        } else {
            ("arrow", "head")
        };
        let to = step.to.map_or_else(|| "off".to_string(), |c| c.to_string());
        let _ = writeln!(
            svg,
            r#"<line class="{class}" data-from="{}" data-to="{to}" x1="{ax:.1}" y1="{ay:.1}" x2="{bx:.1}" y2="{by:.1}" marker-end="url(#{marker})"/>"#,
            step.from
        );
    }
}

/// The lines below the board, each with its marbles drawn at the right.
fn write_panel(svg: &mut String, panel: &[PanelLine]) {
    for (
        line,
        PanelLine {
            text,
            marbles,
            class,
        },
    ) in panel.iter().enumerate()
    {
        let y = OFF_PANEL_Y + 30.0 * line as f64;
        let _ = writeln!(
            svg,
            r#"<text class="label" x="{MARGIN}" y="{y:.1}">{}</text>"#,
            escape(text)
        );
        for i in 0..*marbles {
            let x = WIDTH - MARGIN - OFF_RADIUS - f64::from(i) * (2.0 * OFF_RADIUS + 4.0);
            let _ = writeln!(
                svg,
                r#"<circle class="off {class}" cx="{x:.1}" cy="{y:.1}" r="{OFF_RADIUS}"/>"#
            );
        }
    }
}

/// One picture per position of a recorded game: the start, then the
/// position after each move with that move drawn as arrows.
/// An error names the first move that does not replay.
pub fn render_game<B: SvgBoard>(record: &GameRecord<B>) -> Result<Vec<String>, String> {
    let positions = record.positions()?;
    let mut pictures = vec![render_svg(&positions[0], None, &B::start_title(record))];
    for (index, (pair, &mv)) in positions.windows(2).zip(&record.moves).enumerate() {
        let title = B::move_title(index + 1, &pair[0], mv);
        pictures.push(render_svg(&pair[1], Some((pair[0], mv)), &title));
    }
    Ok(pictures)
}

/// The two-player board: marbles black and white, the last move's arrows,
/// and the marbles each colour lost.
impl SvgBoard for Position {
    fn svg_result(&self) -> Option<String> {
        self.result_text()
    }

    fn svg_content(&self, cell: Cell) -> Option<&'static str> {
        self.at(cell).map(color_class)
    }

    fn svg_steps(&self, mv: Move) -> Vec<MarbleStep> {
        marble_steps(self, mv)
    }

    fn svg_panel(&self) -> Vec<PanelLine> {
        let to_win = self.rules().marbles_to_win;
        Color::ALL
            .into_iter()
            .map(|color| {
                let off = self.marbles_off(color);
                PanelLine {
                    text: format!(
                        "{} marbles off: {off} (the game ends at {to_win})",
                        color_title(color)
                    ),
                    marbles: u32::from(off),
                    class: color_class(color),
                }
            })
            .collect()
    }

    fn start_title(record: &GameRecord<Position>) -> String {
        let players = format!("Black: {}, White: {}", record.player(0), record.player(1));
        match record.start {
            Start::Layout(layout) => format!("Start ({layout}). {players}"),
            Start::Position(_) => format!("Start. {players}"),
        }
    }

    fn move_title(number: usize, before: &Position, mv: Move) -> String {
        format!("{number}. {} {mv}", color_title(before.side_to_move()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules};

    fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }

    #[test]
    fn the_start_position_has_61_cells_and_28_marbles() {
        let start = Position::start(Layout::Standard, Rules::default());
        let svg = render_svg(&start, None, "Standard");
        assert_eq!(count(&svg, r#"class="cell""#), 61);
        assert_eq!(count(&svg, r#"class="marble black""#), 14);
        assert_eq!(count(&svg, r#"class="marble white""#), 14);
        assert_eq!(count(&svg, r#"class="coordinate""#), 18);
        assert_eq!(count(&svg, r#"class="arrow"#), 0);
        assert!(svg.contains("Black to move"));
    }

    #[test]
    fn the_last_move_is_drawn_with_one_arrow_per_moved_marble() {
        let position = Position::from_fen("5/6/7/8/w8/w7/b6/b5/b4 b 4 1").unwrap();
        let mv = position.parse_move("A1B1").unwrap();
        let after = position.play(mv);
        let svg = render_svg(&after, Some((position, mv)), "1. A1B1");
        assert_eq!(count(&svg, r#"class="arrow""#), 3);
        assert_eq!(count(&svg, r#"class="arrow pushed""#), 2);
        assert!(svg.contains(r#"data-from="E1" data-to="off""#));
        assert_eq!(count(&svg, r#"class="off white""#), 2);
        assert_eq!(count(&svg, r#"class="off black""#), 4);
        assert_eq!(count(&svg, r#"class="marble white""#), 1);
    }

    #[test]
    fn a_game_gives_one_picture_per_position() {
        let start = Position::start(Layout::Standard, Rules::default());
        let first = start.parse_move("A1B2").unwrap();
        let second = start.play(first).parse_move("I5H5").unwrap();
        let record = GameRecord::<Position> {
            start: Start::Layout(Layout::Standard),
            rules: Rules::default(),
            players: vec!["you".into(), "random".into()],
            opening_plies: 0,
            moves: vec![first, second],
            variations: Vec::new(),
            result: None,
            forfeit: None,
        };
        let pictures = render_game(&record).unwrap();
        assert_eq!(pictures.len(), 3);
        assert!(pictures[0].contains("Start (standard). Black: you, White: random"));
        assert_eq!(count(&pictures[0], "class=\"arrow"), 0);
        assert!(pictures[1].contains("1. Black A1B2"));
        assert_eq!(count(&pictures[1], "class=\"arrow\""), 3);
        assert!(pictures[2].contains("2. White I5H5"));
        assert!(pictures[2].contains(r#"data-from="I5" data-to="H5""#));
    }

    #[test]
    fn text_is_escaped() {
        let start = Position::start(Layout::Standard, Rules::default());
        let svg = render_svg(&start, None, "<b> & \"q\"\u{1}");
        assert!(svg.contains("&lt;b&gt; &amp; &quot;q&quot;\u{FFFD}"));
        assert!(!svg.contains("<b>"));
    }

    #[test]
    fn coordinates_sit_where_a_real_board_has_them() {
        // A1 is left of A2 on one row; B1 is up and to the left of A1.
        let a1 = cell_point("A1".parse().unwrap());
        let a2 = cell_point("A2".parse().unwrap());
        let b1 = cell_point("B1".parse().unwrap());
        let e5 = cell_point("E5".parse().unwrap());
        assert!(a2.0 > a1.0 && (a2.1 - a1.1).abs() < 1e-9);
        assert!(b1.0 < a1.0 && b1.1 < a1.1);
        // E5 is the centre of the picture's board area.
        assert!((e5.0 - (ORIGIN_X + 3.0 * SPACING)).abs() < 1e-9);
        assert!((e5.0 - WIDTH / 2.0).abs() < 1e-9);
    }
}
