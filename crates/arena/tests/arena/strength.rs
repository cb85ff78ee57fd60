//! Strength checks of the fixed players, with fixed seeds: each plays 50
//! games (25 openings of Belgian Daisy plus 4 random plies, each with both
//! colours) against a weaker player. These measure results, not speed.

use sumito_arena::arena::{MatchConfig, MatchResults, Silent, play_match};
use sumito_arena::arena_board::ArenaBoard;
use sumito_engine::{Layout, Rules};

fn play(stronger: &str, weaker: &str, max_plies: u32) -> MatchResults {
    let registry = sumito_engine::Position::classical_players();
    let entrants = vec![
        registry.prepare_str(stronger).unwrap(),
        registry.prepare_str(weaker).unwrap(),
    ];
    let rules = Rules {
        max_plies: Some(max_plies),
        ..Rules::default()
    };
    let config = MatchConfig {
        games_per_pairing: 50,
        seed: 2024,
        ..MatchConfig::two_player(&[Layout::BelgianDaisy], rules)
    };
    let results = play_match(&entrants, &config, &Silent).unwrap();
    assert_eq!(results.games.len(), 50);
    let t = results.tallies()[0];
    eprintln!(
        "{stronger} vs {weaker}: +{} ={} -{}",
        t.wins, t.draws, t.losses
    );
    results
}

#[test]
fn alphabeta_depth_2_beats_random_every_time() {
    let results = play("alphabeta:depth=2", "random", 400);
    let tally = results.tallies()[0];
    assert_eq!(tally.wins, 50, "{tally:?}");
}

#[test]
fn greedy_scores_at_least_90_percent_against_random() {
    let results = play("greedy", "random", 400);
    let score = results.tallies()[0].score().unwrap();
    assert!(score >= 0.9, "greedy scored {score}");
}

#[test]
fn alphabeta_depth_3_scores_at_least_70_percent_against_depth_1() {
    let results = play("alphabeta:depth=3", "alphabeta:depth=1", 200);
    let score = results.tallies()[0].score().unwrap();
    assert!(score >= 0.7, "depth 3 scored {score}");
}
