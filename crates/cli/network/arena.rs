//! `sumito arena` with network players: the classical players plus
//! checkpoints of a run (`net`) and exported bundles (`bundle`, looked up
//! like `sumito play --model`), all games of one network sharing one
//! batching inference service.

use sumito_arena::multi::SeatPlayerMaker;
use sumito_arena::player::PlayerRegistry;
use sumito_bundle::arena_player::BundlePlayerFactory;
use sumito_bundle::bundle::model_folders;
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

/// The players of a match of the general game: the classical ones and
/// `net:` checkpoints of networks of the general game.
pub(crate) fn general_seats(specs: &[String]) -> anyhow::Result<Box<SeatPlayerMaker<'static>>> {
    let seats = VariantNetSeats::load(specs)?;
    Ok(Box::new(move |spec: &str, seed: u64| {
        seats.make(spec, seed)
    }))
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
