//! The Elo of a model's strength levels (`sumito_game::level`): every level
//! plays the same classical players at the ladder's settings, and the level
//! before it; all levels and players are rated together on the one Elo
//! scale (Bradley–Terry, the classical players held at their ratings of
//! `crate::scale`, as in every Elo table of the two-player game), so that
//! the levels compare with each other and with the classical players. The
//! games between neighbouring levels tell them apart where the classical
//! players cannot (two levels that both beat `alphabeta:depth=2` and lose
//! to `depth=3` look alike against them). The report, as
//! Markdown and JSON, is what the README's table and the browser's level
//! menu quote (a bundle's `levels.json`).

use std::fmt::Write as _;
use std::time::Instant;
use sumito_game::{Board, GameKind};

use serde::{Deserialize, Serialize};
use sumito_game::Level;

use crate::arena::ArenaError;
use crate::elo::{Anchor, EloError, PairResult, fit_elo};
use crate::ladder::{LadderConfig, LadderRow, LadderSettings};
use crate::player::Entrant;

/// The classical players the levels meet unless told, weakest first: from
/// the beginner's level to full strength, each level meets players near it.
pub const LEVEL_OPPONENTS: [&str; 5] = [
    "random",
    "greedy",
    "alphabeta:depth=1",
    "alphabeta:depth=2",
    "alphabeta:depth=3",
];

/// One level's rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelRating {
    pub level: u32,
    pub name: String,
    pub simulations: u32,
    /// Its move temperature and chance of a random move when measured
    /// (absent in reports made before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_move: Option<f32>,
    /// The player spec it was measured as.
    pub player: String,
    /// Elo on the report's scale, and its 95 % interval.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// Its games against each opponent.
    pub rows: Vec<LadderRow>,
    /// Its games against the level before it in the report (none for the
    /// first, and in reports made before these games were played).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against_previous: Option<LadderRow>,
}

impl LevelRating {
    /// Whether this rating measured `level` as it is defined now: a level
    /// redefined since (its simulations, temperature or random moves) makes
    /// the rating stale. Reports older than the temperature and random
    /// moves are judged by the simulations alone.
    pub fn measures(&self, level: &Level) -> bool {
        self.level == level.number
            && self.simulations == level.simulations
            && self.temperature.is_none_or(|t| t == level.temperature)
            && self.random_move.is_none_or(|r| r == level.random_move)
    }
}

/// A classical opponent's rating on the same scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpponentRating {
    pub name: String,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
}

/// The levels of one model, rated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelsReport {
    /// The player spec the levels were made from (without `level=`).
    pub model: String,
    pub settings: LadderSettings,
    /// `scale` where the classical opponents were held at their ratings on
    /// the one Elo scale (`crate::scale`); `random` where random alone was
    /// held at 0 (the general game, and two-player reports written before
    /// the scale); `mean` where none played.
    pub anchor: String,
    /// Virtual draws added to each pairing where some player never scored
    /// (see `elo`); 0 normally.
    pub prior_draws: f64,
    pub levels: Vec<LevelRating>,
    pub opponents: Vec<OpponentRating>,
    pub seconds: f64,
}

/// What can go wrong rating the levels.
#[derive(Debug, thiserror::Error)]
pub enum LevelsError {
    #[error(transparent)]
    Match(#[from] ArenaError),
    #[error("rating the levels: {0}")]
    Elo(#[from] EloError),
}

/// Plays each of `levels` (a level and its player) with `play_rungs` (its
/// ladder, of either game: a player against opponents, in order): against
/// `opponents`, with records under `config.record_dir`/level-N, then
/// against the level before it (records in `level-N/previous`); and rates
/// them all together under `settings`.
pub fn play_levels<B: Board, E: From<EloError>>(
    model: &str,
    levels: &[(Level, Entrant<B>)],
    opponents: &[Entrant<B>],
    settings: LadderSettings,
    config: &LadderConfig,
    play_rungs: impl Fn(
        &Entrant<B>,
        &[Entrant<B>],
        &LadderConfig,
    ) -> Result<Vec<(LadderRow, Vec<PairResult>)>, E>,
) -> Result<LevelsReport, E> {
    let started = Instant::now();
    let mut played = Vec::new();
    for (index, (level, player)) in levels.iter().enumerate() {
        let rung = LadderConfig {
            record_dir: level_record_dir(config, level),
            ..config.clone()
        };
        let rungs = play_rungs(player, opponents, &rung)?;
        let against_previous = match index.checked_sub(1) {
            Some(previous) => {
                let rung = LadderConfig {
                    record_dir: rung.record_dir.as_ref().map(|dir| dir.join("previous")),
                    ..config.clone()
                };
                play_rungs(player, std::slice::from_ref(&levels[previous].1), &rung)?.pop()
            }
            None => None,
        };
        played.push(PlayedLevel {
            level: *level,
            player: player.name.clone(),
            rungs,
            against_previous,
        });
    }
    let names: Vec<String> = opponents.iter().map(|o| o.name.clone()).collect();
    Ok(rate_levels(model, settings, played, &names, started)?)
}

/// Where level `level`'s game records go: `level-N` in the ladder's folder.
pub fn level_record_dir(config: &LadderConfig, level: &Level) -> Option<std::path::PathBuf> {
    config
        .record_dir
        .as_ref()
        .map(|dir| dir.join(format!("level-{}", level.number)))
}

/// One level's games, as played (of either game).
#[derive(Clone, Debug)]
pub struct PlayedLevel {
    pub level: Level,
    /// The player spec it played as.
    pub player: String,
    /// Each opponent's row, and the results (the level 0, the opponent 1).
    pub rungs: Vec<(LadderRow, Vec<PairResult>)>,
    /// Its games against the level before it in the list (this level 0,
    /// that one 1).
    pub against_previous: Option<(LadderRow, Vec<PairResult>)>,
}

/// The anchor of a levels table whose `count` levels come first and its
/// `opponents` after them, and its name in the report: `scale` where the
/// two-player game's classical players are held on the one Elo scale,
/// `random` where the general game's random is held at 0, `mean` where
/// none played.
fn levels_anchor(
    settings: &LadderSettings,
    count: usize,
    opponents: &[String],
) -> (Anchor, &'static str) {
    let game = if settings.general_rules.is_some() {
        GameKind::General
    } else {
        GameKind::TwoPlayer
    };
    match crate::scale::anchor_of(game, opponents) {
        Anchor::Fixed(fixed) => (
            Anchor::Fixed(
                fixed
                    .into_iter()
                    .map(|(index, elo)| (count + index, elo))
                    .collect(),
            ),
            match game {
                GameKind::TwoPlayer => "scale",
                GameKind::General => "random",
            },
        ),
        Anchor::Mean => (Anchor::Mean, "mean"),
    }
}

/// Rates `played` levels and `opponents` (by name, in the rungs' order)
/// together on the one Elo scale (`levels_anchor`).
pub fn rate_levels(
    model: &str,
    settings: LadderSettings,
    played: Vec<PlayedLevel>,
    opponents: &[String],
    started: Instant,
) -> Result<LevelsReport, EloError> {
    let count = played.len();
    let mut games: Vec<PairResult> = Vec::new();
    for (index, level) in played.iter().enumerate() {
        for (opponent, (_, results)) in level.rungs.iter().enumerate() {
            let global = |player: usize| if player == 0 { index } else { count + opponent };
            games.extend(results.iter().map(|game| PairResult {
                first: global(game.first),
                second: global(game.second),
                outcome: game.outcome,
            }));
        }
        if let Some((_, results)) = &level.against_previous {
            let global = |player: usize| if player == 0 { index } else { index - 1 };
            games.extend(results.iter().map(|game| PairResult {
                first: global(game.first),
                second: global(game.second),
                outcome: game.outcome,
            }));
        }
    }
    let (anchor, anchor_name) = levels_anchor(&settings, count, opponents);
    let ratings = fit_elo(count + opponents.len(), &games, anchor)?;
    let levels = played
        .into_iter()
        .enumerate()
        .map(|(index, level)| {
            let (elo_low, elo_high) = ratings.interval(index);
            LevelRating {
                level: level.level.number,
                name: level.level.name.to_owned(),
                simulations: level.level.simulations,
                temperature: Some(level.level.temperature),
                random_move: Some(level.level.random_move),
                player: level.player,
                elo: ratings.elo[index],
                elo_low,
                elo_high,
                rows: level.rungs.into_iter().map(|(row, _)| row).collect(),
                against_previous: level.against_previous.map(|(row, _)| row),
            }
        })
        .collect();
    let opponents = opponents
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let (elo_low, elo_high) = ratings.interval(count + index);
            OpponentRating {
                name: name.clone(),
                elo: ratings.elo[count + index],
                elo_low,
                elo_high,
            }
        })
        .collect();
    Ok(LevelsReport {
        model: model.to_owned(),
        settings,
        anchor: anchor_name.to_owned(),
        prior_draws: ratings.prior_draws,
        levels,
        opponents,
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl LevelsReport {
    /// The same games fitted again on today's one Elo scale
    /// (`crate::scale`): what a report measured before the scale's anchors
    /// changed says on it now. The games are the report's rows (each
    /// level's against every opponent and against the level before it). A
    /// report of the general game is returned as it is: its scale (random
    /// at 0) has not changed, and its rows count the player's side's
    /// results, not the pairwise ones it was fitted on.
    pub fn rescaled(&self) -> Result<LevelsReport, EloError> {
        if self.settings.general_rules.is_some() {
            return Ok(self.clone());
        }
        let count = self.levels.len();
        let names: Vec<String> = self.opponents.iter().map(|o| o.name.clone()).collect();
        let mut games = Vec::new();
        for (index, level) in self.levels.iter().enumerate() {
            for row in &level.rows {
                if let Some(opponent) = names.iter().position(|name| *name == row.opponent) {
                    games.extend(row.results(index, count + opponent));
                }
            }
            if let (Some(row), true) = (&level.against_previous, index > 0) {
                games.extend(row.results(index, index - 1));
            }
        }
        let (anchor, anchor_name) = levels_anchor(&self.settings, count, &names);
        let ratings = fit_elo(count + names.len(), &games, anchor)?;
        let mut report = self.clone();
        report.anchor = anchor_name.to_owned();
        report.prior_draws = ratings.prior_draws;
        for (index, level) in report.levels.iter_mut().enumerate() {
            level.elo = ratings.elo[index];
            (level.elo_low, level.elo_high) = ratings.interval(index);
        }
        for (index, opponent) in report.opponents.iter_mut().enumerate() {
            opponent.elo = ratings.elo[count + index];
            (opponent.elo_low, opponent.elo_high) = ratings.interval(count + index);
        }
        Ok(report)
    }

    /// The report as Markdown: a line of settings, the levels with their
    /// Elo and score against each opponent, then the opponents' Elo.
    pub fn markdown(&self) -> String {
        let settings = &self.settings;
        let mut text = String::new();
        let how = match &settings.general_rules {
            Some(rules) => format!(
                " in the general game: {} games per level and opponent (which takes every other \
                 side, seats rotated), layouts {} each plus {} random plies, rules: {}, seed {}; \
                 Elo fitted over the pairwise results by finishing order of all",
                settings.games_per_opponent,
                settings.layouts.join(", "),
                settings.opening_plies,
                rules,
                settings.seed
            ),
            None => format!(
                ": {} games per level and opponent, openings {} each plus {} random plies \
                 (both colours), {}-ply limit, seed {}; Elo fitted over all",
                settings.games_per_opponent,
                settings.layouts.join(", "),
                settings.opening_plies,
                settings.max_plies,
                settings.seed
            ),
        };
        let _ = writeln!(
            text,
            "Levels of `{}`{} {} games, Elo {}, 95 % intervals{}; {:.0} s in all.\n",
            self.model,
            how,
            self.levels
                .iter()
                .flat_map(|level| level.rows.iter().chain(&level.against_previous))
                .map(|row| row.games)
                .sum::<u32>(),
            match self.anchor.as_str() {
                "scale" => format!("on the one scale ({})", crate::scale::describe()),
                "mean" => "with the mean at 0".to_owned(),
                other => format!("with `{other}` at 0"),
            },
            if self.prior_draws > 0.0 {
                format!(
                    " (with {} virtual draw per pairing: some player never scored)",
                    self.prior_draws
                )
            } else {
                String::new()
            },
            self.seconds
        );
        let names: Vec<&str> = self
            .levels
            .first()
            .map(|level| level.rows.iter().map(|row| row.opponent.as_str()).collect())
            .unwrap_or_default();
        let _ = write!(text, "| level | name | simulations | Elo | 95 % interval |");
        for name in &names {
            let _ = write!(text, " vs `{name}` |");
        }
        let _ = write!(text, " vs the level before |\n|---|---|---|---|---|");
        for _ in &names {
            text.push_str("---|");
        }
        text.push_str("---|");
        text.push('\n');
        for level in &self.levels {
            let _ = write!(
                text,
                "| {} | {} | {} | {:.0} | [{:.0}, {:.0}] |",
                level.level,
                level.name,
                level.simulations,
                level.elo,
                level.elo_low,
                level.elo_high
            );
            for row in &level.rows {
                let _ = write!(text, " {:.2} |", row.score);
            }
            match &level.against_previous {
                Some(row) => {
                    let _ = write!(text, " {:.2} |", row.score);
                }
                None => text.push_str(" |"),
            }
            text.push('\n');
        }
        let _ = writeln!(text, "\n| opponent | Elo | 95 % interval |\n|---|---|---|");
        for opponent in &self.opponents {
            let _ = writeln!(
                text,
                "| `{}` | {:.0} | [{:.0}, {:.0}] |",
                opponent.name, opponent.elo, opponent.elo_low, opponent.elo_high
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Silent;
    use crate::arena_board::ArenaBoard;
    use crate::ladder::Ladder;

    #[test]
    fn a_rating_of_a_level_defined_otherwise_is_stale() {
        let level = sumito_game::level::level(4).unwrap();
        let rating = LevelRating {
            level: 4,
            name: level.name.to_owned(),
            simulations: level.simulations,
            temperature: Some(level.temperature),
            random_move: Some(level.random_move),
            player: "bundle:level=4".to_owned(),
            elo: 900.0,
            elo_low: 800.0,
            elo_high: 1000.0,
            rows: Vec::new(),
            against_previous: None,
        };
        assert!(rating.measures(&level));
        // Through JSON, as a bundle reads it.
        let json = serde_json::to_string(&rating).unwrap();
        let read: LevelRating = serde_json::from_str(&json).unwrap();
        assert!(read.measures(&level));
        let hotter = LevelRating {
            temperature: Some(level.temperature + 0.2),
            ..rating.clone()
        };
        assert!(!hotter.measures(&level));
        let more = LevelRating {
            simulations: level.simulations * 2,
            ..rating.clone()
        };
        assert!(!more.measures(&level));
        let other = sumito_game::level::level(5).unwrap();
        assert!(!rating.measures(&other));
        // An older report, without temperature and random moves: by its
        // simulations.
        let older = LevelRating {
            temperature: None,
            random_move: None,
            ..rating
        };
        assert!(older.measures(&level));
    }

    #[test]
    fn levels_are_rated_on_one_scale_with_their_opponents() {
        // Stand-ins for a model's levels: classical players of growing
        // strength, named as levels.
        let registry = sumito_engine::Position::classical_players();
        let levels: Vec<(Level, Entrant)> = ["random", "alphabeta:depth=1"]
            .iter()
            .zip(&sumito_game::LEVELS)
            .map(|(spec, level)| (*level, registry.prepare_str(spec).unwrap()))
            .collect();
        let opponents: Vec<Entrant> = ["random", "greedy"]
            .iter()
            .map(|spec| registry.prepare_str(spec).unwrap())
            .collect();
        let config = LadderConfig {
            games_per_opponent: 4,
            threads: 2,
            record_dir: None,
            time_per_move: None,
        };
        let ladder = Ladder::two_player(&config);
        let report = play_levels(
            "stand-in",
            &levels,
            &opponents,
            ladder.settings.clone(),
            &config,
            |player, opponents, rung| {
                ladder
                    .play_rungs(player, opponents, rung, &Silent)
                    .map_err(LevelsError::from)
            },
        )
        .unwrap();
        assert_eq!(report.anchor, "scale");
        // Fitted again from its rows alone, the report says the same.
        let again = report.rescaled().unwrap();
        for (refit, level) in again.levels.iter().zip(&report.levels) {
            assert!((refit.elo - level.elo).abs() < 1e-6, "{refit:?} {level:?}");
            assert!((refit.elo_high - level.elo_high).abs() < 1e-6);
        }
        assert_eq!(report.opponents[0].elo, 0.0);
        assert_eq!(report.levels.len(), 2);
        for level in &report.levels {
            assert_eq!(level.rows.len(), 2);
            assert!(level.rows.iter().all(|row| row.games == 4));
            assert!(level.elo_low <= level.elo && level.elo <= level.elo_high);
        }
        // Alpha-beta beats random and greedy: rated above the random level.
        assert!(report.levels[1].elo > report.levels[0].elo, "{report:?}");
        // Each level after the first also met the level before it.
        assert_eq!(report.levels[0].against_previous, None);
        let previous = report.levels[1].against_previous.as_ref().unwrap();
        assert_eq!((previous.opponent.as_str(), previous.games), ("random", 4));
        assert!(previous.score > 0.5, "{previous:?}");
        let markdown = report.markdown();
        assert!(markdown.contains("| 1 | beginner | 1 |"), "{markdown}");
        assert!(markdown.contains("vs the level before |"), "{markdown}");
        assert!(markdown.contains("20 games"), "{markdown}");
        assert!(markdown.contains("| `greedy` |"), "{markdown}");
        let json = serde_json::to_string(&report).unwrap();
        let back: LevelsReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.levels.len(), 2);
        assert_eq!(back.levels[1].name, "novice");
        assert_eq!(back.opponents[1].name, "greedy");
        assert!((back.levels[1].elo - report.levels[1].elo).abs() < 1e-9);
        // (Timings may lose their last bit in JSON: compare the counts.)
        let counts = |row: &LadderRow| (row.opponent.clone(), row.games, row.wins, row.draws);
        assert_eq!(
            back.levels[1].against_previous.as_ref().map(counts),
            report.levels[1].against_previous.as_ref().map(counts)
        );
        // A report written before the games between levels still reads.
        let mut old = serde_json::to_value(&report).unwrap();
        old["levels"][1]
            .as_object_mut()
            .unwrap()
            .remove("against_previous");
        let old: LevelsReport = serde_json::from_value(old).unwrap();
        assert_eq!(old.levels[1].against_previous, None);
    }
}
