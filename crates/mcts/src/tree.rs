//! The search tree as an arena: one `Vec<Node>`, children stored contiguously
//! and addressed by index range. No reference counting, no per-node allocation.

use crate::error::SearchError;
use crate::{Outcome, Player};

/// Index of a node in [`Tree::nodes`].
pub(crate) type NodeId = u32;

pub(crate) const ROOT: NodeId = 0;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// Never reached: only the edge (action, prior) is known.
    Unvisited,
    /// Reached, its state is in an evaluation batch that has not come back yet.
    Pending,
    /// Evaluated, children created.
    Expanded,
    /// The game is over here; `raw_value` holds the exact value.
    Terminal,
}

/// A node and the edge leading to it. Values are from [`Player::First`]'s point
/// of view (see the crate documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Sum of backed-up values `win - loss`.
    pub value_sum: f64,
    /// Sum of backed-up draw probabilities (for reporting WDL).
    pub draw_sum: f32,
    /// The evaluator's value of this node's state, or its exact value if terminal.
    pub raw_value: f32,
    pub first_child: NodeId,
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
    /// The player to move in this node's state; set once the node is reached.
    pub to_play: Player,
}

impl Node {
    pub fn new(action: u32, prior: f32, log_prior: f32) -> Node {
        Node {
            value_sum: 0.0,
            draw_sum: 0.0,
            raw_value: 0.0,
            first_child: 0,
            num_children: 0,
            action,
            prior,
            log_prior,
            visits: 0,
            in_flight: 0,
            kind: Kind::Unvisited,
            to_play: Player::First,
        }
    }

    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.num_children as usize
    }

    /// Mean value from `player`'s point of view; only meaningful with visits.
    pub fn q(&self, player: Player) -> f32 {
        player.sign() * (self.value_sum / f64::from(self.visits)) as f32
    }

    /// Visits including those still in flight.
    pub fn effective_visits(&self) -> u32 {
        self.visits + self.in_flight
    }

    pub fn mark_terminal(&mut self, outcome: Outcome) {
        self.kind = Kind::Terminal;
        self.raw_value = outcome.value_for(Player::First);
    }

    /// Value and draw probability to back up for a visit of this terminal node.
    pub fn terminal_backup(&self) -> (f32, f32) {
        let draw = if self.raw_value == 0.0 { 1.0 } else { 0.0 };
        (self.raw_value, draw)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    /// Second arena used while re-rooting, kept to avoid reallocating.
    spare: Vec<Node>,
}

impl Tree {
    pub fn new() -> Tree {
        let mut tree = Tree {
            nodes: Vec::new(),
            spare: Vec::new(),
        };
        tree.reset();
        tree
    }

    /// Back to a single unvisited root.
    pub fn reset(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::new(u32::MAX, 1.0, 0.0));
    }

    pub fn root(&self) -> &Node {
        &self.nodes[ROOT as usize]
    }

    /// Appends the children of `parent` and links them; `children` yields
    /// (action, prior, log_prior).
    pub fn add_children(
        &mut self,
        parent: NodeId,
        children: impl ExactSizeIterator<Item = (usize, f32, f32)>,
    ) -> Result<(), SearchError> {
        let first = self.nodes.len();
        let count = children.len();
        let max = NodeId::MAX as usize;
        if first + count > max {
            return Err(SearchError::TreeTooLarge { max });
        }
        self.nodes.extend(
            children.map(|(action, prior, log_prior)| Node::new(action as u32, prior, log_prior)),
        );
        let node = &mut self.nodes[parent as usize];
        node.first_child = first as NodeId;
        node.num_children = count as u32;
        node.kind = Kind::Expanded;
        Ok(())
    }

    /// Makes `child` (a child of the root) the new root, keeping its subtree
    /// and dropping everything else. The kept nodes are copied breadth-first
    /// into the spare arena, which keeps each family contiguous.
    pub fn reroot(&mut self, child: NodeId) {
        let spare = &mut self.spare;
        spare.clear();
        spare.push(self.nodes[child as usize]);
        let mut next = 0;
        while next < spare.len() {
            let node = spare[next];
            if node.num_children > 0 {
                let first = spare.len() as NodeId;
                spare.extend_from_slice(&self.nodes[node.children()]);
                spare[next].first_child = first;
            }
            next += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
    }
}
