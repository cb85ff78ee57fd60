//! The strength ladder: one player against fixed opponents of graded
//! strength, each in its own match at fixed, stated settings (openings,
//! move limit, seeds), so that anyone can rerun it and get the same games
//! from deterministic players. The report is a Markdown table and JSON with
//! per opponent: wins, draws and losses, the score with its 95 % interval,
//! the Elo difference that score means, each side's time per move, and how
//! the games ended (marbles pushed off, cycled, length).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;
use sumito_game::Board;

use serde::Serialize;
use sumito_engine::{EndReason, Layout, Position, Rules};

use crate::arena::{
    ArenaError, MatchConfig, MatchObserver, MatchStart, PlayedGame, Tally, check_record_dir,
    play_match,
};
use crate::elo::{PairOutcome, PairResult, fit_elo};
use crate::player::Entrant;
use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::{RulesTable, Targets};

/// The opponents of the ladder, weakest first.
pub const DEFAULT_OPPONENTS: [&str; 5] = [
    "greedy",
    "alphabeta:depth=1",
    "alphabeta:depth=2",
    "alphabeta:depth=3",
    "alphabeta:depth=4",
];

/// The default opponents of a general-game model's ladder, weakest first:
/// the classical players of the general game (`alphabeta` is its paranoid
/// search).
pub const GENERAL_OPPONENTS: [&str; 4] =
    ["random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2"];

/// The ladder's openings: these layouts in turn (those of any two-player
/// match that names none), each plus [`LADDER_OPENING_PLIES`] random plies,
/// each played with both colours.
pub use crate::match_start::DEFAULT_TWO_PLAYER_LAYOUTS as LADDER_LAYOUTS;
pub const LADDER_OPENING_PLIES: u32 = 2;
/// The move limit of ladder games, in plies.
pub const LADDER_MAX_PLIES: u32 = 200;
/// The seed of the openings and of the players' own randomness.
pub const LADDER_SEED: u64 = 2026;

/// How the ladder is played.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderConfig {
    /// Games against each opponent (even: both colours of every opening).
    pub games_per_opponent: u32,
    /// Worker threads (games at once) per match; 0 means one per core.
    pub threads: usize,
    /// Where each match's game records go (a folder per opponent), if anywhere.
    pub record_dir: Option<PathBuf>,
    /// The time per move both sides were given, in the equal-time mode
    /// (only reported: the entrants carry their own limits).
    pub time_per_move: Option<f64>,
}

/// The settings a ladder was played under, as reported.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct LadderSettings {
    pub games_per_opponent: u32,
    pub layouts: Vec<String>,
    pub opening_plies: u32,
    pub max_plies: u32,
    pub marbles_to_win: u8,
    pub seed: u64,
    pub threads: usize,
    pub time_per_move_seconds: Option<f64>,
    /// A ladder of the general game: its `[rules]` table in words (then
    /// `max_plies` and `marbles_to_win` are the table's, the latter its
    /// largest target), the opponent taking every other side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general_rules: Option<String>,
}

/// The player's results against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct LadderRow {
    pub opponent: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Points per game (a draw is half a point) and its 95 % interval.
    pub score: f64,
    pub score_low: f64,
    pub score_high: f64,
    /// The Elo difference (player minus opponent) the score means, and its
    /// 95 % interval; `None` where unbounded (a score of 0 or 1).
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Average time per move, in milliseconds.
    pub player_ms_per_move: f64,
    pub opponent_ms_per_move: f64,
    /// Games that ended with enough marbles pushed off.
    pub decisive: u32,
    /// Games in which a position repeated (see `PlayedGame::first_repetition`).
    pub cycled: u32,
    /// Games that reached the move limit.
    pub move_limit: u32,
    pub average_plies: f64,
}

impl LadderRow {
    /// The row's games as results of `player` against `opponent` (indices
    /// of a table): the Bradley–Terry fit has no colour, so wins, draws and
    /// losses are all it needs.
    pub(crate) fn results(&self, player: usize, opponent: usize) -> Vec<PairResult> {
        let result = |outcome| PairResult {
            first: player,
            second: opponent,
            outcome,
        };
        std::iter::repeat_n(result(PairOutcome::FirstWins), self.wins as usize)
            .chain(std::iter::repeat_n(
                result(PairOutcome::Draw),
                self.draws as usize,
            ))
            .chain(std::iter::repeat_n(
                result(PairOutcome::SecondWins),
                self.losses as usize,
            ))
            .collect()
    }
}

/// A whole ladder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderReport {
    pub player: String,
    pub settings: LadderSettings,
    pub rows: Vec<LadderRow>,
    pub seconds: f64,
}

/// The rule sheets' rules with the ladder's move limit.
pub fn ladder_rules() -> Rules {
    Rules {
        max_plies: Some(LADDER_MAX_PLIES),
        ..Rules::default()
    }
}

/// The starts of the two-player ladder: [`LADDER_LAYOUTS`] under
/// [`ladder_rules`].
pub fn ladder_starts() -> Vec<MatchStart<Position>> {
    LADDER_LAYOUTS
        .iter()
        .map(|&layout| MatchStart::two_player(layout, ladder_rules()))
        .collect()
}

/// The folder of rung `index`'s records, if the ladder keeps records.
fn rung_record_dir(config: &LadderConfig, index: usize) -> Option<PathBuf> {
    config
        .record_dir
        .as_ref()
        .map(|dir| dir.join(format!("opponent-{}", index + 1)))
}

/// A ladder of either game: where its games start, under which rules, how
/// many a rung, and the settings it reports. The player takes one side and
/// each opponent in turn every other side, seats rotated from game to game
/// (see [`crate::arena`]).
#[derive(Clone, Debug)]
pub struct Ladder<B: Board> {
    /// Used in turn by successive openings.
    pub starts: Vec<MatchStart<B>>,
    /// The rules as records state them.
    pub rules: B::Rules,
    /// Games a rung: a multiple of the sides on every start.
    pub games: u32,
    pub settings: LadderSettings,
}

impl Ladder<Position> {
    /// The two-player ladder `player` climbs with `config`'s games: its
    /// rules are fixed so that its tables compare, so a model that learned
    /// others (it would play under rules it never saw) is refused, and its
    /// games are even (every opening once with each colour).
    pub fn of_player(player: &Entrant, config: &LadderConfig) -> Result<Ladder<Position>, String> {
        let games = config.games_per_opponent;
        if games == 0 || !games.is_multiple_of(2) {
            return Err(format!(
                "--games {games} must be even and positive: every opening is played once with each colour"
            ));
        }
        if let Some(trained) = player
            .trained_rules
            .filter(|&rules| rules != ladder_rules())
        {
            return Err(format!(
                "{} was trained under other rules ({}) than the ladder's ({}): a model plays \
                 only under the rules it learned; measure it with `sumito arena`, which plays under them",
                player.name,
                trained.describe(),
                ladder_rules().describe()
            ));
        }
        Ok(Ladder::two_player(config))
    }

    /// The two-player ladder: [`LADDER_LAYOUTS`] under [`ladder_rules`].
    pub fn two_player(config: &LadderConfig) -> Ladder<Position> {
        Ladder {
            starts: ladder_starts(),
            rules: ladder_rules(),
            games: config.games_per_opponent,
            settings: ladder_settings(config),
        }
    }
}

impl Ladder<GeneralPosition> {
    /// The ladder of the general game on `layouts` in turn under the
    /// `[rules]` table `table` (a model's): `config.games_per_opponent`
    /// rounded up so that every layout gets a multiple of the sides (every
    /// seat played equally often on each).
    pub fn general(
        table: &RulesTable,
        layouts: &[GeneralLayout],
        config: &LadderConfig,
    ) -> Result<Ladder<GeneralPosition>, String> {
        if layouts.is_empty() {
            return Err("a ladder needs a layout".into());
        }
        let starts = layouts
            .iter()
            .map(|&layout| MatchStart::general(layout, table))
            .collect::<Result<Vec<_>, String>>()?;
        let unit = (sumito_game::Board::sides(&starts[0].position) * layouts.len()) as u32;
        let games = config.games_per_opponent.div_ceil(unit).max(1) * unit;
        let target = match &table.marbles_to_win {
            Some(Targets::All(n)) => *n,
            Some(Targets::PerSide(targets)) => targets.iter().copied().max().unwrap_or(6),
            None => 6,
        };
        Ok(Ladder {
            starts,
            rules: table.clone(),
            games,
            settings: LadderSettings {
                games_per_opponent: games,
                layouts: layouts.iter().map(ToString::to_string).collect(),
                opening_plies: LADDER_OPENING_PLIES,
                max_plies: table.max_plies.unwrap_or(0),
                marbles_to_win: target,
                seed: LADDER_SEED,
                threads: crate::arena::threads_or_cores(config.threads),
                time_per_move_seconds: config.time_per_move,
                general_rules: Some(table.describe()),
            },
        })
    }
}

impl<B: Board> Ladder<B> {
    /// Sides of its games.
    pub fn sides(&self) -> usize {
        self.starts
            .first()
            .map_or(2, |start| start.position.sides())
    }

    /// Plays `player` against each of `opponents` in turn (records under
    /// each rung's folder of `config.record_dir`); `observer` hears each
    /// match. Each rung's row, and the player's (0) results against the
    /// opponent's (1) sides by finishing order.
    pub fn play_rungs(
        &self,
        player: &Entrant<B>,
        opponents: &[Entrant<B>],
        config: &LadderConfig,
        observer: &dyn MatchObserver<B>,
    ) -> Result<Vec<(LadderRow, Vec<PairResult>)>, ArenaError> {
        // Refuse a folder of earlier records before hours of games, not after.
        for index in 0..opponents.len() {
            if let Some(dir) = rung_record_dir(config, index) {
                check_record_dir(&dir)?;
            }
        }
        let mut rungs = Vec::new();
        for (index, opponent) in opponents.iter().enumerate() {
            let mut entrants = vec![player.clone()];
            entrants.extend(std::iter::repeat_n(opponent.clone(), self.sides() - 1));
            let match_config = MatchConfig {
                games_per_pairing: self.games,
                starts: self.starts.clone(),
                rules: self.rules.clone(),
                opening_plies: LADDER_OPENING_PLIES,
                seed: LADDER_SEED,
                threads: config.threads,
                record_dir: rung_record_dir(config, index),
                sprt: None,
            };
            let results = play_match(&entrants, &match_config, observer)?;
            let outcomes = results
                .games
                .iter()
                .flat_map(|game| game.pair_outcomes_of(0))
                .map(|outcome| PairResult {
                    first: 0,
                    second: 1,
                    outcome,
                })
                .collect();
            rungs.push((row(&opponent.name, &results.games), outcomes));
        }
        Ok(rungs)
    }

    /// Plays the whole ladder (see [`Ladder::play_rungs`]) and reports it.
    pub fn run(
        &self,
        player: &Entrant<B>,
        opponents: &[Entrant<B>],
        config: &LadderConfig,
        observer: &dyn MatchObserver<B>,
    ) -> Result<LadderReport, ArenaError> {
        let started = Instant::now();
        let rows = self
            .play_rungs(player, opponents, config, observer)?
            .into_iter()
            .map(|(row, _)| row)
            .collect();
        Ok(LadderReport {
            player: player.name.clone(),
            settings: self.settings.clone(),
            rows,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The settings of the two-player ladder played with `config`, as reported.
pub fn ladder_settings(config: &LadderConfig) -> LadderSettings {
    let rules = ladder_rules();
    LadderSettings {
        games_per_opponent: config.games_per_opponent,
        layouts: LADDER_LAYOUTS.iter().map(Layout::name).collect(),
        opening_plies: LADDER_OPENING_PLIES,
        max_plies: LADDER_MAX_PLIES,
        marbles_to_win: rules.marbles_to_win,
        seed: LADDER_SEED,
        threads: config.threads,
        time_per_move_seconds: config.time_per_move,
        general_rules: None,
    }
}

/// What a rung's row counts, game by game.
#[derive(Default)]
struct RowCounts {
    wins: u32,
    draws: u32,
    losses: u32,
    /// The sum of the player's scores.
    score: f64,
    games: u32,
    /// Moves and seconds of thinking: the player's, the opponent's.
    thinking: [(u32, f64); 2],
    decisive: u32,
    cycled: u32,
    move_limit: u32,
    plies: u64,
}

impl RowCounts {
    fn into_row(self, opponent: &str) -> LadderRow {
        let score = if self.games == 0 {
            0.5
        } else {
            self.score / f64::from(self.games)
        };
        let (score_low, score_high) = wilson_interval(score, self.games);
        let per_move = |(moves, seconds): (u32, f64)| {
            if moves == 0 {
                0.0
            } else {
                1000.0 * seconds / f64::from(moves)
            }
        };
        LadderRow {
            opponent: opponent.to_owned(),
            games: self.games,
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            score,
            score_low,
            score_high,
            elo: elo_of_score(score),
            elo_low: elo_of_score(score_low),
            elo_high: elo_of_score(score_high),
            player_ms_per_move: per_move(self.thinking[0]),
            opponent_ms_per_move: per_move(self.thinking[1]),
            decisive: self.decisive,
            cycled: self.cycled,
            move_limit: self.move_limit,
            average_plies: if self.games == 0 {
                0.0
            } else {
                self.plies as f64 / f64::from(self.games)
            },
        }
    }
}

/// One rung's row from its games (the player entrant 0): the wins, shared
/// wins (draws) and losses of the player's side; the score its pairwise
/// score by finishing order against the opponent's sides
/// ([`PlayedGame::pair_score_of`]; with two sides, its points).
fn row<B: Board>(opponent: &str, games: &[PlayedGame<B>]) -> LadderRow {
    let mut counts = RowCounts::default();
    for game in games {
        let mut tally = Tally::default();
        tally.add_result(game.result_for(0).expect("the player plays every game"));
        counts.wins += tally.wins;
        counts.draws += tally.draws;
        counts.losses += tally.losses;
        counts.score += game.pair_score_of(0).unwrap_or(0.5);
        counts.games += 1;
        for (side, &entrant) in game.fixture.sides.iter().enumerate() {
            let who = usize::from(entrant != 0);
            counts.thinking[who].0 += game.thinking[side].moves;
            counts.thinking[who].1 += game.thinking[side].time.as_secs_f64();
        }
        let reason = game.ending().map(|ending| ending.reason);
        counts.decisive += u32::from(reason.is_some_and(EndReason::by_push_off));
        counts.move_limit += u32::from(reason == Some(EndReason::MoveLimit));
        counts.cycled += u32::from(game.first_repetition.is_some());
        counts.plies += game.plies as u64;
    }
    counts.into_row(opponent)
}

/// The 95 % Wilson interval of a score over `games` games (a draw counting
/// as half a win). Unlike the plain normal interval it does not shrink to a
/// point at a score of 0 or 1.
pub fn wilson_interval(score: f64, games: u32) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = f64::from(games);
    let z2 = Z * Z;
    let centre = (score + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (score * (1.0 - score) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The Elo difference a score means against one opponent; `None` at 0 or 1.
pub fn elo_of_score(score: f64) -> Option<f64> {
    // An interval's end computed as 0.99999999999 means 1, not +6,000 Elo.
    const EDGE: f64 = 1e-9;
    (score > EDGE && score < 1.0 - EDGE).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

impl LadderReport {
    /// The report as Markdown: a line of settings, then one row per opponent.
    pub fn markdown(&self) -> String {
        let settings = &self.settings;
        let mut text = String::new();
        if let Some(rules) = &settings.general_rules {
            let _ = writeln!(
                text,
                "Ladder of `{}` in the general game: {} games per opponent, which takes every \
                 other side (seats rotated), layouts {} each plus {} random plies, rules: {}; \
                 seed {}{}; {:.0} s in all. W–D–L: the player's side won, shared the win, \
                 or not; score: its pairwise score by finishing order against the opponent's \
                 sides (par 0.5).\n",
                self.player,
                settings.games_per_opponent,
                settings.layouts.join(", "),
                settings.opening_plies,
                rules,
                settings.seed,
                settings
                    .time_per_move_seconds
                    .map_or_else(String::new, |t| format!(", {t} s per move for every side")),
                self.seconds
            );
        } else {
            let _ = writeln!(
                text,
                "Ladder of `{}`: {} games per opponent, openings {} each plus {} random plies \
             (both colours), {}-ply limit, {} marbles to win, seed {}{}; {:.0} s in all.\n",
                self.player,
                settings.games_per_opponent,
                settings.layouts.join(", "),
                settings.opening_plies,
                settings.max_plies,
                settings.marbles_to_win,
                settings.seed,
                settings
                    .time_per_move_seconds
                    .map_or_else(String::new, |t| format!(", {t} s per move for both sides")),
                self.seconds
            );
        }
        text.push_str(
            "| opponent | W–D–L | score [95 %] | Elo [95 %] | marbles off | cycled | move limit | plies | ms/move (player / opponent) |\n\
             |---|---|---|---|---:|---:|---:|---:|---|\n",
        );
        for row in &self.rows {
            let _ = writeln!(
                text,
                "| `{}` | {}–{}–{} | {:.3} [{:.3}, {:.3}] | {} [{}, {}] | {} | {} | {} | {:.0} | {:.1} / {:.1} |",
                row.opponent,
                row.wins,
                row.draws,
                row.losses,
                row.score,
                row.score_low,
                row.score_high,
                elo_text(row.elo, row.score),
                elo_text(row.elo_low, row.score_low),
                elo_text(row.elo_high, row.score_high),
                share(row.decisive, row.games),
                share(row.cycled, row.games),
                share(row.move_limit, row.games),
                row.average_plies,
                row.player_ms_per_move,
                row.opponent_ms_per_move
            );
        }
        if let Some((elo, low, high)) = self.scale_elo() {
            let _ = writeln!(
                text,
                "\nElo on the one scale: **{elo:.0} [{low:.0}, {high:.0}]**, fitted over every \
                 row with the classical opponents held at theirs ({}).",
                crate::scale::describe()
            );
        }
        text
    }

    /// The player's Elo on the one Elo scale (`crate::scale`), fitted over
    /// its rows against the scale's classical players, with its 95 %
    /// interval; `None` in the general game, or where no such player was
    /// met.
    pub fn scale_elo(&self) -> Option<(f64, f64, f64)> {
        if self.settings.general_rules.is_some() {
            return None;
        }
        // The player is index 0; only the opponents anchor, even when the
        // player is itself a classical player.
        let anchored: Vec<(usize, f64)> = self
            .rows
            .iter()
            .enumerate()
            .filter_map(|(index, row)| {
                crate::scale::anchor_elo(&row.opponent).map(|elo| (index + 1, elo))
            })
            .collect();
        if anchored.is_empty() {
            return None;
        }
        let games: Vec<PairResult> = self
            .rows
            .iter()
            .enumerate()
            .flat_map(|(index, row)| row.results(0, index + 1))
            .collect();
        let ratings = fit_elo(
            self.rows.len() + 1,
            &games,
            crate::elo::Anchor::Fixed(anchored),
        )
        .ok()?;
        let (low, high) = ratings.interval(0);
        Some((ratings.elo[0], low, high))
    }
}

fn elo_text(elo: Option<f64>, score: f64) -> String {
    match elo {
        // `+ 0.0` turns a negative zero into zero.
        Some(elo) => format!("{:+.0}", elo.round() + 0.0),
        None if score >= 0.5 => "+∞".to_string(),
        None => "−∞".to_string(),
    }
}

fn share(count: u32, games: u32) -> String {
    if games == 0 {
        return "–".to_string();
    }
    format!("{:.0} %", 100.0 * f64::from(count) / f64::from(games))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Silent;
    use crate::arena_board::ArenaBoard;

    #[test]
    fn the_two_player_ladder_takes_even_games_and_its_own_rules_only() {
        let player = Position::classical_players().prepare_str("greedy").unwrap();
        let config = |games| LadderConfig {
            games_per_opponent: games,
            threads: 1,
            record_dir: None,
            time_per_move: None,
        };
        let ladder = Ladder::of_player(&player, &config(4)).unwrap();
        assert_eq!((ladder.games, ladder.rules), (4, ladder_rules()));
        for odd in [0, 3] {
            let err = Ladder::of_player(&player, &config(odd)).unwrap_err();
            assert!(err.contains("must be even and positive"), "{err}");
        }
        assert!(
            Ladder::of_player(
                &player.clone().with_trained_rules(ladder_rules()),
                &config(2)
            )
            .is_ok()
        );
        let other = Rules {
            max_plies: Some(100),
            ..Rules::default()
        };
        let err = Ladder::of_player(&player.with_trained_rules(other), &config(2)).unwrap_err();
        assert!(
            err.starts_with("greedy was trained under other rules"),
            "{err}"
        );
        assert!(err.contains("sumito arena"), "{err}");
    }

    #[test]
    fn intervals_and_elo_follow_the_score() {
        let (low, high) = wilson_interval(0.5, 200);
        assert!((low - 0.432).abs() < 0.005 && (high - 0.568).abs() < 0.005);
        let (low, high) = wilson_interval(1.0, 20);
        assert!(low > 0.8 && low < 0.9 && high == 1.0, "{low} {high}");
        assert_eq!(wilson_interval(0.3, 0), (0.0, 1.0));
        assert_eq!(elo_of_score(0.5), Some(0.0));
        assert_eq!(elo_text(Some(-0.2), 0.5), "+0");
        assert_eq!(elo_text(None, 1.0), "+∞");
        assert!((elo_of_score(0.75).unwrap() - 190.85).abs() < 0.01);
        assert_eq!(elo_of_score(1.0), None);
        assert_eq!(elo_of_score(1.0 - 1e-12), None);
        assert_eq!(elo_text(elo_of_score(1.0 - 1e-12), 1.0 - 1e-12), "+∞");
        assert_eq!(elo_of_score(0.0), None);
    }

    #[test]
    fn a_ladder_of_the_general_game_rotates_the_seats_and_scores_by_finishing_order() {
        let table: RulesTable =
            toml::from_str("layouts = [\"three-player\"]\nmax_plies = 60\nmarbles_to_win = 6")
                .unwrap();
        let layouts = [GeneralLayout::from_name("three-player").unwrap()];
        let registry = GeneralPosition::classical_players();
        let opponents =
            ["random", "alphabeta:depth=1"].map(|spec| registry.prepare_str(spec).unwrap());
        let player = registry.prepare_str("greedy").unwrap();
        let dir =
            std::env::temp_dir().join(format!("sumito-general-ladder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = LadderConfig {
            games_per_opponent: 4,
            threads: 2,
            record_dir: Some(dir.clone()),
            time_per_move: None,
        };
        let ladder = Ladder::general(&table, &layouts, &config).unwrap();
        assert_eq!(ladder.sides(), 3);
        // Rounded up to whole rotations of the three seats.
        assert_eq!(ladder.games, 6);
        let six = LadderConfig {
            games_per_opponent: 6,
            ..config.clone()
        };
        assert_eq!(Ladder::general(&table, &layouts, &six).unwrap().games, 6);
        assert!(Ladder::general(&table, &[], &six).is_err());
        /// The games each match it hears of finishes.
        struct Counting(std::sync::Mutex<Vec<usize>>);
        impl MatchObserver<GeneralPosition> for Counting {
            fn match_started(&self, standings: &crate::arena::Standings) {
                assert_eq!(standings.total_games, 6);
                self.0.lock().unwrap().push(0);
            }
            fn game_finished(&self, _: &PlayedGame<GeneralPosition>, _: &crate::arena::Standings) {
                *self.0.lock().unwrap().last_mut().unwrap() += 1;
            }
        }
        let counting = Counting(std::sync::Mutex::new(Vec::new()));
        let report = ladder.run(&player, &opponents, &config, &counting).unwrap();
        assert_eq!(*counting.0.lock().unwrap(), [6, 6]);
        assert_eq!(report.settings.games_per_opponent, 6);
        assert_eq!(report.settings.max_plies, 60);
        assert!(
            report
                .settings
                .general_rules
                .as_deref()
                .unwrap()
                .contains("max_plies = 60")
        );
        for row in &report.rows {
            assert_eq!(row.games, 6);
            assert_eq!(row.wins + row.draws + row.losses, 6);
            assert!(row.score_low <= row.score && row.score <= row.score_high);
            assert!(row.player_ms_per_move > 0.0 && row.opponent_ms_per_move > 0.0);
            assert!(row.decisive + row.move_limit <= 6);
        }
        // greedy finishes ahead of random's two sides.
        assert!(report.rows[0].score > 0.5, "{:?}", report.rows[0]);
        // Every game recorded, readable, with the player in every seat in turn.
        let mut seats_of_player = Vec::new();
        let mut paths: Vec<_> = std::fs::read_dir(dir.join("opponent-1"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        paths.sort();
        assert_eq!(paths.len(), 6);
        for path in paths {
            let record = crate::record::GameRecord::<GeneralPosition>::read(&path).unwrap();
            assert!(record.result.is_some(), "{}", path.display());
            seats_of_player.push(record.players.iter().position(|s| s == "greedy").unwrap());
        }
        seats_of_player.sort_unstable();
        assert_eq!(seats_of_player, [0, 0, 1, 1, 2, 2]);
        let table_text = report.markdown();
        assert!(table_text.contains("in the general game") && table_text.contains("| `random` |"));
        // The one scale is the two-player game's.
        assert!(report.scale_elo().is_none() && !table_text.contains("one scale"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(
            json["settings"]["general_rules"],
            report.settings.general_rules.clone().unwrap()
        );
        // The two-player ladder's JSON has no such key.
        assert!(ladder_settings(&config).general_rules.is_none());
        // A folder of earlier records is refused before any game.
        let err = ladder
            .run(&player, &opponents, &config, &crate::arena::Silent)
            .unwrap_err()
            .to_string();
        assert!(err.contains("already holds"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_ladder_plays_every_opponent_and_reports_each() {
        let registry = Position::classical_players();
        let player = registry.prepare_str("greedy").unwrap();
        let opponents =
            ["random", "alphabeta:depth=1"].map(|spec| registry.prepare_str(spec).unwrap());
        let config = LadderConfig {
            games_per_opponent: 6,
            threads: 2,
            record_dir: None,
            time_per_move: None,
        };
        let report = Ladder::two_player(&config)
            .run(&player, &opponents, &config, &Silent)
            .unwrap();
        assert_eq!(report.rows.len(), 2);
        for row in &report.rows {
            assert_eq!(row.games, 6);
            assert_eq!(row.wins + row.draws + row.losses, 6);
            assert!(row.score_low <= row.score && row.score <= row.score_high);
            assert!(row.player_ms_per_move > 0.0 && row.opponent_ms_per_move > 0.0);
            assert!(row.decisive + row.move_limit <= 6);
            assert!(row.average_plies > f64::from(LADDER_OPENING_PLIES));
        }
        // greedy beats random.
        assert!(report.rows[0].score > 0.5, "{:?}", report.rows[0]);
        let table = report.markdown();
        assert_eq!(
            table.lines().filter(|line| line.starts_with("| `")).count(),
            2
        );
        assert!(table.contains("| `random` |") && table.contains("6 games per opponent"));
        // The player (greedy itself) is rated on the one scale from its
        // rows, its opponents held at theirs.
        let (elo, low, high) = report.scale_elo().unwrap();
        assert!(low < elo && elo < high, "{elo} [{low}, {high}]");
        assert!(
            table.contains(&format!("Elo on the one scale: **{elo:.0} [")),
            "{table}"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["rows"][1]["opponent"], "alphabeta:depth=1");
        assert_eq!(json["settings"]["max_plies"], LADDER_MAX_PLIES);
        // Deterministic players, fixed seeds: the same games again.
        let again = Ladder::two_player(&config)
            .run(&player, &opponents, &config, &Silent)
            .unwrap();
        for (a, b) in report.rows.iter().zip(&again.rows) {
            assert_eq!((a.wins, a.draws, a.losses), (b.wins, b.draws, b.losses));
        }
    }
}
