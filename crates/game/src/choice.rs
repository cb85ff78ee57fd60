//! From a search to the move a player plays. The search ranks the moves; a
//! few facts it may miss are then checked exactly, in this order:
//!
//! 1. A move that wins at once (pushes off the last marble needed) is always
//!    played. The Gumbel root considers only the moves the network likes
//!    best, so a winning push the network rates low could be missed.
//! 2. Material, counted exactly over a few plies when asked
//!    (`material_plies`, both sides' every move, `sumito_engine::material`):
//!    when another move keeps more marbles than the search's move over those
//!    plies (takes a marble that cannot be won back within them, or does not
//!    give one away), the best of those in material is played, the one the
//!    search rated best among them. Off by default: it solves the tactics
//!    suite's positions (whose labels are this very count) but made the
//!    shipped model weaker against alpha-beta (docs/levers.md).
//!    In the general game the count is one side's against all the others
//!    (`sumito_engine::general::material`, paranoid).
//! 3. A move after which the opponent wins at once is not played while
//!    another move the search rated nearly as well (within
//!    [`REPETITION_MARGIN`]) does not allow that.
//! 4. Cycles. Abalone has no repetition rule, and two players that choose
//!    their move from the position alone, deterministically, repeat the whole
//!    cycle once one position repeats, until the move limit ends the game (in
//!    matches of the quick model against alpha-beta nearly every game did,
//!    the first repetition around ply 33–55). So a network player remembers
//!    the positions of the game and, unless it is ahead in marbles pushed
//!    off, does not walk back into one of them when it has a move nearly as
//!    good; a player that is ahead may repeat, since a cycle then ends the
//!    game at the move limit, which it wins on marbles. This is the contempt
//!    of chess programs, which avoid a draw by repetition when they think
//!    themselves stronger.
//!
//! The same checks serve the general game (variants, 3 to 6 players, teams;
//! [`Board`] for `GeneralPosition`): "the opponent" is any other
//! side (a partner moving next is no threat), and "ahead" means strictly
//! first on marbles pushed off, which decides the game at the move limit.

use std::collections::HashSet;

use sumito_mcts::SearchResult;

use crate::Board;

/// How much worse (in the search's value, from −1 to 1) a move may be than
/// the best one and still be played to avoid a repetition or a loss at once.
pub const REPETITION_MARGIN: f32 = 0.15;

/// The moves of `position` that keep more material than `chosen` over
/// `plies` plies of best play, the best of them all (empty if none does, or
/// for 0 plies).
pub fn materially_better_moves<B: Board>(
    position: &B,
    chosen: B::Move,
    plies: u32,
) -> Vec<B::Move> {
    let Some(chosen_material) = position.material_after(chosen, plies) else {
        return Vec::new();
    };
    // Null-window questions first: most moves are not better.
    let better: Vec<B::Move> = position
        .legal_moves()
        .into_iter()
        .filter(|&mv| mv != chosen && position.keeps_material(mv, chosen_material + 1, plies))
        .collect();
    if better.len() <= 1 {
        return better;
    }
    let values: Vec<i32> = better
        .iter()
        .map(|&mv| {
            position
                .material_after(mv, plies)
                .unwrap_or(chosen_material)
        })
        .collect();
    let top = values.iter().copied().max().unwrap_or(chosen_material);
    better
        .into_iter()
        .zip(values)
        .filter(|&(_, value)| value == top)
        .map(|(mv, _)| mv)
        .collect()
}

/// The positions a game has passed through (by their repetition key: the
/// marbles, the marbles pushed off and who is to move).
#[derive(Clone, Debug, Default)]
pub struct GameHistory {
    seen: HashSet<u64>,
}

impl GameHistory {
    pub fn new() -> GameHistory {
        GameHistory::default()
    }

    /// Forgets the game (a new one starts).
    pub fn clear(&mut self) {
        self.seen.clear();
    }

    /// Notes that the game passed through `position`.
    pub fn record(&mut self, position: &impl Board) {
        self.seen.insert(position.repetition_hash());
    }

    /// Whether the game has passed through `position`.
    pub fn contains(&self, position: &impl Board) -> bool {
        self.seen.contains(&position.repetition_hash())
    }
}

/// A move that ends the game at once with `position`'s side to move winning.
pub fn winning_move<P: Board>(position: &P) -> Option<P::Move> {
    position.winning_move()
}

/// Whether after `mv` another side can win at once.
pub fn allows_a_win<P: Board>(position: &P, mv: P::Move) -> bool {
    let after = Board::play(position, mv);
    !after.is_over() && position.other_side_moves_in(&after) && after.winning_move().is_some()
}

/// How many plies the material check of network players counts unless told
/// (`material=N` of a player's spec): none. Against `alphabeta:depth=3` (200
/// games, 64 simulations) the shipped model scored 0.422 without the check,
/// 0.360 with 2 plies and 0.260 with 4 (docs/levers.md).
pub const DEFAULT_MATERIAL_PLIES: u32 = 0;

/// The move to play in `position` after a search of it (`result`), with the
/// checks of the module docs; `history` holds the game's positions when the
/// player avoids repeating them; `material_plies` is how far the material
/// check counts (0: no check). `None` only when the search names no move.
pub fn choose_move<P: Board>(
    position: &P,
    result: &SearchResult,
    history: Option<&GameHistory>,
    material_plies: u32,
) -> Option<P::Move> {
    if let Some(win) = position.winning_move() {
        return Some(win);
    }
    let searched = position.move_of(result.best_action)?;
    let rating = |mv: P::Move| {
        result
            .root_actions
            .iter()
            .find(|root| position.move_of(root.action) == Some(mv))
            .map_or((0.0, 0), |root| (root.policy_target, root.visits))
    };
    // The search's rating among the moves of the best material: its policy
    // target covers every legal move (the Gumbel root's improved policy),
    // visits break ties.
    let better = materially_better_moves(position, searched, material_plies);
    if let Some(best) = better
        .into_iter()
        .reduce(|best, mv| if rating(mv) > rating(best) { mv } else { best })
    {
        return Some(best);
    }
    let best = searched;
    let ahead = position.mover_is_ahead();
    let repeats = |mv: P::Move| {
        !ahead && history.is_some_and(|history| history.contains(&Board::play(position, mv)))
    };
    let safe_best = !allows_a_win(position, best);
    if safe_best && !repeats(best) {
        return Some(best);
    }
    // The search's other moves that are rated nearly as well and do not let
    // another side win at once, best first (looked at only when needed).
    let value_of = |action: usize| {
        result
            .root_actions
            .iter()
            .find(|root| root.action == action)
            .and_then(|root| root.q)
    };
    // Counted once; alternatives must keep as much.
    let best_material = position.material_after(best, material_plies);
    let floor = value_of(result.best_action).map_or(f32::NEG_INFINITY, |q| q - REPETITION_MARGIN);
    let mut others: Vec<_> = result
        .root_actions
        .iter()
        .filter(|root| root.action != result.best_action && root.q.is_some_and(|q| q >= floor))
        .collect();
    others.sort_by(|a, b| {
        b.policy_target
            .total_cmp(&a.policy_target)
            .then(b.visits.cmp(&a.visits))
    });
    let others: Vec<P::Move> = others
        .into_iter()
        .filter_map(|root| position.move_of(root.action))
        .filter(|mv| !allows_a_win(position, *mv))
        .filter(|mv| {
            best_material.is_none_or(|floor| position.keeps_material(*mv, floor, material_plies))
        })
        .collect();
    others
        .iter()
        .copied()
        .find(|mv| !repeats(*mv))
        .or(if safe_best {
            None
        } else {
            others.first().copied()
        })
        .or(Some(best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::general::{
        GeneralLayout, GeneralMove, GeneralPosition, GeneralRules, GeneralSetup, MAX_SEATS, Seating,
    };
    use sumito_engine::{Ending, Layout, Move, Outcome, Position, Rules};
    use sumito_mcts::RootAction;

    /// A search result that rates `moves` in order (the first best), with
    /// the values `q`.
    fn rated(moves: &[Move], q: &[f32]) -> SearchResult {
        let actions: Vec<usize> = moves.iter().map(|mv| mv.action()).collect();
        rated_actions(&actions, q)
    }

    /// A search result that rates the `actions` in order, with the values `q`.
    fn rated_actions(actions: &[usize], q: &[f32]) -> SearchResult {
        let root_actions: Vec<RootAction> = actions
            .iter()
            .zip(q)
            .enumerate()
            .map(|(rank, (&action, &q))| RootAction {
                action,
                prior: 0.1,
                visits: 100 - rank as u32,
                q: Some(q),
                policy_target: 0.5 / (rank as f32 + 1.0),
            })
            .collect();
        SearchResult {
            action: actions[0],
            best_action: actions[0],
            full_search: true,
            simulations: 100,
            stopped: false,
            value: q[0],
            wdl: sumito_mcts::Wdl {
                win: 0.5,
                draw: 0.0,
                loss: 0.5,
            },
            side_values: vec![q[0], -q[0]],
            solved: None,
            root_actions,
            principal_variation: vec![actions[0]],
        }
    }

    #[test]
    fn a_player_not_ahead_steps_out_of_a_cycle_when_it_costs_little() {
        let start = Position::start(Layout::Standard, Rules::default());
        let moves = start.legal_moves();
        let (best, second, third) = (moves[0], moves[1], moves[2]);
        let mut history = GameHistory::new();
        history.record(&start);
        let result = rated(&[best, second, third], &[0.2, 0.1, 0.15]);
        // Nothing repeats: the best move.
        assert_eq!(choose_move(&start, &result, Some(&history), 0), Some(best));
        // The best move repeats: the best-ranked other one within the margin.
        history.record(&start.play(best));
        assert_eq!(
            choose_move(&start, &result, Some(&history), 0),
            Some(second)
        );
        // Alternatives much worse than a repetition: repeat.
        let costly = rated(&[best, second, third], &[0.2, -0.5, -0.4]);
        assert_eq!(choose_move(&start, &costly, Some(&history), 0), Some(best));
        // Every alternative repeats too: the best move.
        history.record(&start.play(second));
        history.record(&start.play(third));
        assert_eq!(choose_move(&start, &result, Some(&history), 0), Some(best));
        history.clear();
        assert!(!history.contains(&start));
    }

    #[test]
    fn a_win_at_once_is_never_missed_and_a_loss_at_once_is_avoided() {
        // Black to move has pushed off five White marbles; E7-E8 pushes the
        // White marble on E9 off the board and wins.
        let black = Position::from_fen("wwwww/www3/7/8/6bbw/8/b6/bbbbbb/bbbbb b 0 5").unwrap();
        let win = winning_move(&black).expect("a winning push");
        assert!(matches!(
            black.play(win).ending(),
            Some(Ending {
                outcome: Outcome::Win(0),
                ..
            })
        ));
        // The search rated another move best: the win is played all the same.
        let other = black
            .legal_moves()
            .into_iter()
            .find(|mv| *mv != win)
            .unwrap();
        let result = rated(&[other], &[0.0]);
        assert_eq!(choose_move(&black, &result, None, 0), Some(win));

        // The same board with White to move: most moves let Black win.
        let white = Position::from_fen("wwwww/www3/7/8/6bbw/8/b6/bbbbbb/bbbbb w 0 5").unwrap();
        let (losing, safe): (Vec<Move>, Vec<Move>) = white
            .legal_moves()
            .into_iter()
            .partition(|mv| allows_a_win(&white, *mv));
        assert!(!losing.is_empty() && !safe.is_empty());
        let result = rated(&[losing[0], safe[0]], &[0.1, 0.0]);
        assert_eq!(choose_move(&white, &result, None, 0), Some(safe[0]));
        // A safe move rated far worse is not taken on the search's behalf.
        let result = rated(&[losing[0], safe[0]], &[0.1, -0.9]);
        assert_eq!(choose_move(&white, &result, None, 0), Some(losing[0]));
    }

    #[test]
    fn the_material_check_takes_a_free_marble_and_keeps_its_own() {
        // White to move: E3-E2 pushes the Black marble on E1 off, and Black's
        // other marbles, far away, cannot win it back.
        let white = Position::from_fen("bbbbb/6/7/8/bww6/8/7/6/5 w 0 0").unwrap();
        let (captures, quiet): (Vec<Move>, Vec<Move>) = white
            .legal_moves()
            .into_iter()
            .partition(|mv| white.is_push_off(*mv));
        assert!(!captures.is_empty());
        // The search rated a quiet move best and the capture far worse.
        let result = rated(&[quiet[0], captures[0]], &[0.3, -0.5]);
        assert_eq!(choose_move(&white, &result, None, 0), Some(quiet[0]));
        for plies in 1..=4 {
            let chosen = choose_move(&white, &result, None, plies).unwrap();
            assert!(white.is_push_off(chosen), "{plies} plies: {chosen}");
        }

        // Black to move: the marble on E1 is lost unless it moves away.
        let black = Position::from_fen("bbbbb/6/7/8/bww6/8/7/6/5 b 0 0").unwrap();
        let (giving, keeping): (Vec<Move>, Vec<Move>) =
            black.legal_moves().into_iter().partition(|mv| {
                black
                    .play(*mv)
                    .legal_moves()
                    .iter()
                    .any(|reply| black.play(*mv).is_push_off(*reply))
            });
        assert!(!giving.is_empty() && !keeping.is_empty());
        let result = rated(&[giving[0], keeping[0]], &[0.2, -0.9]);
        assert_eq!(choose_move(&black, &result, None, 0), Some(giving[0]));
        assert_eq!(choose_move(&black, &result, None, 2), Some(keeping[0]));
        // One ply sees only its own push-offs: nothing to change.
        assert_eq!(choose_move(&black, &result, None, 1), Some(giving[0]));
    }

    /// The moves of the best material over `plies`, by counting every move
    /// (empty when `chosen` is among them).
    fn best_by_count<P: Board>(position: &P, chosen: P::Move, plies: u32) -> Vec<P::Move> {
        let values: Vec<(P::Move, i32)> = position
            .legal_moves()
            .into_iter()
            .map(|mv| (mv, position.material_after(mv, plies).unwrap()))
            .collect();
        let top = values.iter().map(|&(_, value)| value).max().unwrap();
        let chosen_value = values.iter().find(|(mv, _)| *mv == chosen).unwrap().1;
        if chosen_value == top {
            return Vec::new();
        }
        values
            .into_iter()
            .filter(|&(_, value)| value == top)
            .map(|(mv, _)| mv)
            .collect()
    }

    #[test]
    fn the_better_moves_are_those_of_the_best_material_in_both_games() {
        // How many choices had a better move: the positions are tactical.
        let mut replaced = 0;
        let two_player = [
            "wwww1/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 1",
            "5/6/7/2www3/1bbbw4/2bb4/7/6/5 b 0 0",
            "5/6/7/8/bwwbb4/8/7/6/5 b 0 0",
        ];
        for text in two_player {
            let position = Position::from_fen(text).unwrap();
            for plies in 1..=3 {
                for chosen in position.legal_moves().into_iter().step_by(5) {
                    let better = materially_better_moves(&position, chosen, plies);
                    assert_eq!(
                        better,
                        best_by_count(&position, chosen, plies),
                        "{text}, {chosen} over {plies}"
                    );
                    replaced += usize::from(!better.is_empty());
                }
            }
            assert!(materially_better_moves(&position, position.legal_moves()[0], 0).is_empty());
        }
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        for text in [
            "r4/6/7/8/5bbbw/8/7/6/bb3 b 0,0,0",
            "r4/6/7/8/bwww5/8/7/6/bb3 b 0,0,0",
        ] {
            let position = GeneralPosition::from_text(text, Some(&rules)).unwrap();
            for plies in 1..=2 {
                for chosen in position.legal_moves().into_iter().step_by(3) {
                    let better = materially_better_moves(&position, chosen, plies);
                    assert_eq!(
                        better,
                        best_by_count(&position, chosen, plies),
                        "{text}, {chosen:?} over {plies}"
                    );
                    replaced += usize::from(!better.is_empty());
                }
            }
        }
        assert!(replaced > 10, "{replaced}");
    }

    #[test]
    fn a_player_ahead_may_repeat() {
        // Black to move, having pushed off one of White's marbles.
        let ahead =
            Position::from_fen("wwww1/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 1").unwrap();
        let moves = ahead.legal_moves();
        let mut history = GameHistory::new();
        history.record(&ahead.play(moves[0]));
        let result = rated(&[moves[0], moves[1]], &[0.3, 0.29]);
        assert_eq!(
            choose_move(&ahead, &result, Some(&history), 0),
            Some(moves[0])
        );
    }

    fn three_player(scores: [u8; MAX_SEATS]) -> GeneralPosition {
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let start = GeneralSetup::layout(GeneralLayout::from_name("three-player").unwrap())
            .start(&rules)
            .unwrap();
        let marbles = std::array::from_fn(|seat| start.bitboard(seat));
        GeneralPosition::new(rules, marbles, 0, 0, scores).unwrap()
    }

    #[test]
    fn a_general_game_player_not_ahead_steps_out_of_a_cycle_and_one_ahead_may_repeat() {
        let level = three_player([1, 1, 0, 0, 0, 0]);
        let rules = *level.rules();
        let moves = level.legal_moves();
        let (best, second) = (moves[0], moves[1]);
        let actions = [best.action(&rules).unwrap(), second.action(&rules).unwrap()];
        let result = rated_actions(&actions, &[0.2, 0.1]);
        let mut history = GameHistory::new();
        history.record(&level);
        assert_eq!(choose_move(&level, &result, Some(&history), 0), Some(best));
        history.record(&level.play(best));
        // Level with another side on marbles: a cycle would not win, so step out.
        assert!(!level.mover_is_ahead());
        assert_eq!(
            choose_move(&level, &result, Some(&history), 0),
            Some(second)
        );
        // Without a history nothing is avoided.
        assert_eq!(choose_move(&level, &result, None, 0), Some(best));

        // First on marbles, alone: the move limit would give it the game.
        let ahead = three_player([2, 1, 1, 0, 0, 0]);
        assert!(ahead.mover_is_ahead());
        let mut history = GameHistory::new();
        history.record(&ahead.play(best));
        assert_eq!(choose_move(&ahead, &result, Some(&history), 0), Some(best));
    }

    #[test]
    fn the_material_check_of_a_three_player_game_takes_a_free_marble_and_keeps_its_own() {
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let action = |mv: GeneralMove| mv.action(&rules).unwrap();
        // Black to move can push White's E9 off; far away, nobody can take
        // it back.
        let free =
            GeneralPosition::from_text("r4/6/7/8/5bbbw/8/7/6/bb3 b 0,0,0", Some(&rules)).unwrap();
        let (captures, quiet): (Vec<GeneralMove>, Vec<GeneralMove>) = free
            .legal_moves()
            .into_iter()
            .partition(|mv| free.play(*mv).seat_score(0) == 1);
        assert!(!captures.is_empty());
        let result = rated_actions(&[action(quiet[0]), action(captures[0])], &[0.3, -0.5]);
        assert_eq!(choose_move(&free, &result, None, 0), Some(quiet[0]));
        for plies in 1..=3 {
            let chosen = choose_move(&free, &result, None, plies).unwrap();
            assert!(captures.contains(&chosen), "{plies} plies: {chosen:?}");
        }
        // Black to move: White, next, pushes E1 off unless it moves away.
        let threatened =
            GeneralPosition::from_text("r4/6/7/8/bwww5/8/7/6/bb3 b 0,0,0", Some(&rules)).unwrap();
        let (giving, keeping): (Vec<GeneralMove>, Vec<GeneralMove>) =
            threatened.legal_moves().into_iter().partition(|mv| {
                let after = threatened.play(*mv);
                after
                    .legal_moves()
                    .iter()
                    .any(|reply| after.play(*reply).seat_score(1) == 1)
            });
        assert!(!giving.is_empty() && !keeping.is_empty());
        let result = rated_actions(&[action(giving[0]), action(keeping[0])], &[0.2, -0.9]);
        assert_eq!(choose_move(&threatened, &result, None, 0), Some(giving[0]));
        assert_eq!(choose_move(&threatened, &result, None, 2), Some(keeping[0]));
    }

    #[test]
    fn a_general_game_win_at_once_is_played() {
        // Two sides, White's target 4 (a handicap) and 3 already pushed off:
        // E3-E2 pushes Black's marble off E1 and wins.
        let rules = GeneralRules::plain(Seating::new(2, false).unwrap())
            .with_targets(&[6, 4])
            .unwrap();
        let white = GeneralPosition::from_text("5/6/7/8/bww6/8/7/6/5 w 3 0", Some(&rules)).unwrap();
        let win = winning_move(&white).expect("a winning push");
        assert!(matches!(
            white.play(win).ending(),
            Some(Ending {
                outcome: Outcome::Win(1),
                ..
            })
        ));
        let other = white
            .legal_moves()
            .into_iter()
            .find(|mv| *mv != win)
            .unwrap();
        let result = rated_actions(&[other.action(&rules).unwrap()], &[0.0]);
        assert_eq!(choose_move(&white, &result, None, 0), Some(win));
        // Black, to move in the same position, cannot stop every push: the
        // check names the moves after which White wins at once.
        let black = GeneralPosition::from_text("5/6/7/8/bww6/8/7/6/5 b 3 0", Some(&rules)).unwrap();
        assert!(winning_move(&black).is_none());
        for mv in black.legal_moves() {
            let after = black.play(mv);
            assert_eq!(allows_a_win(&black, mv), winning_move(&after).is_some());
        }
    }
}
