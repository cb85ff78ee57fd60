//! Tree reuse, playout cap randomization, root noise, temperature, terminal
//! values, the Gumbel root's budget split, and invariants of every result.

use crate::common::{gumbel, puct, root_action, run};
use proptest::prelude::*;
use sumito_mcts::toy::HashEvaluator;
use sumito_mcts::toy::{ConnectK, TicTacToe};
use sumito_mcts::{
    DirichletConfig, Game, GumbelConfig, PlayoutCapConfig, Search, SearchConfig, SearchResult,
    UniformEvaluator,
};

type Connect4 = ConnectK<7, 6, 4>;

#[test]
fn tree_reuse_keeps_the_subtree_of_the_played_move() {
    for config in [puct(400), gumbel(200)] {
        let mut search = Search::new(Connect4::new(), config.clone(), 1).unwrap();
        let first = search.search(&HashEvaluator).unwrap();
        let size_before = search.tree_size();
        let kept = root_action(&first, first.action).visits;
        assert!(kept > 1);
        search.advance(first.action).unwrap();
        assert_eq!(search.root_visits(), kept);
        assert!(search.tree_size() < size_before);
        search.search(&HashEvaluator).unwrap();
        assert_eq!(search.root_visits(), kept + config.simulations);

        let mut fresh = Search::new(
            Connect4::new(),
            SearchConfig {
                tree_reuse: false,
                ..config
            },
            1,
        )
        .unwrap();
        let first = fresh.search(&HashEvaluator).unwrap();
        fresh.advance(first.action).unwrap();
        assert_eq!(fresh.root_visits(), 0);
        assert_eq!(fresh.tree_size(), 1);
    }
}

#[test]
fn reused_trees_keep_finding_tactics() {
    // After X plays 1 (threatening 2 next to 0), O must block at 2.
    let start = TicTacToe::from_actions(&[0, 4]).unwrap();
    let mut search = Search::new(start, puct(1500), 2).unwrap();
    search.search(&UniformEvaluator).unwrap();
    search.advance(1).unwrap();
    assert!(search.root_visits() > 0);
    assert_eq!(search.search(&UniformEvaluator).unwrap().best_action, 2);
}

#[test]
fn playout_cap_randomization_mixes_full_and_reduced_searches() {
    let config = SearchConfig {
        simulations: 40,
        playout_cap: Some(PlayoutCapConfig {
            full_search_probability: 0.3,
            reduced_simulations: 5,
        }),
        dirichlet: Some(DirichletConfig::default()),
        ..SearchConfig::default()
    };
    // A fresh search per seed: searching the same position again would
    // continue the same tree.
    let results: Vec<SearchResult> = (0..500)
        .map(|seed| run(Connect4::new(), config.clone(), seed, &HashEvaluator))
        .collect();
    let full = results.iter().filter(|r| r.full_search).count();
    assert!(
        (120..=180).contains(&full),
        "{full} of 500 full searches, expected about 150"
    );
    for result in &results {
        let visits: u32 = result.root_actions.iter().map(|a| a.visits).sum();
        let expected = if result.full_search { 40 } else { 5 };
        assert_eq!((result.simulations, visits), (expected, expected));
    }
}

fn max_visit_share(result: &SearchResult) -> f32 {
    let total: u32 = result.root_actions.iter().map(|a| a.visits).sum();
    result.root_actions.iter().map(|a| a.visits).max().unwrap() as f32 / total as f32
}

#[test]
fn dirichlet_noise_reshapes_root_visits_and_leaves_priors_clean() {
    // With uniform priors, no noise spreads 18 visits evenly over 9 moves;
    // heavy, spiky noise concentrates them.
    let noisy = SearchConfig {
        dirichlet: Some(DirichletConfig {
            total_alpha: 0.5,
            weight: 0.9,
        }),
        fpu_reduction_root: 0.25,
        ..puct(18)
    };
    let mut plain_share = 0.0;
    let mut noisy_share = 0.0;
    for seed in 0..50 {
        plain_share += max_visit_share(&run(TicTacToe::new(), puct(18), seed, &UniformEvaluator));
        let result = run(TicTacToe::new(), noisy.clone(), seed, &UniformEvaluator);
        assert!(
            result
                .root_actions
                .iter()
                .all(|a| (a.prior - 1.0 / 9.0).abs() < 1e-6),
            "reported priors are clean"
        );
        noisy_share += max_visit_share(&result);
    }
    assert!(plain_share / 50.0 < 0.2, "{plain_share}");
    assert!(noisy_share / 50.0 > 0.4, "{noisy_share}");
}

#[test]
fn reduced_searches_have_no_noise() {
    // Reduced searches of a uniform position with no noise visit evenly.
    let config = SearchConfig {
        dirichlet: Some(DirichletConfig {
            total_alpha: 0.5,
            weight: 0.9,
        }),
        playout_cap: Some(PlayoutCapConfig {
            full_search_probability: 0.0,
            reduced_simulations: 9,
        }),
        ..puct(18)
    };
    for seed in 0..20 {
        let result = run(TicTacToe::new(), config.clone(), seed, &UniformEvaluator);
        assert!(!result.full_search);
        assert!(
            result.root_actions.iter().all(|a| a.visits == 1),
            "{result:?}"
        );
    }
}

#[test]
fn temperature_schedule_samples_then_plays_the_best_move() {
    let config = SearchConfig {
        temperature: 1.0,
        temperature_plies: 1,
        final_temperature: 0.0,
        ..puct(90)
    };
    // First move: sampled in proportion to visits.
    let mut predicted = 0.0;
    let mut observed = 0.0;
    let mut distinct = std::collections::BTreeSet::new();
    for seed in 0..400 {
        let mut search = Search::new(TicTacToe::new(), config.clone(), seed).unwrap();
        let result = search.search(&HashEvaluator).unwrap();
        let total: u32 = result.root_actions.iter().map(|a| a.visits).sum();
        let best = root_action(&result, result.best_action);
        predicted += best.visits as f64 / total as f64;
        observed += f64::from(u8::from(result.action == result.best_action));
        distinct.insert(result.action);
        // Second move: temperature 0.
        search.advance(result.action).unwrap();
        let second = search.search(&HashEvaluator).unwrap();
        assert_eq!(second.action, second.best_action);
    }
    assert!(distinct.len() >= 5, "{distinct:?}");
    // Binomial with p around 0.15 over 400 draws: sd about 7.
    assert!(
        (predicted - observed).abs() < 25.0,
        "predicted {predicted}, observed {observed}"
    );
}

#[test]
fn gumbel_temperature_samples_from_the_improved_policy() {
    let config = SearchConfig {
        temperature: 1.0,
        temperature_plies: 100,
        ..gumbel(8)
    };
    let mut distinct = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let result = run(TicTacToe::new(), config.clone(), seed, &UniformEvaluator);
        let chosen = root_action(&result, result.action);
        assert!(chosen.policy_target > 0.0);
        distinct.insert(result.action);
    }
    assert!(distinct.len() >= 5, "{distinct:?}");
}

#[test]
fn terminal_values_are_exact_and_draws_count_as_draws() {
    // X to move, one empty cell, and filling it draws.
    let draw = TicTacToe::from_actions(&[0, 4, 8, 2, 6, 3, 5, 7]).unwrap();
    for config in [puct(30), gumbel(30)] {
        let result = run(draw, config, 0, &UniformEvaluator);
        assert_eq!(result.root_actions.len(), 1);
        assert_eq!(result.root_actions[0].q, Some(0.0));
        // 30 certain draws and the root's own evaluation (a third of a draw).
        assert!(
            (result.wdl.draw - (30.0 + 1.0 / 3.0) / 31.0).abs() < 1e-5,
            "{:?}",
            result.wdl
        );
        assert_eq!(result.value, 0.0);
    }
    // X to move completes 6-7-8 (and must, as O threatens 3-4-5).
    let won = TicTacToe::from_actions(&[0, 4, 8, 1, 7, 5]).unwrap();
    let result = run(won, puct(200), 0, &UniformEvaluator);
    assert_eq!(result.best_action, 6);
    assert!(result.value > 0.9 && result.wdl.win > 0.9, "{result:?}");
}

#[test]
fn gumbel_root_halves_its_budget_over_the_considered_actions() {
    // m = 4 of 9 moves and 16 simulations: phase one gives 4 actions 2 visits
    // each, phase two gives the better 2 of them 4 more.
    let config = SearchConfig {
        gumbel: Some(GumbelConfig {
            considered_actions: 4,
            ..GumbelConfig::default()
        }),
        ..gumbel(16)
    };
    for seed in 0..10 {
        let result = run(Connect4::new(), config.clone(), seed, &HashEvaluator);
        let mut visits: Vec<u32> = result
            .root_actions
            .iter()
            .map(|a| a.visits)
            .filter(|&v| v > 0)
            .collect();
        visits.sort_unstable();
        assert_eq!(visits, vec![2, 2, 6, 6], "{result:?}");
        let best = root_action(&result, result.best_action);
        assert_eq!(best.visits, 6, "the winner is among the last survivors");
    }
}

#[test]
fn gumbel_without_noise_is_deterministic_across_seeds() {
    let config = SearchConfig {
        gumbel: Some(GumbelConfig {
            gumbel_scale: 0.0,
            ..GumbelConfig::default()
        }),
        ..gumbel(32)
    };
    let results: Vec<SearchResult> = (0..5)
        .map(|seed| run(Connect4::new(), config.clone(), seed, &HashEvaluator))
        .collect();
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn gumbel_policy_target_concentrates_on_a_found_win() {
    let state = TicTacToe::from_actions(&[0, 3, 1, 4]).unwrap(); // X wins at 2
    let result = run(state, gumbel(16), 0, &UniformEvaluator);
    let win = root_action(&result, 2);
    assert!(win.policy_target > 0.9, "{result:?}");
}

fn check_result<G: Game>(state: &G, result: &SearchResult, simulations: u32) {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    let actions: Vec<usize> = result.root_actions.iter().map(|a| a.action).collect();
    assert_eq!(actions, legal, "root actions in legal order");
    assert!(legal.contains(&result.action) && legal.contains(&result.best_action));
    let target: f32 = result.root_actions.iter().map(|a| a.policy_target).sum();
    assert!(
        (target - 1.0).abs() < 1e-4,
        "policy target sums to {target}"
    );
    let prior: f32 = result.root_actions.iter().map(|a| a.prior).sum();
    assert!((prior - 1.0).abs() < 1e-4, "priors sum to {prior}");
    let visits: u32 = result.root_actions.iter().map(|a| a.visits).sum();
    assert_eq!(visits, simulations);
    for action in &result.root_actions {
        assert_eq!(action.q.is_some(), action.visits > 0);
        assert!(action.q.is_none_or(|q| (-1.0..=1.0).contains(&q)));
    }
    assert!((-1.0..=1.0).contains(&result.value));
    let wdl = result.wdl;
    assert!(
        (wdl.win + wdl.draw + wdl.loss - 1.0).abs() < 1e-4
            && (wdl.value() - result.value).abs() < 1e-4
    );
    assert_eq!(result.principal_variation[0], result.best_action);
    let mut line = state.clone();
    for &action in &result.principal_variation {
        line.legal_actions(&mut legal);
        assert!(
            legal.contains(&action),
            "principal variation {:?} is not playable",
            result.principal_variation
        );
        line.apply(action);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_result_is_consistent(
        moves in proptest::collection::vec(0usize..7, 0..20),
        simulations in 1u32..120,
        use_gumbel in any::<bool>(),
        batch in 1u32..6,
        seed in any::<u64>(),
    ) {
        // Play the random column choices that are legal, stopping before the end.
        let mut state = Connect4::new();
        let mut legal = Vec::new();
        for column in moves {
            state.legal_actions(&mut legal);
            if legal.contains(&column) {
                let mut next = state;
                next.apply(column);
                if next.terminal().is_some() { break; }
                state = next;
            }
        }
        let base = if use_gumbel { gumbel(simulations) } else {
            SearchConfig { dirichlet: Some(DirichletConfig::default()), ..puct(simulations) }
        };
        let config = SearchConfig { virtual_loss_batch: batch, temperature_plies: 1, ..base };
        let result = run(state, config, seed, &HashEvaluator);
        check_result(&state, &result, simulations);
    }
}
