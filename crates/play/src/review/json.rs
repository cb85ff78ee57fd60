//! The review as JSON: what was reviewed (`meta`), every move, the first
//! side's expected score at every position, the phases, the key moments,
//! and each side's summary under its name.

use serde_json::json;

use super::judging::{Judgement, Phase, Review};

/// The review as JSON: `meta` (record, model, simulations, players,
/// result, layout, date: what is known), every move (its judgement, loss,
/// better move and line, push-offs, reason, and whether it was a random
/// opening move), the first side's (Black's) expected score at every
/// position (and every side's, `expected_scores`, by the names in
/// `sides`), where the middlegame and endgame begin, the key moments (plies
/// of the largest losses), and each side's summary under its name
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
                "push_offs": mv.push_offs,
                "reason": mv.reason,
                "random_opening": mv.random_opening,
            })
        })
        .collect();
    let meta = &review.meta;
    let mut answer = serde_json::Map::new();
    answer.insert(
        "meta".into(),
        json!({
            "record": meta.record,
            "model": meta.model,
            "simulations": meta.simulations,
            "players": meta.players,
            "result": meta.result,
            "layout": meta.layout,
            "date": meta.date,
            "opening_plies": review.opening_plies,
        }),
    );
    answer.insert("moves".into(), moves.into());
    answer.insert("black_expected_score".into(), json!(review.first_score));
    // Every side's, named in `sides` (the first side's again first): the
    // page draws a line per side in games of 3-6 players.
    answer.insert(
        "sides".into(),
        json!(
            review
                .sides
                .iter()
                .map(|side| side.name.to_lowercase())
                .collect::<Vec<_>>()
        ),
    );
    answer.insert("expected_scores".into(), json!(review.side_scores));
    answer.insert(
        "phases".into(),
        json!({
            "middlegame_from": review.middlegame_from,
            "endgame_from": review.endgame_from,
        }),
    );
    let key: Vec<usize> = review
        .key_moments()
        .into_iter()
        .map(|index| review.moves[index].ply)
        .collect();
    answer.insert("key_moments".into(), json!(key));
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
