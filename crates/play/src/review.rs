//! Game review, as lichess and KaTrain do it: from a model's analysis of
//! every position of a game ([`crate::analysis::analyse_game`]), each move's
//! expected score for its player before and after it, the loss, a judgement
//! by fixed thresholds, the better move with its line, and a summary per
//! side (accuracy, judgements by phase of the game). Written as a terminal
//! table ([`format_review`]) and an SVG graph of the expected score
//! ([`render_review_svg`]); the command writes JSON too.
//!
//! **Expected score** is `win + draw / 2` for the player to move, in
//! percent. **Points lost** by a move: the expected score of the search's
//! best move minus that of the move played, both from the one search of
//! the position before it (so that a network's bias towards the side to
//! move, which makes successive positions' values see-saw, does not count);
//! a move that search did not visit is taken at the value of the position
//! it led to. **Judgements**: a move that loses at least
//! [`INACCURACY`] points of expected score is an inaccuracy, at least
//! [`MISTAKE`] a mistake, at least [`BLUNDER`] a blunder (lichess's
//! thresholds on its winning-chances scale). **Accuracy** of a side is the
//! mean over its moves of lichess's per-move formula,
//! `103.1668 · e^(−0.04354 · loss) − 3.1669`, clamped to 0–100 (100 for a
//! move that loses nothing).

use std::fmt::{self, Write as _};

use serde_json::json;

use sumito_game::Board;
use sumito_game::board::capitalised;

use crate::analysis::PlyReport;
use sumito_arena::chart::{Chart, Frame, escape};

/// Points of expected score lost from which a move is an inaccuracy.
pub const INACCURACY: f32 = 5.0;
/// ... a mistake.
pub const MISTAKE: f32 = 10.0;
/// ... a blunder.
pub const BLUNDER: f32 = 15.0;

/// Plies that make the opening; the endgame starts at [`ENDGAME_PLY`].
pub const OPENING_PLIES: usize = 30;
pub const ENDGAME_PLY: usize = 120;

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// The judgement of a move that lost `loss` points, if any.
    pub fn of_loss(loss: f32) -> Option<Judgement> {
        if loss >= BLUNDER {
            Some(Judgement::Blunder)
        } else if loss >= MISTAKE {
            Some(Judgement::Mistake)
        } else if loss >= INACCURACY {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }

    /// The annotation symbols of chess: `?!`, `?`, `??`.
    pub fn symbol(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The phase of the game a ply falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Opening,
    Middlegame,
    Endgame,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

    /// The phase of move number `ply` (1 for the first move).
    pub fn of_ply(ply: usize) -> Phase {
        if ply <= OPENING_PLIES {
            Phase::Opening
        } else if ply < ENDGAME_PLY {
            Phase::Middlegame
        } else {
            Phase::Endgame
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }
}

/// One move of the game, reviewed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// 1 for the first move of the game.
    pub ply: usize,
    /// Who played it: its seat as a sentence names it (`Black`), and the
    /// number of its side (partners share one).
    pub mover: String,
    pub side: usize,
    /// The move as a person writes it.
    pub played: String,
    /// The mover's expected score (percent) with the search's best move
    /// (before the move, with best play) and with the move played.
    pub before: f32,
    pub after: f32,
    /// Points lost (never below 0).
    pub loss: f32,
    pub judgement: Option<Judgement>,
    /// The search's move where it differs from the one played, and its line.
    pub better: Option<(String, Vec<String>)>,
}

/// One side's summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// The side as a sentence names it: `Black`, `Black+red`.
    pub name: String,
    pub moves: usize,
    /// Mean accuracy of its moves, 0 to 100 (100 without moves).
    pub accuracy: f32,
    /// Mean points lost a move.
    pub mean_loss: f32,
    /// Inaccuracies, mistakes and blunders in each phase (opening,
    /// middlegame, endgame).
    pub judgements: [[usize; 3]; 3],
}

impl SideSummary {
    /// Judgements of `kind` over the whole game.
    pub fn count(&self, kind: Judgement) -> usize {
        self.judgements
            .iter()
            .map(|phase| phase[kind as usize])
            .sum()
    }
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    pub moves: Vec<MoveReview>,
    /// The first side's (Black's) expected score (percent) at every
    /// position, the start first.
    pub first_score: Vec<f32>,
    /// Every side's summary, the first side first.
    pub sides: Vec<SideSummary>,
}

/// Lichess's accuracy of one move that lost `loss` points.
pub fn move_accuracy(loss: f32) -> f32 {
    if loss <= 0.0 {
        return 100.0;
    }
    (103.1668 * (-0.04354 * loss).exp() - 3.1669).clamp(0.0, 100.0)
}

/// The review of a game of the board `B` from its analysis (one report per
/// position, the start first, as [`crate::analysis::analyse_game`] gives
/// them); `start` is the game's first position (it names the sides).
pub fn review<B: Board>(start: &B, reports: &[PlyReport<B>]) -> Review {
    let first_score: Vec<f32> = reports.iter().map(|r| r.expected_score(0)).collect();
    let mut moves = Vec::new();
    let mut sums = vec![(0usize, 0.0f32, 0.0f32); start.sides()];
    let mut sides: Vec<SideSummary> = (0..start.sides())
        .map(|side| SideSummary {
            name: capitalised(&start.side_name(side)),
            ..SideSummary::default()
        })
        .collect();
    for (index, report) in reports.iter().enumerate().skip(1) {
        let (Some((seat, played)), Some(side)) = (report.played, report.played_side) else {
            continue;
        };
        let previous = &reports[index - 1];
        let root = previous.expected_score(side);
        // The played move as the search before it saw it, if it did.
        let searched = |mv: B::Move| {
            previous
                .move_values
                .iter()
                .find(|(candidate, _)| *candidate == mv)
                .map(|&(_, q)| 50.0 * (1.0 + q))
        };
        let after = searched(played).unwrap_or_else(|| report.expected_score(side));
        let before = previous.best.and_then(searched).unwrap_or(root);
        let loss = (before - after).max(0.0);
        let judgement = Judgement::of_loss(loss);
        let better = previous.best.filter(|&best| best != played).map(|best| {
            (
                B::move_text(best),
                previous.line.iter().map(|&mv| B::move_text(mv)).collect(),
            )
        });
        let Some(summary) = sides.get_mut(side) else {
            continue;
        };
        if let Some(kind) = judgement {
            summary.judgements[Phase::of_ply(index) as usize][kind as usize] += 1;
        }
        let sum = &mut sums[side];
        sum.0 += 1;
        sum.1 += move_accuracy(loss);
        sum.2 += loss;
        moves.push(MoveReview {
            ply: index,
            mover: B::seat_title(seat),
            side,
            played: B::move_text(played),
            before,
            after,
            loss,
            judgement,
            better,
        });
    }
    for (side, (count, accuracy, loss)) in sides.iter_mut().zip(sums) {
        side.moves = count;
        side.accuracy = if count == 0 {
            100.0
        } else {
            accuracy / count as f32
        };
        side.mean_loss = if count == 0 { 0.0 } else { loss / count as f32 };
    }
    Review {
        moves,
        first_score,
        sides,
    }
}

/// The review as a terminal table: one line per move (expected score
/// before and after for its player, the loss, the judgement, the better
/// move and its line), then each side's summary.
pub fn format_review(review: &Review) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:>4}  {:<12} {:>7} {:>7} {:>6}  {:<13} better move and line",
        "ply", "move", "best", "played", "loss", "judgement"
    );
    for mv in &review.moves {
        let judgement = mv
            .judgement
            .map_or(String::new(), |j| format!("{} {}", j.symbol(), j));
        let better = match (&mv.better, mv.judgement) {
            (Some((best, line)), Some(_)) => {
                let rest = line.get(1..).unwrap_or_default().join(" ");
                format!("{best} ({})", if rest.is_empty() { "-" } else { &rest })
            }
            _ => String::new(),
        };
        let _ = writeln!(
            text,
            "{:>4}  {:<12} {:>6.1}% {:>6.1}% {:>6.1}  {:<13} {better}",
            mv.ply,
            format!("{} {}", mv.mover, mv.played),
            mv.before,
            mv.after,
            mv.loss,
            judgement,
        );
    }
    let _ = writeln!(text);
    for side in &review.sides {
        let phases: Vec<String> = Phase::ALL
            .iter()
            .map(|&phase| {
                let [i, m, b] = side.judgements[phase as usize];
                format!("{} {i}/{m}/{b}", phase.name())
            })
            .collect();
        let _ = writeln!(
            text,
            "{}: {} moves, accuracy {:.1}%, mean loss {:.1}; {} inaccuracies, {} mistakes, {} blunders (by phase, inaccuracies/mistakes/blunders: {})",
            side.name,
            side.moves,
            side.accuracy,
            side.mean_loss,
            side.count(Judgement::Inaccuracy),
            side.count(Judgement::Mistake),
            side.count(Judgement::Blunder),
            phases.join(", ")
        );
    }
    let _ = writeln!(
        text,
        "(best, played: the mover's expected score, win + draw/2, with the search's best move and with the move played; inaccuracy from {INACCURACY} points lost, mistake from {MISTAKE}, blunder from {BLUNDER})"
    );
    text
}

/// Colour of a judgement's mark in the graph.
fn mark_colour(judgement: Judgement) -> &'static str {
    match judgement {
        Judgement::Inaccuracy => "#d4a017",
        Judgement::Mistake => "#e07020",
        Judgement::Blunder => "#c02020",
    }
}

/// The summary lines of a review's report: each side's, then every judged
/// move with the better move.
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
        let better = mv
            .better
            .as_ref()
            .map_or(String::new(), |(best, _)| format!(", better {best}"));
        lines.push((
            Some(judgement),
            format!(
                "{}. {} {} {} {}: {:.1} points lost{better}",
                mv.ply,
                mv.mover,
                mv.played,
                judgement.symbol(),
                judgement,
                mv.loss
            ),
        ));
    }
    lines
}

/// The review as a self-contained SVG report: the graph of the first
/// side's (Black's) expected score at every ply (axes, labels, the 50 % line), each judged
/// move marked in its colour with a tooltip, a legend, and below it each
/// side's summary and every judged move with the better one.
pub fn render_review_svg(review: &Review, title: &str) -> String {
    const WIDTH: f64 = 760.0;
    /// The graph's part of the document.
    const HEIGHT: f64 = 360.0;
    const LINE: f64 = 17.0;
    const LEFT: f64 = 60.0;
    const RIGHT: f64 = 20.0;
    const TOP: f64 = 40.0;
    const BOTTOM: f64 = 60.0;
    let last_ply = review.first_score.len().saturating_sub(1).max(1);
    let lines = report_lines(review);
    let frame = Frame {
        width: WIDTH,
        height: HEIGHT + 16.0 + LINE * lines.len() as f64,
        left: LEFT,
        top: TOP,
        plot_width: WIDTH - LEFT - RIGHT,
        plot_height: HEIGHT - TOP - BOTTOM,
    };
    let mut chart = Chart::new(frame, (0.0, last_ply as f64), (0.0, 100.0), title, 22.0);
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
    let first_side = review
        .sides
        .first()
        .map_or("Black", |side| side.name.as_str());
    chart.axis_titles(
        "ply",
        HEIGHT - 22.0,
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
    for mv in &review.moves {
        let Some(judgement) = mv.judgement else {
            continue;
        };
        let first_after = f64::from(review.first_score[mv.ply]);
        chart.element(&format!(
            r#"<circle class="{}" cx="{:.1}" cy="{:.1}" r="5" fill="{}"><title>{} {} {}: {} ({:.1} points lost)</title></circle>"#,
            judgement.name(),
            chart.x(mv.ply as f64),
            chart.y(first_after),
            mark_colour(judgement),
            mv.ply,
            escape(&mv.mover.to_string()),
            escape(&mv.played.to_string()),
            judgement,
            mv.loss
        ));
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
            HEIGHT - 8.0,
            mark_colour(judgement),
            legend_x + 14.0,
            HEIGHT - 4.0,
            judgement
        ));
        legend_x += 110.0;
    }
    for (index, (judgement, line)) in lines.iter().enumerate() {
        let colour = judgement.map_or("#202020", mark_colour);
        chart.element(&format!(
            r#"<text class="report" x="{LEFT}" y="{:.1}" fill="{colour}">{}</text>"#,
            HEIGHT + 20.0 + LINE * index as f64,
            escape(line)
        ));
    }
    chart.finish()
}

/// The review as JSON: every move, the first side's (Black's) expected
/// score at every position, and each side's summary under its name
/// (`black`, `white`, `red`, `black+red`...).
pub fn review_json(review: &Review) -> serde_json::Value {
    let moves: Vec<serde_json::Value> = review
        .moves
        .iter()
        .map(|mv| {
            json!({
                "ply": mv.ply,
                "color": mv.mover.to_lowercase(),
                "move": mv.played,
                "before": mv.before,
                "after": mv.after,
                "loss": mv.loss,
                "judgement": mv.judgement.map(Judgement::name),
                "better": mv.better.as_ref().map(|(best, line)| json!({
                    "move": best,
                    "line": line,
                })),
            })
        })
        .collect();
    let mut answer = serde_json::Map::new();
    answer.insert("moves".into(), moves.into());
    answer.insert("black_expected_score".into(), json!(review.first_score));
    for side in &review.sides {
        let phases: serde_json::Map<String, serde_json::Value> = Phase::ALL
            .iter()
            .map(|&phase| {
                let [inaccuracies, mistakes, blunders] = side.judgements[phase as usize];
                (
                    phase.name().to_string(),
                    json!({"inaccuracies": inaccuracies, "mistakes": mistakes, "blunders": blunders}),
                )
            })
            .collect();
        answer.insert(
            side.name.to_lowercase(),
            json!({
                "moves": side.moves,
                "accuracy": side.accuracy,
                "mean_loss": side.mean_loss,
                "inaccuracies": side.count(Judgement::Inaccuracy),
                "mistakes": side.count(Judgement::Mistake),
                "blunders": side.count(Judgement::Blunder),
                "by_phase": phases,
            }),
        );
    }
    answer.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Position, Rules};
    use sumito_mcts::Wdl;

    fn start() -> Position {
        Position::start(Layout::Standard, Rules::default())
    }

    /// Reports of a game whose Black scores (percent) are `scores`, the
    /// start first: every move played is the second legal one, the
    /// search's best the first.
    fn reports(scores: &[f32]) -> Vec<PlyReport> {
        let mut position = Position::start(Layout::Standard, Rules::default());
        let mut played = None;
        let mut reports = Vec::new();
        for (ply, &score) in scores.iter().enumerate() {
            let best = position.legal_moves()[0];
            let black = 2.0 * score / 100.0 - 1.0;
            reports.push(PlyReport {
                ply,
                played,
                played_side: played.map(|(seat, _)| seat),
                over: None,
                first: Wdl {
                    win: score / 100.0,
                    draw: 0.0,
                    loss: 1.0 - score / 100.0,
                },
                side_values: vec![black, -black],
                best: Some(best),
                line: vec![best],
                move_values: Vec::new(),
            });
            let mv = position.legal_moves()[1];
            played = Some((position.side_to_move().index(), mv));
            position = position.play(mv);
        }
        reports
    }

    #[test]
    fn losses_are_judged_by_the_thresholds_from_the_movers_view() {
        // Black 50 -> 44 (loses 6: inaccuracy), White 56 -> 70 for White
        // (gains), Black 30 -> 18 (loses 12: mistake), White 82 -> 60
        // (loses 22: blunder).
        let review = review(&start(), &reports(&[50.0, 44.0, 30.0, 18.0, 40.0]));
        let judged: Vec<Option<Judgement>> = review.moves.iter().map(|m| m.judgement).collect();
        assert_eq!(
            judged,
            [
                Some(Judgement::Inaccuracy),
                None,
                Some(Judgement::Mistake),
                Some(Judgement::Blunder)
            ]
        );
        assert!((review.moves[3].loss - 22.0).abs() < 1e-3);
        assert_eq!(review.moves[1].loss, 0.0);
        let [black, white] = &review.sides[..] else {
            panic!("two sides")
        };
        assert_eq!((black.moves, white.moves), (2, 2));
        assert_eq!(black.count(Judgement::Mistake), 1);
        assert_eq!(white.judgements[0][Judgement::Blunder as usize], 1);
        assert!((black.mean_loss - 9.0).abs() < 1e-3 && (white.mean_loss - 11.0).abs() < 1e-3);
        assert!((black.accuracy - 67.1).abs() < 0.2, "{black:?}");
        // The better move is the search's, with its line.
        assert!(review.moves[0].better.is_some());
        let table = format_review(&review);
        assert!(table.contains("?! inaccuracy"), "{table}");
        assert!(table.contains("?? blunder"), "{table}");
        assert!(table.contains("Black: 2 moves, accuracy"), "{table}");
        let svg = render_review_svg(&review, "a <game>");
        assert!(svg.contains("a &lt;game&gt;") && svg.contains("class=\"blunder\""));
        assert_eq!(svg.matches("<circle class=").count(), 3);
        // Below the graph: both sides' summaries and the three judged moves.
        assert_eq!(svg.matches("class=\"report\"").count(), 5, "{svg}");
        assert!(
            svg.contains("4. White") && svg.contains("?? blunder: 22.0 points lost, better "),
            "{svg}"
        );
    }

    #[test]
    fn the_loss_compares_the_moves_of_one_search_when_it_saw_both() {
        // The position values see-saw (a network's side-to-move bias), but
        // the search before Black's move rated it 0.4 and its best 0.5:
        // 5 points lost, whatever the next position's value says.
        let mut game = reports(&[60.0, 20.0]);
        let best = game[0].best.unwrap();
        let (_, played) = game[1].played.unwrap();
        game[0].move_values = vec![(best, 0.0), (played, -0.1)];
        let review = review(&start(), &game);
        let mv = &review.moves[0];
        assert!(
            (mv.loss - 5.0).abs() < 1e-3 && (mv.after - 45.0).abs() < 1e-3,
            "{mv:?}"
        );
        assert_eq!(mv.judgement, Some(Judgement::Inaccuracy));
    }

    #[test]
    fn accuracy_follows_lichess_and_phases_split_the_game() {
        assert_eq!(move_accuracy(0.0), 100.0);
        assert!(
            (move_accuracy(10.0) - 63.6).abs() < 0.1,
            "{}",
            move_accuracy(10.0)
        );
        assert_eq!(move_accuracy(200.0), 0.0);
        assert_eq!(Phase::of_ply(1), Phase::Opening);
        assert_eq!(Phase::of_ply(OPENING_PLIES + 1), Phase::Middlegame);
        assert_eq!(Phase::of_ply(ENDGAME_PLY), Phase::Endgame);
        // A game without moves: nothing judged, full accuracy.
        let review = review(&start(), &reports(&[50.0]));
        assert!(review.moves.is_empty());
        assert_eq!(review.sides[0].accuracy, 100.0);
    }
}
