//! The network as the search's evaluator for the general game:
//! `sumito_mcts::Evaluator` for `sumito_game::GeneralGame` (variants, 3 to 6
//! players), on the same-thread [`DirectEvaluator`] and on the batched
//! service's [`InferenceClient`], for a network of [`GameKind::General`].
//!
//! Each position is encoded in its own frame ([`crate::general_encoding`]);
//! each legal action gets the logit of its move's image in that frame, and
//! the value head's outputs become the search's [`SideShares`]: a softmax
//! over the win outputs of the sides the game has and the draw output (the
//! outputs of sides it does not have get nothing), turned from sides
//! relative to the mover's into sides by number. Under a score or material
//! utility ([`Utilities`], `score=` of a player spec, `[selfplay]
//! score_utility` and `material_utility`) each side's share is then tilted
//! towards the sides that lead in marbles ([`with_utilities`]).

use sumito_engine::general::GeneralPosition;
use sumito_game::GeneralGame;
use sumito_mcts::{EvalBatch, EvalError, MAX_SIDES, SideShares};

use crate::NetError;
use crate::evaluate::{Utilities, softmax};
use crate::general_encoding::{
    GENERAL_INPUT_LEN, GENERAL_VALUE_LEN, absolute_shares, encode_general_position,
    general_policy_index, relative_seat,
};
use crate::model::OutputColumns;
use sumito_game::GameKind;

/// The search's shares of one position's value logits (relative to the
/// mover's side, see [`absolute_shares`]).
pub fn general_shares(logits: &[f32], mover_side: usize, sides: usize) -> SideShares {
    assert_eq!(logits.len(), GENERAL_VALUE_LEN);
    let used: Vec<f32> = logits[..sides]
        .iter()
        .copied()
        .chain([logits[MAX_SIDES]])
        .collect();
    let probabilities = softmax(&used);
    let mut relative = [0.0; GENERAL_VALUE_LEN];
    relative[..sides].copy_from_slice(&probabilities[..sides]);
    relative[MAX_SIDES] = probabilities[sides];
    absolute_shares(&relative, mover_side, sides)
}

/// Marbles a seat's auxiliary output of 1 stands for (the head predicts
/// marbles pushed off / 6).
const AUX_MARBLES: f32 = 6.0;

/// `shares` of `position` under `utilities`: the general game's form of the
/// two-player score utility (KataGo's). Each side's lead in marbles pushed
/// off, over the best other side's, is measured twice: as the network
/// predicts it at the end of the game (`aux`, the auxiliary head's outputs
/// by relative seat, weighed by `utilities.score`) and as it stands on the
/// board (weighed by `utilities.material`); each counted in sixths of the
/// six marbles, clamped to ±1. Each side's win share is multiplied by
/// `exp(lead)` and the shares (the draw share unchanged) normalised again:
/// probability moves towards the sides that lead, and every share stays in
/// `[0, 1]`. With no weight the shares are returned unchanged.
pub fn with_utilities(
    shares: SideShares,
    position: &GeneralPosition,
    aux: &[f32],
    utilities: Utilities,
) -> SideShares {
    if utilities.score == 0.0 && utilities.material == 0.0 {
        return shares;
    }
    let seating = position.rules().seating;
    let sides = seating.sides();
    let mut predicted = [0.0f32; MAX_SIDES];
    for (k, &output) in aux.iter().enumerate().take(seating.seats()) {
        predicted[seating.side_of(relative_seat(position, k))] += output * AUX_MARBLES;
    }
    let mut actual = [0.0f32; MAX_SIDES];
    for (side, score) in actual.iter_mut().enumerate().take(sides) {
        *score = position.side_score(side) as f32;
    }
    let lead = |values: &[f32], side: usize| {
        let best_other = (0..sides)
            .filter(|&other| other != side)
            .map(|other| values[other])
            .fold(f32::NEG_INFINITY, f32::max);
        ((values[side] - best_other) / 6.0).clamp(-1.0, 1.0)
    };
    let mut tilted = shares;
    for side in 0..sides {
        let tilt = utilities.score * lead(&predicted[..sides], side)
            + utilities.material * lead(&actual[..sides], side);
        tilted.win[side] *= tilt.exp();
    }
    let total = tilted.draw + tilted.win[..sides].iter().sum::<f32>();
    if total > 0.0 {
        for share in &mut tilted.win[..sides] {
            *share /= total;
        }
        tilted.draw /= total;
    }
    tilted
}

pub(crate) fn evaluate_general_batch(
    batch: &mut EvalBatch<GeneralGame>,
    utilities: Utilities,
    forward: impl FnOnce(&[f32], usize) -> Result<Vec<f32>, NetError>,
) -> Result<(), EvalError> {
    if batch.is_empty() {
        return Ok(());
    }
    let game = GameKind::General;
    let rows = batch.len();
    let mut inputs = vec![0.0; rows * GENERAL_INPUT_LEN];
    for (state, out) in batch
        .states()
        .iter()
        .zip(inputs.chunks_exact_mut(GENERAL_INPUT_LEN))
    {
        encode_general_position(state.position(), out);
    }
    let packed =
        forward(&inputs, rows).map_err(|err| EvalError::backend("network forward pass", err))?;
    let columns = game.packed_len();
    for (slot, row) in batch.slots_mut().zip(packed.chunks_exact(columns)) {
        let position = slot.state.position();
        for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
            let index = general_policy_index(position, action).ok_or_else(|| {
                EvalError::Unsupported(format!(
                    "action {action} is no move under the rules of {position}"
                ))
            })?;
            *logit = row[index];
        }
        let seating = position.rules().seating;
        let value = &row[game.packed_value()..game.packed_aux()];
        let aux = &row[game.packed_aux()..game.packed_aux() + game.aux_len()];
        let shares = general_shares(value, position.side_to_move(), seating.sides());
        *slot.value = with_utilities(shares, position, aux, utilities);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DirectEvaluator;
    use crate::config::{InferenceConfig, ModelConfig};
    use crate::model::PolicyValueNet;
    use crate::model::tests::tiny_config;
    use crate::service::InferenceService;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
    use sumito_mcts::{Game, Search, SearchConfig};
    use tch::Device;

    fn general_net() -> PolicyValueNet {
        tch::manual_seed(5);
        let config = ModelConfig {
            game: GameKind::General,
            ..tiny_config()
        };
        PolicyValueNet::new(&config, Device::Cpu).unwrap()
    }

    fn three_player_start() -> GeneralGame {
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let layout = GeneralLayout::from_name("three-player").unwrap();
        GeneralGame(GeneralSetup::layout(layout).start(&rules).unwrap())
    }

    #[test]
    fn shares_cover_only_the_sides_the_game_has() {
        let logits = [0.5, -1.0, 2.0, 7.0, 7.0, 0.0];
        let shares = general_shares(&logits, 1, 3);
        let total: f32 = shares.win.iter().sum::<f32>() + shares.draw;
        assert!((total - 1.0).abs() < 1e-5);
        assert_eq!(shares.win[3..], [0.0, 0.0]);
        // Relative output 0 is the mover's side (1), output 1 the next (2),
        // output 2 the one after (0).
        assert!(shares.win[0] > shares.win[1] && shares.win[1] > shares.win[2]);
    }

    #[test]
    fn the_utilities_tilt_the_shares_towards_the_sides_that_lead_in_marbles() {
        let position = three_player_start().0;
        let shares = general_shares(&[0.0; GENERAL_VALUE_LEN], 0, 3);
        // The mover (seat 0) is predicted to push off three marbles, seat 1
        // one, seat 2 none.
        let aux = [0.5, 1.0 / 6.0, 0.0, 0.0, 0.0, 0.0];
        assert_eq!(
            with_utilities(shares, &position, &aux, Utilities::default()),
            shares
        );
        let scored = Utilities {
            score: 1.0,
            material: 0.0,
        };
        let tilted = with_utilities(shares, &position, &aux, scored);
        let total: f32 = tilted.win[..3].iter().sum::<f32>() + tilted.draw;
        assert!((total - 1.0).abs() < 1e-5);
        assert!(tilted.win[0] > shares.win[0], "{tilted:?}");
        assert!(tilted.win[2] < tilted.win[1] && tilted.win[1] < shares.win[1]);
        // Relative seats: the mover is seat 1 after seat 0's move, so the
        // same outputs now speak of seats 1, 2 and 0.
        let moved = position.play(position.legal_moves()[0]);
        let tilted = with_utilities(shares, &moved, &aux, scored);
        assert!(tilted.win[1] > tilted.win[2] && tilted.win[2] > tilted.win[0]);
        // Material weighs the marbles on the board: none pushed off yet.
        let material = Utilities {
            score: 0.0,
            material: 1.0,
        };
        let level = with_utilities(shares, &position, &aux, material);
        for side in 0..3 {
            assert!((level.win[side] - shares.win[side]).abs() < 1e-6);
        }
    }

    #[test]
    fn a_three_player_search_runs_on_the_network_directly_and_through_the_service() {
        let start = three_player_start();
        let config = SearchConfig {
            simulations: 24,
            ..SearchConfig::default()
        };
        let direct = DirectEvaluator::new(general_net(), crate::SymmetryMode::None);
        let mut search = Search::new(start, config.clone(), 3).unwrap();
        let result = search.search(&direct).unwrap();
        let mut legal = Vec::new();
        start.legal_actions(&mut legal);
        assert!(legal.contains(&result.action));
        assert_eq!(result.side_values.len(), 3);

        let service =
            InferenceService::start(direct.into_inner(), &InferenceConfig::default()).unwrap();
        let mut served = Search::new(start, config, 3).unwrap();
        let served_result = served.search(&service.client()).unwrap();
        assert_eq!(served_result.action, result.action);
    }

    #[test]
    fn a_two_player_network_is_refused_with_a_message() {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let direct = DirectEvaluator::new(net, crate::SymmetryMode::None);
        let mut search = Search::new(three_player_start(), SearchConfig::default(), 1).unwrap();
        let message = format!("{:?}", search.search(&direct).unwrap_err());
        assert!(message.contains("TwoPlayer"), "{message}");
    }
}
