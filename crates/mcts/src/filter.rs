//! Moves the search may not explore: an analysis asked to leave some moves
//! out (KataGo's `avoidMoves`) or to look at some only (`allowMoves`), for
//! one side and down to a depth of the tree.

use crate::Side;

/// One restriction of the moves of `side` in the first `until_depth`
/// plies of the tree (1: the root's moves only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRule {
    pub side: Side,
    pub until_depth: u32,
    /// The actions it names, sorted.
    pub actions: Vec<usize>,
    /// `true`: only these actions may be explored (allow); `false`: these
    /// may not (avoid).
    pub only: bool,
}

impl ActionRule {
    /// A rule over `actions` in any order.
    pub fn new(side: Side, until_depth: u32, mut actions: Vec<usize>, only: bool) -> ActionRule {
        actions.sort_unstable();
        actions.dedup();
        ActionRule {
            side,
            until_depth,
            actions,
            only,
        }
    }

    fn applies(&self, depth: u32, side: Side) -> bool {
        side == self.side && depth < self.until_depth
    }

    fn permits(&self, action: usize) -> bool {
        self.actions.binary_search(&action).is_ok() == self.only
    }
}

/// The restrictions of one search: an action is explored only where every
/// rule that applies there permits it. A node where they would leave no
/// action at all keeps every legal action (a position must have moves);
/// the caller checks the root beforehand ([`ActionFilter::permitted`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActionFilter {
    pub rules: Vec<ActionRule>,
}

impl ActionFilter {
    /// Whether `action` of `side`, `depth` plies below the root (0: a move
    /// of the root), may be explored.
    pub fn permits(&self, depth: u32, side: Side, action: usize) -> bool {
        self.rules
            .iter()
            .filter(|rule| rule.applies(depth, side))
            .all(|rule| rule.permits(action))
    }

    /// The actions of `legal` that `side` may play `depth` plies below the
    /// root, ignoring the rule that a node keeps at least one.
    pub fn permitted(&self, depth: u32, side: Side, legal: &[usize]) -> Vec<usize> {
        legal
            .iter()
            .copied()
            .filter(|&action| self.permits(depth, side, action))
            .collect()
    }

    /// Fills `actions` and `logits` with the permitted ones of `legal` and
    /// their `legal_logits`; every one when none is permitted.
    pub(crate) fn keep(
        &self,
        depth: u32,
        side: Side,
        legal: &[usize],
        legal_logits: &[f32],
        actions: &mut Vec<usize>,
        logits: &mut Vec<f32>,
    ) {
        actions.clear();
        logits.clear();
        for (&action, &logit) in legal.iter().zip(legal_logits) {
            if self.permits(depth, side, action) {
                actions.push(action);
                logits.push(logit);
            }
        }
        if actions.is_empty() {
            actions.extend_from_slice(legal);
            logits.extend_from_slice(legal_logits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_apply_to_their_side_down_to_their_depth_and_combine() {
        let black = Side::new(0);
        let white = Side::new(1);
        let filter = ActionFilter {
            rules: vec![
                ActionRule::new(black, 1, vec![3, 1], false),
                ActionRule::new(white, 2, vec![5, 6], true),
            ],
        };
        assert!(!filter.permits(0, black, 1));
        assert!(filter.permits(0, black, 2));
        // Below its depth, or for the other side, a rule says nothing.
        assert!(filter.permits(1, black, 1));
        assert!(filter.permits(0, white, 5) && !filter.permits(1, white, 4));
        assert!(filter.permits(2, white, 4));
        assert_eq!(filter.permitted(0, black, &[0, 1, 2, 3]), [0, 2]);
        let (mut actions, mut logits) = (Vec::new(), Vec::new());
        filter.keep(1, white, &[4, 6], &[0.5, 0.25], &mut actions, &mut logits);
        assert_eq!(
            (actions.as_slice(), logits.as_slice()),
            (&[6][..], &[0.25][..])
        );
        // A node left without moves keeps them all.
        filter.keep(0, black, &[1, 3], &[0.5, 0.25], &mut actions, &mut logits);
        assert_eq!(actions, [1, 3]);
        assert_eq!(logits, [0.5, 0.25]);
    }
}
