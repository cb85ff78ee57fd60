//! The alpha-beta player's transposition table: one entry per slot, indexed
//! by the low bits of the key and verified by the whole key.

use sumito_engine::{Move, Position};

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true value is at least the score (a beta cut-off).
    Lower,
    /// The true value is at most the score (no move raised alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub score: i32,
    pub best_move: Option<Move>,
    pub depth: i16,
    pub bound: Bound,
    generation: u8,
}

#[derive(Debug)]
pub(crate) struct TranspositionTable {
    slots: Vec<Option<Entry>>,
    mask: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table of at most `megabytes` (rounded down to a power of two of
    /// slots, at least 1024 slots).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let slot_bytes = std::mem::size_of::<Option<Entry>>();
        let wanted = (megabytes * 1024 * 1024 / slot_bytes).max(1024);
        let slots = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        TranspositionTable {
            slots: vec![None; slots],
            mask: slots - 1,
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.slots.fill(None);
        self.generation = 0;
    }

    /// Marks a new search: entries of older searches are replaced first.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn probe(&self, key: u64) -> Option<&Entry> {
        self.slots[key as usize & self.mask]
            .as_ref()
            .filter(|entry| entry.key == key)
    }

    /// Stores unless the slot holds a deeper result for the same position,
    /// or a deeper one of this search for another position.
    pub fn store(
        &mut self,
        key: u64,
        score: i32,
        best_move: Option<Move>,
        depth: i16,
        bound: Bound,
    ) {
        let slot = &mut self.slots[key as usize & self.mask];
        if let Some(old) = slot {
            let same_search = old.generation == self.generation;
            if same_search && old.depth > depth && (old.key != key || bound != Bound::Exact) {
                return;
            }
        }
        let best_move = best_move.or_else(|| {
            slot.as_ref()
                .filter(|old| old.key == key)
                .and_then(|old| old.best_move)
        });
        *slot = Some(Entry {
            key,
            score,
            best_move,
            depth,
            bound,
            generation: self.generation,
        });
    }
}

/// Plies of look-ahead beyond which a limit that counts plies cannot matter
/// to any search (depth plus quiescence stay far below it).
const LIMIT_HORIZON: u32 = 128;

/// The table key of a position: its Zobrist hash (marbles, side to move,
/// marbles off), plus, when a rule that counts plies is within reach of the
/// search, how far away it is. The engine's hash leaves out the ply counters,
/// and the same marbles can recur at another ply (pieces shuffled back and
/// forth), where a move limit may be nearer.
pub(crate) fn table_key(position: &Position) -> u64 {
    let rules = position.rules();
    let mut key = position.hash();
    if let Some(limit) = rules.max_plies {
        let left = limit.saturating_sub(position.ply());
        if left <= LIMIT_HORIZON {
            key ^= crate::splitmix64(u64::from(left) | 1 << 40);
        }
    }
    if let Some(limit) = rules.no_push_off_plies {
        let left = limit.saturating_sub(position.plies_since_push_off());
        if left <= LIMIT_HORIZON {
            key ^= crate::splitmix64(u64::from(left) | 2 << 40);
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules};

    #[test]
    fn stores_and_replaces() {
        let mut table = TranspositionTable::new(1);
        assert!(table.slots.len().is_power_of_two());
        let mv = Move::from_action(5);
        table.store(77, 10, mv, 3, Bound::Exact);
        let entry = table.probe(77).unwrap();
        assert_eq!((entry.score, entry.best_move, entry.depth), (10, mv, 3));
        assert!(table.probe(78).is_none());
        // A shallower bound of the same search does not overwrite a deeper entry...
        table.store(77, 20, None, 1, Bound::Lower);
        assert_eq!(table.probe(77).unwrap().score, 10);
        // ...but one of a later search does, and keeps the known best move.
        table.new_search();
        table.store(77, 20, None, 1, Bound::Lower);
        let entry = table.probe(77).unwrap();
        assert_eq!((entry.score, entry.best_move), (20, mv));
        table.clear();
        assert!(table.probe(77).is_none());
    }

    #[test]
    fn key_sees_a_near_move_limit() {
        let start = Position::start(Layout::Standard, Rules::default());
        assert_eq!(table_key(&start), start.hash());
        let limited = start.with_rules(Rules {
            max_plies: Some(400),
            ..Rules::default()
        });
        assert_eq!(table_key(&limited), start.hash());
        let near = limited.with_ply_counters(390, 0);
        let nearer = limited.with_ply_counters(391, 0);
        assert_ne!(table_key(&near), start.hash());
        assert_ne!(table_key(&near), table_key(&nearer));
    }
}
