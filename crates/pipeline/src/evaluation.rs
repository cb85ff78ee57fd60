//! The evaluator role: each new candidate plays the best model (gating, unless
//! off) and the fixed opponents (rating); the record is written, the
//! candidate promoted or not, and the Elo table refitted over every
//! evaluation game of the run.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use sumito_arena::arena::Tally;
use sumito_arena::sprt::{SprtConfig, SprtVerdict};
use sumito_net::{DirectEvaluator, PolicyValueNet};

use crate::config::{Config, EvaluationConfig, GatingMode};
use crate::error::{PipelineError, Result};
use crate::matches::{Contestant, MatchError, Pairing, paired_openings, play_match};
use crate::models::{device, load_model};
use crate::opponents::fixed_player;
use crate::ratings::{
    EloEntry, EvaluationGame, EvaluationRecord, GatingRecord, model_name, read_evaluations,
    update_elo_files,
};
use crate::rundir::RunDir;

/// Progress of an evaluation, for bars: called after every game with
/// (games done, games planned at most, candidate's score so far).
pub type EvaluationProgress<'a> = &'a (dyn Fn(u32, u32, f64) + Sync);

/// Called right before an evaluation writes anything: an error (the
/// evaluator role was lost while the games were played, say after the
/// process was paused) stops it before it writes.
pub type BeforeWriting<'a> = &'a dyn Fn() -> Result<()>;

/// Whether a stop was asked for (Ctrl-C, SIGTERM): long work ends at its
/// next safe point.
pub type Stopping<'a> = &'a (dyn Fn() -> bool + Sync);

/// What evaluating a candidate produced.
#[derive(Debug, Clone)]
pub struct EvaluationSummary {
    pub record: EvaluationRecord,
    /// The Elo table after it (None without any game).
    pub elo: Option<Vec<EloEntry>>,
}

/// The lower bound of a one-sided confidence interval at `confidence` for
/// the mean score of `wins`, `draws`, `losses` (normal approximation with the
/// sample's variance).
pub fn score_lower_bound(wins: u32, draws: u32, losses: u32, confidence: f64) -> f64 {
    let n = f64::from(wins + draws + losses);
    if n == 0.0 {
        return 0.0;
    }
    let score = (f64::from(wins) + 0.5 * f64::from(draws)) / n;
    let second = (f64::from(wins) + 0.25 * f64::from(draws)) / n;
    lower_bound(n, score, second, confidence)
}

/// The lower `confidence` bound of the mean of per-game `scores` (any
/// values in [0, 1], as the general game's pairwise scores); 0 without
/// games.
pub fn mean_lower_bound(scores: &[f64], confidence: f64) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let second = scores.iter().map(|s| s * s).sum::<f64>() / n;
    lower_bound(n, mean, second, confidence)
}

/// The normal approximation's lower bound of a mean of `n` games from its
/// first and second moments.
fn lower_bound(n: f64, mean: f64, second: f64, confidence: f64) -> f64 {
    let variance = (second - mean * mean).max(0.0);
    mean - normal_quantile(confidence) * (variance / n).sqrt()
}

/// The standard normal quantile (Acklam's rational approximation, relative
/// error below 1.2e-9), for `p` in (0, 1).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.383_577_518_672_69e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Makes the best model the newest promoted candidate when a crash came
/// between writing a record and publishing the best model (`models/best/`).
pub fn reconcile_best(run: &RunDir) -> Result<()> {
    let promoted = read_evaluations(run)?
        .iter()
        .filter(|r| r.promoted)
        .map(|r| r.generation)
        .max();
    let best = run.best()?.map_or(0, |best| best.generation);
    if let Some(generation) = promoted.filter(|&g| g > best) {
        run.set_best(generation)?;
    }
    Ok(())
}

/// Candidates due for evaluation (`evaluation.every_generations`) that have
/// a model but no evaluation record yet, oldest first.
pub fn pending_candidates(run: &RunDir, config: &EvaluationConfig) -> Result<Vec<u32>> {
    let evaluated = run.evaluated_generations()?;
    Ok(run
        .model_generations()?
        .into_iter()
        .filter(|&generation| {
            config.evaluates(generation) && evaluated.binary_search(&generation).is_err()
        })
        .collect())
}

fn net_evaluator(net: PolicyValueNet, config: &Config) -> DirectEvaluator<PolicyValueNet> {
    let inference = &config.net.inference;
    DirectEvaluator::new(net.for_inference(inference.precision), inference.symmetry)
        .with_score_utility(config.selfplay.score_utility)
}

/// Evaluates candidate `generation` of a two-player run (the general
/// game's: `crate::general_evaluation`): gating against the best model
/// (unless gating is off), then the fixed opponents; writes the record, promotes,
/// refits the Elo table. `run_hours`: the run's training time when the
/// candidate was written, if known (the learning curve's axis);
/// `before_writing` is called after the games, before anything is written.
/// Once `stopping()` says yes the games end within a move and the answer is
/// [`PipelineError::Stopped`], with nothing written.
pub fn evaluate_candidate(
    run: &RunDir,
    config: &Config,
    generation: u32,
    run_hours: Option<f64>,
    progress: EvaluationProgress<'_>,
    before_writing: BeforeWriting<'_>,
    stopping: Stopping<'_>,
) -> Result<EvaluationSummary> {
    let device = device(config)?;
    let best = run.best()?.map_or(0, |best| best.generation);
    let search = config.evaluation_search();
    let candidate = net_evaluator(load_model(run, generation, config, device)?, config);
    let gating_on = config.gating.mode != GatingMode::Off && best != generation;
    let best_net = if gating_on {
        Some(net_evaluator(
            load_model(run, best, config, device)?,
            config,
        ))
    } else {
        None
    };
    let mut contestants = vec![Contestant::Net {
        name: model_name(generation),
        evaluator: &candidate,
        search: search.clone(),
    }];
    if let Some(best_net) = &best_net {
        contestants.push(Contestant::Net {
            name: model_name(best),
            evaluator: best_net,
            search: search.clone(),
        });
    }
    let first_opponent = contestants.len();
    for spec in &config.evaluation.opponents {
        contestants.push(Contestant::Fixed(
            fixed_player(spec).map_err(PipelineError::Evaluation)?,
        ));
    }
    let layouts = config
        .evaluation
        .openings
        .iter()
        .filter_map(|name| sumito_engine::Layout::from_name(name).ok())
        .collect::<Vec<_>>();
    let rules = config.rules.rules();
    let evaluation = &config.evaluation;
    let planned = if gating_on { config.gating.games } else { 0 }
        + evaluation.games_per_opponent * config.evaluation.opponents.len() as u32;
    let candidate_name = model_name(generation);
    let seed = u64::from(generation).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut games = Vec::new();
    let mut played = 0u32;
    let mut score_sum = 0.0f64;
    let mut report = |game: &crate::ratings::EvaluationGame| {
        played += 1;
        score_sum += game.score_of(&candidate_name).unwrap_or(0.0);
        progress(played, planned, score_sum / f64::from(played));
    };
    // The gating match and the rating games run alike: every game is
    // reported, and a failure names the match and the candidate.
    let mut run_match =
        |pairings: &[Pairing],
         what: &str,
         on_game: &mut dyn FnMut(&EvaluationGame) -> ControlFlow<()>| {
            play_match(
                &contestants,
                pairings,
                rules,
                evaluation.games_in_parallel,
                &|| stopping(),
                |game| {
                    report(game);
                    on_game(game)
                },
            )
            .map_err(|err| match err {
                MatchError::Stopped => {
                    PipelineError::Stopped(format!("the {what} of gen-{generation}"))
                }
                err => PipelineError::Evaluation(format!("{what} of gen-{generation}: {err}")),
            })
        };

    let gating = if gating_on {
        let gating = &config.gating;
        let sprt =
            SprtConfig::with_error_rates(gating.elo0, gating.elo1, gating.alpha, gating.beta).ok();
        let pairings = paired_openings(
            0,
            1,
            gating.games,
            &layouts,
            evaluation.random_opening_plies,
            seed,
        );
        let mut so_far = Tally::default();
        let match_games = run_match(&pairings, "gating match", &mut |game: &EvaluationGame| {
            so_far.add(game.score_of(&candidate_name).unwrap_or(0.5));
            let decided = gating.mode == GatingMode::Sprt
                && sprt.is_some_and(|sprt| {
                    sprt.status(so_far.wins, so_far.draws, so_far.losses)
                        .verdict
                        != SprtVerdict::Continue
                });
            if decided {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        // Games under way when the test decided also finished, and count.
        let mut tally = Tally::default();
        for game in &match_games {
            tally.add(game.score_of(&candidate_name).unwrap_or(0.5));
        }
        let Tally {
            wins,
            draws,
            losses,
        } = tally;
        let total = f64::from(wins + draws + losses).max(1.0);
        let score = (f64::from(wins) + 0.5 * f64::from(draws)) / total;
        let (promoted, reason) = match gating.mode {
            GatingMode::Sprt => {
                let status = sprt
                    .expect("validated SPRT settings")
                    .status(wins, draws, losses);
                let promoted = status.verdict == SprtVerdict::AcceptH1;
                let reason = match status.verdict {
                    SprtVerdict::AcceptH1 => format!(
                        "SPRT accepted elo1={} (LLR {:.2} >= {:.2})",
                        gating.elo1, status.llr, status.upper_bound
                    ),
                    SprtVerdict::AcceptH0 => format!(
                        "SPRT accepted elo0={} (LLR {:.2} <= {:.2})",
                        gating.elo0, status.llr, status.lower_bound
                    ),
                    SprtVerdict::Continue => format!(
                        "SPRT undecided after {} games (LLR {:.2}); kept the best model",
                        match_games.len(),
                        status.llr
                    ),
                };
                (promoted, reason)
            }
            GatingMode::Threshold => {
                let lower = score_lower_bound(wins, draws, losses, gating.confidence);
                let promoted = score >= gating.threshold && lower > 0.5;
                let reason = format!(
                    "score {score:.3} {} threshold {:.3}; {:.0}% lower bound {lower:.3} {} 0.5",
                    if score >= gating.threshold { ">=" } else { "<" },
                    gating.threshold,
                    gating.confidence * 100.0,
                    if lower > 0.5 { ">" } else { "<=" }
                );
                (promoted, reason)
            }
            GatingMode::Off => unreachable!("gating is on"),
        };
        games.extend(match_games);
        Some((
            GatingRecord {
                opponent: best,
                wins,
                draws,
                losses,
                score,
                reason,
            },
            promoted,
        ))
    } else {
        None
    };

    let mut opponent_scores = BTreeMap::new();
    if evaluation.games_per_opponent > 0 && contestants.len() > first_opponent {
        let mut pairings = Vec::new();
        for opponent in first_opponent..contestants.len() {
            pairings.extend(paired_openings(
                0,
                opponent,
                evaluation.games_per_opponent,
                &layouts,
                evaluation.random_opening_plies,
                seed ^ opponent as u64,
            ));
        }
        let rating_games = run_match(&pairings, "rating games", &mut |_: &EvaluationGame| {
            ControlFlow::Continue(())
        })?;
        for contestant in &contestants[first_opponent..] {
            let scores: Vec<f64> = rating_games
                .iter()
                .filter(|g| g.black == contestant.name() || g.white == contestant.name())
                .filter_map(|g| g.score_of(&candidate_name))
                .collect();
            if !scores.is_empty() {
                opponent_scores.insert(
                    contestant.name().to_owned(),
                    scores.iter().sum::<f64>() / scores.len() as f64,
                );
            }
        }
        games.extend(rating_games);
    }

    let promoted = gating.as_ref().is_none_or(|(_, promoted)| *promoted);
    let record = EvaluationRecord {
        general_games: Vec::new(),
        generation,
        promoted,
        gating: gating.map(|(record, _)| record),
        opponent_scores,
        games,
        run_hours,
    };
    conclude(run, record, "", before_writing)
}

/// Writes candidate `record.generation`'s record, makes it the best model
/// if it was promoted (never stepping back to an older one: with gating off
/// the trainer has promoted newer candidates already), refits the Elo table
/// and logs the decision (`note` after the verdict); for both games.
/// Nothing is written unless `before_writing` allows it.
pub(crate) fn conclude(
    run: &RunDir,
    record: EvaluationRecord,
    note: &str,
    before_writing: BeforeWriting<'_>,
) -> Result<EvaluationSummary> {
    let generation = record.generation;
    before_writing()?;
    run.put_json(&RunDir::evaluation_key(generation), &record)?;
    if record.promoted && run.best()?.is_none_or(|best| best.generation < generation) {
        run.set_best(generation)?;
    }
    let elo = update_elo_files(run).map_err(PipelineError::Evaluation)?;
    let mut line = format!(
        "gen-{generation} {}{note}",
        if record.promoted {
            "promoted"
        } else {
            "rejected (kept on disk)"
        }
    );
    if let Some(gating) = &record.gating {
        line.push_str(&format!(
            ": vs gen-{} +{} ={} -{} ({})",
            gating.opponent, gating.wins, gating.draws, gating.losses, gating.reason
        ));
    }
    for (opponent, score) in &record.opponent_scores {
        line.push_str(&format!("; {opponent} {:.0}%", score * 100.0));
    }
    run.log("evaluator", &line)?;
    Ok(EvaluationSummary { record, elo })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantiles_match_tables() {
        assert!((normal_quantile(0.5)).abs() < 1e-9);
        assert!((normal_quantile(0.95) - 1.644_853_626_951).abs() < 1e-6);
        assert!((normal_quantile(0.975) - 1.959_963_984_540).abs() < 1e-6);
        assert!((normal_quantile(0.01) + 2.326_347_874_040).abs() < 1e-6);
    }

    #[test]
    fn the_lower_bound_tightens_with_games() {
        let few = score_lower_bound(6, 0, 4, 0.9);
        let many = score_lower_bound(60, 0, 40, 0.9);
        assert!(few < many && many < 0.6, "{few} {many}");
        assert!(score_lower_bound(60, 0, 40, 0.9) > 0.5);
        assert_eq!(score_lower_bound(0, 0, 0, 0.9), 0.0);
    }
}
