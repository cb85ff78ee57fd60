//! `sumito arena` with network players: the classical players plus
//! checkpoints of a run (`net`) and exported bundles (`bundle`, looked up
//! like `sumito play --model`), all games of one network sharing one
//! batching inference service.

use std::path::{Path, PathBuf};

use sumito_arena::multi::SeatPlayerMaker;
use sumito_arena::player::PlayerRegistry;
use sumito_bundle::arena_player::BundlePlayerFactory;
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::arena::{Args, registry as classical_registry};
use sumito_pipeline::players::NetPlayerFactory;
use sumito_pipeline::variant_players::VariantNetSeats;

/// The classical players plus the network players.
pub fn registry() -> anyhow::Result<PlayerRegistry> {
    let mut registry = classical_registry();
    registry.register(Box::new(NetPlayerFactory))?;
    let program = std::env::current_exe().ok();
    let folders = model_folders(
        program.as_deref(),
        std::env::var_os("SUMITO_MODELS").map(Into::into),
    );
    registry.register(Box::new(BundlePlayerFactory::new(folders)))?;
    Ok(registry)
}

/// The players of a match of the general game: the classical ones, `net:`
/// checkpoints of networks of the general game and `bundle:` models of it
/// (looked up like `sumito play --model`).
pub(crate) fn general_seats(specs: &[String]) -> anyhow::Result<Box<SeatPlayerMaker<'static>>> {
    let seats = VariantNetSeats::load(specs, &general_bundle)?;
    Ok(Box::new(move |spec: &str, seed: u64| {
        seats.make(spec, seed)
    }))
}

/// The folder of the general-game bundle `given` names (verified), or why
/// it cannot seat one.
pub(crate) fn general_bundle(given: Option<&Path>) -> Result<PathBuf, String> {
    let program = std::env::current_exe().ok();
    let folders = model_folders(
        program.as_deref(),
        std::env::var_os("SUMITO_MODELS").map(Into::into),
    );
    let dir = locate_bundle(given, &folders).map_err(|err| err.to_string())?;
    let bundle = ModelBundle::open(&dir).map_err(|err| err.to_string())?;
    bundle
        .require_general("the many-player games and the variants need a model trained on them")
        .map_err(|err| err.to_string())?;
    Ok(dir)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    sumito_cli::commands::arena::run(args, &registry()?, &general_seats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_cli::commands::arena::NETWORK_PLAYER_KINDS;

    #[test]
    fn the_network_kinds_are_the_ones_registered_here() {
        let classical = classical_registry();
        let full = registry().unwrap();
        for kind in NETWORK_PLAYER_KINDS {
            assert!(!classical.kinds().contains(&kind), "{kind}");
            assert!(full.kinds().contains(&kind), "{kind}");
        }
    }
}
