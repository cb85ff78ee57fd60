//! The run configuration (`configs/*.toml`): one TOML file with a table per
//! part of the loop. Unknown keys are rejected, and every error names the
//! file, the key and the problem.
//!
//! ```toml
//! [rules]        # the game self-play and evaluation play (move limit!); any variant
//!                # key or a many-player layout makes the run learn the general game
//! [selfplay]     # workers, games in parallel, games per generation, resignation
//! [mcts]         # the self-play search (sumito_mcts::SearchConfig)
//! [net]          # the network (sumito_net::NetConfig: model, inference, training, threads)
//! [training]     # samples per position, replay window, checkpoints
//! [gating]       # off, sprt or threshold; games; SPRT and threshold parameters
//! [evaluation]   # search and openings of evaluation games; fixed opponents for Elo
//! [budget]       # when to stop: generations, hours, games
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sumito_engine::general::{GeneralLayout, GeneralRules};
use sumito_engine::rules_table::{RulesTable, RulesTableError, Targets};
use sumito_engine::{Layout, Rules};
use sumito_game::{GameKind, with_board};
use sumito_mcts::SearchConfig;
use sumito_net::NetConfig;

use crate::starts::RunStarts;
use sumito_arena::arena_board::ArenaBoard;

/// Why a configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// Syntax errors, unknown keys and wrong types, as the TOML reader words
    /// them (with the line and the key).
    #[error("config {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("config {path}: `{key}` {problem}")]
    Invalid {
        path: PathBuf,
        key: String,
        problem: String,
    },
}

/// A whole run configuration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub rules: RunRules,
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// The self-play search. Evaluation games derive theirs from it (see
    /// [`Config::evaluation_search`]).
    #[serde(default)]
    pub mcts: SearchConfig,
    pub net: NetConfig,
    #[serde(default)]
    pub training: TrainingConfig,
    #[serde(default)]
    pub gating: GatingConfig,
    #[serde(default)]
    pub evaluation: EvaluationConfig,
    #[serde(default)]
    pub budget: BudgetConfig,
}

/// `[rules]`: the game played. Its keys are those of a `--rules` file,
/// declared once in [`RulesTable`] (a rule variant touches the engine
/// alone); a run fills in its defaults for the keys left out: 6 marbles to
/// win, a move limit of 200 plies, and the Standard and Belgian Daisy
/// layouts. The two-player engine plays targets and limits, and anything
/// more (a many-player layout, or a key that [`RulesTable::is_general`]
/// counts) makes the run learn the general game ([`RunRules::general`]).
/// A key at a value that means the plain rules (an empty list, a move
/// switched off) is read as left out ([`RulesTable::without_unset_values`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "RulesTable")]
pub struct RunRules {
    table: RulesTable,
}

/// A run's target when `[rules]` names none.
const DEFAULT_MARBLES_TO_WIN: u8 = 6;
/// A run's move limit when `[rules]` names none: games between weak
/// players can otherwise last forever.
const DEFAULT_MAX_PLIES: u32 = 200;
/// A run's layouts when `[rules]` names none.
const DEFAULT_LAYOUTS: [&str; 2] = ["standard", "belgian-daisy"];

impl From<RulesTable> for RunRules {
    fn from(mut table: RulesTable) -> RunRules {
        table
            .marbles_to_win
            .get_or_insert(Targets::All(DEFAULT_MARBLES_TO_WIN));
        table.max_plies.get_or_insert(DEFAULT_MAX_PLIES);
        table
            .layouts
            .get_or_insert_with(|| DEFAULT_LAYOUTS.map(String::from).to_vec());
        // An empty list and a switch set to false are the plain rules, as
        // if left out (so replay files record the table as before).
        RunRules {
            table: table.without_unset_values(),
        }
    }
}

impl Default for RunRules {
    fn default() -> Self {
        RulesTable::default().into()
    }
}

/// The general game a run learns: its rules value and its table.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneralRunRules {
    pub rules: GeneralRules,
    /// The `[rules]` table, as replay files record it.
    pub table: RulesTable,
}

impl RunRules {
    /// The `[rules]` table, with the run's defaults filled in.
    pub fn table(&self) -> &RulesTable {
        &self.table
    }

    /// The start layouts of self-play games, drawn uniformly per game
    /// (`standard`, `belgian-daisy`, ..., `random:SEED`; for the general
    /// game also `three-player`, `four-player`, ...: all with the same
    /// number of players).
    pub fn layouts(&self) -> &[String] {
        self.table.layouts.as_deref().unwrap_or_default()
    }

    /// The engine's two-player rules (for the general game: its common
    /// target, 6 with targets per side, and its limits).
    pub fn rules(&self) -> Rules {
        Rules {
            marbles_to_win: match self.table.marbles_to_win {
                Some(Targets::All(n)) => n,
                _ => DEFAULT_MARBLES_TO_WIN,
            },
            max_plies: self.table.max_plies,
            no_push_off_plies: self.table.no_push_off_plies,
        }
    }

    /// The parsed two-player start layouts (valid once the config is
    /// validated; empty for the general game).
    pub fn parsed_layouts(&self) -> Vec<Layout> {
        self.layouts()
            .iter()
            .filter_map(|name| Layout::from_name(name).ok())
            .collect()
    }

    /// Which game these rules are: [`GameKind::of`] the table and the
    /// layouts, the one place that decides it.
    pub fn kind(&self) -> GameKind {
        let layouts: Vec<GeneralLayout> = self
            .layouts()
            .iter()
            .filter_map(|name| GeneralLayout::from_name(name).ok())
            .collect();
        GameKind::of(&self.table, &layouts, false)
    }

    /// The general game's rules and starts, `None` for the two-player game.
    /// Errors name the key at fault (without the `rules.` prefix).
    pub fn general(&self) -> Result<Option<GeneralRunRules>, (String, String)> {
        if self.kind() != GameKind::General {
            return Ok(None);
        }
        let table = self.table().clone();
        let mut resolved: Option<GeneralRules> = None;
        for (index, name) in self.layouts().iter().enumerate() {
            let layout = GeneralLayout::from_name(name)
                .map_err(|err| (format!("layouts[{index}]"), err.to_string()))?;
            let (rules, _) = table.resolve(layout).map_err(|err| match err {
                sumito_engine::rules_table::RulesTableError::Key { key, message } => {
                    (key, format!("with the layout {name}: {message}"))
                }
                other => (format!("layouts[{index}]"), other.to_string()),
            })?;
            match &resolved {
                Some(first) if *first != rules => {
                    return Err((
                        format!("layouts[{index}]"),
                        format!(
                            "{name} seats {} players, but {} seats {}: one run learns one game",
                            layout.seats(),
                            self.layouts()[0],
                            first.seating.seats()
                        ),
                    ));
                }
                Some(_) => {}
                None => resolved = Some(rules),
            }
        }
        let rules = resolved.ok_or_else(|| {
            (
                "layouts".to_owned(),
                "must name at least one layout".to_owned(),
            )
        })?;
        Ok(Some(GeneralRunRules { rules, table }))
    }
}

/// The most random moves `[selfplay] branch_random_plies` may ask for.
pub const MAX_BRANCH_RANDOM_PLIES: u32 = 40;

/// `[selfplay]`: how games are generated.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Threads, each advancing its own batch of games through the MCTS
    /// multi-game driver; all share one batched inference service.
    pub workers: usize,
    /// Games each worker plays at once (its evaluator batch size).
    pub games_in_parallel: usize,
    /// Games per generation: the trainer makes a candidate after this many
    /// new games.
    pub games_per_generation: u64,
    /// A side resigns when its search value stays below this for
    /// `resign_consecutive_plies` of its moves; absent: never.
    pub resign_threshold: Option<f32>,
    pub resign_consecutive_plies: u32,
    /// Share of games played out with resignation off, to measure how often
    /// a resignation would have been wrong.
    pub resign_playout_share: f64,
    /// Weight of the predicted marble difference in the search's values
    /// (KataGo's score utility, `sumito_net::search::with_score_utility`), 0
    /// to 1: self-play, the run's rating and gating games, and the exported
    /// bundle's play default use it. With `[training]
    /// margin_horizon_plies` the prediction is of the marbles a few plies
    /// ahead, so the search prefers the move that wins a marble and avoids
    /// the one that loses one even when the winner is already clear. 0 (the
    /// default): values are the network's win/draw/loss alone. Both games
    /// (the general game's: each side's lead over the best other side).
    pub score_utility: f32,
    /// Weight, 0 to 1, of the marble difference on the board in the values
    /// of self-play's search (`sumito_net::Utilities`; one marble is worth
    /// `weight / 6` in `win - loss`): the search sees the marble a push-off
    /// wins or loses even where the network does not yet, so the move shows
    /// in the policy target the network learns from. Self-play only (the
    /// rating games and the exported model search as the network says).
    /// 0 (the default): off. Both games (the general game's: each side's
    /// lead over the best other side).
    pub material_utility: f32,
    /// Share of games, 0 to 1, that start from a position of an earlier game
    /// of the same self-play worker rather than from a layout (KataGo's
    /// branching), after 1 to `branch_random_plies` random legal moves
    /// (push-offs included): the network meets broken formations and uneven
    /// material, the positions of tactics, which games from the layouts
    /// rarely reach. 0 (the default): every game starts from a layout.
    /// Both games; on in `configs/quick.toml` at 0.25.
    pub branch_share: f64,
    /// The most random moves played from a branched position (1 to 40).
    pub branch_random_plies: u32,
    /// Whether `sumito train` plays a generation's games while it trains on
    /// the games before them (KataGo's and lc0's self-play and training run
    /// side by side), rather than in turns: `true`, `false`, or `"auto"`
    /// (the default): on when the threads of both fit in the cores this
    /// process may run on (self-play's: `workers` drivers, plus on the CPU
    /// the network's `[net.threads] intra_op` threads, which one driver runs
    /// itself; the trainer's: `intra_op`; on a GPU one thread drives each),
    /// so that the 2-core quick config takes turns. Overlapped, the games of
    /// generation N+1 are played by the model of generation N-1 (one
    /// generation older than in turns), the trainer trains exactly
    /// `[training] samples_per_position` as in turns, and the next
    /// generation's self-play waits for the trainer only when training the
    /// games before took longer than playing these (docs/training.md,
    /// "Self-play and training side by side").
    pub overlap_training: OverlapTraining,
}

/// `[selfplay] overlap_training`: `true`, `false` or `"auto"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OverlapTraining {
    /// Overlapped when the threads of both fit in the cores.
    #[default]
    Auto,
    /// Always overlapped.
    On,
    /// Always in turns.
    Off,
}

impl OverlapTraining {
    /// As the config writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            OverlapTraining::Auto => "\"auto\"",
            OverlapTraining::On => "true",
            OverlapTraining::Off => "false",
        }
    }
}

impl<'de> Deserialize<'de> for OverlapTraining {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = OverlapTraining;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("true, false or \"auto\"")
            }

            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<OverlapTraining, E> {
                Ok(if on {
                    OverlapTraining::On
                } else {
                    OverlapTraining::Off
                })
            }

            fn visit_str<E: serde::de::Error>(self, word: &str) -> Result<OverlapTraining, E> {
                match word {
                    "auto" => Ok(OverlapTraining::Auto),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(word), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            workers: 1,
            games_in_parallel: 64,
            games_per_generation: 256,
            resign_threshold: None,
            resign_consecutive_plies: 6,
            resign_playout_share: 0.1,
            score_utility: 0.0,
            material_utility: 0.0,
            branch_share: 0.0,
            branch_random_plies: 4,
            overlap_training: OverlapTraining::Auto,
        }
    }
}

/// `[training]`: what the trainer does with the replay store.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingConfig {
    /// Training samples drawn per new training position (KataGo's
    /// "samples per row"); batch size is `net.training.batch_size`.
    pub samples_per_position: f64,
    /// The replay window: every position while there are at most this many...
    pub window_min_positions: u64,
    /// ...growing as `min * (1 + scale * ((N/min)^exponent - 1) / exponent)`
    /// with the total `N` of positions ever generated (KataGo's power law) ...
    pub window_exponent: f64,
    pub window_scale: f64,
    /// ... and never more than this (the memory bound).
    pub window_max_positions: u64,
    /// Steps between trainer checkpoints inside a generation (what a killed
    /// trainer resumes from).
    pub checkpoint_every_steps: u64,
    /// What a two-player game won at the move limit (on marbles pushed off)
    /// is worth in the value target, from 0 to 1: its winner's target is
    /// this much a win and the rest a draw, its loser's the mirror. 1 (the
    /// default): a win like any other. Below 1 the network learns to prefer
    /// pushing off the last marble to holding a lead until the limit.
    pub move_limit_win: f64,
    /// What the marble-difference head learns: absent (the default), the
    /// difference at the game's end; `N`, the difference `N` plies later (at
    /// the end if the game ends sooner). The final difference hardly depends
    /// on when a marble is won (a won game ends at six either way), so the
    /// head of a winning side does not see a free marble; the difference a
    /// few plies ahead does, and `[selfplay] score_utility` makes the search
    /// use it. Two-player game only.
    pub margin_horizon_plies: Option<u32>,
}

impl Default for TrainingConfig {
    fn default() -> Self {
        TrainingConfig {
            samples_per_position: 4.0,
            window_min_positions: 20_000,
            window_exponent: 0.75,
            window_scale: 0.4,
            window_max_positions: 500_000,
            checkpoint_every_steps: 200,
            move_limit_win: 1.0,
            margin_horizon_plies: None,
        }
    }
}

/// How a candidate becomes the best model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GatingMode {
    /// Every candidate is promoted (AlphaZero): self-play always uses the latest.
    Off,
    /// A match against the best model, stopped by a sequential probability
    /// ratio test (or after `games`, rejected if undecided).
    Sprt,
    /// A match of `games` games; promoted when the score reaches `threshold`
    /// and its lower confidence bound is above one half.
    Threshold,
}

/// `[gating]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatingConfig {
    pub mode: GatingMode,
    /// Most games of a gating match (an even number: each opening is played
    /// with both colours).
    pub games: u32,
    /// SPRT hypotheses (Elo of the candidate over the best) and error rates.
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `threshold` mode: the score the candidate needs...
    pub threshold: f64,
    /// ...and the one-sided confidence with which its score must beat 0.5.
    pub confidence: f64,
}

impl Default for GatingConfig {
    fn default() -> Self {
        GatingConfig {
            mode: GatingMode::Sprt,
            games: 100,
            elo0: 0.0,
            elo1: 35.0,
            alpha: 0.05,
            beta: 0.05,
            threshold: 0.55,
            confidence: 0.9,
        }
    }
}

/// `[evaluation]`: every evaluation game (gating and rating).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluationConfig {
    /// Simulations per move of a network player in evaluation games.
    pub simulations: u32,
    /// Games played at once (one network batch).
    pub games_in_parallel: usize,
    /// Start layouts of evaluation games (of the run's game and seats),
    /// each played with both colours (every seat); none: the run's
    /// `[rules] layouts`...
    pub openings: Vec<String>,
    /// ... after this many uniformly random plies, so that games differ.
    pub random_opening_plies: u32,
    /// Fixed opponents of the rating games, as arena player specs
    /// (`random`, `greedy`, `alphabeta:depth=2`), weakest first.
    pub opponents: Vec<String>,
    /// How many of `opponents` each rated candidate plays: the ones nearest
    /// the previous rated candidate's Elo (one weaker, the rest stronger),
    /// so that a long list spans a whole run while each rating pays only
    /// for the games that measure it; the first rating plays the weakest.
    /// None: every opponent.
    pub opponents_per_candidate: Option<u32>,
    /// Games against each fixed opponent per candidate (even).
    pub games_per_opponent: u32,
    /// Rate only every Nth candidate (generations N, 2N, ...): with gating
    /// off the rating games teach the network nothing, and on a small
    /// machine they cost as much as the self-play. Gating needs every
    /// candidate evaluated, so N > 1 requires `gating.mode = "off"`.
    pub every_generations: u32,
}

impl EvaluationConfig {
    /// Whether candidate `generation` is evaluated at all.
    pub fn evaluates(&self, generation: u32) -> bool {
        generation > 0 && generation.is_multiple_of(self.every_generations.max(1))
    }
}

impl Default for EvaluationConfig {
    fn default() -> Self {
        EvaluationConfig {
            simulations: 64,
            games_in_parallel: 32,
            openings: Vec::new(),
            random_opening_plies: 2,
            opponents: vec!["random".into(), "greedy".into(), "alphabeta:depth=2".into()],
            games_per_opponent: 20,
            opponents_per_candidate: None,
            every_generations: 1,
        }
    }
}

/// `[budget]`: the run stops when any of these is spent (none: never).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetConfig {
    pub generations: Option<u32>,
    pub hours: Option<f64>,
    pub games: Option<u64>,
}

/// Keys of levers that A/B runs measured as not helping, since removed
/// (docs/levers.md): an old config that sets one is told so.
const REMOVED_KEYS: [(&str, &str); 5] = [
    ("training", "distant_win"),
    ("training", "distant_win_plies"),
    ("training", "tactical_weight"),
    ("training", "policy_surprise_weight"),
    ("net.training", "ema_decay"),
];

/// The removed key that a TOML reader's "unknown field" `message` names.
fn removed_key(message: &str) -> Option<(&'static str, &'static str)> {
    let named = message.split("unknown field `").nth(1)?.split('`').next()?;
    REMOVED_KEYS.into_iter().find(|(_, key)| *key == named)
}

impl Config {
    /// Reads, parses and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = sumito_fsio::read_text_capped(path, sumito_fsio::MAX_TEXT_FILE_BYTES).map_err(
            |source| ConfigError::Io {
                path: path.to_owned(),
                cause: source,
            },
        )?;
        Config::parse(&text, path)
    }

    /// Parses and validates configuration text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|err| {
            let message = err.to_string().trim_end().to_owned();
            let message = match removed_key(&message) {
                Some((section, key)) => format!(
                    "{message}\n`[{section}] {key}` was a lever that did not help and is no longer a key (docs/levers.md): delete the line"
                ),
                None => message,
            };
            ConfigError::Parse {
                path: path.to_owned(),
                message,
            }
        })?;
        // The network's game follows from the rules.
        if config.rules.kind() == GameKind::General {
            config.net.model.game = GameKind::General;
        }
        config.validate(path)?;
        Ok(config)
    }

    /// Checks every value a type cannot check.
    pub fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |key: &str, problem: String| {
            Err(ConfigError::Invalid {
                path: path.to_owned(),
                key: key.to_owned(),
                problem,
            })
        };
        let rules = &self.rules;
        // The one check of rule values every game and command makes.
        if let Err(RulesTableError::Key { key, message }) = rules.table().validate() {
            return invalid(&format!("rules.{key}"), message);
        }
        let general = match rules.general() {
            Ok(general) => general,
            Err((key, problem)) => return invalid(&format!("rules.{key}"), problem),
        };
        if general.is_none() {
            check_layouts("rules.layouts", rules.layouts(), path)?;
            if self.net.model.game != GameKind::TwoPlayer {
                return invalid(
                    "net.model.game",
                    "is \"variant\", but the rules are the two-player game's (the network's game follows from [rules])".into(),
                );
            }
        } else {
            // What the general game's loop does not do (yet): said, not ignored.
            if self.gating.mode == GatingMode::Sprt {
                return invalid(
                    "gating.mode",
                    "is \"sprt\", a two-player test: the general game (variants, 3-6 players) gates with \"threshold\" (the candidate's pairwise score against the best model's sides) or not at all (\"off\")".into(),
                );
            }
            if self.training.margin_horizon_plies.is_some() {
                return invalid(
                    "training.margin_horizon_plies",
                    "the general game's network has no marble-difference head: leave it out".into(),
                );
            }
        }

        let selfplay = &self.selfplay;
        for (key, value) in [
            ("selfplay.workers", selfplay.workers as u64),
            (
                "selfplay.games_in_parallel",
                selfplay.games_in_parallel as u64,
            ),
            (
                "selfplay.games_per_generation",
                selfplay.games_per_generation,
            ),
        ] {
            if value == 0 {
                return invalid(key, "must be at least 1".into());
            }
        }
        if let Some(threshold) = selfplay.resign_threshold
            && !(-1.0..=1.0).contains(&threshold)
        {
            return invalid(
                "selfplay.resign_threshold",
                format!("is {threshold}, must be a value in [-1, 1]"),
            );
        }
        // A side's value when every side is as likely to win: 0 with two
        // sides, -1/3 with three. A threshold at or above it resigns from the
        // first moves.
        let sides = general
            .as_ref()
            .map_or(2, |general| general.rules.seating.sides());
        let par = 2.0 / sides as f32 - 1.0;
        if let Some(threshold) = selfplay.resign_threshold
            && threshold >= par
        {
            return invalid(
                "selfplay.resign_threshold",
                format!(
                    "is {threshold}, not below {par:.2}, a side's value when all {sides} sides are as likely to win: every side would resign from its first moves (-0.9 is usual)"
                ),
            );
        }
        if selfplay.resign_consecutive_plies == 0 {
            return invalid(
                "selfplay.resign_consecutive_plies",
                "must be at least 1".into(),
            );
        }
        if !(0.0..=1.0).contains(&selfplay.resign_playout_share) {
            return invalid(
                "selfplay.resign_playout_share",
                "must be a share in [0, 1]".into(),
            );
        }
        if !(0.0..=1.0).contains(&selfplay.branch_share) {
            return invalid(
                "selfplay.branch_share",
                format!("is {}, must be a share in [0, 1]", selfplay.branch_share),
            );
        }
        if !(1..=MAX_BRANCH_RANDOM_PLIES).contains(&selfplay.branch_random_plies) {
            return invalid(
                "selfplay.branch_random_plies",
                format!(
                    "is {}, must be 1 to {MAX_BRANCH_RANDOM_PLIES}",
                    selfplay.branch_random_plies
                ),
            );
        }
        for (key, weight) in [
            ("selfplay.score_utility", selfplay.score_utility),
            ("selfplay.material_utility", selfplay.material_utility),
        ] {
            if !(0.0..=1.0).contains(&weight) {
                return invalid(key, format!("is {weight}, must be a weight in [0, 1]"));
            }
        }
        if self.training.margin_horizon_plies == Some(0) {
            return invalid(
                "training.margin_horizon_plies",
                "must be at least 1 (leave it out for the difference at the game's end)".into(),
            );
        }

        if let Err(err) = self.mcts.validate() {
            return invalid(&format!("mcts.{}", err.field), err.problem);
        }
        if let Err(err) = self.net.validate() {
            return invalid("net", err.to_string());
        }

        let training = &self.training;
        if !(training.samples_per_position.is_finite() && training.samples_per_position > 0.0) {
            return invalid(
                "training.samples_per_position",
                "must be a positive number".into(),
            );
        }
        if training.window_min_positions == 0 {
            return invalid("training.window_min_positions", "must be at least 1".into());
        }
        if training.window_max_positions < training.window_min_positions {
            return invalid(
                "training.window_max_positions",
                format!(
                    "({}) must be at least window_min_positions ({})",
                    training.window_max_positions, training.window_min_positions
                ),
            );
        }
        if !(training.window_exponent > 0.0 && training.window_exponent <= 1.0) {
            return invalid("training.window_exponent", "must be in (0, 1]".into());
        }
        if !(training.window_scale.is_finite() && training.window_scale >= 0.0) {
            return invalid("training.window_scale", "must be zero or positive".into());
        }
        if training.checkpoint_every_steps == 0 {
            return invalid(
                "training.checkpoint_every_steps",
                "must be at least 1".into(),
            );
        }
        let move_limit_win = training.move_limit_win;
        if !(0.0..=1.0).contains(&move_limit_win) {
            return invalid(
                "training.move_limit_win",
                format!("is {move_limit_win}, must be from 0 to 1"),
            );
        }
        // The general game's value targets are its own.
        if self.rules.kind() == GameKind::General && move_limit_win != 1.0 {
            return invalid(
                "training.move_limit_win",
                "applies to two-player games without variants only (these rules train the general game's network)".into(),
            );
        }

        let gating = &self.gating;
        if gating.games == 0 || gating.games % 2 == 1 {
            return invalid(
                "gating.games",
                format!(
                    "is {}, must be a positive even number (both colours)",
                    gating.games
                ),
            );
        }
        if gating.mode == GatingMode::Sprt {
            if gating.elo0.partial_cmp(&gating.elo1) != Some(std::cmp::Ordering::Less) {
                return invalid(
                    "gating.elo1",
                    format!(
                        "({}) must be greater than gating.elo0 ({})",
                        gating.elo1, gating.elo0
                    ),
                );
            }
            for (key, value) in [("gating.alpha", gating.alpha), ("gating.beta", gating.beta)] {
                if !(value > 0.0 && value < 0.5) {
                    return invalid(key, format!("is {value}, must be in (0, 0.5)"));
                }
            }
        }
        if !(0.0..=1.0).contains(&gating.threshold) {
            return invalid(
                "gating.threshold",
                format!("is {}, must be a score in [0, 1]", gating.threshold),
            );
        }
        if !(gating.confidence > 0.0 && gating.confidence < 1.0) {
            return invalid(
                "gating.confidence",
                format!("is {}, must be in (0, 1)", gating.confidence),
            );
        }

        let evaluation = &self.evaluation;
        if evaluation.simulations == 0 {
            return invalid("evaluation.simulations", "must be at least 1".into());
        }
        if evaluation.games_in_parallel == 0 {
            return invalid("evaluation.games_in_parallel", "must be at least 1".into());
        }
        if !evaluation.openings.is_empty() {
            let table = self.rules.table();
            let seats = |names: &[String]| with_board!(self.rules.kind(), B => RunStarts::<B>::of(table, names).map(|starts| starts.seats()));
            let run_seats = seats(self.rules.layouts()).ok();
            match seats(self.evaluation_layouts()) {
                Err(problem) => return invalid("evaluation.openings", problem),
                Ok(opening_seats) if Some(opening_seats) != run_seats => {
                    return invalid(
                        "evaluation.openings",
                        format!(
                            "its layouts seat {opening_seats} players, but the run's ([rules] layouts) seat {}",
                            run_seats.map_or("otherwise".to_owned(), |seats| seats.to_string())
                        ),
                    );
                }
                Ok(_) => {}
            }
        }
        if evaluation.games_per_opponent % 2 == 1 {
            return invalid(
                "evaluation.games_per_opponent",
                "must be even (both colours)".into(),
            );
        }
        if let Some(count) = evaluation.opponents_per_candidate
            && !(1..=evaluation.opponents.len()).contains(&(count as usize))
        {
            return invalid(
                "evaluation.opponents_per_candidate",
                format!(
                    "is {count}, but it must be between 1 and the {} opponents listed",
                    evaluation.opponents.len()
                ),
            );
        }
        if evaluation.every_generations == 0 {
            return invalid("evaluation.every_generations", "must be at least 1".into());
        }
        if evaluation.every_generations > 1 && gating.mode != GatingMode::Off {
            return invalid(
                "evaluation.every_generations",
                format!(
                    "is {}, but gating must evaluate every candidate: set it to 1 or gating.mode = \"off\"",
                    evaluation.every_generations
                ),
            );
        }
        for (index, spec) in evaluation.opponents.iter().enumerate() {
            // One of the game's classical players.
            let prepared = with_board!(
                self.rules.kind(),
                B => B::classical_players().prepare_str(spec).map(drop)
            );
            if let Err(err) = prepared {
                return invalid(&format!("evaluation.opponents[{index}]"), err.to_string());
            }
        }

        let budget = &self.budget;
        if budget.generations == Some(0) || budget.games == Some(0) {
            let key = if budget.generations == Some(0) {
                "budget.generations"
            } else {
                "budget.games"
            };
            return invalid(key, "must be at least 1 (leave it out for no limit)".into());
        }
        if let Some(hours) = budget.hours
            && !(hours.is_finite() && hours > 0.0)
        {
            return invalid(
                "budget.hours",
                format!("is {hours}, must be a positive number"),
            );
        }
        Ok(())
    }

    /// The layouts evaluation games start from, each in turn: `[evaluation]
    /// openings`, or the run's `[rules] layouts` when it names none. (A
    /// configuration of the general game written before openings were read
    /// for it named two-player layouts for a game of more seats: those are
    /// read as none, so that its run resumes as it was.)
    pub fn evaluation_layouts(&self) -> &[String] {
        let seats = |name: &String| GeneralLayout::from_name(name).map(|l| l.seats()).ok();
        let run_seats = self.rules.layouts().first().and_then(seats);
        let openings = &self.evaluation.openings;
        let legacy = openings
            .iter()
            .all(|name| seats(name).is_some_and(|seats| Some(seats) != run_seats));
        if openings.is_empty() || legacy {
            self.rules.layouts()
        } else {
            openings
        }
    }

    /// The general game of a validated configuration, `None` for the
    /// two-player game.
    pub fn general_rules(&self) -> Option<GeneralRunRules> {
        self.rules.general().ok().flatten()
    }

    /// The search of a network player in evaluation games: the self-play
    /// search without its exploration (no noise, no Gumbel sampling, no
    /// playout cap, best move), with `evaluation.simulations`.
    pub fn evaluation_search(&self) -> SearchConfig {
        let mut search = self.mcts.clone();
        search.simulations = self.evaluation.simulations;
        search.dirichlet = None;
        search.playout_cap = None;
        search.temperature_plies = 0;
        search.final_temperature = 0.0;
        if let Some(gumbel) = &mut search.gumbel {
            gumbel.gumbel_scale = 0.0;
            gumbel.considered_actions = gumbel.considered_actions.min(self.evaluation.simulations);
        }
        search
    }
}

fn check_layouts(key: &str, names: &[String], path: &Path) -> Result<(), ConfigError> {
    if names.is_empty() {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            key: key.to_owned(),
            problem: "must name at least one layout".into(),
        });
    }
    for (index, name) in names.iter().enumerate() {
        if let Err(err) = Layout::from_name(name) {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                key: format!("{key}[{index}]"),
                problem: err.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message and its causes joined as `anyhow`'s `{:#}` prints them.
    fn chain(err: &dyn std::error::Error) -> String {
        let mut text = err.to_string();
        let mut cause = err.source();
        while let Some(next) = cause {
            text.push_str(&format!(": {next}"));
            cause = next.source();
        }
        text
    }

    #[test]
    fn an_unreadable_config_names_the_file_and_its_cause_once() {
        let path = Path::new("/nonexistent/sumito.toml");
        let text = chain(&Config::load(path).unwrap_err());
        assert!(text.contains("/nonexistent/sumito.toml"), "{text}");
        assert_eq!(
            text.matches("No such file or directory").count(),
            1,
            "{text}"
        );
    }

    const MINIMAL: &str = "[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n";

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("test.toml"))
    }

    #[test]
    fn a_run_of_the_general_game_weighs_marbles_and_resigns_as_a_two_player_run_does() {
        let config = parse(&format!(
            "{MINIMAL}[rules]\nlayouts = [\"three-player\"]\n[gating]\nmode = \"off\"\n[selfplay]\nscore_utility = 0.5\nmaterial_utility = 0.25\nresign_threshold = -0.9\n"
        ))
        .unwrap();
        assert!(config.general_rules().is_some());
        assert_eq!(config.selfplay.score_utility, 0.5);
        assert_eq!(config.selfplay.material_utility, 0.25);
        assert_eq!(config.selfplay.resign_threshold, Some(-0.9));
    }

    #[test]
    fn evaluation_openings_are_layouts_of_the_runs_game_and_seats() {
        let run = |rules: &str, openings: &str| {
            parse(&format!(
                "{MINIMAL}[rules]\nlayouts = [{rules}]\n[gating]\nmode = \"off\"\n[evaluation]\nopenings = [{openings}]\n"
            ))
        };
        let config = run("\"standard\", \"belgian-daisy\"", "").unwrap();
        assert_eq!(config.evaluation_layouts(), ["standard", "belgian-daisy"]);
        let config = run("\"standard\"", "\"german-daisy\"").unwrap();
        assert_eq!(config.evaluation_layouts(), ["german-daisy"]);
        // A game of holes (the general game of two) takes two-player openings.
        let config = parse(&format!(
            "{MINIMAL}[rules]\nlayouts = [\"standard\"]\nholes = [\"E5\"]\n[gating]\nmode = \"off\"\n[evaluation]\nopenings = [\"belgian-daisy\"]\n"
        ))
        .unwrap();
        assert_eq!(config.evaluation_layouts(), ["belgian-daisy"]);
        // Written before openings were read for the general game: the
        // run's layouts, so that the run resumes.
        let config = run("\"three-player\"", "\"standard\"").unwrap();
        assert_eq!(config.evaluation_layouts(), ["three-player"]);
        let config = run("\"three-player\"", "\"three-player-trapezoid\"").unwrap();
        assert_eq!(config.evaluation_layouts(), ["three-player-trapezoid"]);
        let err = run("\"three-player\"", "\"three-player\", \"standard\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("evaluation.openings")
                && err.contains("standard seats 2 players, but three-player seats 3"),
            "{err}"
        );
        let err = run("\"standard\"", "\"tulip\"").unwrap_err().to_string();
        assert!(
            err.contains("evaluation.openings") && err.contains("tulip"),
            "{err}"
        );
    }

    #[test]
    fn a_minimal_config_takes_the_defaults() {
        let config = parse(MINIMAL).unwrap();
        assert_eq!(config.selfplay, SelfPlayConfig::default());
        assert_eq!(config.rules.rules().max_plies, Some(200));
        assert_eq!(config.gating.mode, GatingMode::Sprt);
    }

    #[test]
    fn overlap_training_is_true_false_or_auto() {
        assert_eq!(
            parse(MINIMAL).unwrap().selfplay.overlap_training,
            OverlapTraining::Auto
        );
        for (value, expected) in [
            ("true", OverlapTraining::On),
            ("false", OverlapTraining::Off),
            ("\"auto\"", OverlapTraining::Auto),
        ] {
            let config = parse(&format!(
                "{MINIMAL}[selfplay]\noverlap_training = {value}\n"
            ));
            let overlap = config.unwrap().selfplay.overlap_training;
            assert_eq!(overlap, expected, "{value}");
            assert_eq!(overlap.as_str(), value);
        }
        for value in ["\"yes\"", "\"true\"", "1"] {
            let err = parse(&format!(
                "{MINIMAL}[selfplay]\noverlap_training = {value}\n"
            ))
            .unwrap_err()
            .to_string();
            assert!(
                err.contains("overlap_training")
                    && err.contains("line 8")
                    && err.contains("expected true, false or \"auto\""),
                "{value}: {err}"
            );
        }
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_name_and_line() {
        let err = parse(&format!("{MINIMAL}[selfplay]\ngames_in_paralel = 3\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("games_in_paralel") && err.contains("line 8"),
            "{err}"
        );
        let err = parse(&format!("{MINIMAL}[selfpaly]\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("selfpaly"), "{err}");
    }

    #[test]
    fn a_runs_rules_are_the_rules_table_with_the_runs_defaults() {
        let config = parse(MINIMAL).unwrap();
        let table = config.rules.table();
        assert_eq!(table.marbles_to_win, Some(Targets::All(6)));
        assert_eq!(table.max_plies, Some(200));
        assert_eq!(config.rules.layouts(), ["standard", "belgian-daisy"]);
        assert_eq!(config.rules.kind(), GameKind::TwoPlayer);
        // Empty lists and switches off are the plain rules, as if left out.
        let plain = parse(&format!(
            "{MINIMAL}[rules]\nholes = []\nshield_moves = false\nlayouts = [\"standard\", \"belgian-daisy\"]\n"
        ))
        .unwrap();
        assert_eq!(plain.rules, config.rules);
        // Any variant key makes it the general game, as `GameKind::of` says.
        let holes = parse(&format!(
            "[rules]\nlayouts = [\"standard\"]\nholes = [\"E5\"]\n[gating]\nmode = \"off\"\n{MINIMAL}"
        ))
        .unwrap();
        assert_eq!(holes.rules.kind(), GameKind::General);
        assert_eq!(holes.net.model.game, GameKind::General);
    }

    #[test]
    fn a_removed_lever_is_named_as_removed() {
        for (table, key) in REMOVED_KEYS {
            let err = parse(&format!("{MINIMAL}[{table}]\n{key} = 0.5\n"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("`[{table}] {key}` was a lever that did not help"))
                    && err.contains("line 8"),
                "{err}"
            );
        }
        let err = parse(&format!("{MINIMAL}[training]\ndistant_wins = 0.5\n"))
            .unwrap_err()
            .to_string();
        assert!(!err.contains("did not help"), "{err}");
    }

    #[test]
    fn wrong_types_name_the_key() {
        let err = parse(&format!("{MINIMAL}[budget]\nhours = \"two\"\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("hours"), "{err}");
    }

    #[test]
    fn bad_values_name_the_key_and_problem() {
        let cases = [
            ("[selfplay]\nworkers = 0\n", "selfplay.workers"),
            (
                "[rules]\nlayouts = [\"standard\", \"tulip\"]\n",
                "rules.layouts[1]",
            ),
            ("[gating]\ngames = 7\n", "gating.games"),
            ("[gating]\nelo0 = 10.0\nelo1 = 5.0\n", "gating.elo1"),
            (
                "[training]\nwindow_min_positions = 10\nwindow_max_positions = 5\n",
                "training.window_max_positions",
            ),
            ("[mcts]\nsimulations = 0\n", "mcts.simulations"),
            (
                "[evaluation]\nopponents = [\"grandmaster\"]\n",
                "evaluation.opponents[0]",
            ),
            ("[budget]\nhours = -1.0\n", "budget.hours"),
            ("[rules]\nmarbles_to_win = 15\n", "rules.marbles_to_win"),
            ("[rules]\nmax_plies = 0\n", "rules.max_plies"),
            (
                "[rules]\nno_push_off_plies = 0\n",
                "rules.no_push_off_plies",
            ),
            (
                "[rules]\nlayouts = [\"three-player\"]\nmarbles_to_win = [6, 0, 6]\n",
                "rules.marbles_to_win",
            ),
            (
                "[evaluation]\nevery_generations = 0\n",
                "evaluation.every_generations",
            ),
            // Three opponents by default.
            (
                "[evaluation]\nopponents_per_candidate = 4\n",
                "evaluation.opponents_per_candidate",
            ),
            (
                "[evaluation]\nopponents_per_candidate = 0\n",
                "evaluation.opponents_per_candidate",
            ),
            // Gating (on by default) must see every candidate.
            (
                "[evaluation]\nevery_generations = 3\n",
                "evaluation.every_generations",
            ),
            (
                "[training]\nmove_limit_win = 1.5\n",
                "training.move_limit_win",
            ),
            // The general game's value targets are its own.
            (
                "[rules]\nlayouts = [\"three-player\"]\n[gating]\nmode = \"off\"\n[training]\nmove_limit_win = 0.5\n",
                "training.move_limit_win",
            ),
            (
                "[selfplay]\nscore_utility = 1.5\n",
                "selfplay.score_utility",
            ),
            (
                "[selfplay]\nscore_utility = -0.1\n",
                "selfplay.score_utility",
            ),
            (
                "[selfplay]\nmaterial_utility = 2\n",
                "selfplay.material_utility",
            ),
            (
                "[training]\nmargin_horizon_plies = 0\n",
                "training.margin_horizon_plies",
            ),
            // At or above par: every side resigns from the start.
            (
                "[selfplay]\nresign_threshold = 0.0\n",
                "selfplay.resign_threshold",
            ),
            (
                "[rules]\nlayouts = [\"three-player\"]\n[gating]\nmode = \"off\"\n[selfplay]\nresign_threshold = -0.2\n",
                "selfplay.resign_threshold",
            ),
            ("[selfplay]\nbranch_share = 1.5\n", "selfplay.branch_share"),
            (
                "[selfplay]\nbranch_random_plies = 0\n",
                "selfplay.branch_random_plies",
            ),
            (
                "[selfplay]\nbranch_random_plies = 41\n",
                "selfplay.branch_random_plies",
            ),
            // The general game's training has no marble-difference target a
            // few plies ahead.
            (
                "[rules]\nlayouts = [\"three-player\"]\n[gating]\nmode = \"off\"\n[training]\nmargin_horizon_plies = 12\n",
                "training.margin_horizon_plies",
            ),
        ];
        for (section, key) in cases {
            let err = parse(&format!("{MINIMAL}{section}")).unwrap_err();
            assert!(
                matches!(&err, ConfigError::Invalid { key: found, .. } if found == key),
                "{section}: {err}"
            );
            assert!(err.to_string().contains(key), "{err}");
        }
    }

    #[test]
    fn every_nth_candidate_is_evaluated() {
        let config = parse(&format!(
            "{MINIMAL}[gating]\nmode = \"off\"\n[evaluation]\nevery_generations = 3\n"
        ))
        .unwrap();
        let evaluated: Vec<u32> = (0..10)
            .filter(|&g| config.evaluation.evaluates(g))
            .collect();
        assert_eq!(evaluated, [3, 6, 9]);
        let every = parse(MINIMAL).unwrap();
        assert!((1..5).all(|g| every.evaluation.evaluates(g)));
        assert!(
            !every.evaluation.evaluates(0),
            "the random net is not rated"
        );
    }

    #[test]
    fn the_net_section_is_required() {
        let err = parse("[selfplay]\nworkers = 1\n").unwrap_err().to_string();
        assert!(err.contains("net"), "{err}");
    }

    #[test]
    fn evaluation_search_drops_exploration() {
        let config = parse(&format!(
            "{MINIMAL}[mcts]\nsimulations = 16\ntemperature_plies = 30\n[mcts.gumbel]\nconsidered_actions = 16\n[mcts.playout_cap]\nreduced_simulations = 4\n[evaluation]\nsimulations = 8\n"
        ))
        .unwrap();
        let search = config.evaluation_search();
        assert_eq!(search.simulations, 8);
        assert!(search.playout_cap.is_none());
        assert_eq!(search.temperature_after(0), 0.0);
        assert_eq!(search.gumbel.unwrap().gumbel_scale, 0.0);
        assert_eq!(search.gumbel.unwrap().considered_actions, 8);
        search.validate().unwrap();
    }

    #[test]
    fn shipped_configs_are_valid() {
        let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
        for name in ["quick.toml", "standard.toml", "tiny.toml"] {
            let config =
                Config::load(&configs.join(name)).unwrap_or_else(|err| panic!("{name}: {err}"));
            assert!(config.general_rules().is_none(), "{name}");
        }
        // The general game's configs: the rules say which game, and the
        // network follows.
        for (name, sides, holes) in [
            ("three-player.toml", 3, 0),
            ("four-player.toml", 2, 0),
            ("holes.toml", 2, 2),
        ] {
            let config =
                Config::load(&configs.join(name)).unwrap_or_else(|err| panic!("{name}: {err}"));
            let general = config.general_rules().unwrap();
            assert_eq!(general.rules.seating.sides(), sides, "{name}");
            assert_eq!(general.rules.holes.count_ones() as usize, holes, "{name}");
            assert_eq!(config.net.model.game, GameKind::General, "{name}");
        }
    }

    /// `text` with `[net.model]` added, parsed.
    fn parse_rules(rules: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "{rules}\n[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n"
        );
        Config::parse(&text, Path::new("general.toml"))
    }

    #[test]
    fn rules_beyond_targets_and_limits_make_the_run_learn_the_general_game() {
        let plain = parse_rules("[rules]\nlayouts = [\"standard\"]\n").unwrap();
        assert!(plain.general_rules().is_none());
        assert_eq!(plain.net.model.game, GameKind::TwoPlayer);
        let handicap = parse_rules(
            "[rules]\nlayouts = [\"standard\"]\nmarbles_to_win = [6, 4]\n[gating]\nmode = \"off\"\n",
        )
        .unwrap();
        let rules = handicap.general_rules().unwrap().rules;
        assert_eq!(&rules.marbles_to_win[..2], &[6, 4]);
        let teams = parse_rules(
            "[rules]\nlayouts = [\"six-player\"]\npartners_in_a_row = true\n[gating]\nmode = \"off\"\n",
        )
        .unwrap();
        let seating = teams.general_rules().unwrap().rules.seating;
        assert_eq!((seating.seats(), seating.sides()), (6, 3));
        assert!(seating.partners_in_a_row());
        // Gating defaults to a mode the general game does not have (SPRT);
        // it gates by threshold.
        let message = parse_rules("[rules]\nlayouts = [\"three-player\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("gating.mode") && message.contains("threshold"),
            "{message}"
        );
        let gated =
            parse_rules("[rules]\nlayouts = [\"three-player\"]\n[gating]\nmode = \"threshold\"\n")
                .unwrap();
        assert_eq!(gated.gating.mode, GatingMode::Threshold);
        for (rules, key) in [
            (
                "layouts = [\"three-player\", \"four-player\"]",
                "rules.layouts[1]",
            ),
            (
                "layouts = [\"standard\"]\nholes = [\"Z9\"]",
                "rules.holes[0]",
            ),
            ("layouts = [\"standard\"]\nholes = [\"A1\"]", "rules.holes"),
            (
                "layouts = [\"three-player\"]\npartners_in_a_row = true",
                "rules.partners_in_a_row",
            ),
        ] {
            let text = format!("[rules]\n{rules}\n[gating]\nmode = \"off\"\n");
            let message = parse_rules(&text).unwrap_err().to_string();
            assert!(message.contains(key), "{rules}: {message}");
        }
        let two_player_general_net = Config::parse(
            "[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\ngame = \"variant\"\n",
            Path::new("x.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            two_player_general_net.contains("net.model.game"),
            "{two_player_general_net}"
        );
    }
}
