//! An exported model bundle as an arena player of its game
//! (`bundle:model=quick,simulations=64`, `bundle:model=three-player`), so
//! that a shipped model can be measured against the fixed opponents and
//! against checkpoints with `sumito arena`. The player searches with the
//! bundle's TorchScript network, the file `sumito play` uses, under the
//! rules the model learned.

use std::marker::PhantomData;
use std::path::PathBuf;

use sumito_arena::player::{Entrant, PlayerFactory};
use sumito_arena::spec::{PlayerSpec, SpecError};
use sumito_net::{DeviceSpec, NetBoard};
use sumito_pipeline::players::{SEARCH_PARAMS_HELP, network_entrant, network_settings};

use crate::load::{ModelBundle, locate_bundle};
use crate::meta::DEFAULT_MODEL;

/// Makes `bundle` players of game `B`: `bundle[:model=NAME_OR_DIR][,simulations=N]`.
/// A bare name is looked up in the model folders (as `sumito play --model`
/// does); without `model=` the shipped model is used.
#[derive(Debug, Clone)]
pub struct BundlePlayerFactory<B> {
    folders: Vec<PathBuf>,
    game: PhantomData<fn() -> B>,
}

impl<B> BundlePlayerFactory<B> {
    /// `folders`: where bare model names are looked up, in order (see
    /// [`crate::load::model_folders`]).
    pub fn new(folders: Vec<PathBuf>) -> BundlePlayerFactory<B> {
        BundlePlayerFactory {
            folders,
            game: PhantomData,
        }
    }
}

impl<B: NetBoard> PlayerFactory<B> for BundlePlayerFactory<B> {
    fn kind(&self) -> &str {
        "bundle"
    }

    fn help(&self) -> String {
        format!(
            "bundle: an exported model (sumito export) with MCTS; model=NAME or DIR (default: the shipped model `{DEFAULT_MODEL}`), {SEARCH_PARAMS_HELP}"
        )
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<B>, SpecError> {
        let mut params = spec.params();
        let given = params.get_path("model");
        let mut settings = network_settings(&mut params)?;
        params.finish()?;
        let invalid = |problem: String| spec.params().invalid(problem);
        let dir = locate_bundle(given.as_deref(), &self.folders)
            .map_err(|err| invalid(err.to_string()))?;
        let bundle = ModelBundle::open(&dir).map_err(|err| invalid(err.to_string()))?;
        let rules = bundle
            .trained_rules::<B>()
            .map_err(|err| invalid(err.to_string()))?;
        // Unless the spec says, the model plays with the weight it learned with.
        settings.score_utility = settings.score_utility.or(Some(bundle.meta.score_utility));
        let device = DeviceSpec::Cpu
            .resolve()
            .map_err(|err| invalid(err.to_string()))?;
        let replicas = (0..settings.search_threads)
            .map(|_| bundle.load_torchscript(device))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| invalid(err.to_string()))?;
        network_entrant(spec.to_string(), replicas, settings)
            .map(|entrant| entrant.with_trained_rules(rules))
            .map_err(|err| invalid(format!("cannot start {}: {err}", dir.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_arena::player::PlayerRegistry;
    use sumito_engine::Position;
    use sumito_engine::general::GeneralPosition;
    use sumito_game::GameKind;

    fn registry(folders: Vec<PathBuf>) -> PlayerRegistry {
        let mut registry = Position::classical_players();
        registry
            .register(Box::new(BundlePlayerFactory::<Position>::new(folders)))
            .unwrap();
        registry
    }

    #[test]
    fn an_exported_bundle_plays_a_match_by_name() {
        use crate::export::export_bundle;
        use crate::export::tests::{Scratch, request, tiny_run};
        use sumito_arena::arena::{MatchConfig, Silent, play_match};
        use sumito_engine::{EndReason, Layout, Rules};

        let scratch = Scratch::new("arena-player");
        let run = tiny_run(&scratch.0.join("run"));
        let models = scratch.0.join("models");
        export_bundle(&request(run.root(), &models.join("tiny"))).unwrap();
        let registry = registry(vec![models]);
        let entrants = [
            registry
                .prepare_str("bundle:model=tiny,simulations=8")
                .unwrap(),
            registry.prepare_str("random").unwrap(),
        ];
        // Two games at once: both searches share the bundle's service.
        let rules = Rules {
            max_plies: Some(12),
            ..Rules::default()
        };
        let config = MatchConfig {
            games_per_pairing: 2,
            threads: 2,
            ..MatchConfig::two_player(&[Layout::BelgianDaisy], rules)
        };
        let results = play_match(&entrants, &config, &Silent).unwrap();
        assert_eq!(results.games.len(), 2);
        for game in &results.games {
            assert_eq!(
                game.ending().map(|ending| ending.reason),
                Some(EndReason::MoveLimit),
                "{game:?}"
            );
        }
    }

    #[test]
    fn a_missing_or_foreign_bundle_is_named() {
        let nowhere = std::env::temp_dir().join("sumito-no-such-models-folder");
        let err = registry(vec![nowhere.clone()])
            .prepare_str("bundle")
            .unwrap_err()
            .to_string();
        assert!(err.contains("sumito-no-such-models-folder"), "{err}");
        // A folder that exists but holds no bundle.json.
        let err = registry(vec![nowhere])
            .prepare_str(&format!("bundle:model={}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("bundle.json"), "{err}");
        let err = registry(Vec::new())
            .prepare_str("bundle:model=x,depth=3")
            .unwrap_err()
            .to_string();
        assert!(err.contains("depth"), "{err}");
    }

    #[test]
    fn a_bundle_of_the_general_game_takes_a_seat_of_its_game_under_its_rules() {
        use crate::export::export_bundle;
        use crate::export::tests::{Scratch, request};
        use sumito_arena::arena::{MatchConfig, MatchStart, Silent, play_match};
        use sumito_engine::general::GeneralLayout;
        use sumito_net::{ModelConfig, PolicyValueNet};
        use sumito_pipeline::rundir::RunDir;

        let scratch = Scratch::new("arena-player-general");
        let config = "[rules]\nlayouts = [\"three-player\"]\nmax_plies = 18\n[gating]\nmode = \"off\"\n[selfplay]\nscore_utility = 0.5\n[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n";
        let run = RunDir::create(&scratch.0.join("run"), config).unwrap();
        let model = ModelConfig {
            blocks: 1,
            channels: 8,
            policy_channels: 4,
            value_channels: 4,
            value_hidden: 8,
            game: GameKind::General,
            push_off_planes: false,
        };
        PolicyValueNet::new(&model, sumito_net::Device::Cpu)
            .unwrap()
            .save_checkpoint(&run.model_path(0), 0, None)
            .unwrap();
        let models = scratch.0.join("models");
        export_bundle(&request(run.root(), &models.join("three"))).unwrap();
        let mut general = GeneralPosition::classical_players();
        general
            .register(Box::new(BundlePlayerFactory::<GeneralPosition>::new(vec![
                models.clone(),
            ])))
            .unwrap();
        let seat = general
            .prepare_str("bundle:model=three,simulations=4,material=1")
            .unwrap();
        let table = seat.trained_rules.clone().unwrap();
        assert_eq!(table.max_plies, Some(18));
        let entrants = [
            seat,
            general.prepare_str("greedy").unwrap(),
            general.prepare_str("random").unwrap(),
        ];
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let config = MatchConfig {
            games_per_pairing: 3,
            starts: vec![MatchStart::general(layout, &table).unwrap()],
            rules: table,
            opening_plies: 0,
            seed: 1,
            threads: 1,
            record_dir: None,
            sprt: None,
        };
        let results = play_match(&entrants, &config, &Silent).unwrap();
        assert_eq!(results.games.len(), 3);
        // A two-player registry refuses it by name, and the general one a
        // two-player bundle.
        let err = registry(vec![models])
            .prepare_str("bundle:model=three")
            .unwrap_err()
            .to_string();
        assert!(err.contains("general game"), "{err}");
    }
}
