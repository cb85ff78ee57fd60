//! A reviewed move on a picture of the board: the position before it, the
//! move played as a red dashed arrow, and the better move with the line
//! the search expected after it as numbered arrows (the mover's moves
//! green, the replies blue). An inline `<svg>` for the HTML report; its
//! arrow heads are the report's (`#head-played`, `#head-better`,
//! `#head-reply`), defined once in the page by [`ARROW_HEADS`].

use std::fmt::Write as _;

use sumito_engine::general::GeneralMove;

use crate::svg::{HEADER, OFF_PANEL_Y, SvgBoard, WIDTH, point, write_board_cells};

/// The arrow heads the pictures use, in a hidden `<svg>` of the page.
pub(crate) const ARROW_HEADS: &str = r##"<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
<marker id="head-played" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c02020"/></marker>
<marker id="head-better" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1a8f3a"/></marker>
<marker id="head-reply" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#2a6fd0"/></marker>
</defs></svg>"##;

/// The style of the pictures' arrows and their numbers.
pub(crate) const ARROW_STYLE: &str = "\
.line-arrow{stroke-width:5;stroke-linecap:round;fill:none;opacity:.85}
.line-arrow.played{stroke:#c02020;stroke-dasharray:9 6}
.line-arrow.better{stroke:#1a8f3a}
.line-arrow.reply{stroke:#2a6fd0}
.step{font:bold 13px sans-serif;text-anchor:middle;dominant-baseline:central;fill:#fff}
";

/// Where an arrow of `mv` starts and ends on the picture: from the
/// trailing marble of an inline move to where its leading marble goes, or
/// from the middle of a broadside group one step on; none for a move that
/// is not a group's (a shield or a rotation of the general game).
fn arrow_ends(mv: GeneralMove) -> Option<((f64, f64), (f64, f64))> {
    let group = mv.as_group()?;
    let cells: Vec<_> = group.cells().collect();
    let (dr, dd) = group.direction().delta();
    let at = |cell: sumito_engine::Cell| (f64::from(cell.row()), f64::from(cell.diag()));
    let (from, lead) = if group.is_broadside() {
        let n = cells.len() as f64;
        let middle = (
            cells.iter().map(|&c| at(c).0).sum::<f64>() / n,
            cells.iter().map(|&c| at(c).1).sum::<f64>() / n,
        );
        (middle, middle)
    } else {
        (at(*cells.first()?), at(*cells.last()?))
    };
    let start = point(from.0, from.1);
    let end = point(lead.0 + f64::from(dr), lead.1 + f64::from(dd));
    // The head stops short of the destination's centre.
    let (dx, dy) = (end.0 - start.0, end.1 - start.1);
    let length = (dx * dx + dy * dy).sqrt().max(1.0);
    let shorten = 10.0 / length;
    Some((start, (end.0 - dx * shorten, end.1 - dy * shorten)))
}

/// The picture of `before` with `played` and the `line` (the better move
/// first), for the side of `before`'s mover.
pub(crate) fn line_picture<B: SvgBoard>(before: &B, played: B::Move, line: &[B::Move]) -> String {
    let top = HEADER - 12.0;
    let height = OFF_PANEL_Y - 14.0 - top;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg class="board-picture" xmlns="http://www.w3.org/2000/svg" viewBox="0 {top:.0} {WIDTH:.0} {height:.0}" role="img">"#
    );
    svg.push_str(r##"<rect x="0" y="0" width="100%" height="10000" fill="#fbf8f0"/>"##);
    write_board_cells(&mut svg, &|cell| before.svg_content(cell));
    let mover = before.mover_side();
    let mut arrows = Vec::new();
    let mut position = *before;
    for (index, &mv) in line.iter().enumerate() {
        if !position.is_legal(mv) {
            break;
        }
        let class = if position.mover_side() == mover {
            "better"
        } else {
            "reply"
        };
        arrows.push((class, Some(index + 1), mv));
        position = position.play(mv);
    }
    // The move played first, so that the better line is drawn over it.
    arrows.insert(0, ("played", None, played));
    for (class, number, mv) in arrows {
        let Some(((x1, y1), (x2, y2))) = arrow_ends(B::general_move(mv)) else {
            continue;
        };
        let _ = writeln!(
            svg,
            r#"<line class="line-arrow {class}" data-move="{}" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" marker-end="url(#head-{class})"/>"#,
            B::move_text(mv)
        );
        if let Some(number) = number {
            let (x, y) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
            let fill = if class == "better" {
                "#1a8f3a"
            } else {
                "#2a6fd0"
            };
            let _ = writeln!(
                svg,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="9" fill="{fill}"/><text class="step" x="{x:.1}" y="{y:.1}">{number}</text>"#
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}
