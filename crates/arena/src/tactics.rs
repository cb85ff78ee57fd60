//! A tactics suite: positions from games where the material outcome of a few
//! plies, searched exhaustively, proves which moves are right, and the solve
//! rate of any player on them (`sumito bench tactics`).
//!
//! Material is counted exactly, not estimated: [`material_search`]
//! (`sumito_engine::material`) is a
//! minimax over every legal move of both sides to a fixed depth whose only
//! score is the marbles pushed off (a won game counts [`WIN`]). That is more
//! trustworthy than an evaluation function, and cheap: a move of the side to
//! move can only gain material, so the last ply needs no search beyond
//! "is there a push-off", and alpha-beta cuts the many equal lines at once.
//!
//! `v_d(m)` below is the material (for the side to move, relative to now)
//! after the move `m` and `d - 1` more plies of best play by both sides.
//! A position is labelled with one kind, checked in this order:
//!
//! - **capture**: some push-off keeps a gain over 4 plies, `v_4 ≥ +1`, and the
//!   moves with the best `v_4` are all push-offs of the same marble (the same
//!   opponent marbles remain after each: pushing with two or with three of
//!   one's own marbles is the same capture). Every other move, other
//!   push-offs included (poisoned ones that lose the marble back or more), is
//!   at least a marble worse over the 4 plies. Solving set: those push-offs.
//! - **combination**: no legal move pushes a marble off at once, some move
//!   wins a marble by force in three plies (move, any reply, move:
//!   `v_3 ≥ +1`), the moves with the best `v_3` number at most
//!   [`MAX_SOLUTIONS`], and each of them still keeps the gain after the
//!   opponent's next reply and is better than every other move's `v_3`
//!   (an upper bound of its `v_4`). Solving set: those moves.
//! - **defence**: the opponent threatens a push-off (it would have one if it
//!   were to move now), no move gains within two plies, and at most
//!   [`MAX_SOLUTIONS`] moves keep the material level over the next two plies
//!   (`v_2 = 0`), none of them a push-off; every other move loses a marble
//!   within two plies. Each solving move must also hold the material over 4
//!   plies (`v_4 ≥ 0`) and be better than every other move over the same 4
//!   plies, so that no exchange elsewhere does as well.
//!
//! Positions where either side is one marble from winning are left out: the
//! move choice of network players already plays a win at once and avoids a
//! loss at once (`sumito_game::choice`), which is not what the suite measures.
//!
//! The suite is stored as text (see [`Suite::parse`]); the one shipped with
//! the project is [`SHIPPED_SUITE`] (made by [`generate`], see its header),
//! read under the ladder's rules (the 200-ply limit, 6 marbles).

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sumito_engine::material::value_at_least;
pub use sumito_engine::material::{WIN, material, material_search, move_value};
use sumito_engine::{Color, Layout, Move, Position, Rules};
use thiserror::Error;

use crate::arena_board::ArenaBoard;
use crate::ladder::{LADDER_MAX_PLIES, wilson_interval};
use crate::player::{Entrant, PlayerError, SearchLimit};

/// The most solving moves a combination or a defence may have: a position
/// with many right answers tests little.
pub const MAX_SOLUTIONS: usize = 3;

/// The plies of the exact material check of each kind (see the module docs).
pub const CAPTURE_DEPTH: u32 = 4;
pub const COMBINATION_DEPTH: u32 = 3;
pub const DEFENCE_DEPTH: u32 = 2;
/// The deeper check every label must also pass.
pub const CONFIRM_DEPTH: u32 = 4;

/// The suite shipped with the project (`crates/arena/tactics/suite.txt`).
pub const SHIPPED_SUITE: &str = include_str!("../tactics/suite.txt");

/// The rules the suite's positions are read under: the ladder's (a network
/// trained with the move limit sees how near it is).
pub fn suite_rules() -> Rules {
    Rules {
        max_plies: Some(LADDER_MAX_PLIES),
        ..Rules::default()
    }
}

/// What a position of the suite asks of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Take the one marble that can be won and kept.
    Capture,
    /// Stop the push-off the opponent threatens.
    Defence,
    /// Set up a push-off that cannot be stopped.
    Combination,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Capture, Kind::Defence, Kind::Combination];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Capture => "capture",
            Kind::Defence => "defence",
            Kind::Combination => "combination",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = String;

    fn from_str(text: &str) -> Result<Kind, String> {
        Kind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| format!("unknown kind {text:?} (capture, defence or combination)"))
    }
}

/// One position of the suite: its kind and the moves that solve it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tactic {
    pub kind: Kind,
    pub position: Position,
    /// The solving moves, in the engine's move order.
    pub solutions: Vec<Move>,
}

impl Tactic {
    /// The suite line: `kind | position text | move move ...`.
    pub fn line(&self) -> String {
        let moves: Vec<String> = self.solutions.iter().map(Move::to_string).collect();
        format!("{} | {} | {}", self.kind, self.position, moves.join(" "))
    }
}

/// What is wrong with a suite's text.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("line {line}: {problem}")]
pub struct SuiteError {
    pub line: usize,
    pub problem: String,
}

/// Positions of a suite, in the order of its file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suite {
    pub tactics: Vec<Tactic>,
}

impl Suite {
    /// Reads a suite: one position a line, `kind | position text | moves`
    /// (the moves in Aba-Pro or comma notation, separated by spaces, each
    /// legal in the position); `#` starts a comment line; blank lines are
    /// skipped. Positions are read under [`suite_rules`].
    pub fn parse(text: &str) -> Result<Suite, SuiteError> {
        let mut tactics = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fail = |problem: String| SuiteError {
                line: index + 1,
                problem,
            };
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let [kind, position, moves] = fields[..] else {
                return Err(fail(format!(
                    "expected `kind | position | moves` (three fields separated by |), found {} field(s)",
                    fields.len()
                )));
            };
            let kind: Kind = kind.parse().map_err(fail)?;
            let position = Position::from_fen(position)
                .map_err(|err| fail(format!("position {position:?}: {err}")))?
                .with_rules(suite_rules());
            if position.ending().is_some() {
                return Err(fail("the game is over in this position".into()));
            }
            let solutions = moves
                .split_whitespace()
                .map(|text| {
                    position
                        .parse_move(text)
                        .map_err(|err| fail(format!("move {text:?}: {err}")))
                })
                .collect::<Result<Vec<Move>, _>>()?;
            if solutions.is_empty() {
                return Err(fail("no solving move".into()));
            }
            tactics.push(Tactic {
                kind,
                position,
                solutions,
            });
        }
        Ok(Suite { tactics })
    }

    /// The positions of `kind`.
    pub fn count(&self, kind: Kind) -> usize {
        self.tactics.iter().filter(|t| t.kind == kind).count()
    }

    /// The same positions as if `ply` plies had been played (the plies
    /// since a push-off capped at `ply`), boards and solving moves
    /// unchanged: how a network's price of a marble depends on how near
    /// the move limit is (docs/history.md). The error names a
    /// ply at which the game would be over.
    pub fn at_ply(&self, ply: u32) -> Result<Suite, String> {
        let limit = suite_rules().max_plies.unwrap_or(u32::MAX);
        if ply >= limit {
            return Err(format!(
                "ply {ply} is at or past the suite's move limit of {limit} plies: the game would be over; give 0 to {}",
                limit - 1
            ));
        }
        let tactics = self
            .tactics
            .iter()
            .map(|tactic| Tactic {
                position: tactic
                    .position
                    .with_ply_counters(ply, tactic.position.plies_since_push_off().min(ply)),
                ..tactic.clone()
            })
            .collect();
        Ok(Suite { tactics })
    }
}

/// The same position with the other side to move, if it is one.
fn with_other_side_to_move(position: &Position) -> Option<Position> {
    let off = [
        position.marbles_off(Color::Black),
        position.marbles_off(Color::White),
    ];
    Position::from_cell_masks(
        [
            position.cell_mask(Color::Black),
            position.cell_mask(Color::White),
        ],
        position.side_to_move().opponent(),
        off,
        position.rules(),
        position.ply(),
        position.plies_since_push_off(),
    )
    .ok()
}

/// Whether either side is one marble from winning.
fn near_the_end(position: &Position) -> bool {
    let target = position.rules().marbles_to_win;
    Color::ALL
        .into_iter()
        .any(|color| position.marbles_off(color) + 1 >= target)
}

/// The kind and solving moves of `position` by the checks of the module
/// docs, or `None` if it is no clear tactic.
pub fn classify(position: &Position) -> Option<Tactic> {
    if position.ending().is_some() || near_the_end(position) {
        return None;
    }
    let moves = position.legal_moves();
    let base = material(position);
    let push_offs: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|&mv| position.is_push_off(mv))
        .collect();
    let tactic = |kind, solutions| {
        Some(Tactic {
            kind,
            position: *position,
            solutions,
        })
    };
    if !push_offs.is_empty() {
        if let Some(solutions) = capture(position, &moves, &push_offs, base) {
            return tactic(Kind::Capture, solutions);
        }
    } else if let Some(solutions) = combination(position, &moves, base) {
        return tactic(Kind::Combination, solutions);
    }
    defence(position, &moves, base).and_then(|solutions| tactic(Kind::Defence, solutions))
}

fn capture(
    position: &Position,
    moves: &[Move],
    push_offs: &[Move],
    base: i32,
) -> Option<Vec<Move>> {
    let values: Vec<i32> = push_offs
        .iter()
        .map(|&mv| move_value(position, mv, CAPTURE_DEPTH))
        .collect();
    let best = *values.iter().max()?;
    if best < base + 1 {
        return None;
    }
    let solutions: Vec<Move> = push_offs
        .iter()
        .zip(&values)
        .filter(|&(_, &value)| value == best)
        .map(|(&mv, _)| mv)
        .collect();
    // The same capture: the same opponent marbles left after each.
    let them = position.side_to_move().opponent();
    let left = |mv: Move| position.play(mv).cell_mask(them);
    if solutions.iter().any(|&mv| left(mv) != left(solutions[0])) {
        return None;
    }
    // No quiet move may do as well.
    let quiet_as_good = moves
        .iter()
        .filter(|mv| !push_offs.contains(mv))
        .any(|&mv| value_at_least(position, mv, CAPTURE_DEPTH, best));
    (!quiet_as_good).then_some(solutions)
}

fn combination(position: &Position, moves: &[Move], base: i32) -> Option<Vec<Move>> {
    let gaining: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|&mv| value_at_least(position, mv, COMBINATION_DEPTH, base + 1))
        .collect();
    if gaining.is_empty() || gaining.len() > 2 * MAX_SOLUTIONS + 8 {
        // Many moves win a marble: a loose position, no puzzle.
        return None;
    }
    let values: Vec<i32> = gaining
        .iter()
        .map(|&mv| move_value(position, mv, COMBINATION_DEPTH))
        .collect();
    let best = *values.iter().max()?;
    let solutions: Vec<Move> = gaining
        .iter()
        .zip(&values)
        .filter(|&(_, &value)| value == best)
        .map(|(&mv, _)| mv)
        .collect();
    if solutions.len() > MAX_SOLUTIONS {
        return None;
    }
    // Every other move is at most level (it does not gain) or one of the
    // gaining moves below the best; its v_3 bounds its v_4 from above.
    let others_bound = gaining
        .iter()
        .zip(&values)
        .filter(|&(_, &value)| value < best)
        .map(|(_, &value)| value)
        .max()
        .unwrap_or(base)
        .max(base);
    let floor = (others_bound + 1).max(base + 1);
    solutions
        .iter()
        .all(|&mv| value_at_least(position, mv, CONFIRM_DEPTH, floor))
        .then_some(solutions)
}

fn defence(position: &Position, moves: &[Move], base: i32) -> Option<Vec<Move>> {
    // A threat: the opponent, were it to move now, could push off.
    let passed = with_other_side_to_move(position)?;
    let threatened = passed
        .legal_moves_unordered()
        .iter()
        .any(|&mv| passed.is_push_off(mv));
    if !threatened {
        return None;
    }
    let values: Vec<i32> = moves
        .iter()
        .map(|&mv| move_value(position, mv, DEFENCE_DEPTH))
        .collect();
    if values.iter().max() != Some(&base) {
        // A gain is possible, or every move loses: no defence to find.
        return None;
    }
    let solutions: Vec<Move> = moves
        .iter()
        .zip(&values)
        .filter(|&(_, &value)| value == base)
        .map(|(&mv, _)| mv)
        .collect();
    if solutions.len() > MAX_SOLUTIONS || solutions.iter().any(|&mv| position.is_push_off(mv)) {
        return None;
    }
    // Over 4 plies each defence holds the material and beats every other
    // move (no exchange elsewhere does as well).
    let floor = solutions
        .iter()
        .map(|&mv| move_value(position, mv, CONFIRM_DEPTH))
        .min()?;
    if floor < base {
        return None;
    }
    let other_as_good = moves
        .iter()
        .filter(|mv| !solutions.contains(mv))
        .any(|&mv| value_at_least(position, mv, CONFIRM_DEPTH, floor));
    (!other_as_good).then_some(solutions)
}

/// How [`generate`] plays the games it takes positions from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateConfig {
    /// Positions wanted of each kind.
    pub per_kind: usize,
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
    /// Give up after this many games even if a kind is short.
    pub max_games: usize,
}

/// The players of the games (one drawn per side and game): classical
/// players of a few strengths, whose mistakes (and the random moves mixed
/// in) leave tactics on the board.
pub const GAME_PLAYERS: [&str; 3] = ["greedy", "alphabeta:depth=1", "alphabeta:depth=2"];
/// The share of moves played at random instead of by the player.
pub const NOISE: f64 = 0.2;
/// Random quiet plies from the layout before the players take over.
pub const OPENING_PLIES: u32 = 4;
/// Positions are taken up to this ply (the material checks stay clear of
/// the move limit).
pub const LAST_PLY: u32 = 160;
/// At most this many positions of each kind from one game, drawn at random
/// among those it has: neighbouring positions of a game are alike.
pub const PER_GAME_AND_KIND: usize = 2;
/// The layouts, one per game in turn.
pub const LAYOUTS: [Layout; 3] = [Layout::Standard, Layout::BelgianDaisy, Layout::GermanDaisy];

/// What [`generate`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    pub suite: Suite,
    /// Games played.
    pub games: usize,
    /// Positions looked at.
    pub positions: usize,
}

/// Plays games and keeps `per_kind` positions of each kind (see the module
/// docs and the constants above), in game order. Depends only on the
/// config's seed and per-kind count, not on the threads: games are played
/// in batches and taken in the order of their number.
pub fn generate(
    config: &GenerateConfig,
    progress: &(dyn Fn(&Generated) + Sync),
) -> Result<Generated, PlayerError> {
    let registry = Position::classical_players();
    let entrants: Vec<Entrant> = GAME_PLAYERS
        .iter()
        .map(|spec| {
            registry
                .prepare_str(spec)
                .map_err(|err| PlayerError::Failed(Box::new(err)))
        })
        .collect::<Result<_, _>>()?;
    let mut out = Generated::default();
    let mut seen = HashSet::new();
    let full = |suite: &Suite| {
        Kind::ALL
            .into_iter()
            .all(|kind| suite.count(kind) >= config.per_kind)
    };
    let batch = config.threads.max(1) * 2;
    while !full(&out.suite) && out.games < config.max_games {
        let first = out.games;
        let count = batch.min(config.max_games - first);
        let next = AtomicUsize::new(0);
        let mut results: Vec<Option<Result<GameFinds, PlayerError>>> =
            (0..count).map(|_| None).collect();
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..config.threads.clamp(1, count))
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            if index >= count {
                                break done;
                            }
                            done.push((index, game_finds(config.seed, first + index, &entrants)));
                        }
                    })
                })
                .collect();
            for worker in workers {
                for (index, finds) in worker.join().expect("a generator thread panicked") {
                    results[index] = Some(finds);
                }
            }
        });
        for finds in results.into_iter().flatten() {
            let finds = finds?;
            out.games += 1;
            out.positions += finds.positions;
            for tactic in finds.tactics {
                if out.suite.count(tactic.kind) < config.per_kind
                    && seen.insert(tactic.position.hash())
                {
                    out.suite.tactics.push(tactic);
                }
            }
        }
        progress(&out);
    }
    Ok(out)
}

#[derive(Clone, Debug)]
struct GameFinds {
    tactics: Vec<Tactic>,
    positions: usize,
}

/// Game `index` of the seed's stream, and the tactics drawn from it.
fn game_finds(seed: u64, index: usize, entrants: &[Entrant]) -> Result<GameFinds, PlayerError> {
    let mut rng =
        ChaCha8Rng::seed_from_u64(crate::splitmix64(seed ^ crate::splitmix64(index as u64)));
    let mut position = Position::start(LAYOUTS[index % LAYOUTS.len()], suite_rules());
    let mut players: Vec<_> = (0..2)
        .map(|_| entrants[rng.random_range(0..entrants.len())].build(rng.random()))
        .collect();
    for player in &mut players {
        player.new_game();
    }
    let mut found: Vec<Vec<Tactic>> = vec![Vec::new(); Kind::ALL.len()];
    let mut positions = 0;
    while position.ending().is_none() && position.ply() < LAST_PLY {
        let legal = position.legal_moves();
        let mv = if position.ply() < OPENING_PLIES {
            let quiet: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|&mv| !position.is_push(mv))
                .collect();
            let choices = if quiet.is_empty() {
                &legal[..]
            } else {
                &quiet[..]
            };
            choices[rng.random_range(0..choices.len())]
        } else {
            positions += 1;
            if let Some(tactic) = classify(&position) {
                let slot = Kind::ALL.iter().position(|&kind| kind == tactic.kind);
                found[slot.expect("every kind is in ALL")].push(tactic);
            }
            if rng.random_bool(NOISE) {
                legal[rng.random_range(0..legal.len())]
            } else {
                let side = position.ply() as usize % 2;
                players[side].choose_move(&position, &SearchLimit::default())?
            }
        };
        for player in &mut players {
            player.observe_move(&position, mv);
        }
        position = position.play(mv);
    }
    let mut tactics = Vec::new();
    for mut of_kind in found {
        // Keep a random few, in game order.
        while of_kind.len() > PER_GAME_AND_KIND {
            of_kind.remove(rng.random_range(0..of_kind.len()));
        }
        tactics.append(&mut of_kind);
    }
    Ok(GameFinds { tactics, positions })
}

/// One kind's result in [`solve`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindResult {
    pub kind: Kind,
    pub positions: usize,
    pub solved: usize,
    pub rate: f64,
    /// The rate's 95 % Wilson interval.
    pub interval: (f64, f64),
}

/// A player's result on a suite.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolveReport {
    pub player: String,
    /// One row per kind present in the suite, then `all` over them (as
    /// `kind: None` in [`SolveReport::total`]).
    pub kinds: Vec<KindResult>,
    pub total: KindTotal,
    /// The same, within each of [`PHASES`].
    pub phases: Vec<PhaseResult>,
    /// The suite's positions the player solved, by index in the suite.
    #[serde(skip)]
    pub solved: Vec<bool>,
}

/// A part of the game by the plies played: `first_ply` to `last_ply`
/// (`None`: to the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Phase {
    pub first_ply: u32,
    pub last_ply: Option<u32>,
}

impl Phase {
    pub fn contains(self, ply: u32) -> bool {
        ply >= self.first_ply && self.last_ply.is_none_or(|last| ply <= last)
    }

    /// `0–39`, or `80+` for the last.
    pub fn name(self) -> String {
        match self.last_ply {
            Some(last) => format!("{}–{last}", self.first_ply),
            None => format!("{}+", self.first_ply),
        }
    }
}

/// The phases a solve rate is also reported in. A trained network prices
/// a marble by how far the game has gone under the move limit, as its own
/// games do: a marble up before ply 40 predicts nothing of the result, one
/// from ply 80 on wins four games in five (docs/history.md).
/// A rate over the whole suite mixes the two; these tell them apart.
pub const PHASES: [Phase; 3] = [
    Phase {
        first_ply: 0,
        last_ply: Some(39),
    },
    Phase {
        first_ply: 40,
        last_ply: Some(79),
    },
    Phase {
        first_ply: 80,
        last_ply: None,
    },
];

/// A player's result on the suite's positions of one [`Phase`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseResult {
    pub phase: Phase,
    /// One row per kind of the suite (with 0 positions where the phase has
    /// none of that kind).
    pub kinds: Vec<KindResult>,
    pub total: KindTotal,
}

/// All kinds together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindTotal {
    pub positions: usize,
    pub solved: usize,
    pub rate: f64,
    pub interval: (f64, f64),
}

/// A rate and its interval as the reports print them: `0.640 [0.584, 0.692]`.
fn rate_text(rate: f64, (lo, hi): (f64, f64)) -> String {
    format!("{rate:.3} [{lo:.3}, {hi:.3}]")
}

fn rate(solved: usize, positions: usize) -> (f64, (f64, f64)) {
    let rate = if positions == 0 {
        0.0
    } else {
        solved as f64 / positions as f64
    };
    (rate, wilson_interval(rate, positions as u32))
}

/// Asks `entrant`'s players for a move in every position of `suite` (a new
/// player for each position, seeded by its place in the suite, so nothing is
/// kept from one to the next), `threads` positions at once; a position is solved when the move is one of its
/// solving moves. `on_done` is called after each position.
pub fn solve(
    entrant: &Entrant,
    suite: &Suite,
    threads: usize,
    on_done: &(dyn Fn() + Sync),
) -> Result<SolveReport, PlayerError> {
    let next = AtomicUsize::new(0);
    let mut solved = vec![false; suite.tactics.len()];
    let outcomes = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, suite.tactics.len().max(1)))
            .map(|_| {
                let next = &next;
                scope.spawn(move || -> Result<Vec<(usize, bool)>, PlayerError> {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(tactic) = suite.tactics.get(index) else {
                            break Ok(done);
                        };
                        // A player of its own for each position, seeded by
                        // it: players that break ties at random (greedy)
                        // then answer the same whichever thread asks.
                        let mut player = entrant.build(index as u64 + 1);
                        player.new_game();
                        let mv = player.choose_move(&tactic.position, &entrant.limit)?;
                        done.push((index, tactic.solutions.contains(&mv)));
                        on_done();
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a solving thread panicked"))
            .collect::<Vec<_>>()
    });
    for outcome in outcomes {
        for (index, ok) in outcome? {
            solved[index] = ok;
        }
    }
    Ok(SolveReport::of(entrant.name.clone(), suite, solved))
}

/// The rows of each kind of `suite` and their total, over the positions
/// `counted` keeps.
fn tally(
    suite: &Suite,
    solved: &[bool],
    counted: impl Fn(&Tactic) -> bool,
) -> (Vec<KindResult>, KindTotal) {
    let kinds: Vec<KindResult> = Kind::ALL
        .into_iter()
        .filter(|&kind| suite.count(kind) > 0)
        .map(|kind| {
            let (positions, count) = suite
                .tactics
                .iter()
                .zip(solved)
                .filter(|(tactic, _)| tactic.kind == kind && counted(tactic))
                .fold((0, 0), |(positions, count), (_, &ok)| {
                    (positions + 1, count + usize::from(ok))
                });
            let (rate, interval) = rate(count, positions);
            KindResult {
                kind,
                positions,
                solved: count,
                rate,
                interval,
            }
        })
        .collect();
    let positions = kinds.iter().map(|kind| kind.positions).sum();
    let count = kinds.iter().map(|kind| kind.solved).sum();
    let (all_rate, interval) = rate(count, positions);
    let total = KindTotal {
        positions,
        solved: count,
        rate: all_rate,
        interval,
    };
    (kinds, total)
}

impl SolveReport {
    /// The report of `player`, which solved the positions of `suite` marked
    /// in `solved` (one flag per position, in the suite's order).
    pub fn of(player: String, suite: &Suite, solved: Vec<bool>) -> SolveReport {
        let (kinds, total) = tally(suite, &solved, |_| true);
        let phases = PHASES
            .into_iter()
            .map(|phase| {
                let (kinds, total) = tally(suite, &solved, |tactic| {
                    phase.contains(tactic.position.ply())
                });
                PhaseResult {
                    phase,
                    kinds,
                    total,
                }
            })
            .collect();
        SolveReport {
            player,
            kinds,
            total,
            phases,
            solved,
        }
    }

    /// The report as Markdown: a table kind | positions | solved | rate
    /// [95 %], then one of the same rates by phase of the game.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "player: {}\n\n| kind | positions | solved | rate [95 %] |\n|---|---:|---:|---|\n",
            self.player
        );
        let row = |name: &str, positions: usize, solved: usize, rate: f64, interval| {
            format!(
                "| {name} | {positions} | {solved} | {} |\n",
                rate_text(rate, interval)
            )
        };
        for kind in &self.kinds {
            out += &row(
                kind.kind.name(),
                kind.positions,
                kind.solved,
                kind.rate,
                kind.interval,
            );
        }
        let total = &self.total;
        out += &row(
            "all",
            total.positions,
            total.solved,
            total.rate,
            total.interval,
        );
        out += "\nby the plies played (solved/positions, rate [95 %]):\n\n| plies |";
        for kind in &self.kinds {
            out += &format!(" {} |", kind.kind.name());
        }
        out += " all |\n|---|";
        out += &"---|".repeat(self.kinds.len() + 1);
        out += "\n";
        let cell = |positions: usize, solved: usize, rate: f64, interval| {
            if positions == 0 {
                " – |".to_string()
            } else {
                format!(" {solved}/{positions}, {} |", rate_text(rate, interval))
            }
        };
        for phase in &self.phases {
            out += &format!("| {} |", phase.phase.name());
            for kind in &phase.kinds {
                out += &cell(kind.positions, kind.solved, kind.rate, kind.interval);
            }
            let total = &phase.total;
            out += &cell(total.positions, total.solved, total.rate, total.interval);
            out += "\n";
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena_board::ArenaBoard;

    /// The definitions of the module docs, checked from the exact value of
    /// every move at each depth (none of `classify`'s short cuts).
    fn meets_its_definition(tactic: &Tactic) {
        let position = &tactic.position;
        let base = material(position);
        let moves = position.legal_moves();
        let values = |depth| -> Vec<i32> {
            moves
                .iter()
                .map(|&mv| move_value(position, mv, depth))
                .collect()
        };
        let v4 = values(CONFIRM_DEPTH);
        let solving = |mv: &Move| tactic.solutions.contains(mv);
        let min_solving_v4 = moves
            .iter()
            .zip(&v4)
            .filter(|(mv, _)| solving(mv))
            .map(|(_, &v)| v)
            .min()
            .unwrap();
        let max_other_v4 = moves
            .iter()
            .zip(&v4)
            .filter(|(mv, _)| !solving(mv))
            .map(|(_, &v)| v)
            .max()
            .unwrap_or(-WIN);
        let set_of_best = |values: &[i32], best: i32| -> Vec<Move> {
            moves
                .iter()
                .zip(values)
                .filter(|&(_, &v)| v == best)
                .map(|(&mv, _)| mv)
                .collect()
        };
        let line = tactic.line();
        match tactic.kind {
            Kind::Capture => {
                let best = *v4.iter().max().unwrap();
                assert!(best > base, "{line}");
                assert_eq!(set_of_best(&v4, best), tactic.solutions, "{line}");
                assert!(
                    tactic.solutions.iter().all(|&mv| position.is_push_off(mv)),
                    "{line}"
                );
            }
            Kind::Combination => {
                assert!(moves.iter().all(|&mv| !position.is_push_off(mv)), "{line}");
                let v3 = values(COMBINATION_DEPTH);
                let best = *v3.iter().max().unwrap();
                assert!(best > base, "{line}");
                assert_eq!(set_of_best(&v3, best), tactic.solutions, "{line}");
                assert!(tactic.solutions.len() <= MAX_SOLUTIONS, "{line}");
                assert!(min_solving_v4 > base.max(max_other_v4), "{line}");
            }
            Kind::Defence => {
                let v2 = values(DEFENCE_DEPTH);
                assert_eq!(v2.iter().max(), Some(&base), "{line}");
                assert_eq!(set_of_best(&v2, base), tactic.solutions, "{line}");
                assert!(tactic.solutions.len() <= MAX_SOLUTIONS, "{line}");
                assert!(
                    min_solving_v4 >= base && min_solving_v4 > max_other_v4,
                    "{line}"
                );
            }
        }
    }

    fn position(text: &str) -> Position {
        Position::from_fen(text).unwrap().with_rules(suite_rules())
    }

    #[test]
    fn a_free_marble_is_a_capture_and_a_threat_is_a_defence() {
        // White to move pushes Black's A1... the black marble on E1 is
        // pushed off by E3-E2 (two white against one black).
        let capture = position("5/6/7/8/bww6/8/7/6/5 w 0 0");
        let tactic = classify(&capture).expect("a capture");
        assert_eq!(tactic.kind, Kind::Capture);
        for &mv in &tactic.solutions {
            assert!(capture.is_push_off(mv), "{mv}");
        }
        // The same board with Black to move: Black must move its marble away.
        let defence = position("5/6/7/8/bww6/8/7/6/5 b 0 0");
        let tactic = classify(&defence).expect("a defence");
        assert_eq!(tactic.kind, Kind::Defence);
        for &mv in &tactic.solutions {
            let after = defence.play(mv);
            assert!(
                after
                    .legal_moves()
                    .iter()
                    .all(|&reply| !after.is_push_off(reply)),
                "{mv}"
            );
        }
        // Nothing to gain or lose: no tactic.
        assert_eq!(
            classify(&Position::start(Layout::BelgianDaisy, suite_rules())),
            None
        );
    }

    #[test]
    fn a_suite_reads_back_what_it_wrote_and_names_bad_lines() {
        let capture = position("5/6/7/8/bww6/8/7/6/5 w 0 0");
        let tactic = classify(&capture).unwrap();
        let text = format!("# a comment\n\n{}\n", tactic.line());
        let suite = Suite::parse(&text).unwrap();
        assert_eq!(suite.tactics, vec![tactic.clone()]);
        for (bad, expected) in [
            ("capture | 5/6/7/8/bww6/8/7/6/5 w 0 0", "three fields"),
            ("tactic | 5/6/7/8/bww6/8/7/6/5 w 0 0 | E3E2", "unknown kind"),
            ("capture | 5/6/7/8/bww6/8/7/6 w 0 0 | E3E2", "position"),
            (
                "capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 | I9I8",
                "move \"I9I8\"",
            ),
            ("capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 |", "no solving move"),
        ] {
            let err = Suite::parse(&format!("# header\n{bad}\n")).unwrap_err();
            assert_eq!(err.line, 2, "{bad}");
            assert!(err.to_string().contains(expected), "{bad}: {err}");
        }
    }

    #[test]
    fn generation_finds_every_kind_and_is_reproducible() {
        let config = GenerateConfig {
            per_kind: 2,
            seed: 7,
            threads: 2,
            max_games: 200,
        };
        let generated = generate(&config, &|_| {}).unwrap();
        for kind in Kind::ALL {
            assert_eq!(generated.suite.count(kind), 2, "{kind}");
        }
        // Every label is what the checks say of its position, and what the
        // module docs define from every move's exact values.
        for tactic in &generated.suite.tactics {
            assert_eq!(classify(&tactic.position).as_ref(), Some(tactic));
            meets_its_definition(tactic);
        }
        let again = generate(
            &GenerateConfig {
                threads: 1,
                ..config
            },
            &|_| {},
        )
        .unwrap();
        assert_eq!(again, generated);
    }

    #[test]
    fn the_shipped_suite_is_what_the_checks_say() {
        let suite = Suite::parse(SHIPPED_SUITE).unwrap();
        for kind in Kind::ALL {
            assert!(suite.count(kind) >= 100, "{kind}: {}", suite.count(kind));
        }
        for (index, tactic) in suite.tactics.iter().enumerate() {
            assert_eq!(
                classify(&tactic.position).as_ref(),
                Some(tactic),
                "{}",
                tactic.line()
            );
            // Every move's exact values at every depth cost about 20 times
            // the classification: a sample of each kind is enough to catch
            // a short cut that goes wrong.
            if index % 10 == 0 {
                meets_its_definition(tactic);
            }
        }
    }

    #[test]
    fn a_suite_moved_to_another_ply_keeps_its_boards_and_refuses_the_limit() {
        let suite = Suite::parse(
            "capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 120 100 | E3E2\n\
             capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 | E3E2",
        )
        .unwrap();
        let moved = suite.at_ply(50).unwrap();
        let counters: Vec<(u32, u32)> = moved
            .tactics
            .iter()
            .map(|t| (t.position.ply(), t.position.plies_since_push_off()))
            .collect();
        assert_eq!(counters, [(50, 50), (50, 0)]);
        for (before, after) in suite.tactics.iter().zip(&moved.tactics) {
            assert_eq!(
                before.position.with_ply_counters(0, 0),
                after.position.with_ply_counters(0, 0)
            );
            assert_eq!(before.solutions, after.solutions);
            assert_eq!(after.position.rules(), suite_rules());
        }
        assert_eq!(suite.at_ply(199).unwrap().tactics[0].position.ply(), 199);
        let err = suite.at_ply(200).unwrap_err();
        assert!(err.contains("ply 200") && err.contains("0 to 199"), "{err}");
    }

    #[test]
    fn the_report_counts_each_phase_of_the_game_apart() {
        let suite = Suite::parse(
            "capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 | E3E2\n\
             capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 39 5 | E3E2\n\
             capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 40 5 | E3E2\n\
             capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 85 5 | E3E2\n\
             defence | 5/6/7/8/bww6/8/7/6/5 b 0 0 150 5 | E1D1",
        )
        .unwrap();
        let report = SolveReport::of("p".into(), &suite, vec![true, false, true, true, false]);
        let of = |phase: usize| {
            let phase = &report.phases[phase];
            let kinds: Vec<(usize, usize)> = phase
                .kinds
                .iter()
                .map(|kind| (kind.solved, kind.positions))
                .collect();
            (kinds, phase.total.solved, phase.total.positions)
        };
        // Plies 0 and 39 in the first phase, 40 in the second, 85 and 150 in
        // the last; both kinds listed in every phase.
        assert_eq!(of(0), (vec![(1, 2), (0, 0)], 1, 2));
        assert_eq!(of(1), (vec![(1, 1), (0, 0)], 1, 1));
        assert_eq!(of(2), (vec![(1, 1), (0, 1)], 1, 2));
        assert_eq!((report.total.solved, report.total.positions), (3, 5));
        let markdown = report.markdown();
        assert!(
            markdown.contains("| plies | capture | defence | all |"),
            "{markdown}"
        );
        assert!(markdown.contains("| 0–39 | 1/2, 0.500 ["), "{markdown}");
        assert!(markdown.contains("| 40–79 | 1/1, 1.000 ["), "{markdown}");
        assert!(markdown.contains("[0.207, 1.000] | – | 1/1,"), "{markdown}");
        assert!(markdown.contains("| 80+ | 1/1, 1.000 ["), "{markdown}");
        assert!(markdown.contains("| 0/1, 0.000 ["), "{markdown}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["phases"][2]["phase"]["first_ply"], 80);
        assert!(json["phases"][2]["phase"]["last_ply"].is_null());
        assert_eq!(json["phases"][2]["kinds"][1]["positions"], 1);
    }

    #[test]
    fn solving_counts_the_moves_in_the_solving_sets() {
        let suite = Suite::parse(
            "capture | 5/6/7/8/bww6/8/7/6/5 w 0 0 | E3E2\n\
             defence | 5/6/7/8/bww6/8/7/6/5 b 0 0 | E1D1",
        );
        let suite = suite.unwrap();
        let registry = Position::classical_players();
        let report = solve(
            &registry.prepare_str("alphabeta:depth=2").unwrap(),
            &suite,
            2,
            &|| {},
        )
        .unwrap();
        assert_eq!(report.total.positions, 2);
        assert_eq!(report.kinds.len(), 2);
        assert_eq!(report.solved.len(), 2);
        // The capture is taken by a depth-2 search.
        assert!(report.solved[0]);
        let markdown = report.markdown();
        assert!(
            markdown.contains("| capture | 1 | 1 | 1.000 ["),
            "{markdown}"
        );
        assert!(markdown.contains("| all | 2 |"), "{markdown}");

        // Greedy breaks ties at random: the answers still do not depend on
        // which thread asks.
        let shipped = Suite {
            tactics: Suite::parse(SHIPPED_SUITE)
                .unwrap()
                .tactics
                .into_iter()
                .step_by(10)
                .collect(),
        };
        let greedy = registry.prepare_str("greedy").unwrap();
        let one = solve(&greedy, &shipped, 1, &|| {}).unwrap();
        let three = solve(&greedy, &shipped, 3, &|| {}).unwrap();
        assert_eq!(one.solved, three.solved);
    }
}
