//! The answer to one position, as JSON: the search's view (every
//! candidate with its order, line and lower confidence bound), the
//! network's own view of the root (its value, and on request the prior of
//! every legal move), and whether the search is still under way.

use serde_json::{Value, json};
use sumito_arena::players::network::{Analysis, line_of};
use sumito_game::Board;
use sumito_mcts::{EvalBatch, Evaluator, Game, Search, SearchError, Side, Values, Wdl};

/// Standard deviations below the mean at which a candidate's lower
/// confidence bound lies (about 97.5 % one-sided for a normal mean).
pub const LCB_DEVIATIONS: f32 = 1.96;

/// The network's evaluation of a position, without search.
#[derive(Clone, Debug, PartialEq)]
pub struct RawEvaluation {
    /// For the side to move.
    pub wdl: Wdl,
    /// Each side's value, -1 to 1.
    pub side_values: Vec<f32>,
    /// Every legal move's action and prior (the softmax of the network's
    /// logits), in the game's order of legal actions.
    pub priors: Vec<(usize, f32)>,
}

/// `evaluator`'s view of `position` (which is not over): one evaluation.
pub fn evaluate_raw<B: Board>(
    position: &B,
    evaluator: &dyn Evaluator<B::Searched>,
) -> Result<RawEvaluation, SearchError> {
    let state = position.searched();
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    let mut batch = EvalBatch::new();
    batch.push(state.clone(), &legal);
    evaluator.evaluate(&mut batch)?;
    let sides = state.sides();
    let mover = state.to_play();
    let (values, draw) =
        <<B::Searched as Game>::Values as Values>::from_estimate(batch.value(0), mover, sides)
            .map_err(|problem| SearchError::InvalidEvaluation { item: 0, problem })?;
    let value = values.for_player(mover);
    // value = 2 * (win + draw / sides) - 1 (see `sumito_mcts::values`).
    let win = ((1.0 + value) / 2.0 - draw / sides as f32).clamp(0.0, 1.0);
    let wdl = Wdl {
        win,
        draw,
        loss: (1.0 - win - draw).max(0.0),
    };
    let logits = batch.logits(0);
    let most = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f32> = logits.iter().map(|logit| (logit - most).exp()).collect();
    let total: f32 = weights.iter().sum();
    Ok(RawEvaluation {
        wdl,
        side_values: (0..sides)
            .map(|side| values.for_player(Side::new(side)))
            .collect(),
        priors: legal
            .iter()
            .zip(weights)
            .map(|(&action, weight)| (action, weight / total))
            .collect(),
    })
}

/// The lower confidence bound of a mean value `q` of `visits` values in
/// `[-1, 1]`: `q - LCB_DEVIATIONS * sqrt((1 - q^2) / visits)`, the
/// variance taken as the largest any values in `[-1, 1]` with mean `q` can
/// have (Bhatia-Davis), since the tree keeps no squares.
pub fn lower_bound(q: f32, visits: u32) -> f32 {
    let variance = (1.0 - q * q).max(0.0);
    (q - LCB_DEVIATIONS * (variance / visits.max(1) as f32).sqrt()).max(-1.0)
}

/// What an answer says beside the analysis.
#[derive(Debug)]
pub struct AnswerParts<'a> {
    pub id: &'a Value,
    pub turn: usize,
    pub top: usize,
    pub include_policy: bool,
    /// Still searching: more answers for this position will come.
    pub partial: bool,
    /// Its search was stopped by `terminate`.
    pub terminated: bool,
    /// Its search was stopped at its `time_ms` (its hard stop).
    pub timed_out: bool,
    pub warnings: &'a [Value],
}

/// One position's answer: `analysis` with `search`'s tree (for each
/// candidate's line) and `raw`.
pub fn answer<B: Board>(
    parts: &AnswerParts<'_>,
    position: &B,
    analysis: &Analysis<B::Move>,
    search: Option<&Search<B::Searched>>,
    raw: &RawEvaluation,
) -> Value {
    let moves: Vec<Value> = analysis
        .moves
        .iter()
        .take(parts.top)
        .enumerate()
        .map(|(order, stats)| {
            let action = position.action_of(stats.mv);
            let line = search
                .and_then(|search| search.line_after(action))
                .map_or_else(|| vec![stats.mv], |actions| line_of(position, &actions));
            json!({
                "move": B::move_text(stats.mv),
                "order": order,
                "visits": stats.visits,
                "prior": stats.prior,
                "q": stats.q,
                "score": stats.q.map(|q| (1.0 + q) / 2.0),
                "lcb": stats.q.map(|q| lower_bound(q, stats.visits)),
                "line": line.iter().map(|&mv| B::move_text(mv)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut answer = json!({
        "id": parts.id,
        "turn": parts.turn,
        "partial": parts.partial,
        "position": position.to_string(),
        "side": position.side_name(position.mover_side()),
        "root": {
            "win": analysis.wdl.win,
            "draw": analysis.wdl.draw,
            "loss": analysis.wdl.loss,
            "value": analysis.wdl.value(),
            "visits": analysis.visits,
            "simulations": analysis.simulations,
        },
        "values_by_side": analysis.side_values,
        "raw": {
            "win": raw.wdl.win,
            "draw": raw.wdl.draw,
            "loss": raw.wdl.loss,
            "value": raw.wdl.value(),
            "values_by_side": raw.side_values,
        },
        "moves": moves,
        "pv": analysis.principal_variation.iter().map(|&mv| B::move_text(mv)).collect::<Vec<_>>(),
        "elapsed_ms": analysis.elapsed.as_millis() as u64,
    });
    if parts.include_policy {
        let mut policy: Vec<(String, f32)> = raw
            .priors
            .iter()
            .filter_map(|&(action, prior)| Some((B::move_text(position.move_of(action)?), prior)))
            .collect();
        policy.sort_by(|a, b| b.1.total_cmp(&a.1));
        answer["policy"] = policy
            .into_iter()
            .map(|(mv, prior)| json!({"move": mv, "prior": prior}))
            .collect();
    }
    with_notes(&mut answer, parts);
    answer
}

/// The answer of a position stopped before its search had anything.
pub fn no_results(parts: &AnswerParts<'_>) -> Value {
    let mut answer = json!({
        "id": parts.id,
        "turn": parts.turn,
        "partial": false,
        "no_results": true,
    });
    with_notes(&mut answer, parts);
    answer
}

fn with_notes(answer: &mut Value, parts: &AnswerParts<'_>) {
    if parts.terminated {
        answer["terminated"] = Value::Bool(true);
    }
    if parts.timed_out {
        answer["timed_out"] = Value::Bool(true);
    }
    if !parts.warnings.is_empty() {
        answer["warnings"] = Value::Array(parts.warnings.to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Position, Rules};
    use sumito_mcts::UniformEvaluator;

    #[test]
    fn the_bound_is_below_the_mean_and_tightens_with_visits() {
        assert!(lower_bound(0.2, 10) < lower_bound(0.2, 1000));
        assert!(lower_bound(0.2, 1000) < 0.2);
        // A certain value has no spread.
        assert_eq!(lower_bound(1.0, 3), 1.0);
        assert_eq!(lower_bound(-0.99, 1), -1.0);
    }

    #[test]
    fn the_raw_evaluation_gives_every_legal_move_a_prior() {
        let start = Position::start(Layout::Standard, Rules::default());
        let raw = evaluate_raw(&start, &UniformEvaluator).unwrap();
        assert_eq!(raw.priors.len(), start.legal_moves().len());
        let total: f32 = raw.priors.iter().map(|(_, prior)| prior).sum();
        assert!((total - 1.0).abs() < 1e-4);
        assert_eq!(raw.side_values, [0.0, 0.0]);
        assert!((raw.wdl.win + raw.wdl.draw + raw.wdl.loss - 1.0).abs() < 1e-5);
    }
}
