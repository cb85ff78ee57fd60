//! Evaluation games, for either game ([`Board`]): many games at once between
//! network players (a search per side of each game, the moves of every game
//! where one network is to move searched together through the MCTS
//! multi-game driver, so its positions reach the network in one batch) and
//! fixed players (arena players, moved in parallel). Every opening is a start
//! position plus a few random plies, played once with the candidate on each
//! side.

use std::ops::ControlFlow;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use sumito_arena::player::{Entrant, Player, PlayerError};
use sumito_game::Board;
use sumito_mcts::{Evaluator, MultiGameDriver, Search, SearchConfig, SearchError};

/// One player of evaluation games.
pub enum Contestant<'a, B: Board> {
    /// A network with search; `name` appears in records and the Elo table.
    Net {
        name: String,
        evaluator: &'a (dyn Evaluator<B::Searched> + 'a),
        search: SearchConfig,
    },
    /// A fixed player (random, greedy, alpha-beta).
    Fixed(Entrant<B>),
}

impl<B: Board> std::fmt::Debug for Contestant<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl<B: Board> Contestant<'_, B> {
    pub fn name(&self) -> &str {
        match self {
            Contestant::Net { name, .. } => name,
            Contestant::Fixed(fixed) => &fixed.name,
        }
    }
}

/// A start position of evaluation games and its name in records.
#[derive(Debug, Clone)]
pub struct NamedStart<B> {
    pub name: String,
    pub position: B,
}

/// One game to play: the contestant of each side (by index), and its
/// opening.
#[derive(Debug, Clone)]
pub struct Pairing<B> {
    pub sides: Vec<usize>,
    pub start: NamedStart<B>,
    pub random_plies: u32,
    pub seed: u64,
}

/// `games` games between contestant `candidate`, on one side of each, and
/// contestant `opponent` on every other side: each opening (a start of
/// `starts` in turn, then `random_plies` random plies) is played `sides`
/// times in a row, the candidate on each side once (with two sides: each
/// opening twice, colours swapped).
pub fn rotated_openings<B: Clone>(
    candidate: usize,
    opponent: usize,
    sides: usize,
    games: u32,
    starts: &[NamedStart<B>],
    random_plies: u32,
    seed: u64,
) -> Vec<Pairing<B>> {
    let sides = sides.max(1);
    (0..games as usize)
        .map(|game| {
            let opening = game / sides;
            let own = game % sides;
            Pairing {
                sides: (0..sides)
                    .map(|side| if side == own { candidate } else { opponent })
                    .collect(),
                start: starts[opening % starts.len()].clone(),
                random_plies,
                seed: seed.wrapping_add(opening as u64),
            }
        })
        .collect()
}

/// A finished evaluation game.
#[derive(Debug, Clone)]
pub struct MatchGame<B: Board> {
    /// The contestant of each side.
    pub sides: Vec<usize>,
    /// The start's name and the random opening's moves.
    pub opening: String,
    /// The moves after the opening.
    pub moves: Vec<B::Move>,
    /// The last position (over).
    pub end: B,
}

struct LiveGame<B: Board> {
    pairing: Pairing<B>,
    opening: String,
    position: B,
    /// The search of each side's player when it is a network.
    searches: Vec<Option<Search<B::Searched>>>,
    /// Each side's player when it is a fixed one.
    players: Vec<Option<Box<dyn Player<B>>>>,
    moves: Vec<B::Move>,
}

impl<B: Board> LiveGame<B> {
    /// The contestant to move.
    fn mover(&self) -> usize {
        self.pairing.sides[self.position.mover_side()]
    }
}

/// Why a match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error("player {player}: {cause}")]
    Player { player: String, cause: PlayerError },
    #[error("stopped on request before the match ended")]
    Stopped,
}

/// Plays `pairings` with at most `parallel` games at once. `on_game` sees
/// each finished game; `Break` stops starting new games (those under way
/// still finish and are returned). `stop()` is asked before every move of
/// the games under way: once it says yes the match ends at once with
/// [`MatchError::Stopped`] (a stopped match is played again, not half
/// counted).
pub fn play_evaluation_games<B: Board>(
    contestants: &[Contestant<'_, B>],
    pairings: &[Pairing<B>],
    parallel: usize,
    stop: &dyn Fn() -> bool,
    mut on_game: impl FnMut(&MatchGame<B>) -> ControlFlow<()>,
) -> Result<Vec<MatchGame<B>>, MatchError> {
    let mut queue = pairings.iter();
    let mut live: Vec<LiveGame<B>> = Vec::new();
    let mut finished = Vec::new();
    let mut stopped = false;
    loop {
        while !stopped && live.len() < parallel.max(1) {
            let Some(pairing) = queue.next() else { break };
            live.push(start_game(contestants, pairing)?);
        }
        if live.is_empty() {
            break;
        }
        if stop() {
            return Err(MatchError::Stopped);
        }
        let mut chosen: Vec<Option<B::Move>> = vec![None; live.len()];
        for (index, contestant) in contestants.iter().enumerate() {
            let Contestant::Net { evaluator, .. } = contestant else {
                continue;
            };
            let movers: Vec<usize> = (0..live.len())
                .filter(|&g| live[g].mover() == index)
                .collect();
            if movers.is_empty() {
                continue;
            }
            let mut driver = MultiGameDriver::new();
            for &g in &movers {
                let side = live[g].position.mover_side();
                driver.push(
                    live[g].searches[side]
                        .take()
                        .expect("a network player has a search"),
                );
            }
            let results = driver.search_all(*evaluator)?;
            for ((&g, search), result) in movers.iter().zip(driver.into_searches()).zip(results) {
                let game = &mut live[g];
                let side = game.position.mover_side();
                game.searches[side] = Some(search);
                let action = result.expect("the game is not over").action;
                chosen[g] = Some(
                    game.position
                        .move_of(action)
                        .expect("searches play legal actions"),
                );
            }
        }
        let fixed: Vec<(usize, Result<B::Move, MatchError>)> = live
            .par_iter_mut()
            .enumerate()
            .filter_map(|(g, game)| {
                let Contestant::Fixed(fixed) = &contestants[game.mover()] else {
                    return None;
                };
                let side = game.position.mover_side();
                let player = game.players[side]
                    .as_mut()
                    .expect("a fixed player has a player");
                let chosen = player
                    .choose_move(&game.position, &fixed.limit)
                    .map_err(|cause| MatchError::Player {
                        player: fixed.name.clone(),
                        cause,
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
                let player = contestants[game.mover()].name().to_owned();
                let problem = format!(
                    "chose the illegal move {} in {}",
                    B::move_text(mv),
                    game.position
                );
                return Err(MatchError::Player {
                    player,
                    cause: PlayerError::Failed(problem.into()),
                });
            }
            game.moves.push(mv);
            for player in game.players.iter_mut().flatten() {
                player.observe_move(&game.position, mv);
            }
            let action = game.position.action_of(mv);
            game.position = game.position.play(mv);
            for search in game.searches.iter_mut().flatten() {
                search.advance(action)?;
            }
            if game.position.is_over() {
                let game = live.swap_remove(index);
                chosen.swap_remove(index);
                let record = MatchGame {
                    sides: game.pairing.sides,
                    opening: game.opening,
                    moves: game.moves,
                    end: game.position,
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

fn start_game<B: Board>(
    contestants: &[Contestant<'_, B>],
    pairing: &Pairing<B>,
) -> Result<LiveGame<B>, MatchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(pairing.seed);
    let mut position = pairing.start.position;
    let mut opening = pairing.start.name.clone();
    for _ in 0..pairing.random_plies {
        let moves = position.legal_moves();
        if moves.is_empty() || position.is_over() {
            break;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        opening.push(' ');
        opening.push_str(&B::move_text(mv));
        position = position.play(mv);
    }
    let sides = pairing.sides.len();
    let (mut searches, mut players): (Vec<_>, Vec<_>) = (
        (0..sides).map(|_| None).collect(),
        (0..sides).map(|_| None).collect(),
    );
    for (side, &contestant) in pairing.sides.iter().enumerate() {
        match &contestants[contestant] {
            Contestant::Net { search, .. } => {
                searches[side] = Some(Search::new(
                    position.searched(),
                    search.clone(),
                    rng.random(),
                )?);
            }
            Contestant::Fixed(fixed) => {
                let mut player = fixed.build(rng.random());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn starts() -> Vec<NamedStart<u8>> {
        ["a", "b"]
            .iter()
            .enumerate()
            .map(|(index, name)| NamedStart {
                name: (*name).to_owned(),
                position: index as u8,
            })
            .collect()
    }

    #[test]
    fn two_sides_play_each_opening_with_the_colours_swapped() {
        let pairings = rotated_openings(0, 3, 2, 5, &starts(), 4, 100);
        let sides: Vec<Vec<usize>> = pairings.iter().map(|p| p.sides.clone()).collect();
        assert_eq!(sides, [[0, 3], [3, 0], [0, 3], [3, 0], [0, 3]]);
        let openings: Vec<(&str, u64)> = pairings
            .iter()
            .map(|p| (p.start.name.as_str(), p.seed))
            .collect();
        assert_eq!(
            openings,
            [("a", 100), ("a", 100), ("b", 101), ("b", 101), ("a", 102)]
        );
    }

    #[test]
    fn the_candidate_takes_each_of_three_sides_once_per_opening() {
        let pairings = rotated_openings(0, 1, 3, 6, &starts(), 0, 7);
        let own: Vec<usize> = pairings
            .iter()
            .map(|p| p.sides.iter().position(|&c| c == 0).unwrap())
            .collect();
        assert_eq!(own, [0, 1, 2, 0, 1, 2]);
        assert!(
            pairings
                .iter()
                .all(|p| p.sides.iter().filter(|&&c| c == 1).count() == 2)
        );
        assert_eq!(pairings[2].seed, 7);
        assert_eq!(pairings[3].seed, 8);
    }

    /// A network and a fixed player over three sides: every game ends, the
    /// network's moves come from its searches (batched across the games)
    /// and the sides rotate as the pairings say.
    #[test]
    fn a_network_plays_three_sided_games_against_a_fixed_player() {
        use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
        use sumito_game::GameKind;
        use sumito_net::{DirectEvaluator, PolicyValueNet, SymmetryMode};

        tch::manual_seed(3);
        let model = crate::players::tests::tiny_model(GameKind::General);
        let net = PolicyValueNet::new(&model, tch::Device::Cpu).unwrap();
        let evaluator = DirectEvaluator::new(net, SymmetryMode::None);
        let contestants = vec![
            Contestant::Net {
                name: "net".to_owned(),
                evaluator: &evaluator,
                search: SearchConfig {
                    simulations: 4,
                    ..SearchConfig::default()
                },
            },
            Contestant::Fixed(
                <sumito_engine::general::GeneralPosition as sumito_arena::arena_board::ArenaBoard>::classical_players()
                    .prepare_str("greedy")
                    .unwrap(),
            ),
        ];
        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.max_plies = Some(24);
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let starts = [NamedStart {
            name: "three-player".to_owned(),
            position: GeneralSetup::layout(layout).start(&rules).unwrap(),
        }];
        let pairings = rotated_openings(0, 1, 3, 6, &starts, 2, 11);
        let mut heard = 0;
        let games = play_evaluation_games(&contestants, &pairings, 4, &|| false, |_| {
            heard += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!((games.len(), heard), (6, 6));
        for game in &games {
            assert!(game.end.is_over());
            assert_eq!(game.sides.iter().filter(|&&c| c == 0).count(), 1);
            assert!(
                game.opening.starts_with("three-player "),
                "{}",
                game.opening
            );
            assert_eq!(game.end.ply() as usize, game.moves.len() + 2);
        }
        let mut own: Vec<usize> = games
            .iter()
            .map(|game| game.sides.iter().position(|&c| c == 0).unwrap())
            .collect();
        own.sort_unstable();
        assert_eq!(own, [0, 0, 1, 1, 2, 2]);
        // Asked to stop, the match ends at once.
        let stopped = play_evaluation_games(&contestants, &pairings, 4, &|| true, |_| {
            ControlFlow::Continue(())
        });
        assert!(matches!(stopped, Err(MatchError::Stopped)));
    }
}
