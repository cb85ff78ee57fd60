//! The review as one self-contained HTML file (inline CSS, SVG and script;
//! nothing fetched): what was reviewed and each side's summary; the graph
//! of every position (the SVG report's, each point clickable); the key
//! moments; the moves, each judged one with its reason, the better move
//! and its line drawn as arrows on the board; buttons and arrow keys to go
//! move by move or from mistake to mistake. Without scripts the page still
//! shows everything, one move after another.

use std::fmt::Write as _;

use sumito_arena::chart::escape;

use super::judging::{Judgement, MoveReview, Review};
use super::line_picture::{ARROW_HEADS, ARROW_STYLE, line_picture};
use super::report_svg::{GRAPH_HEIGHT, graph};
use super::table::meta_lines;
use crate::svg::{STYLE as BOARD_STYLE, SvgBoard};

const PAGE_STYLE: &str = "\
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:900px;padding:12px;color:#222;background:#fff}
h1{font-size:1.35em;margin:.3em 0}h2{font-size:1.1em;margin:1em 0 .4em}
table{border-collapse:collapse}table.sides{display:block;overflow-x:auto;max-width:100%}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
#graph svg{width:100%;height:auto;max-width:760px}
#graph .point{cursor:pointer}
nav{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0}
button{font:inherit;padding:4px 10px;border:1px solid #999;border-radius:4px;background:#f4f4f4;cursor:pointer}
#where{min-width:8em;text-align:center}
.move{border-top:1px solid #ddd;padding:6px 0}
.js .move{display:none}.js .move.shown{display:block;border:0}
.board-picture{width:100%;max-width:460px;height:auto;display:block}
.moves{display:flex;flex-wrap:wrap;gap:4px;padding:0;list-style:none}
.moves button{padding:1px 6px;background:#fff}
.moves button.selected{outline:2px solid #3060b0}
.inaccuracy{color:#a77d00}.mistake{color:#c05a10}.blunder{color:#c02020}.random{color:#888}
.reason{font-weight:600}
.legend span{margin-right:1em}
";

/// The page's script: selects a position (0 the start), shows its move,
/// moves the graph's cursor, and steps by move or by judged move.
const SCRIPT: &str = r#"
(function () {
  document.body.classList.add('js');
  var moves = Array.prototype.slice.call(document.querySelectorAll('.move'));
  var buttons = Array.prototype.slice.call(document.querySelectorAll('.moves button'));
  var judged = moves.filter(function (m) { return m.dataset.judged === '1'; })
    .map(function (m) { return +m.dataset.ply; });
  var cursor = document.getElementById('cursor');
  var where = document.getElementById('where');
  var last = moves.length - 1;
  var current = 0;
  function select(ply) {
    current = Math.max(0, Math.min(last, ply));
    moves.forEach(function (m) { m.classList.toggle('shown', +m.dataset.ply === current); });
    buttons.forEach(function (b) { b.classList.toggle('selected', +b.dataset.ply === current); });
    var point = document.querySelector('.point[data-ply="' + current + '"]');
    if (cursor && point) {
      cursor.setAttribute('x1', point.getAttribute('cx'));
      cursor.setAttribute('x2', point.getAttribute('cx'));
      cursor.style.display = '';
    }
    where.textContent = current === 0 ? 'start' : 'move ' + current + ' of ' + last;
  }
  function step(forward) {
    var list = forward ? judged : judged.slice().reverse();
    var next = list.find(function (p) { return forward ? p > current : p < current; });
    if (next !== undefined) { select(next); }
  }
  document.querySelectorAll('.point').forEach(function (p) {
    p.addEventListener('click', function () { select(+p.dataset.ply); });
  });
  document.querySelectorAll('[data-ply]').forEach(function (b) {
    if (b.tagName === 'BUTTON' || b.tagName === 'A') {
      b.addEventListener('click', function (e) { e.preventDefault(); select(+b.dataset.ply); });
    }
  });
  document.getElementById('previous-mistake').addEventListener('click', function () { step(false); });
  document.getElementById('next-mistake').addEventListener('click', function () { step(true); });
  document.getElementById('previous-move').addEventListener('click', function () { select(current - 1); });
  document.getElementById('next-move').addEventListener('click', function () { select(current + 1); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowLeft') { select(current - 1); }
    else if (e.key === 'ArrowRight') { select(current + 1); }
    else if (e.key === 'ArrowUp') { step(false); }
    else if (e.key === 'ArrowDown') { step(true); }
    else { return; }
    e.preventDefault();
  });
  select(judged.length > 0 ? judged[0] : 0);
})();
"#;

/// One move's block: its line, and for a judged move the reason, the
/// better move with its line, and the picture with the arrows.
fn move_block<B: SvgBoard>(mv: &MoveReview, before: Option<&B>) -> String {
    let mut block = String::new();
    let class = mv.judgement.map_or(
        if mv.random_opening { "random" } else { "" },
        Judgement::name,
    );
    let _ = write!(
        block,
        r#"<article class="move" id="move-{}" data-ply="{}" data-judged="{}"><h2>{}. {} {}"#,
        mv.ply,
        mv.ply,
        u8::from(mv.judgement.is_some()),
        mv.ply,
        escape(&mv.mover),
        escape(&mv.played)
    );
    if let Some(judgement) = mv.judgement {
        let _ = write!(
            block,
            r#" <span class="{class}">{} {judgement}</span>"#,
            judgement.symbol()
        );
    }
    block.push_str("</h2>\n");
    let mut facts = format!(
        "{}'s expected score: {:.1}% with the best move, {:.1}% with the move played",
        escape(&mv.mover),
        mv.before,
        mv.after
    );
    if mv.random_opening {
        facts = "a move of the random opening: not judged".to_string();
    } else if mv.loss > 0.0 {
        let _ = write!(facts, " ({:.1} points lost)", mv.loss);
    }
    if mv.push_offs > 0 {
        let _ = write!(
            facts,
            "; pushes off {} marble{}",
            mv.push_offs,
            if mv.push_offs == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(block, "<p>{facts}.</p>");
    if mv.judgement.is_some() {
        if let Some(why) = &mv.reason {
            let _ = writeln!(
                block,
                r#"<p>Why: <span class="reason">{} {}</span>.</p>"#,
                escape(&mv.played),
                escape(why)
            );
        }
        if let Some((best, line)) = &mv.better {
            let rest = line.get(1..).unwrap_or_default();
            let then = if rest.is_empty() {
                String::new()
            } else {
                format!(
                    ", then the line the search expected: {}",
                    escape(&rest.join(" "))
                )
            };
            let _ = writeln!(block, "<p>Better: <b>{}</b>{then}.</p>", escape(best));
        }
        if let Some(before) = before {
            let played = before.parse_move(&mv.played).ok();
            let mut line = Vec::new();
            let mut position = *before;
            for text in mv.better.iter().flat_map(|(_, line)| line) {
                let Ok(next) = position.parse_move(text) else {
                    break;
                };
                line.push(next);
                position = position.play(next);
            }
            if let Some(played) = played {
                block.push_str(&line_picture(before, played, &line));
                block.push_str(
                    r#"<p class="legend"><span style="color:#c02020">- - played</span><span style="color:#1a8f3a">&#8594; better, yours</span><span style="color:#2a6fd0">&#8594; the reply</span></p>"#,
                );
            }
        }
    }
    block.push_str("</article>\n");
    block
}

/// The review as a self-contained HTML page, titled `title`; `positions`
/// are the game's positions, the start first (the pictures are drawn from
/// them).
pub fn render_review_html<B: SvgBoard>(review: &Review, positions: &[B], title: &str) -> String {
    let mut html = String::with_capacity(64 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>\n{PAGE_STYLE}{BOARD_STYLE}{ARROW_STYLE}</style></head>\n<body>\n{ARROW_HEADS}\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
    let mut about = meta_lines(review);
    if let Some(date) = &review.meta.date {
        about.push(format!("reviewed: {date}"));
    }
    html.push_str("<table class=\"meta\">\n");
    for line in about {
        let (key, value) = line.split_once(": ").unwrap_or(("", &line));
        let _ = writeln!(
            html,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(key),
            escape(value)
        );
    }
    html.push_str("</table>\n<table class=\"sides\"><tr><th>side</th><th>moves</th><th>accuracy</th><th>inaccuracies</th><th>mistakes</th><th>blunders</th></tr>\n");
    for side in &review.sides {
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{:.1}%</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&side.name),
            side.moves,
            side.accuracy,
            side.count(Judgement::Inaccuracy),
            side.count(Judgement::Mistake),
            side.count(Judgement::Blunder)
        );
    }
    html.push_str("</table>\n<section id=\"graph\">\n");
    let mut chart = graph(review, title, GRAPH_HEIGHT, true);
    let frame = chart.frame();
    chart.element(&format!(
        r##"<line id="cursor" x1="0" y1="{}" x2="0" y2="{}" stroke="#3060b0" stroke-width="1.5" style="display:none"/>"##,
        frame.top,
        frame.top + frame.plot_height
    ));
    html.push_str(&chart.finish());
    html.push_str(
        "</section>\n<nav><button id=\"previous-mistake\">&#9664;&#9664; previous mistake</button>\
         <button id=\"previous-move\">&#9664; move</button><span id=\"where\"></span>\
         <button id=\"next-move\">move &#9654;</button>\
         <button id=\"next-mistake\">next mistake &#9654;&#9654;</button></nav>\n\
         <p>Click a point of the graph or a move; the arrow keys step by move (left, right) and by judged move (up, down).</p>\n",
    );
    html.push_str("<section id=\"details\">\n");
    let _ = writeln!(
        html,
        "<article class=\"move\" id=\"move-0\" data-ply=\"0\" data-judged=\"0\"><h2>The start</h2><p>{}'s expected score: {:.1}%.</p></article>",
        escape(review.sides.first().map_or("Black", |s| s.name.as_str())),
        review.first_score.first().copied().unwrap_or(50.0)
    );
    for mv in &review.moves {
        html.push_str(&move_block(mv, positions.get(mv.ply - 1)));
    }
    html.push_str("</section>\n");
    let key = review.key_moments();
    if !key.is_empty() {
        html.push_str("<h2>Key moments</h2>\n<ol>\n");
        for index in key {
            let mv = &review.moves[index];
            let why = mv
                .reason
                .as_ref()
                .map_or(String::new(), |why| format!(": {}", escape(why)));
            let _ = writeln!(
                html,
                "<li><a href=\"#move-{ply}\" data-ply=\"{ply}\">{ply}. {} {} {}</a> lost {:.1} points{why}</li>",
                escape(&mv.mover),
                escape(&mv.played),
                mv.judgement.map_or("", Judgement::symbol),
                mv.loss,
                ply = mv.ply
            );
        }
        html.push_str("</ol>\n");
    }
    html.push_str("<h2>Moves</h2>\n<ol class=\"moves\">\n");
    for mv in &review.moves {
        let class = mv.judgement.map_or(
            if mv.random_opening { "random" } else { "" },
            Judgement::name,
        );
        let _ = writeln!(
            html,
            "<li><button class=\"{class}\" data-ply=\"{}\">{}. {}{}</button></li>",
            mv.ply,
            mv.ply,
            escape(&mv.played),
            mv.judgement.map_or("", Judgement::symbol)
        );
    }
    let _ = write!(html, "</ol>\n<script>{SCRIPT}</script>\n</body></html>\n");
    html
}
