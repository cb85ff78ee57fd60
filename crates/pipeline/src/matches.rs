//! Evaluation matches: many games at once between network players (each a
//! search per game, batched across games through the MCTS multi-game driver)
//! and fixed players (arena players, moved in parallel). Every opening is a
//! start layout plus a few random plies, and is played with both colours.

use std::ops::ControlFlow;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use sumito_engine::{Color, Layout, Move, Outcome, Position, Rules};
use sumito_game::AbaloneGame;
use sumito_mcts::{Evaluator, MultiGameDriver, Search, SearchConfig, SearchError};

use sumito_arena::player::{Entrant, Player};

use crate::ratings::EvaluationGame;

/// One side of evaluation games.
pub enum Contestant<'a> {
    /// A network with search; `name` appears in records and the Elo table.
    Net {
        name: String,
        evaluator: &'a (dyn Evaluator<AbaloneGame> + 'a),
        search: SearchConfig,
    },
    /// A fixed arena player (random, greedy, alpha-beta).
    Fixed(Entrant),
}

impl std::fmt::Debug for Contestant<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Contestant<'_> {
    pub fn name(&self) -> &str {
        match self {
            Contestant::Net { name, .. } => name,
            Contestant::Fixed(entrant) => &entrant.name,
        }
    }
}

/// One game to play: contestants by index, and its opening.
#[derive(Debug, Clone)]
pub struct Pairing {
    pub black: usize,
    pub white: usize,
    pub layout: Layout,
    pub random_plies: u32,
    pub seed: u64,
}

/// `games` games between contestants `a` and `b`, over `layouts` in turn,
/// each opening played twice with the colours swapped.
pub fn paired_openings(
    a: usize,
    b: usize,
    games: u32,
    layouts: &[Layout],
    random_plies: u32,
    seed: u64,
) -> Vec<Pairing> {
    (0..games)
        .map(|game| {
            let opening = game / 2;
            let layout = layouts[opening as usize % layouts.len()];
            let (black, white) = if game % 2 == 0 { (a, b) } else { (b, a) };
            Pairing {
                black,
                white,
                layout,
                random_plies,
                seed: seed.wrapping_add(u64::from(opening)),
            }
        })
        .collect()
}

struct LiveGame {
    pairing: Pairing,
    opening: String,
    position: Position,
    /// The search of each colour's player when it is a network.
    searches: [Option<Search<AbaloneGame>>; 2],
    /// Each colour's player when it is a fixed one.
    players: [Option<Box<dyn Player>>; 2],
    moves: Vec<String>,
}

/// Why a match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error("player {player}: {cause}")]
    Player {
        player: String,
        cause: sumito_arena::player::PlayerError,
    },
    #[error("stopped on request before the match ended")]
    Stopped,
}

/// Plays `pairings` with at most `parallel` games at once. `on_game` sees
/// each finished game; `Break` stops starting new games (those under way
/// still finish and are returned). `stop()` is asked before every move of
/// the games under way: once it says yes the match ends at once with
/// [`MatchError::Stopped`] (a stopped match is played again, not half
/// counted).
pub fn play_match(
    contestants: &[Contestant<'_>],
    pairings: &[Pairing],
    rules: Rules,
    parallel: usize,
    stop: &dyn Fn() -> bool,
    mut on_game: impl FnMut(&EvaluationGame) -> ControlFlow<()>,
) -> Result<Vec<EvaluationGame>, MatchError> {
    let mut queue = pairings.iter();
    let mut live: Vec<LiveGame> = Vec::new();
    let mut finished = Vec::new();
    let mut stopped = false;
    loop {
        while !stopped && live.len() < parallel.max(1) {
            let Some(pairing) = queue.next() else { break };
            live.push(start_game(contestants, pairing, rules)?);
        }
        if live.is_empty() {
            break;
        }
        if stop() {
            return Err(MatchError::Stopped);
        }
        let mut chosen: Vec<Option<Move>> = vec![None; live.len()];
        for (index, contestant) in contestants.iter().enumerate() {
            let Contestant::Net { evaluator, .. } = contestant else {
                continue;
            };
            let movers: Vec<usize> = (0..live.len())
                .filter(|&g| mover(&live[g]) == index)
                .collect();
            if movers.is_empty() {
                continue;
            }
            let mut driver = MultiGameDriver::new();
            for &g in &movers {
                let side = live[g].position.side_to_move().index();
                driver.push(
                    live[g].searches[side]
                        .take()
                        .expect("a network player has a search"),
                );
            }
            let results = driver.search_all(*evaluator)?;
            for ((&g, search), result) in movers.iter().zip(driver.into_searches()).zip(results) {
                let side = live[g].position.side_to_move().index();
                live[g].searches[side] = Some(search);
                let action = result.expect("the game is not over").action;
                chosen[g] = Some(Move::from_action(action).expect("searches play legal actions"));
            }
        }
        let fixed: Vec<(usize, Result<Move, MatchError>)> = live
            .par_iter_mut()
            .enumerate()
            .filter_map(|(g, game)| {
                let Contestant::Fixed(entrant) = &contestants[mover(game)] else {
                    return None;
                };
                let side = game.position.side_to_move().index();
                let player = game.players[side]
                    .as_mut()
                    .expect("a fixed player has a player");
                let chosen = player
                    .choose_move(&game.position, &entrant.limit)
                    .map_err(|source| MatchError::Player {
                        player: entrant.name.clone(),
                        cause: source,
                    });
                Some((g, chosen))
            })
            .collect();
        for (g, mv) in fixed {
            chosen[g] = Some(mv?);
        }
        let mut index = 0;
        while index < live.len() {
            let mv = chosen[index].expect("every live game has a mover");
            let game = &mut live[index];
            if !game.position.is_legal(mv) {
                let player = contestants[mover(game)].name().to_owned();
                let problem = format!("chose the illegal move {mv} in {}", game.position);
                return Err(MatchError::Player {
                    player,
                    cause: sumito_arena::player::PlayerError::Failed(problem.into()),
                });
            }
            game.moves.push(mv.to_string());
            for player in game.players.iter_mut().flatten() {
                player.observe_move(&game.position, mv);
            }
            game.position = game.position.play(mv);
            for search in game.searches.iter_mut().flatten() {
                search.advance(mv.action())?;
            }
            if let Some((outcome, reason)) = game.position.outcome() {
                let game = live.swap_remove(index);
                chosen.swap_remove(index);
                let record = EvaluationGame {
                    black: contestants[game.pairing.black].name().to_owned(),
                    white: contestants[game.pairing.white].name().to_owned(),
                    winner: match outcome {
                        Outcome::Win(Color::Black) => "black".into(),
                        Outcome::Win(Color::White) => "white".into(),
                        Outcome::Draw => "draw".into(),
                    },
                    opening: game.opening,
                    plies: game.moves.len() as u32,
                    end: reason.to_string(),
                    moves: game.moves.join(" "),
                };
                if on_game(&record).is_break() {
                    stopped = true;
                }
                finished.push(record);
            } else {
                index += 1;
            }
        }
    }
    Ok(finished)
}

fn mover(game: &LiveGame) -> usize {
    match game.position.side_to_move() {
        Color::Black => game.pairing.black,
        Color::White => game.pairing.white,
    }
}

fn start_game(
    contestants: &[Contestant<'_>],
    pairing: &Pairing,
    rules: Rules,
) -> Result<LiveGame, MatchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(pairing.seed);
    let mut position = Position::start(pairing.layout, rules);
    let mut opening_moves = Vec::new();
    for _ in 0..pairing.random_plies {
        let moves = position.legal_moves();
        if moves.is_empty() || position.outcome().is_some() {
            break;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        opening_moves.push(mv.to_string());
        position = position.play(mv);
    }
    let mut opening = pairing.layout.name();
    if !opening_moves.is_empty() {
        opening = format!("{opening} {}", opening_moves.join(" "));
    }
    let (mut searches, mut players) = ([None, None], [None, None]);
    for (side, contestant) in [pairing.black, pairing.white].into_iter().enumerate() {
        match &contestants[contestant] {
            Contestant::Net { search, .. } => {
                searches[side] = Some(Search::new(
                    AbaloneGame(position),
                    search.clone(),
                    rng.random(),
                )?);
            }
            Contestant::Fixed(entrant) => {
                let mut player = entrant.build(rng.random());
                player.new_game();
                players[side] = Some(player);
            }
        }
    }
    Ok(LiveGame {
        pairing: pairing.clone(),
        opening,
        position,
        searches,
        players,
        moves: Vec::new(),
    })
}
