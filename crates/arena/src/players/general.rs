//! The classical players of the general game (variants, 3–6 players):
//! `random`, `greedy` and a paranoid alpha-beta, with their registry.
//! Matches of the general game are the matches of [`crate::arena`].
//!
//! **Paranoid alpha-beta** (Sturtevant and Korf): the player to move
//! assumes every other side plays against it, which turns the game into a
//! two-sided one that alpha-beta can prune (max^n cannot prune beyond the
//! immediate level; paranoid reaches deeper in the same time). With two
//! sides it is plain alpha-beta. Its search is the workspace's one
//! alpha-beta (`sumito_engine::alphabeta`) over `Paranoid`.
//!
//! **The evaluation** knows every variant: marbles pushed off by each side
//! (against its target), own marbles next to the edge or a hole (where a
//! push sends them off), distance to the centre, and adjacent pairs of own
//! marbles (obstacles and neutral marbles are neither). From one side's
//! point of view the other sides count as one: their average in free-for-all
//! games, so that an evaluation of 3–6 sides stays on the scale of two.
//!
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_engine::Cell;
use sumito_engine::Outcome;
use sumito_engine::alphabeta::{self, GameTree, Node, Visit};
use sumito_engine::general::{CellContent, GeneralMove, GeneralPosition, MoveKind};

use crate::player::{
    Entrant, Player, PlayerError, PlayerFactory, PlayerRegistry, SearchLimit, tighter_time,
};
use crate::spec::{PlayerSpec, SpecError};

/// The general game's classical kinds: `random`, `greedy` and `alphabeta`
/// (paranoid; `depth=N`, or `time=DURATION` for iterative deepening to the
/// time). Its registry: `GeneralPosition::classical_players` ([`crate::arena_board::ArenaBoard`]).
pub fn classical_kinds() -> Vec<Box<dyn PlayerFactory<GeneralPosition>>> {
    vec![
        Box::new(RANDOM_SEATS),
        Box::new(GREEDY_SEATS),
        Box::new(ParanoidSeats),
    ]
}

/// One player of the general game's classical kinds by its spec (see
/// [`classical_kinds`]), with a seed.
pub fn seat_player(spec: &str, seed: u64) -> Result<Box<dyn Player<GeneralPosition>>, SpecError> {
    Ok(PlayerRegistry::of(classical_kinds())
        .prepare_str(spec)?
        .build(seed))
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
    if let Some(ending) = position.ending() {
        return match ending.outcome {
            Outcome::Win(winner) if winner == side => WIN,
            Outcome::Win(_) => -WIN,
            Outcome::Draw(mask) if mask >> side & 1 == 1 => 0.0,
            Outcome::Draw(_) => -WIN / 2.0,
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

/// The general game as the paranoid alpha-beta searches it (see
/// `sumito_engine::alphabeta`): the seats of the root's side score
/// [`evaluate`] for it, every other seat the same value negated (they play
/// against it together).
struct Paranoid<'a> {
    root_side: usize,
    deadline: &'a Deadline<'a>,
}

impl Paranoid<'_> {
    /// Whether the seat to move in `position` plays for the root's side.
    fn maximizing(&self, position: &GeneralPosition) -> bool {
        position.side_to_move() == self.root_side
    }
}

impl GameTree for Paranoid<'_> {
    type Position = GeneralPosition;
    type Move = GeneralMove;
    type Score = f64;
    type Children = std::vec::IntoIter<(GeneralMove, GeneralPosition)>;

    fn enter(
        &mut self,
        position: &GeneralPosition,
        visit: Visit<f64>,
    ) -> Node<f64, Self::Children> {
        if visit.depth <= 0 || position.is_game_over() {
            let value = evaluate(position, self.root_side);
            return Node::Known(if self.maximizing(position) {
                value
            } else {
                -value
            });
        }
        if self.deadline.passed() {
            return Node::Stopped;
        }
        Node::Search {
            children: ordered(position).into_iter(),
            floor: f64::NEG_INFINITY,
        }
    }

    fn next_child(
        &mut self,
        _position: &GeneralPosition,
        children: &mut Self::Children,
    ) -> Option<(GeneralMove, GeneralPosition)> {
        children.next()
    }

    fn opposed(&self, position: &GeneralPosition, child: &GeneralPosition) -> bool {
        self.maximizing(position) != self.maximizing(child)
    }
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
        let mut tree = Paranoid {
            root_side: side,
            deadline: &deadline,
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
                let below = depth as i32 - 1;
                let Some(value) = alphabeta::search_child(
                    &mut tree,
                    position,
                    child,
                    below,
                    best,
                    f64::INFINITY,
                    1,
                ) else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};

    fn rules_for(layout: GeneralLayout, max_plies: u32) -> GeneralRules {
        let mut rules = GeneralRules::plain(Seating::new(layout.seats(), false).unwrap());
        rules.max_plies = Some(max_plies);
        rules
    }

    /// A plain paranoid minimax of the same evaluation, no pruning.
    fn minimax(position: &GeneralPosition, root_side: usize, depth: u32) -> f64 {
        if depth == 0 || position.is_game_over() {
            return evaluate(position, root_side);
        }
        let values = position
            .legal_moves()
            .into_iter()
            .map(|mv| minimax(&position.play(mv), root_side, depth - 1));
        if position.side_to_move() == root_side {
            values.fold(f64::NEG_INFINITY, f64::max)
        } else {
            values.fold(f64::INFINITY, f64::min)
        }
    }

    #[test]
    fn the_paranoid_choice_is_the_first_best_move_of_the_plain_minimax() {
        let three = rules_for(GeneralLayout::from_name("three-player").unwrap(), 200);
        let texts = [
            "r4/6/7/8/5bbbw/8/7/6/5 b 0,0,0",
            "r4/6/7/8/4bbbwr/8/7/rr4/wbbrr b 0,0,0",
            "r4/6/7/8/bwww5/8/7/6/bb3 b 0,0,0",
            "r4/6/7/3rr3/bwww1b3/8/7/6/5 w 0,0,0",
        ];
        let mut positions: Vec<GeneralPosition> = texts
            .iter()
            .map(|text| GeneralPosition::from_text(text, Some(&three)).unwrap())
            .collect();
        let two = GeneralRules::plain(Seating::TWO)
            .with_cells(&[], &["E5".parse().unwrap()])
            .unwrap();
        positions
            .push(GeneralPosition::from_text("5/6/7/8/1bbwo4/8/7/6/4w b 0 0", Some(&two)).unwrap());
        for position in &positions {
            let side = position.side_to_move();
            for depth in 1..=3 {
                let values: Vec<(GeneralMove, f64)> = ordered(position)
                    .into_iter()
                    .map(|(mv, child)| (mv, minimax(&child, side, depth - 1)))
                    .collect();
                let best = values
                    .iter()
                    .map(|&(_, v)| v)
                    .fold(f64::NEG_INFINITY, f64::max);
                let first_best = values.iter().find(|&&(_, v)| v == best).unwrap().0;
                let chosen = seat_player(&format!("alphabeta:depth={depth}"), 1)
                    .unwrap()
                    .choose_move(position, &SearchLimit::default())
                    .unwrap();
                assert_eq!(chosen, first_best, "{position} at depth {depth}");
            }
        }
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
    fn paranoid_alphabeta_takes_a_push_off() {
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
        assert!(seat_player("alphabeta:depth=2,time=1s", 0).is_err());
        assert!(seat_player("grandmaster", 0).is_err());
    }
}
