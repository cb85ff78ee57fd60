//! `sumito arena` with network players: the classical players plus
//! checkpoints of a run (`net`) and exported bundles (`bundle`, looked up
//! like `sumito play --model`), all games of one network sharing one
//! batching inference service.

use std::path::PathBuf;

use anyhow::Context;
use sumito_arena::arena_board::ArenaBoard;
use sumito_arena::player::PlayerRegistry;
use sumito_arena::spec::PlayerSpec;
use sumito_bundle::arena_player::BundlePlayerFactory;
use sumito_bundle::bundle::{ModelBundle, locate_bundle, model_folders};
use sumito_cli::commands::arena::Args;
use sumito_cli::commands::command_board::{PlayerKinds, TrainedTables};
use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;
use sumito_net::NetBoard;
use sumito_pipeline::players::NetPlayerFactory;

/// The players of both games: the classical ones, and networks (`net:`
/// checkpoints, `bundle:` models) under the rules they learned.
pub(crate) const NETWORK_PLAYERS: PlayerKinds = PlayerKinds {
    general_models,
    two_player: registry,
    general: || with_networks(GeneralPosition::classical_players()),
};

/// The classical players plus the network players, of the two-player game.
pub fn registry() -> anyhow::Result<PlayerRegistry> {
    with_networks(Position::classical_players())
}

/// `classical` (a game's classical players) with its `net:` checkpoints and
/// `bundle:` models (looked up like `sumito play --model`, playing under the
/// rules they learned).
fn with_networks<B: NetBoard>(
    mut registry: PlayerRegistry<B>,
) -> anyhow::Result<PlayerRegistry<B>> {
    registry.register(Box::new(NetPlayerFactory::<B>::new()))?;
    registry.register(Box::new(BundlePlayerFactory::<B>::new(folders())))?;
    Ok(registry)
}

/// The `[rules]` table of each `bundle:` model of the general game among
/// `specs`, read from its metadata (`net:` checkpoints carry none).
fn general_models(specs: &[String]) -> anyhow::Result<TrainedTables> {
    let mut trained = Vec::new();
    for text in specs {
        let Ok(spec) = text.parse::<PlayerSpec>() else {
            continue; // refused with its reason where the players load
        };
        if spec.kind != "bundle" {
            continue;
        }
        let given = spec.params().get_path("model");
        let dir = locate_bundle(given.as_deref(), &folders())
            .with_context(|| format!("--player {text}"))?;
        let bundle = ModelBundle::open(&dir).with_context(|| format!("--player {text}"))?;
        if let Some(table) = bundle.meta.general() {
            trained.push((text.clone(), table.clone()));
        }
    }
    Ok(trained)
}

/// Where `bundle:` models are looked up when named.
fn folders() -> Vec<PathBuf> {
    let program = std::env::current_exe().ok();
    model_folders(
        program.as_deref(),
        std::env::var_os("SUMITO_MODELS").map(Into::into),
    )
}

pub fn run(args: Args) -> anyhow::Result<()> {
    sumito_cli::commands::arena::run(args, &NETWORK_PLAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_cli::commands::command_board::NETWORK_PLAYER_KINDS;

    #[test]
    fn the_network_kinds_are_the_ones_registered_here() {
        let classical = Position::classical_players();
        let full = registry().unwrap();
        for kind in NETWORK_PLAYER_KINDS {
            assert!(!classical.kinds().contains(&kind), "{kind}");
            assert!(full.kinds().contains(&kind), "{kind}");
        }
    }

    #[test]
    fn a_shipped_model_of_the_general_game_brings_its_rules() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/models/three-player");
        let specs = [
            format!("bundle:model={dir},simulations=8"),
            "greedy".to_owned(),
            format!("bundle:model={}/models/quick", env!("CARGO_MANIFEST_DIR")),
        ];
        let trained = (NETWORK_PLAYERS.general_models)(&specs).unwrap();
        // The model of the general game, not the two-player one nor greedy.
        assert_eq!(trained.len(), 1);
        assert_eq!(trained[0].0, specs[0]);
        let table = &trained[0].1;
        assert_eq!(table.max_plies, Some(240));
        assert_eq!(
            table.layouts.as_deref(),
            Some(&["three-player".to_owned()][..])
        );
        let err = (NETWORK_PLAYERS.general_models)(&["bundle:model=/no/such/model".to_owned()])
            .unwrap_err();
        assert!(format!("{err:#}").contains("/no/such/model"), "{err:#}");
    }
}
