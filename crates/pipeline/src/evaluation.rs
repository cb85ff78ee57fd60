//! The evaluator role, for both games: each new candidate plays the best
//! model (gating, unless off) and the fixed opponents (rating); the record is
//! written, the candidate promoted or not, and the Elo table refitted over
//! every evaluation game of the run. Written once for every game: its
//! fixed opponents are the game's classical players
//! ([`sumito_arena::arena_board::ArenaBoard`]).
//!
//! * **Gating** (`gating.mode`): the candidate takes one side and the best
//!   model every other side, each opening played once with the candidate on
//!   each side. Its score per game is its score against the best model's
//!   sides (with more than two, the mean pairwise score by finishing order:
//!   the winner first, then by marbles pushed off), so one half is par
//!   whatever the number of sides; `threshold` promotes it when the mean
//!   reaches `gating.threshold` and its lower confidence bound is above one
//!   half; `sprt` (two sides only, checked by the configuration) runs the
//!   sequential test and stops the match once it decides.
//! * **Rating**: the candidate takes one side against each fixed opponent
//!   of `[evaluation] opponents`, which fills every other side;
//!   `games_per_opponent` games per opponent, scored by points share (1 a
//!   win, 1/k a draw among k sides).
//!
//! Every game is recorded and the run's Elo table counts each (a game of
//! many sides as the pairwise results of its sides), so runs of either game
//! have ratings, a learning curve and TensorBoard's `elo/candidate`.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use sumito_arena::arena::Tally;
use sumito_arena::sprt::{SprtConfig, SprtStatus, SprtVerdict};
use sumito_game::{Board, GameKind};
use sumito_net::{DirectEvaluator, PolicyValueNet};

use crate::config::{Config, EvaluationConfig, GatingConfig, GatingMode};
use crate::error::{BeforeWriting, PipelineError, Result};
use crate::matches::{
    Contestant, MatchError, MatchGame, NamedStart, Pairing, play_evaluation_games, rotated_openings,
};
use crate::models::{device, load_model};
use crate::ratings::{
    EloEntry, EvaluationGame, EvaluationRecord, GatingRecord, RunTime, generation_of, model_name,
    read_evaluations, update_elo_files,
};
use crate::run_board::RunBoard;
use crate::rundir::{ELO_JSON, RunDir};
use crate::starts::RunStarts;

/// Progress of an evaluation, for bars: called after every game with
/// (games done, games planned at most, candidate's score so far).
pub type EvaluationProgress<'a> = &'a (dyn Fn(u32, u32, f64) + Sync);

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

/// The record of a finished evaluation game, `names` by contestant, for
/// every game alike: the first side (several on a draw), each side's
/// marbles pushed off, the moves after the opening.
fn evaluation_game<B: Board>(game: &MatchGame<B>, names: &[String]) -> EvaluationGame {
    let sides = game.sides.len();
    let results: Vec<f32> = (0..sides)
        .filter_map(|side| game.end.result_for(side))
        .collect();
    let best = results.iter().copied().fold(f32::MIN, f32::max);
    EvaluationGame {
        sides: game.sides.iter().map(|&c| names[c].clone()).collect(),
        first: (0..results.len())
            .filter(|&side| results[side] == best)
            .collect(),
        scores: (0..sides).map(|side| game.end.side_score(side)).collect(),
        opening: game.opening.clone(),
        plies: game.moves.len() as u32,
        end: game
            .end
            .ending()
            .map(|ending| ending.reason.to_string())
            .unwrap_or_default(),
        moves: game
            .moves
            .iter()
            .map(|&mv| B::move_text(mv))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The starts of the evaluation games of the run `config` describes,
/// taken in turn: [`Config::evaluation_layouts`], each named.
fn evaluation_starts<B: Board>(config: &Config) -> Result<Vec<NamedStart<B>>> {
    let starts = RunStarts::<B>::of(config.rules.table(), config.evaluation_layouts())
        .map_err(|problem| PipelineError::Evaluation(format!("evaluation.openings: {problem}")))?;
    Ok(starts
        .starts
        .into_iter()
        .map(|(name, position)| NamedStart { name, position })
        .collect())
}

/// Said after the verdict in the run's log: the game, unless it is the
/// two-player one.
fn game_note(kind: GameKind, sides: usize) -> String {
    if kind.is_two_player() {
        String::new()
    } else {
        format!(
            " ({}, {sides} sides)",
            kind.name().trim_start_matches("the ")
        )
    }
}

/// Games won outright, drawn or shared, and lost outright (scored 0
/// against every side of the best model) among per-game `scores`.
fn tally(scores: &[f64]) -> Tally {
    let mut tally = Tally::default();
    for &score in scores {
        tally.add(score);
    }
    tally
}

/// The sequential test of gating over per-game `scores` (two sides).
fn sprt_status(scores: &[f64], gating: &GatingConfig) -> SprtStatus {
    let Tally {
        wins,
        draws,
        losses,
    } = tally(scores);
    SprtConfig::with_error_rates(gating.elo0, gating.elo1, gating.alpha, gating.beta)
        .expect("validated SPRT settings")
        .status(wins, draws, losses)
}

/// The gating verdict on a candidate from its `scores` against the best
/// model `best` (one per game, against its `sides - 1` sides): by SPRT
/// (two sides) or by threshold: promoted when the mean reaches
/// `gating.threshold` and its lower `gating.confidence` bound is above one
/// half.
fn gating_decision(
    scores: &[f64],
    best: u32,
    sides: usize,
    gating: &GatingConfig,
) -> (GatingRecord, bool) {
    let Tally {
        wins,
        draws,
        losses,
    } = tally(scores);
    let score = scores.iter().sum::<f64>() / scores.len().max(1) as f64;
    let (promoted, reason) = match gating.mode {
        GatingMode::Sprt => {
            let status = sprt_status(scores, gating);
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
                    scores.len(),
                    status.llr
                ),
            };
            (status.verdict == SprtVerdict::AcceptH1, reason)
        }
        GatingMode::Threshold | GatingMode::Off => {
            let lower = mean_lower_bound(scores, gating.confidence);
            let promoted = !scores.is_empty() && score >= gating.threshold && lower > 0.5;
            let what = if sides == 2 {
                format!("score {score:.3}")
            } else {
                format!(
                    "pairwise score {score:.3} against the best model's {} sides",
                    sides - 1
                )
            };
            let reason = format!(
                "{what} {} threshold {:.3}; {:.0}% lower bound {lower:.3} {} 0.5",
                if score >= gating.threshold { ">=" } else { "<" },
                gating.threshold,
                gating.confidence * 100.0,
                if lower > 0.5 { ">" } else { "<=" }
            );
            (promoted, reason)
        }
    };
    let record = GatingRecord {
        opponent: best,
        wins,
        draws,
        losses,
        score,
        reason,
    };
    (record, promoted)
}

/// The fixed opponents a candidate plays, as a range of the opponents
/// listed (weakest first) with their known `ratings`: every one, or the
/// `count` nearest the `predicted` Elo: the strongest one rated below it
/// and the next stronger ones (a rising player is measured best by the
/// opponents it has not yet passed); without a prediction, the weakest.
fn chosen_opponents(
    ratings: &[Option<f64>],
    count: Option<u32>,
    predicted: Option<f64>,
) -> std::ops::Range<usize> {
    let Some(count) = count.map(|count| (count as usize).min(ratings.len())) else {
        return 0..ratings.len();
    };
    let passed = predicted.map_or(0, |elo| {
        ratings
            .iter()
            .filter(|rating| rating.is_some_and(|rating| rating < elo))
            .count()
    });
    let start = passed.saturating_sub(1).min(ratings.len() - count);
    start..start + count
}

/// Each opponent's rating: the run's Elo table's, or its place on the one
/// scale where it has not played yet; `None` where neither knows it.
fn opponent_ratings(run: &RunDir, game: GameKind, names: &[&str]) -> Result<Vec<Option<f64>>> {
    let table: Vec<EloEntry> = run.get_json(ELO_JSON)?.unwrap_or_default();
    Ok(names
        .iter()
        .map(|name| {
            table
                .iter()
                .find(|entry| entry.player == *name)
                .map(|entry| entry.elo)
                .or_else(|| match game {
                    GameKind::TwoPlayer => sumito_arena::scale::anchor_elo(name),
                    GameKind::General => None,
                })
        })
        .collect())
}

/// The Elo of the latest candidate rated before `generation`, from the
/// run's Elo table: where this one is expected to stand.
fn predicted_elo(run: &RunDir, generation: u32) -> Result<Option<f64>> {
    let table: Vec<EloEntry> = run.get_json(ELO_JSON)?.unwrap_or_default();
    Ok(table
        .iter()
        .filter_map(|entry| Some((generation_of(&entry.player)?, entry.elo)))
        .filter(|&(rated, _)| rated < generation)
        .max_by_key(|&(rated, _)| rated)
        .map(|(_, elo)| elo))
}

/// Evaluates candidate `generation` of a run of `kind`'s game: gating
/// against the best model (unless gating is off; with SPRT it stops once
/// the test decides), then the fixed opponents; writes the record, promotes,
/// refits the Elo table. `run_time`: the run's training time when the
/// candidate was written, where known (the learning curve's axes);
/// `before_writing` is called after the games, before anything is written.
/// Once `stopping()` says yes the games end within a move and the answer is
/// [`PipelineError::Stopped`], with nothing written.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_candidate<B: RunBoard>(
    run: &RunDir,
    config: &Config,
    generation: u32,
    run_time: RunTime,
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
    let mut contestants: Vec<Contestant<'_, B>> = vec![Contestant::Net {
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
    let mut opponents = Vec::new();
    for spec in &config.evaluation.opponents {
        opponents.push(Contestant::Fixed(
            B::classical_players()
                .prepare_str(spec)
                .map_err(|err| PipelineError::Evaluation(err.to_string()))?,
        ));
    }
    let opponent_names: Vec<&str> = opponents.iter().map(|c| c.name()).collect();
    let chosen = chosen_opponents(
        &opponent_ratings(run, B::KIND, &opponent_names)?,
        config.evaluation.opponents_per_candidate,
        predicted_elo(run, generation)?,
    );
    contestants.extend(
        opponents
            .into_iter()
            .enumerate()
            .filter(|(index, _)| chosen.contains(index))
            .map(|(_, opponent)| opponent),
    );
    let names: Vec<String> = contestants.iter().map(|c| c.name().to_owned()).collect();
    let candidate_name = &names[0];
    let starts = evaluation_starts::<B>(config)?;
    let Some(sides) = starts.first().map(|start| start.position.sides()) else {
        return Err(PipelineError::Evaluation(
            "the evaluation games have no start".to_owned(),
        ));
    };
    let evaluation = &config.evaluation;
    let planned = if gating_on { config.gating.games } else { 0 }
        + evaluation.games_per_opponent * chosen.len() as u32;
    let seed = u64::from(generation).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut played = 0u32;
    let mut points = 0.0f64;
    // The gating match and the rating games run alike: every game is
    // recorded and reported, and a failure names the match and the
    // candidate.
    let mut run_match = |pairings: &[Pairing<B>],
                         what: &str,
                         on_game: &mut dyn FnMut(&EvaluationGame) -> ControlFlow<()>|
     -> Result<Vec<EvaluationGame>> {
        let mut kept = Vec::new();
        play_evaluation_games(
            &contestants,
            pairings,
            evaluation.games_in_parallel,
            &|| stopping(),
            |game| {
                let record = evaluation_game(game, &names);
                played += 1;
                points += record.points_of(candidate_name);
                progress(played, planned, points / f64::from(played));
                let flow = on_game(&record);
                kept.push(record);
                flow
            },
        )
        .map_err(|err| match err {
            MatchError::Stopped => {
                PipelineError::Stopped(format!("the {what} of gen-{generation}"))
            }
            err => PipelineError::Evaluation(format!("{what} of gen-{generation}: {err}")),
        })?;
        Ok(kept)
    };
    let mut games = Vec::new();

    let gating = if gating_on {
        let gating = &config.gating;
        let best_name = model_name(best);
        let pairings = rotated_openings(
            0,
            1,
            sides,
            gating.games,
            &starts,
            evaluation.random_opening_plies,
            seed,
        );
        let mut so_far = Vec::new();
        let match_games = run_match(&pairings, "gating match", &mut |game: &EvaluationGame| {
            so_far.push(
                game.score_against(candidate_name, &best_name)
                    .unwrap_or(0.5),
            );
            let decided = gating.mode == GatingMode::Sprt
                && sprt_status(&so_far, gating).verdict != SprtVerdict::Continue;
            if decided {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        // Games under way when the test decided also finished, and count.
        let scores: Vec<f64> = match_games
            .iter()
            .filter_map(|game| game.score_against(candidate_name, &best_name))
            .collect();
        games.extend(match_games);
        Some(gating_decision(&scores, best, sides, gating))
    } else {
        None
    };

    let mut opponent_scores = BTreeMap::new();
    if evaluation.games_per_opponent > 0 && contestants.len() > first_opponent {
        let mut pairings = Vec::new();
        for opponent in first_opponent..contestants.len() {
            pairings.extend(rotated_openings(
                0,
                opponent,
                sides,
                evaluation.games_per_opponent,
                &starts,
                evaluation.random_opening_plies,
                seed ^ opponent as u64,
            ));
        }
        let rating_games = run_match(&pairings, "rating games", &mut |_: &EvaluationGame| {
            ControlFlow::Continue(())
        })?;
        for opponent in &names[first_opponent..] {
            let scores: Vec<f64> = rating_games
                .iter()
                .filter(|game| game.score_against(candidate_name, opponent).is_some())
                .map(|game| game.points_of(candidate_name))
                .collect();
            if !scores.is_empty() {
                opponent_scores.insert(
                    opponent.clone(),
                    scores.iter().sum::<f64>() / scores.len() as f64,
                );
            }
        }
        games.extend(rating_games);
    }

    let promoted = gating.as_ref().is_none_or(|(_, promoted)| *promoted);
    let record = EvaluationRecord {
        generation,
        promoted,
        gating: gating.map(|(record, _)| record),
        opponent_scores,
        games,
        run_hours: run_time.hours,
        run_core_hours: run_time.core_hours,
    };
    conclude(
        run,
        B::KIND,
        record,
        &game_note(B::KIND, sides),
        before_writing,
    )
}

/// Writes candidate `record.generation`'s record, makes it the best model
/// if it was promoted (never stepping back to an older one: with gating off
/// the trainer has promoted newer candidates already), refits the Elo table
/// and logs the decision (`note` after the verdict); for both games.
/// Nothing is written unless `before_writing` allows it.
fn conclude(
    run: &RunDir,
    game: GameKind,
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
    let elo = update_elo_files(run, game).map_err(PipelineError::Evaluation)?;
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
    use crate::fsutil::testing::TempDir;

    #[test]
    fn a_candidate_plays_the_opponents_nearest_its_predecessor() {
        // random, greedy, depths 2..5 on the one scale.
        let ratings = [0.0, 722.0, 1061.0, 1173.0, 1296.0, 1452.0].map(Some);
        assert_eq!(chosen_opponents(&ratings, None, Some(900.0)), 0..6);
        // The first rating: the weakest.
        assert_eq!(chosen_opponents(&ratings, Some(3), None), 0..3);
        // One weaker (greedy), two stronger.
        assert_eq!(chosen_opponents(&ratings, Some(3), Some(900.0)), 1..4);
        assert_eq!(chosen_opponents(&ratings, Some(3), Some(1100.0)), 2..5);
        // Past them all: the strongest three.
        assert_eq!(chosen_opponents(&ratings, Some(3), Some(2000.0)), 3..6);
        assert_eq!(chosen_opponents(&ratings, Some(3), Some(-50.0)), 0..3);
        // An opponent nobody has rated yet counts as not passed.
        let unknown = [Some(0.0), Some(722.0), None, None];
        assert_eq!(chosen_opponents(&unknown, Some(2), Some(5000.0)), 1..3);
        assert_eq!(chosen_opponents(&unknown, Some(9), Some(5000.0)), 0..4);
    }

    #[test]
    fn the_prediction_is_the_latest_earlier_candidates_elo() {
        let dir = TempDir::new("predicted-elo");
        let run = RunDir::create(dir.path(), "").unwrap();
        assert_eq!(predicted_elo(&run, 8).unwrap(), None);
        let entry = |player: &str, elo: f64| EloEntry {
            player: player.to_owned(),
            elo,
            low: elo - 50.0,
            high: elo + 50.0,
            games: 30,
        };
        let table = vec![
            entry("gen-16", 1300.0),
            entry("alphabeta:depth=2", 1061.0),
            entry("gen-8", 900.0),
            entry("gen-4", 700.0),
        ];
        run.put_json(ELO_JSON, &table).unwrap();
        assert_eq!(predicted_elo(&run, 12).unwrap(), Some(900.0));
        assert_eq!(predicted_elo(&run, 24).unwrap(), Some(1300.0));
        assert_eq!(predicted_elo(&run, 4).unwrap(), None);
        // The table's rating where it has one, else the scale's anchor.
        let names = ["alphabeta:depth=2", "alphabeta:depth=5", "gen-4x"];
        assert_eq!(
            opponent_ratings(&run, GameKind::TwoPlayer, &names).unwrap(),
            [Some(1061.0), Some(1452.0), None]
        );
        assert_eq!(
            opponent_ratings(&run, GameKind::General, &names).unwrap(),
            [Some(1061.0), None, None]
        );
    }

    /// A game of `start`'s first legal moves to its end.
    fn played_out<B: Board>(start: B) -> MatchGame<B> {
        let mut end = start;
        let mut moves = Vec::new();
        while !end.is_over() {
            let mv = end.legal_moves()[0];
            moves.push(mv);
            end = end.play(mv);
        }
        MatchGame {
            sides: (0..end.sides()).rev().collect(),
            opening: "start".to_owned(),
            moves,
            end,
        }
    }

    #[test]
    fn both_games_are_recorded_alike() {
        use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
        use sumito_engine::{Layout, Position, Rules};

        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let rules = Rules {
            max_plies: Some(4),
            ..Rules::default()
        };
        let game = played_out(Position::start(Layout::Standard, rules));
        let record = evaluation_game(&game, &names);
        assert_eq!(record.sides, ["b", "a"]);
        assert_eq!(record.first, [0, 1], "a draw at the move limit");
        assert_eq!(record.scores, [0, 0]);
        assert_eq!(record.plies, 4);
        assert!(record.end.starts_with("move limit"), "{}", record.end);
        assert_eq!(record.moves.split(' ').count(), 4);

        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.max_plies = Some(5);
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let start = GeneralSetup::layout(layout).start(&rules).unwrap();
        let record = evaluation_game(&played_out(start), &names);
        assert_eq!(record.sides, ["c", "b", "a"]);
        assert_eq!(record.first, [0, 1, 2], "a draw of the three sides");
        assert_eq!(record.scores, [0, 0, 0]);
        assert_eq!(record.plies, 5);
        assert!(record.end.starts_with("move limit"), "{}", record.end);
        assert_eq!(game_note(GameKind::General, 3), " (general game, 3 sides)");
        assert_eq!(game_note(GameKind::TwoPlayer, 2), "");
    }

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

    #[test]
    fn two_sides_are_gated_by_their_plain_score_or_by_sprt() {
        let threshold = GatingConfig {
            mode: GatingMode::Threshold,
            threshold: 0.55,
            confidence: 0.9,
            ..GatingConfig::default()
        };
        let mut scores = vec![1.0; 30];
        scores.extend([0.5; 6]);
        scores.extend([0.0; 4]);
        let (record, promoted) = gating_decision(&scores, 3, 2, &threshold);
        assert!(promoted && record.reason.starts_with("score 0.825 >= threshold"));
        assert_eq!((record.wins, record.draws, record.losses), (30, 6, 4));
        // The same bound as from the tally of wins, draws and losses.
        let lower = score_lower_bound(30, 6, 4, 0.9);
        assert!(record.reason.contains(&format!("lower bound {lower:.3}")));
        let sprt = GatingConfig {
            mode: GatingMode::Sprt,
            ..GatingConfig::default()
        };
        let more: Vec<f64> = scores.iter().copied().cycle().take(80).collect();
        let (record, promoted) = gating_decision(&more, 3, 2, &sprt);
        assert!(promoted, "{}", record.reason);
        assert!(record.reason.starts_with("SPRT accepted elo1"));
        assert_eq!(
            sprt_status(&[1.0, 0.0], &sprt).verdict,
            SprtVerdict::Continue
        );
        let (record, promoted) = gating_decision(&[1.0, 0.0], 3, 2, &sprt);
        assert!(!promoted && record.reason.contains("undecided after 2 games"));
    }
}
