//! Evaluation of a general-game candidate (variants, 3 to 6 players).
//!
//! * **Gating** (`gating.mode = "threshold"`): the candidate takes one side
//!   and the best model every other side, seats rotated from game to game,
//!   `gating.games` games spread over the run's layouts. Its score is its
//!   mean pairwise score against the best model's sides (by finishing
//!   order: the winner first, then by marbles pushed off;
//!   `GeneralEvaluationGame::pair_score`), so one half is par whatever the
//!   number of sides; it is promoted when that score
//!   reaches `gating.threshold` and its lower confidence bound (per-game
//!   scores, `gating.confidence`) is above one half. SPRT is a two-player
//!   test and is refused for the general game by the configuration.
//! * **Rating**: the candidate takes one side against each fixed opponent of
//!   `[evaluation] opponents` (`random`, `greedy`, `alphabeta:...` of
//!   `sumito_arena::general_match`), which fills every other side, seats rotated;
//!   `games_per_opponent` games per opponent. Its score there is its points
//!   share (a win 1, a draw among k sides 1/k), a third of the points par for
//!   three sides.
//!
//! Every game is recorded (`EvaluationRecord::general_games`) and the run's
//! Elo table counts each as the pairwise results of its sides, so general
//! runs have ratings, a learning curve and TensorBoard's `elo/candidate` as
//! two-player runs do.

use std::collections::BTreeMap;

use sumito_arena::general_match::{
    GeneralMatchGame, MATCH_STOPPED, SeatPlayerMaker, play_general_match,
};
use sumito_engine::general::GeneralOutcome;

use crate::config::{Config, GatingConfig, GatingMode, GeneralRunRules};
use crate::error::{PipelineError, Result};
use crate::evaluation::{
    BeforeWriting, EvaluationProgress, EvaluationSummary, Stopping, conclude, mean_lower_bound,
};
use crate::general_players::GeneralNetSeats;
use crate::models::{device, load_model};
use crate::ratings::{EvaluationRecord, GatingRecord, GeneralEvaluationGame, model_name};
use crate::rundir::RunDir;

/// The record of one finished game of a match.
fn record_game(
    game: &GeneralMatchGame,
    entrants: &[String],
    opening: &str,
) -> GeneralEvaluationGame {
    let first = match game.outcome {
        Some(GeneralOutcome::Win(side)) => vec![side],
        Some(GeneralOutcome::Draw(mask)) => (0..game.entrant_of_side.len())
            .filter(|side| mask >> side & 1 == 1)
            .collect(),
        None => Vec::new(),
    };
    GeneralEvaluationGame {
        sides: game
            .entrant_of_side
            .iter()
            .map(|&entrant| entrants[entrant].clone())
            .collect(),
        first,
        opening: opening.to_owned(),
        plies: game.plies,
        scores: game.side_scores.clone(),
    }
}

/// The gating verdict on a candidate from its pairwise `scores` (one per
/// game) against the best model `best`'s `sides - 1` sides: promoted when
/// the mean reaches `gating.threshold` and its lower `gating.confidence`
/// bound is above one half.
fn gating_decision(
    scores: &[f64],
    best: u32,
    sides: usize,
    gating: &GatingConfig,
) -> (GatingRecord, bool) {
    let score = scores.iter().sum::<f64>() / scores.len().max(1) as f64;
    let lower = mean_lower_bound(scores, gating.confidence);
    let promoted = score >= gating.threshold && lower > 0.5;
    let count = |wanted: f64| scores.iter().filter(|&&s| s == wanted).count() as u32;
    let reason = format!(
        "pairwise score {score:.3} against the best model's {} sides {} threshold {:.3}; {:.0}% lower bound {lower:.3} {} 0.5",
        sides - 1,
        if score >= gating.threshold { ">=" } else { "<" },
        gating.threshold,
        gating.confidence * 100.0,
        if lower > 0.5 { ">" } else { "<=" }
    );
    let record = GatingRecord {
        opponent: best,
        // Games the candidate won outright, lost outright (scored 0
        // against every side of the best model), and the rest.
        wins: count(1.0),
        losses: count(0.0),
        draws: scores.len() as u32 - count(1.0) - count(0.0),
        score,
        reason,
    };
    (record, promoted)
}

/// One match of the evaluation: `entrants` by side (rotated from game to
/// game), `games` games spread over the run's layouts.
struct EvaluationMatch<'a> {
    what: String,
    entrants: Vec<String>,
    games: u32,
    seed: u64,
    make: &'a SeatPlayerMaker<'a>,
    stopping: Stopping<'a>,
}

impl EvaluationMatch<'_> {
    /// Plays it; `on_game` hears of every finished game of each layout's
    /// part with the candidate's (entrant 0's) points in it.
    fn play(
        &self,
        config: &Config,
        general: &GeneralRunRules,
        on_game: &mut dyn FnMut(&GeneralMatchGame),
    ) -> Result<Vec<GeneralEvaluationGame>> {
        let evaluation = &config.evaluation;
        let layouts = general.setups.len();
        let mut recorded = Vec::new();
        for (layout, setup) in general.setups.iter().enumerate() {
            let per_layout =
                self.games as usize / layouts + usize::from(layout < self.games as usize % layouts);
            if per_layout == 0 {
                continue;
            }
            let report = play_general_match(
                self.make,
                &self.entrants,
                setup,
                &general.rules,
                per_layout,
                evaluation.random_opening_plies,
                self.seed ^ (layout as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
                evaluation.games_in_parallel,
                self.stopping,
            )
            .map_err(|err| {
                if err == MATCH_STOPPED {
                    PipelineError::Stopped(self.what.clone())
                } else {
                    PipelineError::Evaluation(format!("{}: {err}", self.what))
                }
            })?;
            let opening = format!(
                "{} +{} random plies",
                setup.layout.name(),
                evaluation.random_opening_plies
            );
            for game in &report.games {
                on_game(game);
                recorded.push(record_game(game, &self.entrants, &opening));
            }
        }
        Ok(recorded)
    }
}

/// Evaluates candidate `generation` of a general-game run (see the module
/// docs), writes its record, promotes it if it passed (or gating is off and
/// it is the newest), and refits the Elo table.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_general_candidate(
    run: &RunDir,
    config: &Config,
    general: &GeneralRunRules,
    generation: u32,
    run_hours: Option<f64>,
    progress: EvaluationProgress<'_>,
    before_writing: BeforeWriting<'_>,
    stopping: Stopping<'_>,
) -> Result<EvaluationSummary> {
    let device = device(config)?;
    let candidate = model_name(generation);
    let search = config.evaluation_search();
    let inference = &config.net.inference;
    let precision = inference.precision;
    let starting = |name: &str| PipelineError::net(format!("starting {name} for evaluation"));
    let best = run.best()?.map_or(0, |best| best.generation);
    let gating_on = config.gating.mode != GatingMode::Off && best != generation;
    let mut seats = GeneralNetSeats::with_network(
        &candidate,
        load_model(run, generation, config, device)?.for_inference(precision),
        search.clone(),
        inference,
    )
    .map_err(starting(&candidate))?;
    let best_name = model_name(best);
    if gating_on {
        seats
            .add_network(
                &best_name,
                load_model(run, best, config, device)?.for_inference(precision),
                search,
                inference,
            )
            .map_err(starting(&best_name))?;
    }
    let make = |spec: &str, seed: u64| seats.make(spec, seed);
    let evaluation = &config.evaluation;
    let sides = general.rules.seating.sides();
    let planned = if gating_on { config.gating.games } else { 0 }
        + evaluation.games_per_opponent * evaluation.opponents.len() as u32;
    let seed = u64::from(generation).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let (mut played, mut points) = (0u32, 0.0f64);
    let mut report = |own_points: f64| {
        played += 1;
        points += own_points;
        progress(played, planned, points / f64::from(played));
    };
    let mut general_games = Vec::new();

    let gating = if gating_on {
        let gating = &config.gating;
        let mut entrants = vec![candidate.clone()];
        entrants.extend(std::iter::repeat_n(best_name.clone(), sides - 1));
        let games = EvaluationMatch {
            what: format!("the gating match of {candidate} against {best_name}"),
            entrants,
            games: gating.games,
            seed: seed ^ 0x6A7E,
            make: &make,
            stopping,
        }
        .play(config, general, &mut |game| report(game.points_of(0)))?;
        let scores: Vec<f64> = games
            .iter()
            .filter_map(|game| game.score_against(&candidate, &best_name))
            .collect();
        general_games.extend(games);
        Some(gating_decision(&scores, best, sides, gating))
    } else {
        None
    };

    let mut opponent_scores = BTreeMap::new();
    for (index, opponent) in evaluation.opponents.iter().enumerate() {
        let mut entrants = vec![candidate.clone()];
        entrants.extend(std::iter::repeat_n(opponent.clone(), sides - 1));
        let (mut games, mut own_points) = (0usize, 0.0f64);
        general_games.extend(
            EvaluationMatch {
                what: format!("rating games of {candidate} against {opponent}"),
                entrants,
                games: evaluation.games_per_opponent,
                seed: seed ^ (index as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D),
                make: &make,
                stopping,
            }
            .play(config, general, &mut |game| {
                games += 1;
                own_points += game.points_of(0);
                report(game.points_of(0));
            })?,
        );
        if games > 0 {
            opponent_scores.insert(opponent.clone(), own_points / games as f64);
        }
    }

    let promoted = gating.as_ref().is_none_or(|(_, promoted)| *promoted);
    let record = EvaluationRecord {
        generation,
        promoted,
        gating: gating.map(|(record, _)| record),
        opponent_scores,
        games: Vec::new(),
        general_games,
        run_hours,
    };
    conclude(
        run,
        record,
        &format!(" (general game, {sides} sides)"),
        before_writing,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_is_promoted_only_when_clearly_better_than_the_best() {
        let gating = GatingConfig {
            mode: GatingMode::Threshold,
            threshold: 0.55,
            confidence: 0.9,
            ..GatingConfig::default()
        };
        // Three sides: it won 14 of 20 games, lost 2 outright, and in 4
        // finished level with one of the best model's sides.
        let mut scores = vec![1.0; 14];
        scores.extend([0.0, 0.0, 0.5, 0.5, 0.5, 0.5]);
        let (record, promoted) = gating_decision(&scores, 7, 3, &gating);
        assert!(promoted, "{record:?}");
        assert_eq!((record.wins, record.draws, record.losses), (14, 4, 2));
        assert_eq!(record.opponent, 7);
        assert!(
            record.reason.contains("best model's 2 sides >= threshold"),
            "{}",
            record.reason
        );
        // Par, or above the threshold on too few games: kept out.
        let (record, promoted) = gating_decision(&[0.5; 40], 7, 3, &gating);
        assert!(
            !promoted && record.reason.contains("< threshold"),
            "{}",
            record.reason
        );
        let (record, promoted) = gating_decision(&[1.0, 0.25, 0.75], 7, 3, &gating);
        assert!(record.score > 0.55);
        assert!(
            !promoted && record.reason.contains("<= 0.5"),
            "{}",
            record.reason
        );
        // No games: nothing proven.
        assert!(!gating_decision(&[], 7, 2, &gating).1);
    }

    #[test]
    fn the_lower_bound_of_a_mean_tightens_with_games() {
        let few: Vec<f64> = [1.0, 0.25, 1.0, 0.5].to_vec();
        let many: Vec<f64> = few.iter().copied().cycle().take(400).collect();
        let (a, b) = (mean_lower_bound(&few, 0.9), mean_lower_bound(&many, 0.9));
        assert!(a < b && b < 0.6875, "{a} {b}");
        assert!(b > 0.6, "{b}");
        assert_eq!(mean_lower_bound(&[], 0.9), 0.0);
        assert_eq!(mean_lower_bound(&[0.5, 0.5], 0.9), 0.5);
    }
}
