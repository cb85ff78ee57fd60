//! The multi-game driver, determinism, virtual-loss batching and error handling.

use std::sync::Mutex;

use crate::common::{FailingEvaluator, ForgetfulEvaluator, gumbel, puct, run};
use sumito_mcts::toy::HashEvaluator;
use sumito_mcts::toy::{ConnectK, TicTacToe};
use sumito_mcts::{
    DirichletConfig, EvalBatch, EvalError, Evaluator, Game, GumbelConfig, MultiGameDriver,
    PlayoutCapConfig, Search, SearchConfig, SearchError, SearchResult, UniformEvaluator,
};

type Connect4 = ConnectK<7, 6, 4>;

/// A mix of configurations exercising every feature that uses randomness or batching.
fn configs() -> Vec<SearchConfig> {
    let selfplay = SearchConfig {
        simulations: 60,
        dirichlet: Some(DirichletConfig::default()),
        temperature: 1.0,
        temperature_plies: 8,
        ..SearchConfig::default()
    };
    vec![
        selfplay.clone(),
        SearchConfig {
            virtual_loss_batch: 4,
            ..selfplay.clone()
        },
        SearchConfig {
            playout_cap: Some(PlayoutCapConfig {
                full_search_probability: 0.5,
                reduced_simulations: 12,
            }),
            ..selfplay.clone()
        },
        SearchConfig {
            tree_reuse: false,
            c_puct_base: Some(50.0),
            ..selfplay
        },
        SearchConfig {
            temperature_plies: 6,
            ..gumbel(24)
        },
        SearchConfig {
            virtual_loss_batch: 3,
            gumbel: Some(GumbelConfig {
                considered_actions: 4,
                rescale_q: true,
                ..GumbelConfig::default()
            }),
            ..gumbel(30)
        },
    ]
}

/// Plays a game with `Search::search` alone, returning every result.
fn play_alone<G: Game, E: Evaluator<G>>(
    start: G,
    config: SearchConfig,
    seed: u64,
    evaluator: &E,
) -> Vec<SearchResult> {
    let mut search = Search::new(start, config, seed).unwrap();
    let mut results = Vec::new();
    while !search.is_game_over() {
        let result = search.search(evaluator).unwrap();
        search.advance(result.action).unwrap();
        results.push(result);
    }
    results
}

#[test]
fn driver_gives_each_game_the_result_of_a_lone_search() {
    let starts: Vec<Connect4> = [&[][..], &[3], &[3, 3], &[0, 6, 1], &[2, 4, 2, 4], &[6]]
        .iter()
        .map(|m| Connect4::from_actions(m).unwrap())
        .collect();
    let configs = configs();
    let mut driver = MultiGameDriver::new();
    for (index, (start, config)) in starts.iter().zip(&configs).enumerate() {
        driver.push(Search::new(*start, config.clone(), 100 + index as u64).unwrap());
    }
    let mut driven: Vec<Vec<SearchResult>> = vec![Vec::new(); starts.len()];
    let mut largest_batch = 0;
    while !driver.all_games_over() {
        for (index, result) in driver.step(&HashEvaluator).unwrap() {
            driver.search_mut(index).advance(result.action).unwrap();
            driven[index].push(result);
        }
        largest_batch = largest_batch.max(driver.last_batch_size());
    }
    // 1 + 1 + 1 + 1 + 1 + 3 leaves per round while all games run.
    assert_eq!(largest_batch, 1 + 4 + 1 + 1 + 1 + 3);
    for (index, (start, config)) in starts.iter().zip(&configs).enumerate() {
        let alone = play_alone(*start, config.clone(), 100 + index as u64, &HashEvaluator);
        assert!(!alone.is_empty());
        assert_eq!(
            driven[index], alone,
            "game {index} differs between driver and lone search"
        );
    }
}

#[test]
fn search_all_searches_each_live_game_once() {
    let mut driver = MultiGameDriver::new();
    let over = TicTacToe::from_actions(&[0, 3, 1, 4, 2]).unwrap();
    driver.push(Search::new(TicTacToe::new(), puct(50), 1).unwrap());
    driver.push(Search::new(over, puct(50), 2).unwrap());
    driver.push(Search::new(TicTacToe::new(), gumbel(20), 3).unwrap());
    let results = driver.search_all(&UniformEvaluator).unwrap();
    assert!(results[1].is_none(), "a finished game is skipped");
    let lone = run(TicTacToe::new(), puct(50), 1, &UniformEvaluator);
    assert_eq!(results[0].as_ref(), Some(&lone));
    assert_eq!(results[2].as_ref().unwrap().simulations, 20);
    // Replacing a finished game puts it back to work.
    driver.replace(1, Search::new(TicTacToe::new(), puct(10), 4).unwrap());
    assert!(
        driver
            .search_all(&UniformEvaluator)
            .unwrap()
            .iter()
            .all(Option::is_some)
    );
}

#[test]
fn equal_seeds_give_equal_games_and_different_seeds_differ() {
    for config in configs() {
        let a = play_alone(Connect4::new(), config.clone(), 5, &HashEvaluator);
        let b = play_alone(Connect4::new(), config.clone(), 5, &HashEvaluator);
        assert_eq!(a, b);
        let differ = (6..10)
            .any(|seed| play_alone(Connect4::new(), config.clone(), seed, &HashEvaluator) != a);
        assert!(differ, "the seed has no effect with {config:?}");
    }
}

/// Records the size of every batch it evaluates.
#[derive(Default)]
struct BatchSizes(Mutex<Vec<usize>>);

impl<G: Game> Evaluator<G> for BatchSizes {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        self.0.lock().unwrap().push(batch.len());
        UniformEvaluator.evaluate(batch)
    }
}

#[test]
fn virtual_loss_batches_leaves_of_one_tree_and_still_searches_well() {
    let block = TicTacToe::from_actions(&[0, 4, 1]).unwrap(); // O must take 2
    for config in [puct(800), gumbel(400)] {
        let config = SearchConfig {
            virtual_loss_batch: 8,
            ..config
        };
        let sizes = BatchSizes::default();
        let mut search = Search::new(block, config.clone(), 9).unwrap();
        let result = search.search(&sizes).unwrap();
        assert_eq!(result.best_action, 2, "{result:?}");
        let visits: u32 = result.root_actions.iter().map(|a| a.visits).sum();
        assert_eq!(
            visits, config.simulations,
            "every simulation reached the root's children once"
        );
        assert_eq!(search.root_visits(), config.simulations + 1);
        let sizes = sizes.0.into_inner().unwrap();
        assert!(sizes.iter().all(|&s| (1..=8).contains(&s)), "{sizes:?}");
        let evaluated: usize = sizes.iter().sum();
        assert!(
            sizes.len() * 3 < evaluated,
            "batches average more than 3 leaves: {sizes:?}"
        );
    }
}

#[test]
fn evaluator_errors_propagate_and_leave_the_search_usable() {
    for config in [
        SearchConfig {
            virtual_loss_batch: 4,
            ..puct(200)
        },
        gumbel(64),
    ] {
        let mut search = Search::new(Connect4::new(), config.clone(), 3).unwrap();
        let err = search.search(&FailingEvaluator::new(5)).unwrap_err();
        let SearchError::Eval(eval) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(eval.to_string(), "forward pass");
        assert_eq!(
            std::error::Error::source(eval).unwrap().to_string(),
            "device lost"
        );
        let visits_before = search.root_visits();
        let result = search.search(&UniformEvaluator).unwrap();
        assert_eq!(search.root_visits(), visits_before + config.simulations);
        let visits: u32 = result.root_actions.iter().map(|a| a.visits).sum();
        assert_eq!(
            visits + 1,
            search.root_visits(),
            "no virtual loss left behind"
        );
    }
}

#[test]
fn unwritten_outputs_are_reported_not_searched() {
    let mut search = Search::new(TicTacToe::new(), puct(10), 0).unwrap();
    let err = search.search(&ForgetfulEvaluator).unwrap_err();
    assert!(
        matches!(err, SearchError::InvalidEvaluation { item: 0, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("not written"), "{err}");
}

#[test]
fn driver_errors_propagate_and_every_search_recovers() {
    let mut driver = MultiGameDriver::new();
    for seed in 0..4 {
        let config = SearchConfig {
            virtual_loss_batch: 2,
            ..puct(40)
        };
        driver.push(Search::new(Connect4::new(), config, seed).unwrap());
    }
    assert!(matches!(
        driver.search_all(&FailingEvaluator::new(3)),
        Err(SearchError::Eval(_))
    ));
    let results = driver.search_all(&UniformEvaluator).unwrap();
    for (index, result) in results.iter().enumerate() {
        let result = result.as_ref().unwrap();
        let visits: u32 = result.root_actions.iter().map(|a| a.visits).sum();
        assert_eq!(visits + 1, driver.search(index).root_visits());
    }
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let over = TicTacToe::from_actions(&[0, 3, 1, 4, 2]).unwrap();
    let mut search = Search::new(over, puct(10), 0).unwrap();
    assert!(matches!(
        search.search(&UniformEvaluator),
        Err(SearchError::GameOver)
    ));
    assert!(matches!(search.advance(5), Err(SearchError::GameOver)));
    let mut search = Search::new(TicTacToe::from_actions(&[4]).unwrap(), puct(10), 0).unwrap();
    assert!(matches!(
        search.advance(4),
        Err(SearchError::IllegalAction { action: 4 })
    ));
    search.search(&UniformEvaluator).unwrap();
    assert!(matches!(
        search.advance(4),
        Err(SearchError::IllegalAction { action: 4 })
    ));
    assert!(matches!(
        search.advance(99),
        Err(SearchError::IllegalAction { action: 99 })
    ));
    let bad = SearchConfig {
        simulations: 0,
        ..SearchConfig::default()
    };
    assert!(matches!(
        Search::new(TicTacToe::new(), bad.clone(), 0),
        Err(SearchError::Config(_))
    ));
    assert!(matches!(
        search.set_config(bad),
        Err(SearchError::Config(_))
    ));
}
