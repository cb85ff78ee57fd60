//! The review as a terminal table: what was reviewed, one line per move,
//! the key moments with their reasons, and each side's summary.

use std::fmt::Write as _;

use super::judging::{BLUNDER, INACCURACY, Judgement, MISTAKE, MoveReview, Phase, Review};

/// The better move and the rest of its line: `B2C3 (then D4D5 C3C4)`, or
/// `B2C3` alone when the search expected nothing after it.
pub(crate) fn better_text(mv: &MoveReview) -> String {
    match &mv.better {
        Some((best, line)) => match line.get(1..).unwrap_or_default() {
            [] => best.clone(),
            rest => format!("{best} (then {})", rest.join(" ")),
        },
        None => String::new(),
    }
}

/// What the review is of, one line each part that is known.
pub(crate) fn meta_lines(review: &Review) -> Vec<String> {
    let meta = &review.meta;
    let mut lines = Vec::new();
    if !meta.players.is_empty() {
        let seats: Vec<String> = meta
            .players
            .iter()
            .enumerate()
            .map(|(seat, player)| match review.sides.get(seat) {
                Some(side) if review.sides.len() == meta.players.len() => {
                    format!("{} {player}", side.name)
                }
                _ => player.clone(),
            })
            .collect();
        lines.push(format!("players: {}", seats.join(", ")));
    }
    if let Some(result) = &meta.result {
        lines.push(format!("result: {result}"));
    }
    if let Some(layout) = &meta.layout {
        lines.push(format!("layout: {layout}"));
    }
    if let Some(model) = &meta.model {
        let simulations = meta
            .simulations
            .map_or(String::new(), |n| format!(", {n} simulations a position"));
        lines.push(format!("judged by: {model}{simulations}"));
    }
    if review.opening_plies > 0 {
        lines.push(format!(
            "random opening: moves 1-{}, shown but not judged",
            review.opening_plies
        ));
    }
    lines
}

/// The review as a terminal table: one line per move (expected score
/// before and after for its player, the loss, the judgement, the better
/// move and its line), the key moments with their reasons, then each
/// side's summary.
pub fn format_review(review: &Review) -> String {
    let mut text = String::new();
    for line in meta_lines(review) {
        let _ = writeln!(text, "{line}");
    }
    let _ = writeln!(
        text,
        "{:>4}  {:<12} {:>7} {:>7} {:>6}  {:<13} better move and line",
        "ply", "move", "best", "played", "loss", "judgement"
    );
    for mv in &review.moves {
        let judgement = match mv.judgement {
            _ if mv.random_opening => "random".to_string(),
            Some(j) => format!("{} {}", j.symbol(), j),
            None => String::new(),
        };
        let better = if mv.judgement.is_some() {
            better_text(mv)
        } else {
            String::new()
        };
        let played = if mv.push_offs > 0 {
            format!("{} {}+{}", mv.mover, mv.played, mv.push_offs)
        } else {
            format!("{} {}", mv.mover, mv.played)
        };
        let _ = writeln!(
            text,
            "{:>4}  {:<12} {:>6.1}% {:>6.1}% {:>6.1}  {:<13} {better}",
            mv.ply, played, mv.before, mv.after, mv.loss, judgement,
        );
    }
    let key = review.key_moments();
    if !key.is_empty() {
        let _ = writeln!(text, "\nkey moments (the largest losses):");
        for index in key {
            let mv = &review.moves[index];
            let judgement = mv.judgement.map_or("", Judgement::symbol);
            let reason = mv
                .reason
                .as_ref()
                .map_or(String::new(), |why| format!(": {why}"));
            let _ = writeln!(
                text,
                "  {}. {} {}{judgement} lost {:.1} points{reason}; better {}",
                mv.ply,
                mv.mover,
                mv.played,
                mv.loss,
                better_text(mv)
            );
        }
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
    let phases = match (review.middlegame_from, review.endgame_from) {
        (Some(middle), Some(end)) => {
            format!("middlegame from move {middle}, endgame from move {end}")
        }
        (Some(middle), None) => format!("middlegame from move {middle}, no endgame"),
        _ => "the game ended in the opening".to_string(),
    };
    let _ = writeln!(
        text,
        "(best, played: the mover's expected score, win + draw/2, with the search's best move and with the move played; +N: marbles pushed off; inaccuracy from {INACCURACY} points lost, mistake from {MISTAKE}, blunder from {BLUNDER}; {phases})"
    );
    text
}
