//! Evaluation records (one JSON file per candidate in `evaluations/`) and the
//! Elo table fitted over all of them: every version and every fixed opponent,
//! by maximum likelihood (`sumito_arena::elo`), on the one Elo scale
//! (`sumito_arena::scale`: the classical opponents held at their ratings).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sumito_arena::elo::{PairOutcome, PairResult, fit_elo};
use sumito_game::GameKind;

use crate::rundir::{ELO_JSON, ELO_TEXT, RunDir, RunDirError};

/// The name of generation `generation`'s model in records and the Elo table.
pub fn model_name(generation: u32) -> String {
    format!("gen-{generation}")
}

/// The generation an Elo table's player is (`gen-N`, [`model_name`]'s), or
/// `None` for any other player.
pub fn generation_of(player: &str) -> Option<u32> {
    let digits = player.strip_prefix("gen-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// One evaluation game, of either game: its players by side, who finished
/// first and each side's marbles pushed off (what the ratings need), and
/// its opening, length, end and moves (what a person reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StoredEvaluationGame")]
pub struct EvaluationGame {
    /// The player of each side, in turn order (two players: Black, White;
    /// a team is one side).
    pub sides: Vec<String>,
    /// The sides with the best result: the winner, or every side of a draw.
    pub first: Vec<usize>,
    /// Each side's score at the end (marbles it pushed off).
    pub scores: Vec<u32>,
    /// The start layout and random opening plies.
    pub opening: String,
    pub plies: u32,
    /// Why it ended, in words (empty in records of the general game written
    /// before both games shared this record).
    pub end: String,
    /// The moves in Aba-Pro notation, from the opening's start position
    /// (empty where not recorded).
    pub moves: String,
}

/// An evaluation game as `evaluations/gen-N.json` holds it: today's form,
/// or either form written before the two games shared one (a two-player
/// game by colour and winner; a game of the general game without its end
/// and moves), read into [`EvaluationGame`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredEvaluationGame {
    sides: Option<Vec<String>>,
    first: Option<Vec<usize>>,
    scores: Option<Vec<u32>>,
    /// The two-player form's players and "black", "white" or "draw".
    black: Option<String>,
    white: Option<String>,
    winner: Option<String>,
    opening: String,
    plies: u32,
    #[serde(default)]
    end: String,
    #[serde(default)]
    moves: String,
}

impl TryFrom<StoredEvaluationGame> for EvaluationGame {
    type Error = String;

    fn try_from(stored: StoredEvaluationGame) -> Result<EvaluationGame, String> {
        let (sides, first, scores) = match (stored.sides, stored.black, stored.white) {
            (Some(sides), None, None) => (
                sides,
                stored.first.ok_or("an evaluation game without `first`")?,
                stored.scores.ok_or("an evaluation game without `scores`")?,
            ),
            (None, Some(black), Some(white)) => {
                let first = match stored.winner.as_deref() {
                    Some("black") => vec![0],
                    Some("white") => vec![1],
                    Some("draw") => vec![0, 1],
                    other => {
                        return Err(format!(
                            "an evaluation game's `winner` is {other:?}, not black, white or draw"
                        ));
                    }
                };
                // Two sides are told apart by who finished first alone.
                (vec![black, white], first, vec![0, 0])
            }
            _ => {
                return Err(
                    "an evaluation game names its players either by `sides` or by `black` and `white`"
                        .into(),
                );
            }
        };
        Ok(EvaluationGame {
            sides,
            first,
            scores,
            opening: stored.opening,
            plies: stored.plies,
            end: stored.end,
            moves: stored.moves,
        })
    }
}

impl EvaluationGame {
    /// The score of side `a` against side `b` (1, ½, 0) by finishing order,
    /// as `sumito arena` ranks the sides of a game: a side that finished
    /// first beats one that did not; two that both did tie; of two that did
    /// not, the one that pushed off more marbles wins. (Elo for many players
    /// by pairwise comparison: each game counts as a two-player result for
    /// every pair of sides; the pairs of one game are not independent.)
    pub fn pair_score(&self, a: usize, b: usize) -> f64 {
        match (self.first.contains(&a), self.first.contains(&b)) {
            (true, false) => 1.0,
            (false, true) => 0.0,
            (true, true) => 0.5,
            (false, false) => match self.scores[a].cmp(&self.scores[b]) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            },
        }
    }

    /// `player`'s score against `opponent`'s sides: 1, ½ or 0 (with more
    /// than two sides, the mean over pairs of their sides by finishing
    /// order, so that par is ½); `None` unless both played.
    pub fn score_against(&self, player: &str, opponent: &str) -> Option<f64> {
        let of = |name: &str| -> Vec<usize> {
            (0..self.sides.len())
                .filter(|&side| self.sides[side] == name)
                .collect()
        };
        let (own, other) = (of(player), of(opponent));
        let pairs: Vec<f64> = own
            .iter()
            .flat_map(|&a| other.iter().map(move |&b| (a, b)))
            .map(|(a, b)| self.pair_score(a, b))
            .collect();
        (!pairs.is_empty()).then(|| pairs.iter().sum::<f64>() / pairs.len() as f64)
    }

    /// `player`'s points: 1 for a win, 1/k for a draw among k sides, 0
    /// otherwise (par is a half with two sides, a third with three).
    pub fn points_of(&self, player: &str) -> f64 {
        match self.sides.iter().position(|name| name == player) {
            Some(side) if self.first.contains(&side) => 1.0 / self.first.len() as f64,
            _ => 0.0,
        }
    }

    /// Every pair of sides played by different players, as two-player
    /// results: (first side's player, second side's player, outcome for the
    /// first as "black"); a game without a result gives none.
    fn pairwise(&self) -> impl Iterator<Item = (&str, &str, PairOutcome)> + '_ {
        let sides = if self.first.is_empty() {
            0
        } else {
            self.sides.len()
        };
        (0..sides)
            .flat_map(move |a| (a + 1..sides).map(move |b| (a, b)))
            .filter(|&(a, b)| self.sides[a] != self.sides[b])
            .map(|(a, b)| {
                let score = self.pair_score(a, b);
                let outcome = if score > 0.75 {
                    PairOutcome::FirstWins
                } else if score < 0.25 {
                    PairOutcome::SecondWins
                } else {
                    PairOutcome::Draw
                };
                (self.sides[a].as_str(), self.sides[b].as_str(), outcome)
            })
    }
}

/// The gating match of a candidate against the best model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatingRecord {
    /// The best model it played.
    pub opponent: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// The candidate's score share.
    pub score: f64,
    /// How the decision was reached, in words (SPRT bounds, threshold, ...).
    pub reason: String,
}

/// `evaluations/gen-N.json`: everything decided about candidate N.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredEvaluationRecord")]
pub struct EvaluationRecord {
    pub generation: u32,
    /// Whether it became the best model.
    pub promoted: bool,
    /// `None` when gating is off.
    pub gating: Option<GatingRecord>,
    /// Score against each fixed opponent.
    pub opponent_scores: BTreeMap<String, f64>,
    /// Every game it played (gating and rating), of either game: the
    /// run's Elo table counts each as the pairwise results of its sides.
    pub games: Vec<EvaluationGame>,
    /// Hours the run had trained when the candidate was written (the time of
    /// `sumito train`, as `budget.hours` counts it); absent in records of the
    /// separate evaluator role and of older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_hours: Option<f64>,
    /// The CPU time `sumito train` had spent by then, in core-hours (all its
    /// threads); absent where `run_hours` is, and in records written before
    /// it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_core_hours: Option<f64>,
}

/// How long a run had trained when a candidate was written: wall-clock
/// hours and core-hours of `sumito train` across its sessions (`None` for
/// the separate evaluator role, which does not know them).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunTime {
    pub hours: Option<f64>,
    pub core_hours: Option<f64>,
}

/// [`EvaluationRecord`] as stored: records written before both games shared
/// one list of games kept the general game's in `general_games`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredEvaluationRecord {
    generation: u32,
    promoted: bool,
    gating: Option<GatingRecord>,
    opponent_scores: BTreeMap<String, f64>,
    games: Vec<EvaluationGame>,
    #[serde(default)]
    general_games: Vec<EvaluationGame>,
    #[serde(default)]
    run_hours: Option<f64>,
    #[serde(default)]
    run_core_hours: Option<f64>,
}

impl From<StoredEvaluationRecord> for EvaluationRecord {
    fn from(stored: StoredEvaluationRecord) -> EvaluationRecord {
        let mut games = stored.games;
        games.extend(stored.general_games);
        EvaluationRecord {
            generation: stored.generation,
            promoted: stored.promoted,
            gating: stored.gating,
            opponent_scores: stored.opponent_scores,
            games,
            run_hours: stored.run_hours,
            run_core_hours: stored.run_core_hours,
        }
    }
}

/// One row of the Elo table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EloEntry {
    pub player: String,
    pub elo: f64,
    /// 95 % interval.
    pub low: f64,
    pub high: f64,
    pub games: u32,
}

/// Reads every evaluation record of the run, by generation.
pub fn read_evaluations(run: &RunDir) -> Result<Vec<EvaluationRecord>, RunDirError> {
    let mut records = Vec::new();
    for (_, key) in run.evaluation_keys()? {
        // Listed a moment ago: only a deletion of the run removes one.
        if let Some(record) = run.get_json::<EvaluationRecord>(&key)? {
            records.push(record);
        }
    }
    Ok(records)
}

/// Fits the Elo table over every evaluation game, on the one Elo scale (the
/// classical opponents that played held at their ratings; else the mean at
/// 0); `None` when there are no games yet.
pub fn fit_table(
    game: GameKind,
    records: &[EvaluationRecord],
) -> Result<Option<Vec<EloEntry>>, String> {
    let mut names: Vec<String> = Vec::new();
    let index_of = |name: &str, names: &mut Vec<String>| match names.iter().position(|n| n == name)
    {
        Some(index) => index,
        None => {
            names.push(name.to_owned());
            names.len() - 1
        }
    };
    let mut games = Vec::new();
    for game in records.iter().flat_map(|record| &record.games) {
        for (first, second, outcome) in game.pairwise() {
            games.push(PairResult {
                first: index_of(first, &mut names),
                second: index_of(second, &mut names),
                outcome,
            });
        }
    }
    if games.is_empty() {
        return Ok(None);
    }
    let anchor = sumito_arena::scale::anchor_of(game, &names);
    let ratings = fit_elo(names.len(), &games, anchor).map_err(|err| err.to_string())?;
    let mut table: Vec<EloEntry> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (low, high) = ratings.interval(i);
            let played = games
                .iter()
                .filter(|g| g.first == i || g.second == i)
                .count() as u32;
            EloEntry {
                player: name.clone(),
                elo: ratings.elo[i],
                low,
                high,
                games: played,
            }
        })
        .collect();
    table.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    Ok(Some(table))
}

/// Refits the table of a run of `game` and writes `elo.json` and
/// `elo.txt`; returns it.
pub fn update_elo_files(run: &RunDir, game: GameKind) -> Result<Option<Vec<EloEntry>>, String> {
    let records = read_evaluations(run).map_err(|err| err.to_string())?;
    let Some(table) = fit_table(game, &records)? else {
        return Ok(None);
    };
    run.put_json(ELO_JSON, &table)
        .map_err(|err| err.to_string())?;
    let mut text = format!(
        "{:<24} {:>8} {:>19} {:>6}\n",
        "player", "elo", "95% interval", "games"
    );
    for entry in &table {
        text.push_str(&format!(
            "{:<24} {:>8.0} {:>9.0}..{:<8.0} {:>6}\n",
            entry.player, entry.elo, entry.low, entry.high, entry.games
        ));
    }
    run.put_text(ELO_TEXT, &text)
        .map_err(|err| err.to_string())?;
    Ok(Some(table))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;

    /// A two-player game; `winner` "black", "white" or "draw".
    pub(crate) fn game(black: &str, white: &str, winner: &str) -> EvaluationGame {
        EvaluationGame {
            sides: vec![black.into(), white.into()],
            first: match winner {
                "black" => vec![0],
                "white" => vec![1],
                _ => vec![0, 1],
            },
            scores: vec![0, 0],
            opening: "standard".into(),
            plies: 10,
            end: "test".into(),
            moves: String::new(),
        }
    }

    #[test]
    fn the_table_covers_versions_and_opponents_on_the_one_scale() {
        let dir = TempDir::new("elo");
        let run = RunDir::create(dir.path(), "").unwrap();
        let mut games = Vec::new();
        for _ in 0..6 {
            games.push(game("gen-1", "random", "black"));
            games.push(game("random", "gen-1", "white"));
            games.push(game("gen-1", "greedy", "draw"));
        }
        games.push(game("random", "gen-1", "black"));
        let record = EvaluationRecord {
            generation: 1,
            promoted: true,
            gating: None,
            opponent_scores: BTreeMap::new(),
            games,
            run_hours: None,
            run_core_hours: None,
        };
        run.put_json(&RunDir::evaluation_key(1), &record).unwrap();
        let table = update_elo_files(&run, GameKind::TwoPlayer)
            .unwrap()
            .unwrap();
        let random = table.iter().find(|e| e.player == "random").unwrap();
        let greedy = table.iter().find(|e| e.player == "greedy").unwrap();
        let gen1 = table.iter().find(|e| e.player == "gen-1").unwrap();
        assert_eq!((random.elo, greedy.elo), (0.0, 722.0));
        assert_eq!((greedy.low, greedy.high), (722.0, 722.0));
        assert!(
            gen1.elo > 200.0 && gen1.low < gen1.elo && gen1.high > gen1.elo,
            "{gen1:?}"
        );
        assert_eq!(gen1.games, 19);
        assert!(
            std::fs::read_to_string(run.root().join(ELO_TEXT))
                .unwrap()
                .contains("gen-1")
        );
        assert_eq!(record.games[0].score_against("gen-1", "random"), Some(1.0));
        assert_eq!(record.games[2].points_of("greedy"), 0.5);
    }

    fn general(sides: &[&str], first: &[usize]) -> EvaluationGame {
        EvaluationGame {
            sides: sides.iter().map(|&s| s.to_owned()).collect(),
            first: first.to_vec(),
            scores: vec![0; sides.len()],
            opening: "three-player +0 random plies".into(),
            plies: 30,
            end: String::new(),
            moves: String::new(),
        }
    }

    #[test]
    fn games_of_many_sides_count_as_pairwise_results() {
        // gen-1 wins; of the two greedy sides neither beats the other.
        let won = general(&["gen-1", "greedy", "greedy"], &[0]);
        assert_eq!(won.score_against("gen-1", "greedy"), Some(1.0));
        assert_eq!(won.score_against("greedy", "gen-1"), Some(0.0));
        let lost = general(&["greedy", "gen-1", "greedy"], &[2]);
        // Beaten by the winner, level with the other loser.
        assert_eq!(lost.score_against("gen-1", "greedy"), Some(0.25));
        assert_eq!(lost.pair_score(0, 1), 0.5);
        assert_eq!(lost.score_against("gen-1", "random"), None);
        let pairs: Vec<_> = lost.pairwise().collect();
        // The two greedy sides are one player: that pair is left out.
        assert_eq!(pairs.len(), 2, "{pairs:?}");
        let drawn = general(&["gen-1", "greedy", "greedy"], &[0, 1]);
        assert_eq!(drawn.score_against("gen-1", "greedy"), Some(0.75));
        // Of two sides that did not finish first, more marbles off wins.
        let mut behind = general(&["greedy", "gen-1", "random"], &[0]);
        behind.scores = vec![6, 2, 3];
        assert_eq!(behind.score_against("gen-1", "random"), Some(0.0));
        assert_eq!(behind.score_against("random", "gen-1"), Some(1.0));

        // A candidate that wins most games is rated above the field.
        let mut games = Vec::new();
        for seat in 0..3 {
            let mut sides = ["greedy"; 3];
            sides[seat] = "gen-1";
            games.push(general(&sides, &[seat]));
            games.push(general(&sides, &[seat]));
            games.push(general(&sides, &[(seat + 1) % 3]));
        }
        let record = EvaluationRecord {
            generation: 1,
            promoted: true,
            gating: None,
            opponent_scores: BTreeMap::new(),
            games,
            run_hours: None,
            run_core_hours: None,
        };
        let table = fit_table(GameKind::General, &[record]).unwrap().unwrap();
        assert_eq!(table.len(), 2);
        assert_eq!(table[0].player, "gen-1");
        // 9 games, two pairs with gen-1 each.
        assert_eq!(table[0].games, 18);
        assert!(table[0].elo > table[1].elo + 50.0, "{table:?}");
    }

    #[test]
    fn records_written_before_the_games_shared_one_list_still_read() {
        // A two-player game by colour, and a game of the general game
        // without its end and moves, in the lists they were kept in.
        let old = r#"{
            "generation": 3,
            "promoted": true,
            "gating": null,
            "opponent_scores": {"greedy": 0.5},
            "games": [{"black": "gen-3", "white": "greedy", "winner": "white",
                       "opening": "standard +2 random plies", "plies": 80,
                       "end": "marbles pushed off", "moves": "A1B2"}],
            "general_games": [{"sides": ["gen-3", "greedy", "greedy"], "first": [1],
                               "opening": "three-player", "plies": 90, "scores": [2, 6, 3]}]
        }"#;
        let record: EvaluationRecord = serde_json::from_str(old).unwrap();
        assert_eq!(record.games.len(), 2);
        let two = &record.games[0];
        assert_eq!(
            (two.sides.as_slice(), two.first.as_slice()),
            (&["gen-3".to_owned(), "greedy".to_owned()][..], &[1][..])
        );
        assert_eq!(two.score_against("gen-3", "greedy"), Some(0.0));
        assert_eq!(
            (two.end.as_str(), two.moves.as_str()),
            ("marbles pushed off", "A1B2")
        );
        let many = &record.games[1];
        assert_eq!(many.score_against("gen-3", "greedy"), Some(0.0));
        assert_eq!(many.end, "");
        // Written again, it is today's form, and reads back the same.
        let text = serde_json::to_string(&record).unwrap();
        assert!(
            !text.contains("general_games") && !text.contains("winner"),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<EvaluationRecord>(&text).unwrap(),
            record
        );
        // An unknown key is still refused by name, in a record or a game.
        for (key, typo) in [("promoted", "promotd"), ("opening", "openin")] {
            let err = serde_json::from_str::<EvaluationRecord>(&old.replace(key, typo))
                .unwrap_err()
                .to_string();
            assert!(err.contains(typo), "{err}");
        }
        // A game naming no players says how they are named.
        let err = serde_json::from_str::<EvaluationRecord>(&old.replace("\"black\"", "\"noir\""))
            .unwrap_err()
            .to_string();
        assert!(err.contains("noir"), "{err}");
    }
}
