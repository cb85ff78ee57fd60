//! Fixed opponents of evaluation games, named by arena player specs
//! (`random`, `greedy`, `alphabeta:depth=2`).

use sumito_arena::player::{Entrant, PlayerRegistry};

/// Prepares the arena player named by `spec`; the error says what is wrong.
pub fn fixed_player(spec: &str) -> Result<Entrant, String> {
    PlayerRegistry::builtin()
        .prepare_str(spec)
        .map_err(|err| err.to_string())
}

/// Checks an opponent spec.
pub fn check_opponent(spec: &str) -> Result<(), String> {
    fixed_player(spec).map(|_| ())
}
