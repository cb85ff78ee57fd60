//! The pieces of "Policy improvement by planning with Gumbel" (Danihelka et
//! al., 2022) that do not depend on the tree walk: the sequential-halving
//! schedule, completed Q-values with the mixed value approximation, the sigma
//! transform and the improved policy.

use crate::Player;
use crate::config::GumbelConfig;
use crate::tree::Node;

/// The visit count an action must have to be chosen at each root simulation,
/// for `considered` actions and `simulations` simulations: sequential halving
/// spread over `ceil(log2(considered))` phases, each phase giving every
/// remaining action `max(1, simulations / (phases * remaining))` more visits and
/// then keeping the better half (at least 2). Same schedule as mctx's
/// `get_sequence_of_considered_visits`.
pub(crate) fn considered_visit_sequence(considered: u32, simulations: u32, out: &mut Vec<u32>) {
    out.clear();
    let simulations = simulations as usize;
    if considered <= 1 {
        out.extend(0..simulations as u32);
        return;
    }
    let phases = considered.next_power_of_two().trailing_zeros() as usize;
    let mut remaining = considered as usize;
    let mut visits = 0;
    while out.len() < simulations {
        let extra_visits = (simulations / (phases * remaining)).max(1);
        for _ in 0..extra_visits {
            out.extend(std::iter::repeat_n(visits, remaining));
            visits += 1;
        }
        remaining = (remaining / 2).max(2);
    }
    out.truncate(simulations);
}

/// Fills `out` with `sigma(completed_q)` for each of `children`, seen by
/// `player` (the player choosing among them); `raw_value` is the evaluator's
/// value of the parent for `player`.
///
/// Completed Q is the child's mean value if visited, otherwise the mixed value
/// `v_mix = (raw_value + N * sum_visited(p q) / sum_visited(p)) / (1 + N)` with
/// `N = sum_b N(b)` (eq. 33 of the paper). It is brought to `[0, 1]` (see
/// [`GumbelConfig::rescale_q`]) and scaled by `(c_visit + max_b N(b)) * c_scale`.
pub(crate) fn sigma_completed_q(
    children: &[Node],
    player: Player,
    raw_value: f32,
    config: &GumbelConfig,
    out: &mut Vec<f32>,
) {
    let mut sum_visits = 0u64;
    let mut max_visits = 0u32;
    let mut visited_prior = 0.0f32;
    let mut visited_prior_q = 0.0f32;
    for child in children {
        if child.visits > 0 {
            sum_visits += u64::from(child.visits);
            max_visits = max_visits.max(child.visits);
            let prior = child.prior.max(f32::MIN_POSITIVE);
            visited_prior += prior;
            visited_prior_q += prior * child.q(player);
        }
    }
    let mixed_value = if sum_visits == 0 {
        raw_value
    } else {
        let n = sum_visits as f32;
        (raw_value + n * visited_prior_q / visited_prior) / (1.0 + n)
    };
    out.clear();
    out.extend(children.iter().map(|child| {
        if child.visits > 0 {
            child.q(player)
        } else {
            mixed_value
        }
    }));
    if config.rescale_q {
        let (min, max) = out
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &q| {
                (lo.min(q), hi.max(q))
            });
        let range = (max - min).max(1e-8);
        out.iter_mut().for_each(|q| *q = (*q - min) / range);
    } else {
        out.iter_mut().for_each(|q| *q = (*q + 1.0) / 2.0);
    }
    let scale = (config.c_visit + max_visits as f32) * config.c_scale;
    out.iter_mut().for_each(|q| *q *= scale);
}

/// Turns `sigma` (from [`sigma_completed_q`]) into the improved policy
/// `softmax(log_prior + sigma)` over `children`, in place.
pub(crate) fn improved_policy(children: &[Node], sigma: &mut [f32]) {
    for (logit, child) in sigma.iter_mut().zip(children) {
        *logit += child.log_prior;
    }
    softmax_in_place(sigma);
}

pub(crate) fn softmax_in_place(logits: &mut [f32]) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for logit in logits.iter_mut() {
        *logit = (*logit - max).exp();
        sum += *logit;
    }
    logits.iter_mut().for_each(|p| *p /= sum);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequence(considered: u32, simulations: u32) -> Vec<u32> {
        let mut out = Vec::new();
        considered_visit_sequence(considered, simulations, &mut out);
        out
    }

    #[test]
    fn sequential_halving_schedule() {
        // 4 actions, 16 simulations: 2 phases; phase 1 gives each action 2
        // visits, phase 2 gives the best 2 actions 4 more each.
        assert_eq!(
            sequence(4, 16),
            vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        // Fewer simulations than actions: one visit each to the first ones.
        assert_eq!(sequence(16, 3), vec![0, 0, 0]);
        // 3 actions use 2 phases like 4.
        assert_eq!(sequence(3, 8), vec![0, 0, 0, 1, 1, 2, 2, 3]);
        assert_eq!(sequence(1, 4), vec![0, 1, 2, 3]);
        assert_eq!(sequence(2, 5), vec![0, 0, 1, 1, 2]);
    }

    #[test]
    fn schedule_is_consistent_with_halving() {
        // Each entry k means "an action with exactly k visits so far": the
        // number of actions at each level must never grow.
        for considered in 1..=20 {
            for simulations in 1..=200 {
                let seq = sequence(considered, simulations);
                assert_eq!(seq.len(), simulations as usize);
                let mut count_at = std::collections::BTreeMap::new();
                for &k in &seq {
                    *count_at.entry(k).or_insert(0u32) += 1;
                }
                let counts: Vec<u32> = count_at.values().copied().collect();
                assert!(
                    counts.windows(2).all(|w| w[0] >= w[1]),
                    "{considered} {simulations}: {seq:?}"
                );
                assert!(counts[0] <= considered.max(1));
            }
        }
    }

    fn child(prior: f32, visits: u32, q_first: f32) -> Node {
        let mut node = Node::new(0, prior, prior.ln());
        node.visits = visits;
        node.value_sum = f64::from(q_first) * f64::from(visits);
        node
    }

    #[test]
    fn completed_q_mixes_value_for_unvisited_children() {
        let config = GumbelConfig {
            c_visit: 0.0,
            c_scale: 1.0,
            ..GumbelConfig::default()
        };
        let children = [
            child(0.5, 3, 0.5),
            child(0.25, 1, -0.5),
            child(0.25, 0, 0.0),
        ];
        let mut sigma = Vec::new();
        sigma_completed_q(&children, Player::First, 0.1, &config, &mut sigma);
        // v_mix = (0.1 + 4 * (0.5*0.5 + 0.25*-0.5)/0.75) / 5
        let v_mix = (0.1 + 4.0 * (0.125 / 0.75)) / 5.0;
        let scale = 3.0; // (c_visit + max visits) * c_scale
        let expected = [0.5, -0.5, v_mix].map(|q| (q + 1.0) / 2.0 * scale);
        for (got, want) in sigma.iter().zip(expected) {
            assert!((got - want).abs() < 1e-5, "{sigma:?} vs {expected:?}");
        }
        // From the other player's side the values flip.
        sigma_completed_q(&children, Player::Second, -0.1, &config, &mut sigma);
        let expected = [-0.5, 0.5, -v_mix].map(|q| (q + 1.0) / 2.0 * scale);
        for (got, want) in sigma.iter().zip(expected) {
            assert!((got - want).abs() < 1e-5, "{sigma:?} vs {expected:?}");
        }
    }

    #[test]
    fn without_visits_completed_q_is_the_raw_value_and_policy_is_the_prior() {
        let config = GumbelConfig::default();
        let children = [child(0.7, 0, 0.0), child(0.2, 0, 0.0), child(0.1, 0, 0.0)];
        let mut sigma = Vec::new();
        sigma_completed_q(&children, Player::First, 0.3, &config, &mut sigma);
        assert!(sigma.iter().all(|&s| (s - sigma[0]).abs() < 1e-6));
        improved_policy(&children, &mut sigma);
        for (p, c) in sigma.iter().zip(&children) {
            assert!((p - c.prior).abs() < 1e-5, "{sigma:?}");
        }
    }

    #[test]
    fn rescaling_spans_zero_to_one() {
        let config = GumbelConfig {
            c_visit: 0.0,
            c_scale: 1.0,
            rescale_q: true,
            ..GumbelConfig::default()
        };
        let children = [child(0.5, 2, 0.2), child(0.5, 2, 0.1)];
        let mut sigma = Vec::new();
        sigma_completed_q(&children, Player::First, 0.0, &config, &mut sigma);
        assert_eq!(sigma, vec![2.0, 0.0]);
    }

    #[test]
    fn improved_policy_prefers_better_q() {
        let config = GumbelConfig::default();
        let children = [child(0.5, 4, 0.6), child(0.5, 4, -0.2)];
        let mut sigma = Vec::new();
        sigma_completed_q(&children, Player::First, 0.0, &config, &mut sigma);
        improved_policy(&children, &mut sigma);
        assert!((sigma.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(sigma[0] > 0.99, "{sigma:?}");
    }
}
