//! The search on Abalone: it takes a winning push-off, the Gumbel root finds
//! it with 2 to 4 simulations where the prior alone would not, equal seeds
//! give equal games, and the multi-game driver gives every game exactly the
//! result of a lone search.

use sumito_engine::{Move, Position, midgame_positions};
use sumito_game::AbaloneGame;
use sumito_mcts::toy::HashEvaluator;
use sumito_mcts::{
    DirichletConfig, EvalBatch, EvalError, Evaluator, Game, GumbelConfig, MultiGameDriver,
    PlayoutCapConfig, RootAction, Search, SearchConfig, SearchResult, UniformEvaluator, Wdl,
};

/// Black to move, five white marbles already off. Black's G5-H5 pushes the
/// white marble on I5 off the board (a 2-on-1 sumito) and wins; A2-B2-C2
/// pushes D2-E2 (3 on 2) without winning.
const PUSH_OFF_TO_WIN: &str = "w4/1b4/2b4/8/wwww5/wwww4/1b5/bbbbbb/bbbbb b 0 5";

fn push_off_position() -> Position {
    PUSH_OFF_TO_WIN.parse().unwrap()
}

fn is_winning(position: &Position, action: usize) -> bool {
    let next = position.play(Move::from_action(action).unwrap());
    AbaloneGame(next).terminal() == Some(sumito_mcts::Terminal::Win(sumito_mcts::Side::FIRST))
}

/// Asserts that `result` plays a winning move; returns its root statistics.
fn assert_plays_a_win(position: &Position, result: &SearchResult, context: &str) -> RootAction {
    let mv = Move::from_action(result.action).unwrap();
    assert!(
        is_winning(position, result.action),
        "{context}: played {mv}"
    );
    *result
        .root_actions
        .iter()
        .find(|a| a.action == result.action)
        .unwrap()
}

#[test]
fn the_test_position_is_what_it_claims() {
    let position = push_off_position();
    let moves = position.legal_moves();
    let winning: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|&mv| is_winning(&position, mv.action()))
        .collect();
    assert!(!winning.is_empty() && winning.iter().all(|&mv| position.is_push_off(mv)));
    assert!(
        winning.len() < moves.len() / 10,
        "winning is a needle in a haystack"
    );
    let other_pushes = moves
        .iter()
        .filter(|&&mv| position.is_push(mv) && !position.is_push_off(mv))
        .count();
    assert!(other_pushes > 0);
}

#[test]
fn puct_plays_the_winning_push_off() {
    let position = push_off_position();
    for seed in 0..4 {
        let config = SearchConfig {
            simulations: 800,
            ..SearchConfig::default()
        };
        let result = Search::new(AbaloneGame(position), config, seed)
            .unwrap()
            .search(&UniformEvaluator)
            .unwrap();
        let played = assert_plays_a_win(&position, &result, &format!("seed {seed}"));
        assert_eq!(played.q, Some(1.0));
    }
}

/// A prior that prefers one given move (logit 12) over the push-offs (11) and
/// everything else (0), like a network that has learned to push but is wrong
/// about which push; every value is "unknown".
struct FavouriteFirst {
    favourite: usize,
    position: Position,
}

impl Evaluator<AbaloneGame> for FavouriteFirst {
    fn evaluate(&self, batch: &mut EvalBatch<AbaloneGame>) -> Result<(), EvalError> {
        for slot in batch.slots_mut() {
            for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
                let mv = Move::from_action(action).unwrap();
                *logit = if action == self.favourite {
                    12.0
                } else if slot.state.0 == self.position && self.position.is_push_off(mv) {
                    11.0
                } else {
                    0.0
                };
            }
            *slot.value = Wdl::UNKNOWN;
        }
        Ok(())
    }
}

#[test]
fn gumbel_finds_the_win_with_two_to_four_simulations() {
    let position = push_off_position();
    let favourite = position
        .legal_moves()
        .iter()
        .find(|&&mv| position.is_push(mv) && !position.is_push_off(mv))
        .unwrap()
        .action();
    let evaluator = FavouriteFirst {
        favourite,
        position,
    };
    for simulations in 2..=4 {
        for seed in 0..10 {
            let gumbel = SearchConfig {
                simulations,
                gumbel: Some(GumbelConfig::default()),
                ..SearchConfig::default()
            };
            let result = Search::new(AbaloneGame(position), gumbel, seed)
                .unwrap()
                .search(&evaluator)
                .unwrap();
            let prior_choice = result
                .root_actions
                .iter()
                .max_by(|a, b| a.prior.total_cmp(&b.prior))
                .unwrap();
            assert_eq!(
                prior_choice.action, favourite,
                "the prior alone would not win"
            );
            let context = format!("{simulations} simulations, seed {seed}");
            let target = assert_plays_a_win(&position, &result, &context).policy_target;
            assert!(
                target > 0.9,
                "the improved policy moves to the win: {target}"
            );
        }
    }
    // PUCT with two simulations would spend both on the prior's favourite;
    // the solver marks the game-ending push-off at the root before any
    // simulation, so PUCT plays the win too.
    let puct = SearchConfig {
        simulations: 2,
        ..SearchConfig::default()
    };
    let result = Search::new(AbaloneGame(position), puct, 0)
        .unwrap()
        .search(&evaluator)
        .unwrap();
    assert_plays_a_win(&position, &result, "PUCT, 2 simulations");
    assert_eq!(result.solved, Some(1.0), "the win is proven");
}

fn configs() -> Vec<SearchConfig> {
    let selfplay = SearchConfig {
        simulations: 48,
        dirichlet: Some(DirichletConfig::default()),
        temperature_plies: 4,
        playout_cap: Some(PlayoutCapConfig {
            full_search_probability: 0.5,
            reduced_simulations: 8,
        }),
        ..SearchConfig::default()
    };
    vec![
        selfplay.clone(),
        SearchConfig {
            virtual_loss_batch: 6,
            ..selfplay
        },
        SearchConfig {
            simulations: 24,
            temperature_plies: 4,
            gumbel: Some(GumbelConfig::default()),
            ..SearchConfig::default()
        },
    ]
}

const MOVES: usize = 5;

fn play_alone(start: AbaloneGame, config: SearchConfig, seed: u64) -> Vec<SearchResult> {
    let mut search = Search::new(start, config, seed).unwrap();
    (0..MOVES)
        .map(|_| {
            let result = search.search(&HashEvaluator).unwrap();
            search.advance(result.action).unwrap();
            result
        })
        .collect()
}

#[test]
fn equal_seeds_give_equal_games() {
    let start = AbaloneGame(midgame_positions()[0]);
    for config in configs() {
        let game = play_alone(start, config.clone(), 42);
        assert_eq!(game, play_alone(start, config.clone(), 42));
        assert_ne!(game, play_alone(start, config, 43));
    }
}

#[test]
fn driver_gives_each_game_the_result_of_a_lone_search() {
    let configs = configs();
    let starts: Vec<AbaloneGame> = midgame_positions().into_iter().map(AbaloneGame).collect();
    let games: Vec<(AbaloneGame, SearchConfig, u64)> = (0..8)
        .map(|g| {
            (
                starts[g % starts.len()],
                configs[g % configs.len()].clone(),
                1000 + g as u64,
            )
        })
        .collect();
    let mut driver = MultiGameDriver::new();
    for (start, config, seed) in &games {
        driver.push(Search::new(*start, config.clone(), *seed).unwrap());
    }
    let mut driven: Vec<Vec<SearchResult>> = vec![Vec::new(); games.len()];
    while driven.iter().any(|results| results.len() < MOVES) {
        for (index, result) in driver.step(&HashEvaluator).unwrap() {
            if driven[index].len() < MOVES {
                driver.search_mut(index).advance(result.action).unwrap();
                driven[index].push(result);
            }
        }
    }
    for (index, (start, config, seed)) in games.into_iter().enumerate() {
        assert_eq!(
            driven[index],
            play_alone(start, config, seed),
            "game {index}"
        );
    }
}
