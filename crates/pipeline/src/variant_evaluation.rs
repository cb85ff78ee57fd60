//! Evaluation of a general-game candidate (variants, 3 to 6 players): the
//! candidate takes one side against each fixed opponent of
//! `[evaluation] opponents` (`random`, `greedy`, `alphabeta:...` of
//! `sumito_arena::multi`), which fills every other side, with the seats
//! rotated from game to game; `games_per_opponent` games per opponent,
//! spread over the run's layouts, each opened with `random_opening_plies`
//! random plies. Its score against an opponent is its points share (a win
//! 1, a draw among k sides 1/k), with a third of the points par for three
//! sides.
//!
//! Gating is off for the general game (the configuration refuses it), so
//! every candidate is promoted; the record has no two-player games, so the
//! run's Elo table does not include these runs.

use std::collections::BTreeMap;

use sumito_arena::multi::play_multi_match;

use crate::config::{Config, GeneralRules};
use crate::error::{PipelineError, Result};
use crate::evaluation::{EvaluationProgress, EvaluationSummary};
use crate::models::{device, load_model};
use crate::ratings::{EvaluationRecord, model_name};
use crate::rundir::{RunDir, write_json};
use crate::variant_players::VariantNetSeats;

/// Evaluates candidate `generation` of a general-game run (see the module
/// docs), writes its record and promotes it if it is the newest.
pub fn evaluate_variant_candidate(
    run: &RunDir,
    config: &Config,
    general: &GeneralRules,
    generation: u32,
    run_hours: Option<f64>,
    progress: EvaluationProgress<'_>,
) -> Result<EvaluationSummary> {
    let device = device(config)?;
    let net =
        load_model(run, generation, config, device)?.for_inference(config.net.inference.precision);
    let candidate = model_name(generation);
    let seats = VariantNetSeats::with_network(
        &candidate,
        net,
        config.evaluation_search(),
        &config.net.inference,
    )
    .map_err(PipelineError::net(format!(
        "starting {candidate} for evaluation"
    )))?;
    let evaluation = &config.evaluation;
    let sides = general.rules.seating.sides();
    let planned = evaluation.games_per_opponent * evaluation.opponents.len() as u32;
    let seed = u64::from(generation).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let make = |spec: &str, seed: u64| seats.make(spec, seed);
    let mut opponent_scores = BTreeMap::new();
    let (mut played, mut points) = (0u32, 0.0f64);
    for (index, opponent) in evaluation.opponents.iter().enumerate() {
        let mut entrants = vec![candidate.clone()];
        entrants.extend(std::iter::repeat_n(opponent.clone(), sides - 1));
        let (mut games, mut own_points) = (0usize, 0.0f64);
        let layouts = general.setups.len();
        for (layout, setup) in general.setups.iter().enumerate() {
            let per_layout = evaluation.games_per_opponent as usize / layouts
                + usize::from(layout < evaluation.games_per_opponent as usize % layouts);
            if per_layout == 0 {
                continue;
            }
            let report = play_multi_match(
                &make,
                &entrants,
                setup,
                &general.rules,
                per_layout,
                evaluation.random_opening_plies,
                seed ^ ((index * layouts + layout) as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
                evaluation.games_in_parallel,
            )
            .map_err(|err| {
                PipelineError::Evaluation(format!(
                    "rating games of gen-{generation} against {opponent}: {err}"
                ))
            })?;
            for game in &report.games {
                own_points += game.points_of(0);
            }
            games += report.games.len();
            played += report.games.len() as u32;
            points += own_points;
            progress(played, planned, points / f64::from(played.max(1)));
        }
        if games > 0 {
            opponent_scores.insert(opponent.clone(), own_points / games as f64);
        }
    }
    let record = EvaluationRecord {
        generation,
        promoted: true,
        gating: None,
        opponent_scores,
        games: Vec::new(),
        run_hours,
    };
    write_json(&run.evaluation_path(generation), &record)?;
    if run.best()?.is_none_or(|best| best.generation < generation) {
        run.set_best(generation)?;
    }
    let mut line = format!("gen-{generation} promoted (general game, {sides} sides)");
    for (opponent, score) in &record.opponent_scores {
        line.push_str(&format!("; {opponent} {:.0}%", score * 100.0));
    }
    run.log("evaluator", &line)?;
    Ok(EvaluationSummary { record, elo: None })
}
