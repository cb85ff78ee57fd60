//! Classical players and matches for the general game (variants, 3–6
//! players): `random`, `greedy` and a paranoid alpha-beta, and matches with
//! seats rotated, reported as wins, points and a pairwise Elo.
//!
//! **Paranoid alpha-beta** (Sturtevant and Korf): the player to move
//! assumes every other side plays against it, which turns the game into a
//! two-sided one that alpha-beta can prune (max^n cannot prune beyond the
//! immediate level; paranoid reaches deeper in the same time). With two
//! sides it is plain alpha-beta.
//!
//! **The evaluation** knows every variant: marbles pushed off by each side
//! (against its target), own marbles next to the edge or a hole (where a
//! push sends them off), distance to the centre, and adjacent pairs of own
//! marbles (obstacles and neutral marbles are neither). From one side's
//! point of view the other sides count as one: their average in free-for-all
//! games, so that an evaluation of 3–6 sides stays on the scale of two.
//!
//! **Ratings** of a many-player match: each game is split into pairs of
//! players, scored by finishing order (the winner beats everyone; among the
//! others the higher side score finishes ahead, equal scores are a draw),
//! and the pairs are fitted with the two-player Elo model
//! ([`crate::elo::fit_elo`]). The pairs of one game are not independent, so
//! the intervals are narrower than they should be; the points table is the
//! plain measure.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use sumito_engine::Cell;
use sumito_engine::general::{
    CellContent, GeneralEnd, GeneralLayout, GeneralMove, GeneralOutcome, GeneralPosition,
    GeneralRules, GeneralSetup, MoveKind,
};
use sumito_engine::rules_table::RulesTable;

use crate::play_out::{PlayOutError, PlayedOut, Thinking, play_out};

use crate::elo::{Anchor, GameOutcome, GameResult, Ratings, fit_elo};
use crate::general_record::{GeneralRecord, GeneralStart};
use crate::player::{
    Entrant, Player, PlayerError, PlayerFactory, PlayerRegistry, SearchLimit, tighter_time,
};
use crate::spec::{PlayerSpec, SpecError};

/// The classical players of the general game: `random`, `greedy` and
/// `alphabeta` (paranoid; `depth=N`, or `time=DURATION` for iterative
/// deepening to the time). Programs that link a network add its kinds.
pub fn general_registry() -> PlayerRegistry<GeneralPosition> {
    let mut registry = PlayerRegistry::empty();
    let kinds: [Box<dyn PlayerFactory<GeneralPosition>>; 3] = [
        Box::new(RANDOM_SEATS),
        Box::new(GREEDY_SEATS),
        Box::new(ParanoidSeats),
    ];
    for factory in kinds {
        registry
            .register(factory)
            .expect("built-in kinds are distinct");
    }
    registry
}

/// One player of the general game's classical kinds by its spec (see
/// [`general_registry`]), with a seed.
pub fn seat_player(spec: &str, seed: u64) -> Result<Box<dyn Player<GeneralPosition>>, SpecError> {
    Ok(general_registry().prepare_str(spec)?.build(seed))
}

/// A kind whose players take no parameters, only a seeded random stream.
struct SeededSeats {
    kind: &'static str,
    help: &'static str,
    make: fn(ChaCha8Rng) -> Box<dyn Player<GeneralPosition>>,
}

const RANDOM_SEATS: SeededSeats = SeededSeats {
    kind: "random",
    help: "random: a legal move drawn uniformly",
    make: |rng| Box::new(RandomSeat { rng }),
};

const GREEDY_SEATS: SeededSeats = SeededSeats {
    kind: "greedy",
    help: "greedy: the move whose result evaluates best for the mover (one ply)",
    make: |rng| Box::new(GreedySeat { rng }),
};

impl PlayerFactory<GeneralPosition> for SeededSeats {
    fn kind(&self) -> &str {
        self.kind
    }

    fn help(&self) -> String {
        self.help.into()
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<GeneralPosition>, SpecError> {
        spec.params().finish()?;
        let make = self.make;
        Ok(Entrant::new(
            spec.to_string(),
            SearchLimit::default(),
            move |seed| make(ChaCha8Rng::seed_from_u64(seed)),
        ))
    }
}

struct ParanoidSeats;

impl PlayerFactory<GeneralPosition> for ParanoidSeats {
    fn kind(&self) -> &str {
        "alphabeta"
    }

    fn help(&self) -> String {
        "alphabeta: paranoid alpha-beta (every other side against the mover); depth=N (1 to 8, default 2) or time=DURATION (iterative deepening to the time)".into()
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<GeneralPosition>, SpecError> {
        let mut params = spec.params();
        let depth = params.get_u32("depth", 1, 8)?;
        let time = params.get_duration("time")?;
        if depth.is_some() && time.is_some() {
            return Err(params.invalid("give depth or time, not both"));
        }
        params.finish()?;
        let name = spec.to_string();
        let depth = depth.unwrap_or(if time.is_some() { 8 } else { 2 });
        Ok(Entrant::new(
            name.clone(),
            SearchLimit::default(),
            move |_| {
                Box::new(ParanoidSeat {
                    name: name.clone(),
                    depth,
                    time,
                    stop: None,
                })
            },
        ))
    }
}

struct RandomSeat {
    rng: ChaCha8Rng,
}

impl Player<GeneralPosition> for RandomSeat {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose_move(
        &mut self,
        position: &GeneralPosition,
        _: &SearchLimit,
    ) -> Result<GeneralMove, PlayerError> {
        let moves = position.legal_moves();
        if moves.is_empty() {
            return Err(PlayerError::NoLegalMove);
        }
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

struct GreedySeat {
    rng: ChaCha8Rng,
}

impl Player<GeneralPosition> for GreedySeat {
    fn name(&self) -> String {
        "greedy".into()
    }

    /// The move whose result evaluates best for the mover's side; ties are
    /// broken at random.
    fn choose_move(
        &mut self,
        position: &GeneralPosition,
        _: &SearchLimit,
    ) -> Result<GeneralMove, PlayerError> {
        let side = position.side_to_move();
        let mut best = Vec::new();
        let mut best_value = f64::NEG_INFINITY;
        for mv in position.legal_moves() {
            let value = evaluate(&position.play(mv), side);
            if value > best_value + 1e-9 {
                best_value = value;
                best.clear();
            }
            if (value - best_value).abs() <= 1e-9 {
                best.push(mv);
            }
        }
        if best.is_empty() {
            return Err(PlayerError::NoLegalMove);
        }
        Ok(best[self.rng.random_range(0..best.len())])
    }
}

const WIN: f64 = 1.0e6;

/// The static value of `position` for `side` (higher is better for it).
pub fn evaluate(position: &GeneralPosition, side: usize) -> f64 {
    let rules = position.rules();
    let seating = rules.seating;
    if let Some((outcome, _)) = position.outcome() {
        return match outcome {
            GeneralOutcome::Win(winner) if winner == side => WIN,
            GeneralOutcome::Win(_) => -WIN,
            GeneralOutcome::Draw(mask) if mask >> side & 1 == 1 => 0.0,
            GeneralOutcome::Draw(_) => -WIN / 2.0,
        };
    }
    let sides = seating.sides();
    let mut value_of = vec![0.0f64; sides];
    for (s, value) in value_of.iter_mut().enumerate() {
        let score = f64::from(position.side_score(s));
        *value += 1000.0 * score * 6.0 / f64::from(rules.target(s));
    }
    for cell in Cell::all() {
        let CellContent::Marble(seat) = position.at(cell) else {
            continue;
        };
        let s = if rules.one_colour {
            // Common marbles belong to nobody: only scores matter.
            continue;
        } else {
            seating.side_of(seat)
        };
        let centre = f64::from(cell.distance_from_centre());
        let mut exposed = false;
        let mut friends = 0.0;
        for dir in sumito_engine::Direction::ALL {
            match cell.neighbour(dir) {
                None => exposed = true,
                Some(next) => match position.at(next) {
                    CellContent::Hole => exposed = true,
                    CellContent::Marble(other) if seating.side_of(other) == s => friends += 0.5,
                    _ => {}
                },
            }
        }
        value_of[s] += -10.0 * centre + 4.0 * friends - if exposed { 12.0 } else { 0.0 };
    }
    let others: Vec<f64> = (0..sides)
        .filter(|&o| o != side)
        .map(|o| value_of[o])
        .collect();
    let others = others.iter().sum::<f64>() / others.len().max(1) as f64;
    value_of[side] - others
}

struct ParanoidSeat {
    name: String,
    depth: u32,
    /// Its own time per move (`time=`); a move's limit may allow less.
    time: Option<Duration>,
    stop: Option<Arc<AtomicBool>>,
}

/// Moves that push first (they change the score or the game), then the rest.
fn ordered(position: &GeneralPosition) -> Vec<(GeneralMove, GeneralPosition)> {
    let mut children: Vec<(GeneralMove, GeneralPosition)> = position
        .legal_moves()
        .into_iter()
        .map(|mv| (mv, position.play(mv)))
        .collect();
    let scores = position.scores();
    children.sort_by_key(|(mv, child)| {
        let scored = child.scores() != scores || child.is_game_over();
        let group = matches!(mv.kind(), MoveKind::Group(g) if g.group_len() > 1);
        (!scored, !group)
    });
    children
}

/// When a search must end: a time, or a flag set from outside.
struct Deadline<'a> {
    at: Option<Instant>,
    stop: Option<&'a AtomicBool>,
}

impl Deadline<'_> {
    fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
            || self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }
}

/// Paranoid alpha-beta value of `position` for `root_side`; `None` when the
/// deadline passed.
fn paranoid(
    position: &GeneralPosition,
    root_side: usize,
    depth: u32,
    mut alpha: f64,
    mut beta: f64,
    deadline: &Deadline<'_>,
) -> Option<f64> {
    if depth == 0 || position.is_game_over() {
        return Some(evaluate(position, root_side));
    }
    if deadline.passed() {
        return None;
    }
    let maximizing = position.side_to_move() == root_side;
    let mut best = if maximizing {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    for (_, child) in ordered(position) {
        let value = paranoid(&child, root_side, depth - 1, alpha, beta, deadline)?;
        if maximizing {
            best = best.max(value);
            alpha = alpha.max(value);
        } else {
            best = best.min(value);
            beta = beta.min(value);
        }
        if alpha >= beta {
            break;
        }
    }
    Some(best)
}

impl Player<GeneralPosition> for ParanoidSeat {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Within the tighter of its own time and `limit`'s.
    fn choose_move(
        &mut self,
        position: &GeneralPosition,
        limit: &SearchLimit,
    ) -> Result<GeneralMove, PlayerError> {
        let time = tighter_time(self.time, limit.time);
        let side = position.side_to_move();
        let children = ordered(position);
        let Some(first) = children.first() else {
            return Err(PlayerError::NoLegalMove);
        };
        let deadline = Deadline {
            at: time.map(|t| Instant::now() + t),
            stop: self.stop.as_deref(),
        };
        let mut chosen = first.0;
        // With a time limit or a stop flag, deepen until it ends; else one
        // search.
        let shallowest = if time.is_some() || self.stop.is_some() {
            1
        } else {
            self.depth
        };
        for depth in shallowest..=self.depth {
            let mut best = f64::NEG_INFINITY;
            let mut best_move = None;
            for (mv, child) in &children {
                let Some(value) = paranoid(child, side, depth - 1, best, f64::INFINITY, &deadline)
                else {
                    best_move = None;
                    break;
                };
                if value > best || best_move.is_none() {
                    best = value;
                    best_move = Some(*mv);
                }
            }
            match best_move {
                Some(mv) => chosen = mv,
                None => break, // out of time: keep the last full depth
            }
        }
        Ok(chosen)
    }
}

/// One game of a many-player match.
#[derive(Clone, Debug)]
pub struct GeneralMatchGame {
    /// The entrant playing each side, by side.
    pub entrant_of_side: Vec<usize>,
    pub outcome: Option<GeneralOutcome>,
    /// Each side's score at the end.
    pub side_scores: Vec<u32>,
    pub plies: u32,
    /// The moves from the start (the opening's first).
    pub moves: Vec<GeneralMove>,
    /// Why it ended.
    pub end: Option<GeneralEnd>,
    /// The moves each side chose and the time it took, by side.
    pub thinking: Vec<Thinking>,
    /// The first ply whose position repeats an earlier one of the game
    /// (as `arena::PlayedGame::first_repetition`).
    pub first_repetition: Option<u32>,
}

impl GeneralMatchGame {
    /// The points of entrant `e`: 1 for a win, 1/k for a draw among k
    /// sides, 0 otherwise.
    pub fn points_of(&self, entrant: usize) -> f64 {
        let Some(side) = self.entrant_of_side.iter().position(|&e| e == entrant) else {
            return 0.0;
        };
        match self.outcome {
            Some(GeneralOutcome::Win(winner)) => f64::from(u8::from(winner == side)),
            Some(GeneralOutcome::Draw(mask)) if mask >> side & 1 == 1 => {
                1.0 / f64::from(mask.count_ones())
            }
            _ => 0.0,
        }
    }

    /// Entrant `e`'s results against each side of the other entrants by
    /// finishing order, from its point of view (`BlackWin`: it finished
    /// ahead, `Draw`: level, `WhiteWin`: behind); empty when it had no side.
    pub fn pair_outcomes_of(&self, entrant: usize) -> Vec<GameOutcome> {
        let Some(own) = self.entrant_of_side.iter().position(|&e| e == entrant) else {
            return Vec::new();
        };
        let ranks = self.ranks();
        (0..ranks.len())
            .filter(|&side| self.entrant_of_side[side] != entrant)
            .map(|side| outcome_by_rank(ranks[own], ranks[side]))
            .collect()
    }

    /// The result of every pair of sides by finishing order, the first
    /// side of each pair as `black`, by entrant: what the match's Elo fits.
    pub fn side_pairs(&self) -> Vec<GameResult> {
        let ranks = self.ranks();
        let sides = ranks.len();
        (0..sides)
            .flat_map(|a| (a + 1..sides).map(move |b| (a, b)))
            .map(|(a, b)| GameResult {
                black: self.entrant_of_side[a],
                white: self.entrant_of_side[b],
                outcome: outcome_by_rank(ranks[a], ranks[b]),
            })
            .collect()
    }

    /// Entrant `e`'s pairwise score against the other entrants' sides of
    /// the game by finishing order (1 ahead, ½ level, 0 behind; the mean
    /// over those sides), so that par is ½ whatever the number of sides;
    /// `None` when it had no side or played alone.
    pub fn pair_score_of(&self, entrant: usize) -> Option<f64> {
        let outcomes = self.pair_outcomes_of(entrant);
        let points = |outcome: &GameOutcome| match outcome {
            GameOutcome::BlackWin => 1.0,
            GameOutcome::Draw => 0.5,
            GameOutcome::WhiteWin => 0.0,
        };
        (!outcomes.is_empty())
            .then(|| outcomes.iter().map(points).sum::<f64>() / outcomes.len() as f64)
    }

    /// The game as a record: played from `layout` under `table` by
    /// `entrants` (the match's, by entrant), its first `opening_plies` plies
    /// the random opening; the result as the engine words it.
    pub fn record(
        &self,
        layout: GeneralLayout,
        table: &RulesTable,
        rules: &GeneralRules,
        entrants: &[String],
        opening_plies: u32,
    ) -> Result<GeneralRecord, String> {
        let mut record = GeneralRecord {
            start: GeneralStart::Layout(layout),
            rules: table.clone(),
            seats: (0..rules.seating.seats())
                .map(|seat| entrants[self.entrant_of_side[rules.seating.side_of(seat)]].clone())
                .collect(),
            opening_plies: opening_plies.min(self.moves.len() as u32),
            moves: self.moves.clone(),
            result: None,
        };
        record.result = record
            .positions()
            .map_err(|err| err.to_string())?
            .last()
            .and_then(|position| position.describe_outcome());
        Ok(record)
    }

    /// Writes [`Self::record`] as the file `game-NNNN.txt` (`number`, from 1)
    /// in `folder`, creating the folder.
    #[allow(clippy::too_many_arguments)]
    pub fn write_record(
        &self,
        folder: &std::path::Path,
        number: usize,
        layout: GeneralLayout,
        table: &RulesTable,
        rules: &GeneralRules,
        entrants: &[String],
        opening_plies: u32,
    ) -> Result<(), String> {
        std::fs::create_dir_all(folder)
            .map_err(|err| format!("creating {}: {err}", folder.display()))?;
        let record = self.record(layout, table, rules, entrants, opening_plies)?;
        let path = folder.join(format!("game-{number:04}.txt"));
        record.write(&path).map_err(|err| err.to_string())
    }

    /// The finishing rank of each side (0 first; equal ranks are ties):
    /// the winner (or the sides of a draw) first, then the others by score.
    fn ranks(&self) -> Vec<u32> {
        let sides = self.entrant_of_side.len();
        let first = |s: usize| match self.outcome {
            Some(GeneralOutcome::Win(winner)) => winner == s,
            Some(GeneralOutcome::Draw(mask)) => mask >> s & 1 == 1,
            None => false,
        };
        (0..sides)
            .map(|s| {
                if first(s) {
                    0
                } else {
                    1 + (0..sides)
                        .filter(|&o| !first(o) && self.side_scores[o] > self.side_scores[s])
                        .count() as u32
                }
            })
            .collect()
    }
}

/// A finished many-player match.
#[derive(Clone, Debug)]
pub struct GeneralMatchReport {
    pub entrants: Vec<String>,
    pub games: Vec<GeneralMatchGame>,
    pub ratings: Option<Ratings>,
}

impl GeneralMatchReport {
    /// A Markdown table: per entrant the games, wins, draws, points and
    /// pairwise Elo with its 95 % interval.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| player | games | wins | draws | points | share | Elo [95 %] |\n|---|---:|---:|---:|---:|---:|---|\n",
        );
        let games = self.games.len();
        for (e, name) in self.entrants.iter().enumerate() {
            let wins = self.games.iter().filter(|g| g.points_of(e) == 1.0).count();
            let draws = self
                .games
                .iter()
                .filter(|g| {
                    let p = g.points_of(e);
                    p > 0.0 && p < 1.0
                })
                .count();
            let points: f64 = self.games.iter().map(|g| g.points_of(e)).sum();
            let elo = self.ratings.as_ref().map_or_else(String::new, |r| {
                let (low, high) = r.interval(e);
                format!("{:+.0} [{:+.0}, {:+.0}]", r.elo[e], low, high)
            });
            out.push_str(&format!(
                "| `{name}` | {games} | {wins} | {draws} | {points:.1} | {:.3} | {elo} |\n",
                points / games.max(1) as f64
            ));
        }
        out
    }
}

/// What [`play_general_match`] answers when `stop()` ended it.
pub const MATCH_STOPPED: &str = "stopped on request before the match ended";

/// Plays `games` games of `setup` under `rules` between `entrants` (one
/// per side, in turn: entrant `e` plays side `(e + game) % sides`, all the
/// seats of a team), each game opened with `opening_plies` random moves
/// from the seed; on `threads` threads. The match ends as soon as `stop()`
/// says (asked before every move of every game), with the error
/// [`MATCH_STOPPED`] and no report: a stopped match is played again, not
/// half counted.
#[allow(clippy::too_many_arguments)]
pub fn play_general_match(
    entrants: &[Entrant<GeneralPosition>],
    setup: &GeneralSetup,
    rules: &GeneralRules,
    games: usize,
    opening_plies: u32,
    seed: u64,
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<GeneralMatchReport, String> {
    let sides = rules.seating.sides();
    if entrants.len() != sides {
        return Err(format!(
            "{} players for {} sides: give one --player per {} in turn order",
            entrants.len(),
            sides,
            if rules.seating.teams() {
                "team"
            } else {
                "player"
            }
        ));
    }
    let start = setup.start(rules).map_err(|err| err.to_string())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|err| err.to_string())?;
    let results: Vec<Result<GeneralMatchGame, String>> = pool.install(|| {
        (0..games)
            .into_par_iter()
            .map(|game| {
                let game_seed = seed ^ (game as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let entrant_of_side: Vec<usize> = (0..sides)
                    .map(|s| (s + sides - game % sides) % sides)
                    .collect();
                let mut players: Vec<Box<dyn Player<GeneralPosition>>> = entrant_of_side
                    .iter()
                    .enumerate()
                    .map(|(side, &e)| entrants[e].build(game_seed ^ side as u64))
                    .collect();
                // The random opening, then the players.
                let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
                let mut opening = Vec::new();
                let mut position = start;
                for _ in 0..opening_plies {
                    let moves = position.legal_moves();
                    if position.is_game_over() || moves.is_empty() {
                        break;
                    }
                    let mv = moves[rng.random_range(0..moves.len())];
                    opening.push(mv);
                    position = position.play(mv);
                }
                let limits: Vec<SearchLimit> =
                    entrant_of_side.iter().map(|&e| entrants[e].limit).collect();
                let PlayedOut {
                    end: position,
                    moves: played,
                    thinking,
                    first_repetition,
                } = play_out(start, &opening, &mut players, &limits, stop).map_err(
                    |err| match err {
                        PlayOutError::Stopped => MATCH_STOPPED.to_owned(),
                        PlayOutError::Player { side, cause, .. } => {
                            format!("{}: {cause}", entrants[entrant_of_side[side]].name)
                        }
                        PlayOutError::IllegalMove { side, mv, position } => format!(
                            "{} chose the illegal move {} in position {position}",
                            entrants[entrant_of_side[side]].name,
                            mv.to_text()
                        ),
                    },
                )?;
                let outcome = position.outcome();
                Ok(GeneralMatchGame {
                    entrant_of_side,
                    outcome: outcome.map(|(o, _)| o),
                    side_scores: (0..sides).map(|s| position.side_score(s)).collect(),
                    plies: position.ply(),
                    moves: played,
                    end: outcome.map(|(_, end)| end),
                    thinking,
                    first_repetition,
                })
            })
            .collect()
    });
    let games: Vec<GeneralMatchGame> = results.into_iter().collect::<Result<_, _>>()?;
    let pairs: Vec<GameResult> = games
        .iter()
        .flat_map(GeneralMatchGame::side_pairs)
        .collect();
    let ratings = fit_elo(entrants.len(), &pairs, Anchor::Player(0)).ok();
    Ok(GeneralMatchReport {
        entrants: entrants
            .iter()
            .map(|entrant| entrant.name.clone())
            .collect(),
        games,
        ratings,
    })
}

/// One side's result against another from their finishing ranks (0
/// first): `BlackWin` when the first finished ahead.
fn outcome_by_rank(first: u32, second: u32) -> GameOutcome {
    match first.cmp(&second) {
        std::cmp::Ordering::Less => GameOutcome::BlackWin,
        std::cmp::Ordering::Equal => GameOutcome::Draw,
        std::cmp::Ordering::Greater => GameOutcome::WhiteWin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::general::{GeneralLayout, Seating};

    fn prepared(specs: &[String]) -> Vec<Entrant<GeneralPosition>> {
        specs
            .iter()
            .map(|spec| general_registry().prepare_str(spec).unwrap())
            .collect()
    }

    fn rules_for(layout: GeneralLayout, max_plies: u32) -> GeneralRules {
        let mut rules = GeneralRules::plain(Seating::new(layout.seats(), false).unwrap());
        rules.max_plies = Some(max_plies);
        rules
    }

    #[test]
    fn a_stopped_match_ends_at_once_without_a_report() {
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let rules = rules_for(layout, 10_000);
        let entrants: Vec<String> = ["random", "random", "random"].map(String::from).into();
        let setup = GeneralSetup::layout(layout);
        let moves = std::sync::atomic::AtomicUsize::new(0);
        // Stop once 50 moves have been asked for in all games together.
        let stop = || moves.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 50;
        let err = play_general_match(&prepared(&entrants), &setup, &rules, 4, 0, 3, 2, &stop)
            .unwrap_err();
        assert_eq!(err, MATCH_STOPPED);
        // Every game stopped within one check of the stop: 4 games, 50 moves.
        assert!(moves.load(std::sync::atomic::Ordering::Relaxed) <= 50 + 4);
    }

    #[test]
    fn the_pairwise_score_counts_the_finishing_order_against_the_other_entrants() {
        let game = |outcome, side_scores: [u32; 3]| GeneralMatchGame {
            entrant_of_side: vec![1, 0, 2],
            outcome,
            side_scores: side_scores.to_vec(),
            plies: 10,
            moves: Vec::new(),
            end: None,
            thinking: vec![Thinking::default(); 3],
            first_repetition: None,
        };
        // Entrant 0 plays side 1: it won.
        let won = game(Some(GeneralOutcome::Win(1)), [2, 6, 1]);
        assert_eq!(won.pair_score_of(0), Some(1.0));
        // Side 0 won; side 1 (entrant 0) level with side 2 on marbles.
        let second = game(Some(GeneralOutcome::Win(0)), [6, 3, 3]);
        assert_eq!(second.pair_score_of(0), Some(0.25));
        // A draw shared by sides 1 and 2, side 0 behind.
        let shared = game(Some(GeneralOutcome::Draw(0b110)), [1, 4, 4]);
        assert_eq!(shared.pair_score_of(0), Some(0.75));
        assert_eq!(shared.pair_score_of(5), None);
    }

    #[test]
    fn greedy_outscores_random_in_a_three_player_match_with_seats_rotated() {
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let rules = rules_for(layout, 120);
        let entrants = vec![
            "greedy".to_string(),
            "random".to_string(),
            "random".to_string(),
        ];
        let report = play_general_match(
            &prepared(&entrants),
            &GeneralSetup::layout(layout),
            &rules,
            6,
            2,
            7,
            2,
            &|| false,
        )
        .unwrap();
        assert_eq!(report.games.len(), 6);
        // Every entrant sat at every seat twice.
        for e in 0..3 {
            let seats: Vec<usize> = report
                .games
                .iter()
                .map(|g| g.entrant_of_side.iter().position(|&x| x == e).unwrap())
                .collect();
            for side in 0..3 {
                assert_eq!(seats.iter().filter(|&&s| s == side).count(), 2);
            }
        }
        let points = |e: usize| report.games.iter().map(|g| g.points_of(e)).sum::<f64>();
        assert!(points(0) > points(1) + points(2), "{}", report.table());
        let total: f64 = (0..3).map(points).sum();
        assert!((total - 6.0).abs() < 1e-9, "every game gives out one point");
        assert!(
            report.table().contains("| `greedy` | 6 |"),
            "{}",
            report.table()
        );
    }

    #[test]
    fn a_bounded_paranoid_search_ends_at_its_cap_or_its_stop_flag() {
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let rules = rules_for(layout, 200);
        let start = GeneralSetup::layout(layout).start(&rules).unwrap();
        // Depth 8 of three players would run for hours unbounded.
        let mut capped = seat_player("alphabeta:depth=8", 1).unwrap();
        let began = Instant::now();
        let mv = capped
            .choose_move(&start, &SearchLimit::time(Duration::from_millis(200)))
            .unwrap();
        assert!(start.is_legal(mv));
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "{:?}",
            began.elapsed()
        );
        // A flag set from another thread ends an uncapped one.
        let mut stopped = seat_player("alphabeta:depth=8", 1).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        stopped.set_stop(stop.clone());
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
        });
        let mv = stopped
            .choose_move(&start, &SearchLimit::default())
            .unwrap();
        setter.join().unwrap();
        assert!(start.is_legal(mv));
    }

    #[test]
    fn paranoid_alphabeta_takes_a_push_off_and_plays_teams() {
        // Two players, a hole behind White's marble: pushing it in scores.
        let rules = GeneralRules::plain(Seating::TWO)
            .with_cells(&[], &["E5".parse().unwrap()])
            .unwrap();
        let position =
            GeneralPosition::from_text("5/6/7/8/1bbwo4/8/7/6/4w b 0 0", Some(&rules)).unwrap();
        let mut player = seat_player("alphabeta:depth=2", 1).unwrap();
        let mv = player
            .choose_move(&position, &SearchLimit::default())
            .unwrap();
        assert_eq!(position.play(mv).seat_score(0), 1, "{}", mv.to_text());
        // A four-player team game runs to its end.
        let layout = GeneralLayout::from_name("four-player").unwrap();
        let rules = rules_for(layout, 40);
        let entrants = vec!["alphabeta:depth=1".to_string(), "random".to_string()];
        let report = play_general_match(
            &prepared(&entrants),
            &GeneralSetup::layout(layout),
            &rules,
            2,
            0,
            3,
            2,
            &|| false,
        )
        .unwrap();
        assert!(report.games.iter().all(|g| g.outcome.is_some()));
        assert!(seat_player("alphabeta:depth=2,time=1s", 0).is_err());
        assert!(seat_player("grandmaster", 0).is_err());
    }
}
