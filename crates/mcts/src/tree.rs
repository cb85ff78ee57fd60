//! The search tree as two arenas: `nodes` and `edges`, children stored
//! contiguously and addressed by index range. No reference counting, no
//! per-node allocation.
//!
//! An evaluated leaf keeps only its edges: the evaluator's (action, logit)
//! pairs, 8 bytes each. Its children become nodes, with the softmax of the
//! logits as priors, the first time the search selects from it. Most leaves
//! of a search are never visited again, so this saves both the nodes and the
//! exponentials for them.

use crate::error::SearchError;
use crate::values::Values;
use crate::{Side, Terminal};

/// Index of a node in [`Tree::nodes`].
pub(crate) type NodeId = u32;

pub(crate) const ROOT: NodeId = 0;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// Never reached: only the edge (action, prior) is known.
    Unvisited,
    /// Reached, its state is in an evaluation batch that has not come back yet.
    Pending,
    /// Evaluated; its children exist only as edges (`first_child` indexes `edges`).
    Evaluated,
    /// Evaluated and its children are nodes (`first_child` indexes `nodes`).
    Expanded,
    /// The game is over here; `raw_value` holds the exact value.
    Terminal,
}

/// An evaluated leaf's answer for one legal action.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub action: u32,
    pub logit: f32,
}

/// A node and the edge leading to it. Values are stored for every side as the
/// game's [`Values`] say (for two sides: one number, the first side's value).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node<V: Values> {
    /// Sum of backed-up values.
    pub value_sum: V::Sum,
    /// Sum of backed-up draw probabilities (for reporting WDL).
    pub draw_sum: f32,
    /// The evaluator's value of this node's state, or its exact value once
    /// `proven`.
    pub raw_value: V,
    /// First child in `nodes` ([`Kind::Expanded`]) or first edge in `edges`
    /// ([`Kind::Evaluated`]).
    pub first_child: u32,
    pub num_children: u32,
    /// The action that leads from the parent to this node.
    pub action: u32,
    pub prior: f32,
    /// `ln(prior)` before any root noise: the logit used by the Gumbel rules.
    pub log_prior: f32,
    pub visits: u32,
    /// Simulations through this node whose leaf is still being evaluated.
    pub in_flight: u32,
    pub kind: Kind,
    /// The result here is known exactly (in `raw_value`): the game is over
    /// ([`Kind::Terminal`]), or the search has proven it (MCTS-solver: a
    /// move that wins for the side to move, or every move's result known).
    pub proven: bool,
    /// A proven node's result is a draw shared by every side.
    pub proven_draw: bool,
    /// The player to move in this node's state; set once the node is reached.
    pub to_play: Side,
}

impl<V: Values> Node<V> {
    pub fn new(action: u32, prior: f32, log_prior: f32) -> Node<V> {
        Node {
            value_sum: V::ZERO_SUM,
            draw_sum: 0.0,
            raw_value: V::ZERO,
            first_child: 0,
            num_children: 0,
            action,
            prior,
            log_prior,
            visits: 0,
            in_flight: 0,
            kind: Kind::Unvisited,
            proven: false,
            proven_draw: false,
            to_play: Side::FIRST,
        }
    }

    /// The range of this node's children in `nodes` (or of its edges in
    /// `edges` while it is [`Kind::Evaluated`]).
    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.num_children as usize
    }

    /// Mean value from `player`'s point of view; only meaningful with visits.
    #[inline]
    pub fn q(&self, player: Side) -> f32 {
        (V::sum_for(&self.value_sum, player) / f64::from(self.visits)) as f32
    }

    /// Visits including those still in flight.
    pub fn effective_visits(&self) -> u32 {
        self.visits + self.in_flight
    }

    /// The game is over here, in a game of `sides` sides.
    pub fn mark_terminal(&mut self, outcome: Terminal, sides: usize) {
        self.kind = Kind::Terminal;
        self.raw_value = V::of_terminal(outcome, sides);
        self.proven = true;
        self.proven_draw = outcome.draw_share() > 0.0;
    }

    /// Values and draw probability to back up for a visit of this proven node.
    pub fn exact_backup(&self) -> (V, f32) {
        (self.raw_value, f32::from(u8::from(self.proven_draw)))
    }

    /// The exact value for `player` if proven.
    #[inline]
    pub fn exact(&self, player: Side) -> Option<f32> {
        self.proven.then(|| self.raw_value.for_player(player))
    }

    /// The value `player` can count on here: the exact value once proven,
    /// else the mean (`None` without visits).
    #[inline]
    pub fn settled_q(&self, player: Side) -> Option<f32> {
        if self.proven {
            Some(self.raw_value.for_player(player))
        } else if self.visits > 0 {
            Some(self.q(player))
        } else {
            None
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Tree<V: Values> {
    pub nodes: Vec<Node<V>>,
    edges: Vec<Edge>,
    /// Second arenas used while re-rooting, kept to avoid reallocating.
    spare_nodes: Vec<Node<V>>,
    spare_edges: Vec<Edge>,
}

const MAX_ENTRIES: usize = u32::MAX as usize;

impl<V: Values> Tree<V> {
    pub fn new() -> Tree<V> {
        let mut tree = Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            spare_nodes: Vec::new(),
            spare_edges: Vec::new(),
        };
        tree.reset();
        tree
    }

    /// Back to a single unvisited root.
    pub fn reset(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.nodes.push(Node::new(u32::MAX, 1.0, 0.0));
    }

    pub fn root(&self) -> &Node<V> {
        &self.nodes[ROOT as usize]
    }

    /// Nodes and edges held.
    pub fn size(&self) -> usize {
        self.nodes.len() + self.edges.len()
    }

    /// Stores the evaluator's logits for the legal actions of `node`, which
    /// becomes [`Kind::Evaluated`].
    pub fn add_edges(
        &mut self,
        node: NodeId,
        actions: &[usize],
        logits: &[f32],
    ) -> Result<(), SearchError> {
        let first = self.edges.len();
        if first + actions.len() > MAX_ENTRIES {
            return Err(SearchError::TreeTooLarge { max: MAX_ENTRIES });
        }
        self.edges
            .extend(actions.iter().zip(logits).map(|(&action, &logit)| Edge {
                action: action as u32,
                logit,
            }));
        let node = &mut self.nodes[node as usize];
        node.first_child = first as u32;
        node.num_children = actions.len() as u32;
        node.kind = Kind::Evaluated;
        Ok(())
    }

    /// Turns the edges of an [`Kind::Evaluated`] node into child nodes whose
    /// priors are the softmax of the logits; the node becomes [`Kind::Expanded`].
    pub fn expand(&mut self, node: NodeId) -> Result<(), SearchError> {
        let parent = self.nodes[node as usize];
        debug_assert_eq!(parent.kind, Kind::Evaluated);
        let first = self.nodes.len();
        if first + parent.num_children as usize > MAX_ENTRIES {
            return Err(SearchError::TreeTooLarge { max: MAX_ENTRIES });
        }
        let edges = &self.edges[parent.children()];
        let max_logit = edges
            .iter()
            .map(|e| e.logit)
            .fold(f32::NEG_INFINITY, f32::max);
        // Store exp(logit - max) as the prior first, then normalise.
        let mut sum = 0.0;
        self.nodes.extend(edges.iter().map(|edge| {
            let weight = (edge.logit - max_logit).exp();
            sum += weight;
            Node::new(edge.action, weight, edge.logit - max_logit)
        }));
        let log_sum = sum.ln();
        for child in &mut self.nodes[first..] {
            child.prior /= sum;
            child.log_prior -= log_sum;
        }
        let parent = &mut self.nodes[node as usize];
        parent.first_child = first as NodeId;
        parent.kind = Kind::Expanded;
        Ok(())
    }

    /// MCTS-solver: after `path` (root first) ended at a proven node, marks
    /// the nodes above it proven while their result has become exact: a move
    /// wins outright for the side choosing (value 1), or every move is proven
    /// (the best of them for the side choosing). Stops at the first node that
    /// stays open.
    pub fn propagate_proof(&mut self, path: &[NodeId]) {
        for &id in path.iter().rev().skip(1) {
            let node = self.nodes[id as usize];
            if node.proven {
                continue;
            }
            if node.kind != Kind::Expanded || !self.prove(id) {
                return;
            }
        }
    }

    /// Marks the expanded node `id` proven if its children make its result
    /// exact; returns whether it did.
    pub fn prove(&mut self, id: NodeId) -> bool {
        let node = self.nodes[id as usize];
        let player = node.to_play;
        let mut best: Option<(usize, f32)> = None;
        for index in node.children() {
            let child = &self.nodes[index];
            let Some(value) = child.exact(player) else {
                // An open move: only an outright win decides now.
                best = None;
                if let Some(win) = self.nodes[node.children()]
                    .iter()
                    .position(|c| c.exact(player) == Some(1.0))
                {
                    best = Some((node.first_child as usize + win, 1.0));
                }
                break;
            };
            if best.is_none_or(|(_, b)| value > b) {
                best = Some((index, value));
            }
        }
        let Some((child, _)) = best else {
            return false;
        };
        let child = self.nodes[child];
        let node = &mut self.nodes[id as usize];
        node.raw_value = child.raw_value;
        node.proven_draw = child.proven_draw;
        node.proven = true;
        true
    }

    /// Makes `child` (a child of the root) the new root, keeping its subtree
    /// and dropping everything else. The kept nodes are copied breadth-first
    /// into the spare arenas, which keeps each family contiguous.
    pub fn reroot(&mut self, child: NodeId) {
        let (nodes, edges) = (&mut self.spare_nodes, &mut self.spare_edges);
        nodes.clear();
        edges.clear();
        nodes.push(self.nodes[child as usize]);
        let mut next = 0;
        while next < nodes.len() {
            let node = nodes[next];
            match node.kind {
                Kind::Expanded => {
                    nodes[next].first_child = nodes.len() as u32;
                    nodes.extend_from_slice(&self.nodes[node.children()]);
                }
                Kind::Evaluated => {
                    nodes[next].first_child = edges.len() as u32;
                    edges.extend_from_slice(&self.edges[node.children()]);
                }
                Kind::Unvisited | Kind::Pending | Kind::Terminal => {}
            }
            next += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare_nodes);
        std::mem::swap(&mut self.edges, &mut self.spare_edges);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_turns_logits_into_normalised_priors() {
        let mut tree = Tree::<crate::ZeroSum>::new();
        tree.add_edges(ROOT, &[4, 7, 9], &[0.0, 2f32.ln(), f32::NEG_INFINITY])
            .unwrap();
        assert_eq!(tree.root().kind, Kind::Evaluated);
        tree.expand(ROOT).unwrap();
        let children: Vec<Node<crate::ZeroSum>> = tree.nodes[tree.root().children()].to_vec();
        let actions: Vec<u32> = children.iter().map(|c| c.action).collect();
        assert_eq!(actions, vec![4, 7, 9]);
        for (child, prior) in children.iter().zip([1.0 / 3.0, 2.0 / 3.0, 0.0]) {
            assert!((child.prior - prior).abs() < 1e-6);
            assert!((child.log_prior.exp() - prior).abs() < 1e-6);
            assert_eq!(child.kind, Kind::Unvisited);
        }
    }

    #[test]
    fn reroot_keeps_the_subtree_with_its_edges() {
        let mut tree = Tree::<crate::ZeroSum>::new();
        tree.add_edges(ROOT, &[0, 1], &[0.0, 0.0]).unwrap();
        tree.expand(ROOT).unwrap();
        let first = tree.root().first_child;
        tree.add_edges(first, &[5], &[1.0]).unwrap(); // evaluated, not expanded
        tree.add_edges(first + 1, &[6, 8], &[0.0, 1.0]).unwrap();
        tree.expand(first + 1).unwrap();
        tree.nodes[first as usize + 1].visits = 3;
        tree.reroot(first + 1);
        assert_eq!(tree.root().visits, 3);
        let actions: Vec<u32> = tree.nodes[tree.root().children()]
            .iter()
            .map(|c| c.action)
            .collect();
        assert_eq!(actions, vec![6, 8]);
        assert_eq!(tree.size(), 3, "the sibling's edges are gone");

        let mut tree2 = Tree::<crate::ZeroSum>::new();
        tree2.add_edges(ROOT, &[0], &[0.0]).unwrap();
        tree2.expand(ROOT).unwrap();
        tree2.add_edges(1, &[2, 3], &[0.5, 0.0]).unwrap();
        tree2.reroot(1);
        assert_eq!(tree2.root().kind, Kind::Evaluated);
        tree2.expand(ROOT).unwrap();
        let children = &tree2.nodes[tree2.root().children()];
        assert_eq!((children[0].action, children[1].action), (2, 3));
        assert!(children[0].prior > children[1].prior);
    }
}
