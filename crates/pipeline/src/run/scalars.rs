//! The TensorBoard scalars of self-play and evaluation.

use std::time::Duration;

use crate::error::Result;
use crate::evaluation::EvaluationSummary;
use crate::ratings::model_name;
use crate::selfplay::SelfPlayStats;
use crate::tensorboard::EventWriter;

pub(super) fn selfplay_scalars(
    stats: &SelfPlayStats,
    elapsed: Duration,
) -> Vec<(&'static str, f64)> {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    let games = stats.games.max(1) as f64;
    let mut scalars = vec![
        ("selfplay/games_per_second", stats.games as f64 / seconds),
        (
            "selfplay/positions_per_second",
            stats.positions as f64 / seconds,
        ),
        (
            "selfplay/evaluations_per_second",
            stats.evaluations as f64 / seconds,
        ),
        (
            "selfplay/average_game_length",
            stats.positions as f64 / games,
        ),
        ("selfplay/decisive_share", stats.decisive as f64 / games),
        (
            "selfplay/share_outside_network",
            1.0 - stats.evaluator_time.as_secs_f64()
                / seconds.max(stats.evaluator_time.as_secs_f64()),
        ),
    ];
    if stats.surprise_positions > 0 {
        scalars.push((
            "selfplay/policy_surprise",
            stats.policy_surprise_sum / stats.surprise_positions as f64,
        ));
    }
    if stats.resign_checks > 0 {
        scalars.push((
            "selfplay/false_resignation_share",
            stats.false_resignations as f64 / stats.resign_checks as f64,
        ));
    }
    scalars
}

pub(super) fn evaluation_scalars(summary: &EvaluationSummary) -> Vec<(String, f64)> {
    let record = &summary.record;
    let mut scalars = vec![(
        "eval/promoted".to_owned(),
        if record.promoted { 1.0 } else { 0.0 },
    )];
    if let Some(gating) = &record.gating {
        scalars.push(("eval/score_vs_best".to_owned(), gating.score));
    }
    for (opponent, score) in &record.opponent_scores {
        scalars.push((format!("eval/score_vs_{opponent}"), *score));
    }
    if let Some(table) = &summary.elo {
        let name = model_name(record.generation);
        if let Some(entry) = table.iter().find(|entry| entry.player == name) {
            scalars.push(("elo/candidate".to_owned(), entry.elo));
        }
        for entry in table
            .iter()
            .filter(|entry| !entry.player.starts_with("gen-"))
        {
            scalars.push((format!("elo/{}", entry.player), entry.elo));
        }
    }
    scalars
}

pub(super) fn log_scalars(
    events: &mut EventWriter,
    step: u64,
    scalars: &[(String, f64)],
) -> Result<()> {
    let borrowed: Vec<(&str, f64)> = scalars
        .iter()
        .map(|(tag, value)| (tag.as_str(), *value))
        .collect();
    Ok(events.scalars(step, &borrowed)?)
}
