//! The `[rules]` table: the rules of a game as a person writes them, in a
//! `--rules FILE` and in a run configuration (same keys). It resolves, with
//! the start layout, into the engine's general rules value and start.
//!
//! ```toml
//! [rules]
//! marbles_to_win = [6, 4]          # one number, or one per player/team in turn order
//! max_plies = 200
//! obstacles = ["E5"]
//! holes = ["C3", "G7"]
//! neutral = ["D4"]
//! neutral_push_off = "opponent-scores"   # or "pusher-wins"
//! removed_marbles = ["A1"]         # handicap: taken off the layout before the game
//! shield_moves = true
//! rotation_moves = false
//! one_colour = false
//! partners_in_a_row = false        # team games (4 or 6 players) only
//! ```

use crate::general::{
    GeneralLayout, GeneralPosition, GeneralRules, GeneralSetup, NeutralPushOff, Seating,
};
use crate::{Cell, PositionTextError, check_rule_values, excerpt, shorten_quotes};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `marbles_to_win`: one number for every side, or one per side.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Targets {
    All(u8),
    PerSide(Vec<u8>),
}

/// Every key of the `[rules]` table; absent keys keep the plain rules.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesTable {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marbles_to_win: Option<Targets>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_push_off_plies: Option<u32>,
    /// Run configurations: the layouts self-play draws from. A `--rules`
    /// file may name one layout here instead of `--layout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layouts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub obstacles: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holes: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neutral: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neutral_push_off: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_marbles: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shield_moves: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_moves: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_colour: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partners_in_a_row: Option<bool>,
}

/// A file holding a `[rules]` table (and nothing else).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    rules: RulesTable,
}

/// What is wrong with a rules table; `key` is the table key at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesTableError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("rules.{key}: {message}")]
    Key { key: String, message: String },
}

fn key_error(key: &str, message: impl ToString) -> RulesTableError {
    RulesTableError::Key {
        key: key.to_string(),
        message: message.to_string(),
    }
}

/// A TOML error as one line: where (line and column of `text`) and what.
/// TOML's own wording prints the whole line at fault, which may be a
/// megabyte, and serde's quotes the offending key or value whole; here each
/// is cut to an excerpt ([`shorten_quotes`]).
pub fn toml_error(err: &toml::de::Error, text: &str) -> String {
    let message = shorten_quotes(err.message().trim_end());
    let Some(span) = err.span() else {
        return message;
    };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line}, column {column}: {message}")
}

fn cells(key: &str, names: &Option<Vec<String>>) -> Result<Vec<Cell>, RulesTableError> {
    let mut out = Vec::new();
    for (index, name) in names.iter().flatten().enumerate() {
        let cell: Cell = name
            .parse()
            .map_err(|err| key_error(&format!("{key}[{index}]"), err))?;
        if out.contains(&cell) {
            return Err(key_error(
                &format!("{key}[{index}]"),
                format!("{cell} is named twice"),
            ));
        }
        out.push(cell);
    }
    Ok(out)
}

impl RulesTable {
    /// Reads the `[rules]` table of a TOML file ([`RulesTable::from_toml`])
    /// and checks its values; errors name the file, and the line and column
    /// where TOML places them.
    pub fn read(path: &Path) -> Result<RulesTable, RulesTableError> {
        let file_error = |message: String| RulesTableError::File {
            path: path.display().to_string(),
            message,
        };
        let text = sumito_fsio::read_text_capped(path, sumito_fsio::MAX_TEXT_FILE_BYTES)
            .map_err(|err| file_error(err.to_string()))?;
        let rules = RulesTable::from_toml(&text).map_err(file_error)?;
        // Refused here, for every command and game, before anything plays.
        rules
            .validate()
            .map_err(|err| file_error(err.to_string()))?;
        Ok(rules)
    }

    /// Checks the values of the rules (targets and limits) against their
    /// ranges, with the engine's one check ([`check_rule_values`]) that the
    /// two-player game and the general game share; the error names the key
    /// and the values allowed.
    pub fn validate(&self) -> Result<(), RulesTableError> {
        let targets = match &self.marbles_to_win {
            None => Vec::new(),
            Some(Targets::All(n)) => vec![*n],
            Some(Targets::PerSide(list)) => list.clone(),
        };
        check_rule_values(&targets, self.max_plies, self.no_push_off_plies)
            .map_err(|err| key_error(err.key, err.problem()))?;
        // Every layout named must be one (a page's table as a file's).
        for (index, name) in self.layouts.iter().flatten().enumerate() {
            GeneralLayout::from_name(name)
                .map_err(|err| key_error(&format!("layouts[{index}]"), err))?;
        }
        Ok(())
    }

    /// Reads the `[rules]` table from the text of a TOML file, as
    /// [`RulesTable::read`] does (which then checks the values); the error
    /// names the line and column and quotes at most an excerpt of the text.
    pub fn from_toml(text: &str) -> Result<RulesTable, String> {
        toml::from_str::<RulesFile>(text)
            .map(|file| file.rules)
            .map_err(|err| toml_error(&err, text))
    }

    /// Reads the table as JSON (an object of the same keys), as the web
    /// page sends it; the error quotes at most an excerpt of what was sent.
    pub fn from_json(value: &serde_json::Value) -> Result<RulesTable, String> {
        RulesTable::deserialize(value).map_err(|err| shorten_quotes(&err.to_string()))
    }

    /// Whether anything here needs the general game (the two-player engine
    /// plays only targets and limits).
    pub fn is_general(&self) -> bool {
        matches!(self.marbles_to_win, Some(Targets::PerSide(_)))
            || [
                &self.obstacles,
                &self.holes,
                &self.neutral,
                &self.removed_marbles,
            ]
            .iter()
            .any(|list| list.as_ref().is_some_and(|l| !l.is_empty()))
            || self.neutral_push_off.is_some()
            || [
                self.shield_moves,
                self.rotation_moves,
                self.one_colour,
                self.partners_in_a_row,
            ]
            .contains(&Some(true))
    }

    /// The keys this table sets, on one line (`max_plies = 240, holes =
    /// ["E5"]`), or `the plain rules` where it sets none.
    pub fn describe(&self) -> String {
        match toml::Value::try_from(self) {
            Ok(toml::Value::Table(keys)) if !keys.is_empty() => keys
                .iter()
                .map(|(key, value)| format!("{key} = {value}"))
                .collect::<Vec<_>>()
                .join(", "),
            _ => "the plain rules".to_owned(),
        }
    }

    /// The keys this table sets (but `layouts`, a choice among starts, not a
    /// rule) to other values than `own` has: each key with this table's
    /// value and `own`'s, as TOML text (`absent` where `own` lacks it).
    /// Where a model learned under `own`, these are what it cannot play.
    pub fn conflicts_with(&self, own: &RulesTable) -> Vec<(String, String, String)> {
        let keys = |table: &RulesTable| match toml::Value::try_from(table) {
            Ok(toml::Value::Table(keys)) => keys,
            _ => toml::Table::new(),
        };
        let (given, own) = (keys(self), keys(own));
        given
            .into_iter()
            .filter(|(key, value)| key != "layouts" && own.get(key) != Some(value))
            .map(|(key, value)| {
                let theirs = own.get(&key).map_or("absent".to_owned(), |v| v.to_string());
                (key, value.to_string(), theirs)
            })
            .collect()
    }

    /// The layout the table names (`layouts` with exactly one name), if any.
    pub fn layout(&self) -> Result<Option<GeneralLayout>, RulesTableError> {
        match self.layouts.as_deref() {
            None | Some([]) => Ok(None),
            Some([one]) => GeneralLayout::from_name(one)
                .map(Some)
                .map_err(|err| key_error("layouts[0]", err)),
            Some(_) => Err(key_error(
                "layouts",
                "names several layouts; for one game name one, or use --layout",
            )),
        }
    }

    /// A position given as text, read under these rules (for as many
    /// players as the text seats, which must be as many as one of the
    /// table's layouts seats where it names any: a model of three players
    /// does not judge a two-player position); the error says what is wrong,
    /// and where.
    pub fn position_from_text(&self, text: &str) -> Result<GeneralPosition, PositionTextError> {
        let seats = GeneralPosition::from_text(text, None)?
            .rules()
            .seating
            .seats();
        let names = self.layouts.as_deref().unwrap_or_default();
        let mut counts: Vec<usize> = names
            .iter()
            .filter_map(|name| GeneralLayout::from_name(name).ok())
            .map(|layout| layout.seats())
            .collect();
        counts.sort_unstable();
        counts.dedup();
        if !counts.is_empty() && !counts.contains(&seats) {
            let counts: Vec<String> = counts.iter().map(usize::to_string).collect();
            return Err(PositionTextError::of_text(format!(
                "the position seats {seats} players, but these rules are played by {} (layouts {})",
                counts.join(" or "),
                names.join(", ")
            )));
        }
        let rules = self
            .rules_for_text(seats)
            .map_err(|err| PositionTextError::of_text(format!("under these rules: {err}")))?;
        GeneralPosition::from_text(text, Some(&rules))
    }

    /// The keys that describe a start layout (`neutral`, `removed_marbles`),
    /// each by its name: a position given as text holds its own marbles.
    fn start_keys(&mut self) -> [(&'static str, &mut Option<Vec<String>>); 2] {
        [
            ("neutral", &mut self.neutral),
            ("removed_marbles", &mut self.removed_marbles),
        ]
    }

    /// This table without the keys that describe a start layout (`neutral`,
    /// `removed_marbles`): the rules of a game recorded from its position
    /// as text, whose marbles the text holds ([`RulesTable::rules_for_text`]
    /// refuses those keys).
    pub fn without_start_keys(&self) -> RulesTable {
        let mut table = self.clone();
        for (_, list) in table.start_keys() {
            *list = None;
        }
        table
    }

    /// This table with every key whose value means the plain rules left
    /// out, as if not given: an empty list of cells (`obstacles`, `holes`,
    /// `neutral`, `removed_marbles`) and a move switched off
    /// (`shield_moves`, `rotation_moves`, `one_colour` set to false). A run
    /// reads its `[rules]` so, and its replay files record the table as
    /// before. `partners_in_a_row = false` stays: it is refused on layouts
    /// without teams, where leaving it out is not.
    pub fn without_unset_values(mut self) -> RulesTable {
        for list in [
            &mut self.obstacles,
            &mut self.holes,
            &mut self.neutral,
            &mut self.removed_marbles,
        ] {
            if list.as_ref().is_some_and(Vec::is_empty) {
                *list = None;
            }
        }
        for switch in [
            &mut self.shield_moves,
            &mut self.rotation_moves,
            &mut self.one_colour,
        ] {
            if *switch == Some(false) {
                *switch = None;
            }
        }
        self
    }

    /// The rules value for a position given as text, with `seats` players:
    /// the keys of the start (`neutral`, `removed_marbles`) do not apply.
    pub fn rules_for_text(&self, seats: usize) -> Result<GeneralRules, RulesTableError> {
        let mut table = self.clone();
        for (key, list) in table.start_keys() {
            if list.as_ref().is_some_and(|l| !l.is_empty()) {
                return Err(key_error(
                    key,
                    "describes a start layout; a position given as text holds its own marbles",
                ));
            }
        }
        table.neutral_push_off = None;
        let seats_layout = match seats {
            2 => GeneralLayout::Two(crate::Layout::Standard),
            n => *GeneralLayout::MANY_PLAYER
                .iter()
                .find(|layout| layout.seats() == n)
                .ok_or_else(|| key_error("layouts", format!("no layout seats {n} players")))?,
        };
        let (mut rules, _) = table.resolve_rules(seats_layout)?;
        if let Some(name) = &self.neutral_push_off {
            rules.neutral_push_off = NeutralPushOff::from_name(name).ok_or_else(|| {
                key_error(
                    "neutral_push_off",
                    format!(
                        "{:?}: expected \"opponent-scores\" or \"pusher-wins\"",
                        excerpt(name)
                    ),
                )
            })?;
        }
        Ok(rules)
    }

    /// The rules value and the start, for `layout`.
    pub fn resolve(
        &self,
        layout: GeneralLayout,
    ) -> Result<(GeneralRules, GeneralSetup), RulesTableError> {
        let (rules, setup) = self.resolve_rules(layout)?;
        // The start must exist: a conflict names its cell (and so its key).
        setup.start(&rules).map_err(|err| {
            let key = match &err {
                crate::general::SetupError::NothingToRemove { .. } => "removed_marbles",
                crate::general::SetupError::CellTaken { what, .. } => match *what {
                    "an obstacle" => "obstacles",
                    "a hole" => "holes",
                    _ => "neutral",
                },
                _ => "layouts",
            };
            key_error(key, err)
        })?;
        Ok((rules, setup))
    }

    fn resolve_rules(
        &self,
        layout: GeneralLayout,
    ) -> Result<(GeneralRules, GeneralSetup), RulesTableError> {
        let seats = layout.seats();
        let partners = self.partners_in_a_row.unwrap_or(false);
        if self.partners_in_a_row.is_some() && !(seats == 4 || seats == 6) {
            return Err(key_error(
                "partners_in_a_row",
                format!(
                    "applies only to team games (4 or 6 players); the layout {layout} seats {seats}"
                ),
            ));
        }
        let seating =
            Seating::new(seats, partners).map_err(|err| key_error("partners_in_a_row", err))?;
        self.validate()?;
        let mut rules = GeneralRules::plain(seating);
        if let Some(targets) = &self.marbles_to_win {
            let list = match targets {
                Targets::All(n) => vec![*n],
                Targets::PerSide(list) => list.clone(),
            };
            rules = rules
                .with_targets(&list)
                .map_err(|err| key_error("marbles_to_win", err))?;
        }
        rules.max_plies = self.max_plies;
        rules.no_push_off_plies = self.no_push_off_plies;
        let obstacles = cells("obstacles", &self.obstacles)?;
        let holes = cells("holes", &self.holes)?;
        rules = rules
            .with_cells(&obstacles, &holes)
            .map_err(|err| key_error("holes", err))?;
        let neutral = cells("neutral", &self.neutral)?;
        if let Some(cell) = neutral
            .iter()
            .find(|c| obstacles.contains(c) || holes.contains(c))
        {
            return Err(key_error(
                "neutral",
                format!("{cell} is also an obstacle or a hole"),
            ));
        }
        if let Some(name) = &self.neutral_push_off {
            if neutral.is_empty() {
                return Err(key_error(
                    "neutral_push_off",
                    "applies only with neutral marbles (rules.neutral)",
                ));
            }
            rules.neutral_push_off = NeutralPushOff::from_name(name).ok_or_else(|| {
                key_error(
                    "neutral_push_off",
                    format!(
                        "{:?}: expected \"opponent-scores\" or \"pusher-wins\"",
                        excerpt(name)
                    ),
                )
            })?;
        }
        rules.shield_moves = self.shield_moves.unwrap_or(false);
        rules.rotation_moves = self.rotation_moves.unwrap_or(false);
        rules.one_colour = self.one_colour.unwrap_or(false);
        let setup = GeneralSetup {
            layout,
            neutral,
            removed: cells("removed_marbles", &self.removed_marbles)?,
        };
        Ok((rules, setup))
    }

    /// The table of the two-player engine's `rules` (targets and limits).
    pub fn of_two_player(rules: crate::Rules) -> RulesTable {
        RulesTable {
            marbles_to_win: Some(Targets::All(rules.marbles_to_win)),
            max_plies: rules.max_plies,
            no_push_off_plies: rules.no_push_off_plies,
            ..RulesTable::default()
        }
    }

    /// The two-player engine's rules (targets and limits), when
    /// [`RulesTable::is_general`] is false; values out of range are refused
    /// as in the general game ([`RulesTable::validate`]).
    pub fn two_player_rules(&self) -> Result<crate::Rules, RulesTableError> {
        self.validate()?;
        Ok(crate::Rules {
            marbles_to_win: match self.marbles_to_win {
                Some(Targets::All(n)) => n,
                _ => 6,
            },
            max_plies: self.max_plies,
            no_push_off_plies: self.no_push_off_plies,
        })
    }

    /// The start position for `layout`.
    pub fn start(&self, layout: GeneralLayout) -> Result<GeneralPosition, RulesTableError> {
        let (rules, setup) = self.resolve(layout)?;
        setup.start(&rules).map_err(|err| key_error("layouts", err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> RulesTable {
        toml::from_str::<RulesFile>(text).unwrap().rules
    }

    /// A table that sets every key to a value that is a rule (four
    /// players' rules). Every key is named: a key added to the table and
    /// not here does not compile.
    fn every_key_set() -> RulesTable {
        let cells = |names: &[&str]| Some(names.iter().map(|n| n.to_string()).collect());
        RulesTable {
            marbles_to_win: Some(Targets::PerSide(vec![6, 4])),
            max_plies: Some(100),
            no_push_off_plies: Some(50),
            layouts: cells(&["four-player"]),
            obstacles: cells(&["E5"]),
            holes: cells(&["C3"]),
            neutral: cells(&["D4"]),
            neutral_push_off: Some("pusher-wins".into()),
            removed_marbles: cells(&["A1"]),
            shield_moves: Some(true),
            rotation_moves: Some(true),
            one_colour: Some(true),
            partners_in_a_row: Some(true),
        }
    }

    /// The keys a table sets, each alone in a table of its own.
    fn each_key_alone(table: &RulesTable) -> Vec<(String, RulesTable)> {
        let Ok(toml::Value::Table(keys)) = toml::Value::try_from(table) else {
            panic!("a table is a TOML table");
        };
        keys.into_iter()
            .map(|(key, value)| {
                let alone = toml::Table::from_iter([(key.clone(), value)]);
                (key, toml::Value::Table(alone).try_into().unwrap())
            })
            .collect()
    }

    #[test]
    fn values_that_mean_the_plain_rules_are_left_out() {
        // Every key named (a key added and not named here does not
        // compile), each at the value that means the plain rules where it
        // has one, else left out.
        let plain = RulesTable {
            marbles_to_win: None,
            max_plies: None,
            no_push_off_plies: None,
            layouts: None,
            obstacles: Some(Vec::new()),
            holes: Some(Vec::new()),
            neutral: Some(Vec::new()),
            neutral_push_off: None,
            removed_marbles: Some(Vec::new()),
            shield_moves: Some(false),
            rotation_moves: Some(false),
            one_colour: Some(false),
            // False is refused on layouts without teams: not the plain
            // rules, so it stays (below).
            partners_in_a_row: None,
        };
        assert_eq!(plain.without_unset_values(), RulesTable::default());
        // A value that is a rule stays, for every key.
        let every = every_key_set();
        assert_eq!(every.clone().without_unset_values(), every);
        assert_eq!(each_key_alone(&every).len(), 13, "every key is set");
        let partners = RulesTable {
            partners_in_a_row: Some(false),
            ..RulesTable::default()
        };
        assert_eq!(partners.clone().without_unset_values(), partners);
    }

    #[test]
    fn the_start_keys_are_those_a_position_text_refuses() {
        let every = every_key_set();
        let kept: Vec<String> = each_key_alone(&every.without_start_keys())
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        let mut dropped = Vec::new();
        for (key, alone) in each_key_alone(&every) {
            let refused = matches!(
                alone.rules_for_text(4),
                Err(RulesTableError::Key { key: found, message })
                    if found == key && message.contains("start layout")
            );
            assert_eq!(refused, !kept.contains(&key), "{key}");
            // Without its start keys, every table reads a position text.
            assert!(
                alone.without_start_keys().rules_for_text(4).is_ok(),
                "{key}"
            );
            if refused {
                dropped.push(key);
            }
        }
        dropped.sort();
        assert_eq!(dropped, ["neutral", "removed_marbles"]);
    }

    #[test]
    fn conflicts_are_the_keys_given_with_other_values() {
        let own =
            table("[rules]\nmax_plies = 240\nholes = [\"E5\"]\nlayouts = [\"three-player\"]\n");
        let same = table("[rules]\nmax_plies = 240\nlayouts = [\"standard\"]\n");
        assert!(same.conflicts_with(&own).is_empty());
        let other = table("[rules]\nmax_plies = 200\nshield_moves = true\nholes = [\"E5\"]\n");
        let mut found = other.conflicts_with(&own);
        found.sort();
        assert_eq!(
            found,
            [
                ("max_plies".to_owned(), "200".to_owned(), "240".to_owned()),
                (
                    "shield_moves".to_owned(),
                    "true".to_owned(),
                    "absent".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_position_text_must_seat_as_many_players_as_the_tables_layouts() {
        let start = |layout: &str| {
            let layout = GeneralLayout::from_name(layout).unwrap();
            let (rules, setup) = RulesTable::default().resolve(layout).unwrap();
            setup.start(&rules).unwrap().to_string()
        };
        let (two, three) = (start("standard"), start("three-player"));
        let three_player = table("[rules]\nlayouts = [\"three-player\"]\n");
        assert_eq!(
            three_player.position_from_text(&three).unwrap().to_string(),
            three
        );
        let err = three_player.position_from_text(&two).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the position seats 2 players, but these rules are played by 3 (layouts three-player)"
        );
        let two_player = table("[rules]\nlayouts = [\"standard\", \"belgian-daisy\"]\n");
        assert!(two_player.position_from_text(&two).is_ok());
        let err = two_player.position_from_text(&three).unwrap_err();
        assert!(
            err.to_string()
                .contains("played by 2 (layouts standard, belgian-daisy)"),
            "{err:?}"
        );
        // A table without layouts reads any number of players.
        assert!(RulesTable::default().position_from_text(&two).is_ok());
        assert!(RulesTable::default().position_from_text(&three).is_ok());
    }

    #[test]
    fn every_key_resolves_and_errors_name_their_key() {
        let rules = table(
            "[rules]\nmarbles_to_win = [6, 4]\nmax_plies = 100\nholes = [\"E5\"]\nneutral = [\"D4\"]\nneutral_push_off = \"pusher-wins\"\nremoved_marbles = [\"A1\"]\nshield_moves = true\nrotation_moves = true\n",
        );
        assert!(rules.is_general());
        let standard = GeneralLayout::from_name("standard").unwrap();
        let (resolved, setup) = rules.resolve(standard).unwrap();
        assert_eq!((resolved.target(0), resolved.target(1)), (6, 4));
        assert_eq!(resolved.neutral_push_off, NeutralPushOff::PusherWins);
        assert!(resolved.shield_moves && resolved.rotation_moves);
        let start = setup.start(&resolved).unwrap();
        assert_eq!(start.marble_count(0), 13);
        for (text, key) in [
            ("partners_in_a_row = true\n", "partners_in_a_row"),
            ("holes = [\"Z9\"]\n", "holes[0]"),
            ("obstacles = [\"A1\"]\n", "obstacles"),
            ("neutral_push_off = \"pusher-wins\"\n", "neutral_push_off"),
            ("marbles_to_win = [6, 5, 4]\n", "marbles_to_win"),
            ("removed_marbles = [\"E5\"]\n", "removed_marbles"),
        ] {
            let err = table(&format!("[rules]\n{text}"))
                .resolve(standard)
                .unwrap_err();
            assert!(
                matches!(&err, RulesTableError::Key { key: found, .. } if found == key),
                "{text}: {err}"
            );
        }
        let four = GeneralLayout::from_name("four-player").unwrap();
        let (rules, _) = table("[rules]\npartners_in_a_row = true\n")
            .resolve(four)
            .unwrap();
        assert!(rules.seating.partners_in_a_row());
    }

    #[test]
    fn values_out_of_range_are_refused_alike_in_both_games_and_in_a_file() {
        let two = GeneralLayout::from_name("standard").unwrap();
        let three = GeneralLayout::from_name("three-player").unwrap();
        for (text, key, problem) in [
            (
                "marbles_to_win = 0",
                "marbles_to_win",
                "is 0, must be 1 to 14",
            ),
            (
                "marbles_to_win = 15",
                "marbles_to_win",
                "is 15, must be 1 to 14",
            ),
            (
                "max_plies = 0",
                "max_plies",
                "is 0, must be at least 1 (leave it out for no limit)",
            ),
            (
                "no_push_off_plies = 0",
                "no_push_off_plies",
                "is 0, must be at least 1 (leave it out for none)",
            ),
        ] {
            let rules = table(&format!("[rules]\n{text}\n"));
            let expected = RulesTableError::Key {
                key: key.to_owned(),
                message: problem.to_owned(),
            };
            assert!(!rules.is_general(), "{text}");
            assert_eq!(rules.two_player_rules(), Err(expected.clone()), "{text}");
            assert_eq!(rules.resolve(two).unwrap_err(), expected, "{text}");
            assert_eq!(rules.resolve(three).unwrap_err(), expected, "{text}");
            assert_eq!(rules.rules_for_text(2).unwrap_err(), expected, "{text}");
            // A file with it is refused as it is read, naming file and key.
            let path = std::env::temp_dir().join(format!(
                "sumito-rules-range-{}-{key}.toml",
                std::process::id()
            ));
            std::fs::write(&path, format!("[rules]\n{text}\n")).unwrap();
            let err = RulesTable::read(&path).unwrap_err().to_string();
            std::fs::remove_file(&path).unwrap();
            assert!(
                err.contains(&path.display().to_string())
                    && err.contains(&format!("rules.{key}: {problem}")),
                "{err}"
            );
        }
        let per_side = table("[rules]\nmarbles_to_win = [6, 0, 4]\n");
        assert!(
            matches!(per_side.resolve(three), Err(RulesTableError::Key { key, .. }) if key == "marbles_to_win")
        );
        assert_eq!(
            table("[rules]\nmarbles_to_win = 14\nmax_plies = 1\n")
                .two_player_rules()
                .unwrap()
                .marbles_to_win,
            14
        );
    }

    #[test]
    fn toml_and_json_errors_say_where_and_quote_an_excerpt() {
        let err = RulesTable::from_toml("[rules]\nholse = []\n").unwrap_err();
        assert!(
            err.starts_with("line 2, column 1: unknown field `holse`"),
            "{err}"
        );
        // TOML's own wording printed the whole line: a megabyte here.
        let huge = "x".repeat(1 << 20);
        let cut = format!("{}…", "x".repeat(crate::EXCERPT_CHARS));
        for text in [
            format!("[rules]\n{huge} = 1\n"),
            format!("[rules]\nmax_plies = \"{huge}\"\n"),
            format!("[rules]\nholes = [\"E5\"] {huge}\n"),
            format!("[rules]\nneutral_push_off = \"{huge}\"\nneutral = [\"E5\"]\n"),
        ] {
            let message = match RulesTable::from_toml(&text) {
                Ok(table) => table
                    .resolve(GeneralLayout::Two(crate::Layout::Standard))
                    .unwrap_err()
                    .to_string(),
                Err(message) => message,
            };
            assert!(message.chars().count() < 300, "{}", &message[..300]);
            assert!(message.contains(&cut) || text.contains("] x"), "{message}");
        }
        for value in [
            serde_json::json!({ huge.clone(): 1 }),
            serde_json::json!({ "max_plies": huge }),
        ] {
            let message = RulesTable::from_json(&value).unwrap_err();
            assert!(message.contains(&cut), "{message}");
            assert!(message.chars().count() < 300, "{}", &message[..300]);
        }
    }

    #[test]
    fn unknown_keys_are_refused_with_their_name() {
        let err = toml::from_str::<RulesFile>("[rules]\nholse = []\n").unwrap_err();
        assert!(err.to_string().contains("holse"), "{err}");
    }
}
