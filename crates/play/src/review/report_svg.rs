//! The review's graph, and the SVG report built on it: the first side's
//! expected score at every position, with the players and result above it,
//! the random opening shaded, the phases divided, push-offs and judgements
//! marked (each with a tooltip), a legend, and below it each side's summary
//! and every judged move with the better one and the reason.

use std::fmt::Write as _;

use sumito_arena::chart::{Chart, Frame, escape};

use super::judging::{Judgement, Review};
use super::table::meta_lines;

/// The graph's width and height in pixels.
pub(crate) const GRAPH_WIDTH: f64 = 760.0;
pub(crate) const GRAPH_HEIGHT: f64 = 380.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 20.0;
/// Room for the title and the line of players above the plot.
const TOP: f64 = 58.0;
const BOTTOM: f64 = 60.0;

/// Colour of a push-off's mark: the pushing side's marble.
fn push_off_fill(side: usize) -> &'static str {
    match side {
        0 => "#1e1e1e",
        1 => "#f5f5f0",
        2 => "#c8322d",
        3 => "#2f8a3b",
        4 => "#2f5fc8",
        _ => "#e8c61e",
    }
}

/// The graph of `review` on a page `height` tall (room below it for what
/// the caller adds), titled `title`. With `clickable`, every position's
/// point is a target (`class="point"`, `data-ply`) that a page's script
/// can select.
pub(crate) fn graph(review: &Review, title: &str, height: f64, clickable: bool) -> Chart {
    let last_ply = review.first_score.len().saturating_sub(1).max(1);
    let frame = Frame {
        width: GRAPH_WIDTH,
        height,
        left: LEFT,
        top: TOP,
        plot_width: GRAPH_WIDTH - LEFT - RIGHT,
        plot_height: GRAPH_HEIGHT - TOP - BOTTOM,
    };
    let mut chart = Chart::new(frame, (0.0, last_ply as f64), (0.0, 100.0), title, 20.0);
    let players = meta_lines(review)
        .into_iter()
        .filter(|line| line.starts_with("players:") || line.starts_with("result:"))
        .map(|line| {
            line.split_once(": ")
                .map_or(line.clone(), |(_, v)| v.to_string())
        })
        .collect::<Vec<_>>()
        .join(" · ");
    if !players.is_empty() {
        chart.element(&format!(
            r##"<text class="players" x="{:.1}" y="40" text-anchor="middle" fill="#444444">{}</text>"##,
            GRAPH_WIDTH / 2.0,
            escape(&players)
        ));
    }
    if review.opening_plies > 0 {
        chart.band(0.0, review.opening_plies as f64, "#eeeeee");
        chart.element(&format!(
            r##"<text x="{:.1}" y="{:.1}" fill="#777777">random</text>"##,
            chart.x(0.0) + 4.0,
            TOP + 28.0
        ));
    }
    for score in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let stroke = if score == 50.0 { "#999999" } else { "#e0e0e0" };
        chart.horizontal_line(score, &format!("{score}%"), stroke);
    }
    let step = (last_ply / 10)
        .max(1)
        .next_multiple_of(10)
        .min(last_ply.max(1));
    for ply in (0..=last_ply).step_by(step) {
        chart.vertical_line(ply as f64, &ply.to_string(), "#f0f0f0");
    }
    for (from, name) in [
        (review.middlegame_from, "middlegame"),
        (review.endgame_from, "endgame"),
    ] {
        if let Some(ply) = from {
            chart.divider(ply as f64 - 0.5, name, "#7a7a7a");
        }
    }
    let first_side = review
        .sides
        .first()
        .map_or("Black", |side| side.name.as_str());
    chart.axis_titles(
        "move",
        GRAPH_HEIGHT - 24.0,
        &format!("{first_side}'s expected score"),
        16.0,
    );
    chart.border();
    let points: Vec<(f64, f64)> = review
        .first_score
        .iter()
        .enumerate()
        .map(|(ply, &score)| (ply as f64, f64::from(score)))
        .collect();
    chart.polyline("score", &points, "#3060b0");
    for mv in review.moves.iter().filter(|mv| mv.push_offs > 0) {
        let Some(&score) = review.first_score.get(mv.ply) else {
            continue;
        };
        let (x, y) = (chart.x(mv.ply as f64), chart.y(f64::from(score)));
        chart.element(&format!(
            r##"<rect class="push-off" x="{:.1}" y="{:.1}" width="9" height="9" fill="{}" stroke="#555555" transform="rotate(45 {x:.1} {y:.1})"><title>{}. {} {} pushes off {} marble{}</title></rect>"##,
            x - 4.5,
            y - 4.5,
            push_off_fill(mv.side),
            mv.ply,
            escape(&mv.mover),
            escape(&mv.played),
            mv.push_offs,
            if mv.push_offs == 1 { "" } else { "s" }
        ));
    }
    for mv in &review.moves {
        let Some(judgement) = mv.judgement else {
            continue;
        };
        let Some(&score) = review.first_score.get(mv.ply) else {
            continue;
        };
        let reason = mv
            .reason
            .as_ref()
            .map_or(String::new(), |why| format!("; {why}"));
        chart.element(&format!(
            r#"<circle class="{}" cx="{:.1}" cy="{:.1}" r="5" fill="{}"><title>{} {} {}: {} ({:.1} points lost{})</title></circle>"#,
            judgement.name(),
            chart.x(mv.ply as f64),
            chart.y(f64::from(score)),
            judgement.colour(),
            mv.ply,
            escape(&mv.mover),
            escape(&mv.played),
            judgement,
            mv.loss,
            escape(&reason)
        ));
    }
    if clickable {
        for (ply, &score) in review.first_score.iter().enumerate() {
            chart.element(&format!(
                r#"<circle class="point" data-ply="{ply}" cx="{:.1}" cy="{:.1}" r="7" fill="transparent"><title>move {ply}: {score:.1}%</title></circle>"#,
                chart.x(ply as f64),
                chart.y(f64::from(score)),
            ));
        }
    }
    let mut legend_x = LEFT;
    for judgement in [
        Judgement::Inaccuracy,
        Judgement::Mistake,
        Judgement::Blunder,
    ] {
        chart.element(&format!(
            r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            legend_x + 5.0,
            GRAPH_HEIGHT - 8.0,
            judgement.colour(),
            legend_x + 14.0,
            GRAPH_HEIGHT - 4.0,
            judgement
        ));
        legend_x += 110.0;
    }
    chart.element(&format!(
        r##"<rect x="{:.1}" y="{:.1}" width="9" height="9" fill="#1e1e1e" stroke="#555555" transform="rotate(45 {:.1} {:.1})"/><text x="{:.1}" y="{:.1}">push-off</text>"##,
        legend_x + 0.5,
        GRAPH_HEIGHT - 12.5,
        legend_x + 5.0,
        GRAPH_HEIGHT - 8.0,
        legend_x + 14.0,
        GRAPH_HEIGHT - 4.0,
    ));
    chart
}

/// The summary lines of a review's report: each side's, then every judged
/// move with the better move and the reason.
fn report_lines(review: &Review) -> Vec<(Option<Judgement>, String)> {
    let mut lines = Vec::new();
    for side in &review.sides {
        lines.push((
            None,
            format!(
                "{}: {} moves, accuracy {:.1}%, {} inaccuracies, {} mistakes, {} blunders",
                side.name,
                side.moves,
                side.accuracy,
                side.count(Judgement::Inaccuracy),
                side.count(Judgement::Mistake),
                side.count(Judgement::Blunder),
            ),
        ));
    }
    for mv in &review.moves {
        let Some(judgement) = mv.judgement else {
            continue;
        };
        let mut line = format!(
            "{}. {} {} {} {}: {:.1} points lost",
            mv.ply,
            mv.mover,
            mv.played,
            judgement.symbol(),
            judgement,
            mv.loss
        );
        if let Some(why) = &mv.reason {
            let _ = write!(line, ", {why}");
        }
        if let Some((best, _)) = &mv.better {
            let _ = write!(line, ", better {best}");
        }
        lines.push((Some(judgement), line));
    }
    lines
}

/// The review as a self-contained SVG report: the graph (see the module),
/// then each side's summary and every judged move with the better one.
pub fn render_review_svg(review: &Review, title: &str) -> String {
    const LINE: f64 = 17.0;
    let lines = report_lines(review);
    let height = GRAPH_HEIGHT + 16.0 + LINE * lines.len() as f64;
    let mut chart = graph(review, title, height, false);
    for (index, (judgement, line)) in lines.iter().enumerate() {
        let colour = judgement.map_or("#202020", Judgement::colour);
        chart.element(&format!(
            r#"<text class="report" x="{LEFT}" y="{:.1}" fill="{colour}">{}</text>"#,
            GRAPH_HEIGHT + 20.0 + LINE * index as f64,
            escape(line)
        ));
    }
    chart.finish()
}
