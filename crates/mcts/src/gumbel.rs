//! The pieces of "Policy improvement by planning with Gumbel" (Danihelka et
//! al., 2022) that do not depend on the tree walk: the sequential-halving
//! schedule, completed Q-values with the mixed value approximation, the sigma
//! transform and the improved policy.

use crate::Side;
use crate::config::GumbelConfig;
use crate::tree::Node;
use crate::values::Values;

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

/// What the completed-Q transform needs to know about a node's children,
/// gathered in one pass.
struct ChildStats {
    /// The player choosing among the children, whose values they are.
    player: Side,
    /// `N = sum_b N(b)` and `max_b N(b)` over real (not in-flight) visits.
    sum_visits: u64,
    max_visits: u32,
    /// Sums over visited children of `p(a)` and `p(a) q(a)`.
    visited_prior: f32,
    visited_prior_q: f32,
    /// Range of the completed Q-values (for `rescale_q`).
    q_min: f32,
    q_max: f32,
    /// The mixed value `v_mix`: the completed Q of unvisited children.
    mixed_value: f32,
    /// Sum of all priors, and of the priors of children with visits or
    /// visits in flight ("touched").
    total_prior: f32,
    touched_prior: f32,
    /// Sum over children of visits including those in flight.
    total_effective: u64,
    /// The untouched child with the highest prior, and that prior.
    best_untouched: Option<(usize, f32)>,
}

impl ChildStats {
    fn gather<V: Values>(children: &[Node<V>], player: Side, raw_value: f32) -> ChildStats {
        let mut stats = ChildStats {
            player,
            sum_visits: 0,
            max_visits: 0,
            visited_prior: 0.0,
            visited_prior_q: 0.0,
            q_min: f32::INFINITY,
            q_max: f32::NEG_INFINITY,
            mixed_value: raw_value,
            total_prior: 0.0,
            touched_prior: 0.0,
            total_effective: 0,
            best_untouched: None,
        };
        let mut any_unvisited = false;
        for (index, child) in children.iter().enumerate() {
            stats.total_prior += child.prior;
            if child.visits > 0 {
                // Exact once proven (MCTS-solver), else the mean.
                let q = child.settled_q(player).expect("visited");
                stats.sum_visits += u64::from(child.visits);
                stats.max_visits = stats.max_visits.max(child.visits);
                let prior = child.prior.max(f32::MIN_POSITIVE);
                stats.visited_prior += prior;
                stats.visited_prior_q += prior * q;
                stats.q_min = stats.q_min.min(q);
                stats.q_max = stats.q_max.max(q);
            } else if let Some(q) = child.exact(player) {
                // A game-ending move found without a visit.
                stats.q_min = stats.q_min.min(q);
                stats.q_max = stats.q_max.max(q);
            } else {
                any_unvisited = true;
            }
            let effective = child.effective_visits();
            if effective > 0 {
                stats.total_effective += u64::from(effective);
                stats.touched_prior += child.prior;
            } else if stats
                .best_untouched
                .is_none_or(|(_, prior)| child.prior > prior)
            {
                stats.best_untouched = Some((index, child.prior));
            }
        }
        if stats.sum_visits > 0 {
            let n = stats.sum_visits as f32;
            stats.mixed_value =
                (raw_value + n * stats.visited_prior_q / stats.visited_prior) / (1.0 + n);
        }
        if any_unvisited {
            stats.q_min = stats.q_min.min(stats.mixed_value);
            stats.q_max = stats.q_max.max(stats.mixed_value);
        }
        stats
    }

    fn completed_q<V: Values>(&self, child: &Node<V>) -> f32 {
        child.settled_q(self.player).unwrap_or(self.mixed_value)
    }

    /// `sigma` of a completed Q-value.
    fn sigma(&self, config: &GumbelConfig, q: f32) -> f32 {
        let normalized = if config.rescale_q {
            (q - self.q_min) / (self.q_max - self.q_min).max(1e-8)
        } else {
            (q + 1.0) / 2.0
        };
        (config.c_visit + self.max_visits as f32) * config.c_scale * normalized
    }
}

/// Fills `out` with `sigma(completed_q)` for each of `children`, seen by
/// `player` (the player choosing among them); `raw_value` is the evaluator's
/// value of the parent for `player`.
///
/// Completed Q is the child's mean value if visited, otherwise the mixed value
/// `v_mix = (raw_value + N * sum_visited(p q) / sum_visited(p)) / (1 + N)` with
/// `N = sum_b N(b)` (eq. 33 of the paper). It is brought to `[0, 1]` (see
/// [`GumbelConfig::rescale_q`]) and scaled by `(c_visit + max_b N(b)) * c_scale`.
pub(crate) fn sigma_completed_q<V: Values>(
    children: &[Node<V>],
    player: Side,
    raw_value: f32,
    config: &GumbelConfig,
    out: &mut Vec<f32>,
) {
    let stats = ChildStats::gather(children, player, raw_value);
    out.clear();
    out.extend(
        children
            .iter()
            .map(|child| stats.sigma(config, stats.completed_q(child))),
    );
}

/// The child picked by the Gumbel interior rule,
/// `argmax(pi'(a) - N(a) / (1 + sum_b N(b)))` with
/// `pi' = softmax(log_prior + sigma(completed Q))` and `N` counting visits in
/// flight. Equal to building `pi'` with [`sigma_completed_q`] and
/// [`improved_policy`], but cheaper: untouched children all have the
/// completed Q `v_mix`, so their softmax mass is their prior times one common
/// factor and the best of them is the one with the highest prior; only the
/// touched children need an exponential each. `touched` is scratch space.
pub(crate) fn interior_choice<V: Values>(
    children: &[Node<V>],
    player: Side,
    raw_value: f32,
    config: &GumbelConfig,
    touched: &mut Vec<(u32, f32)>,
) -> usize {
    let stats = ChildStats::gather(children, player, raw_value);
    let sigma_mixed = stats.sigma(config, stats.mixed_value);
    // Untouched children with some prior take part in the softmax through
    // the best of them. (Without any, `sigma_mixed` may lie far outside the
    // range of the other logits and must not enter the computation.)
    let untouched = stats.best_untouched.filter(|&(_, prior)| prior > 0.0);
    let mut max_logit = match untouched {
        Some((_, prior)) => prior.ln() + sigma_mixed,
        None => f32::NEG_INFINITY,
    };
    touched.clear();
    for (index, child) in children.iter().enumerate() {
        if child.effective_visits() > 0 {
            let logit = child.log_prior + stats.sigma(config, stats.completed_q(child));
            max_logit = max_logit.max(logit);
            touched.push((index as u32, logit));
        }
    }
    // At most 1 / (best untouched prior), so finite.
    let untouched_factor = if untouched.is_some() {
        (sigma_mixed - max_logit).exp()
    } else {
        0.0
    };
    let mut partition = (stats.total_prior - stats.touched_prior).max(0.0) * untouched_factor;
    for (_, logit) in touched.iter_mut() {
        *logit = (*logit - max_logit).exp();
        partition += *logit;
    }
    let denominator = 1.0 + stats.total_effective as f32;
    let mut best = stats
        .best_untouched
        .map(|(index, prior)| (index, prior * untouched_factor / partition));
    for &(index, mass) in touched.iter() {
        let index = index as usize;
        let score = mass / partition - children[index].effective_visits() as f32 / denominator;
        if best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((index, score));
        }
    }
    best.expect("an expanded node has children").0
}

/// Turns `sigma` (from [`sigma_completed_q`]) into the improved policy
/// `softmax(log_prior + sigma)` over `children`, in place.
pub(crate) fn improved_policy<V: Values>(children: &[Node<V>], sigma: &mut [f32]) {
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
    use crate::ZeroSum;

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

    fn child(prior: f32, visits: u32, q_first: f32) -> Node<ZeroSum> {
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
        sigma_completed_q(&children, Side::FIRST, 0.1, &config, &mut sigma);
        // v_mix = (0.1 + 4 * (0.5*0.5 + 0.25*-0.5)/0.75) / 5
        let v_mix = (0.1 + 4.0 * (0.125 / 0.75)) / 5.0;
        let scale = 3.0; // (c_visit + max visits) * c_scale
        let expected = [0.5, -0.5, v_mix].map(|q| (q + 1.0) / 2.0 * scale);
        for (got, want) in sigma.iter().zip(expected) {
            assert!((got - want).abs() < 1e-5, "{sigma:?} vs {expected:?}");
        }
        // From the other player's side the values flip.
        sigma_completed_q(&children, Side::SECOND, -0.1, &config, &mut sigma);
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
        sigma_completed_q(&children, Side::FIRST, 0.3, &config, &mut sigma);
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
        sigma_completed_q(&children, Side::FIRST, 0.0, &config, &mut sigma);
        assert_eq!(sigma, vec![2.0, 0.0]);
    }

    #[test]
    fn improved_policy_prefers_better_q() {
        let config = GumbelConfig::default();
        let children = [child(0.5, 4, 0.6), child(0.5, 4, -0.2)];
        let mut sigma = Vec::new();
        sigma_completed_q(&children, Side::FIRST, 0.0, &config, &mut sigma);
        improved_policy(&children, &mut sigma);
        assert!((sigma.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(sigma[0] > 0.99, "{sigma:?}");
    }

    proptest::proptest! {
        #[test]
        fn fast_interior_rule_matches_the_definition(
            children in proptest::collection::vec((-3.0f32..3.0, 0u32..5, 0u32..3, -1.0f32..1.0), 1..30),
            raw_value in -1.0f32..1.0,
            second_player in proptest::bool::ANY,
            rescale_q in proptest::bool::ANY,
            c_visit in 0.0f32..60.0,
            c_scale in 0.05f32..2.0,
        ) {
            let config = GumbelConfig { c_visit, c_scale, rescale_q, ..GumbelConfig::default() };
            let player = if second_player { Side::SECOND } else { Side::FIRST };
            let mut logits: Vec<f32> = children.iter().map(|c| c.0).collect();
            softmax_in_place(&mut logits);
            let nodes: Vec<Node<ZeroSum>> = children
                .iter()
                .zip(&logits)
                .map(|(&(_, visits, in_flight, q), &prior)| {
                    let mut node = child(prior, visits, q);
                    node.in_flight = in_flight;
                    node
                })
                .collect();
            let mut policy = Vec::new();
            sigma_completed_q(&nodes, player, raw_value, &config, &mut policy);
            improved_policy(&nodes, &mut policy);
            let total: u32 = nodes.iter().map(|n| n.effective_visits()).sum();
            let naive: Vec<f32> = nodes
                .iter()
                .zip(&policy)
                .map(|(n, p)| p - n.effective_visits() as f32 / (1.0 + total as f32))
                .collect();
            let best = naive.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let chosen = interior_choice(&nodes, player, raw_value, &config, &mut Vec::new());
            proptest::prop_assert!(naive[chosen] >= best - 1e-5, "chose {chosen}: {naive:?}");
        }
    }
}
