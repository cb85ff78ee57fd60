//! Networks of the general game (variants, 3 to 6 players) as seats of
//! many-player matches (`sumito arena --layout three-player --player
//! net:model=DIR ...`): each move a search over `GeneralGame` (max^n values,
//! the Gumbel root by default) with the network as evaluator, and the move
//! chosen with the checks of `sumito_game::choice` (a win at once, a loss at
//! once, and cycles unless ahead: `avoid_repetition=false` turns that off).
//! Every game of a match that seats one network shares one batching
//! inference service. A seat's spec takes what a two-player network
//! player's does (`simulations=`, `considered=`, `puct=`, `time=`,
//! `threads=`, `avoid_repetition=`) but `material=` and `score=`, which
//! the general game has nothing to apply to.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sumito_arena::general_match::seat_player;
use sumito_arena::player::Player;
use sumito_arena::spec::{PlayerSpec, SpecError};
use sumito_engine::general::GeneralPosition;
use sumito_game::Level;
use sumito_mcts::SearchConfig;
use sumito_net::{InferenceConfig, InferenceService, NetGame, PolicyValueNet};

use crate::players::{NetPlayer, network_settings};

/// The network players of one match, loaded once: `net:model=DIR` (a
/// checkpoint folder) or `bundle:model=NAME_OR_DIR` (an exported model of
/// the general game), with `simulations=N`, `considered=M`, `puct=true` or
/// `avoid_repetition=false` as for two-player matches.
#[derive(Debug, Default)]
pub struct GeneralNetSeats {
    loaded: Vec<LoadedNetwork>,
}

/// One network of a match, by the spec text that seats it.
#[derive(Debug)]
struct LoadedNetwork {
    name: String,
    service: Arc<InferenceService>,
    search: SearchConfig,
    avoid_repetition: bool,
    /// Its time a move (`time=`), instead of its simulations.
    time: Option<std::time::Duration>,
    /// Copies of the network evaluating one search's leaves (`threads=`).
    search_threads: usize,
    /// Its strength level (`level=`).
    level: Option<Level>,
}

impl GeneralNetSeats {
    /// Loads the network of every `net:` and `bundle:` spec among `specs`;
    /// `bundles` finds and verifies the bundle a `bundle:` spec names (its
    /// `model=`, if given) and returns its folder, which holds the weights
    /// as a checkpoint.
    pub fn load(
        specs: &[String],
        bundles: &dyn Fn(Option<&Path>) -> Result<PathBuf, String>,
    ) -> Result<GeneralNetSeats, SpecError> {
        let mut seats = GeneralNetSeats::default();
        for text in specs {
            let spec: PlayerSpec = text.parse()?;
            let is_network = spec.kind == "net" || spec.kind == "bundle";
            if !is_network || seats.loaded.iter().any(|known| known.name == *text) {
                continue;
            }
            let mut params = spec.params();
            let given = params.get_path("model");
            let settings = network_settings(&mut params)?;
            params.finish()?;
            let invalid = |problem: String| spec.params().invalid(problem);
            if settings.material_plies > 0 {
                return Err(invalid(
                    "material=: the general game has no exact material count (leave it out)"
                        .to_owned(),
                ));
            }
            if settings.score_utility.is_some() {
                return Err(invalid(
                    "score=: the general game's network has no marble-difference head (leave it out)"
                        .to_owned(),
                ));
            }
            let model = match (spec.kind.as_str(), given) {
                ("net", Some(path)) => path,
                ("net", None) => return Err(invalid("needs model=CHECKPOINT_DIR".to_owned())),
                (_, given) => bundles(given.as_deref()).map_err(invalid)?,
            };
            // One copy of the network per search thread (`threads=`).
            let mut replicas = Vec::new();
            for _ in 0..settings.search_threads {
                let (net, _) = PolicyValueNet::load_checkpoint(&model, None, tch::Device::Cpu)
                    .map_err(|err| invalid(format!("cannot load {}: {err}", model.display())))?;
                if net.game() != NetGame::General {
                    return Err(invalid(format!(
                        "{} is a network of the two-player game; the variants and many-player games need one trained on them",
                        model.display()
                    )));
                }
                replicas.push(net);
            }
            let service =
                InferenceService::start_replicas(replicas, &InferenceConfig::default())
                    .map_err(|err| invalid(format!("cannot start {}: {err}", model.display())))?;
            seats.loaded.push(LoadedNetwork {
                name: text.clone(),
                service: Arc::new(service),
                search: settings.search,
                avoid_repetition: settings.avoid_repetition,
                time: settings.limit.time,
                search_threads: settings.search_threads,
                level: settings.level,
            });
        }
        Ok(seats)
    }

    /// The seats of one network already loaded, named `name` (the spec that
    /// seats it), searching with `search`, evaluated by a service with
    /// `inference`'s settings.
    pub fn with_network(
        name: &str,
        net: PolicyValueNet,
        search: SearchConfig,
        inference: &InferenceConfig,
    ) -> Result<GeneralNetSeats, sumito_net::NetError> {
        let mut seats = GeneralNetSeats::default();
        seats.add_network(name, net, search, inference)?;
        Ok(seats)
    }

    /// Adds the seats of another network already loaded (see
    /// [`GeneralNetSeats::with_network`]).
    pub fn add_network(
        &mut self,
        name: &str,
        net: PolicyValueNet,
        search: SearchConfig,
        inference: &InferenceConfig,
    ) -> Result<(), sumito_net::NetError> {
        let service = InferenceService::start(net, inference)?;
        self.loaded.push(LoadedNetwork {
            name: name.to_owned(),
            service: Arc::new(service),
            search,
            avoid_repetition: true,
            time: None,
            search_threads: 1,
            level: None,
        });
        Ok(())
    }

    /// The player `spec` names: a loaded network, or a classical player.
    pub fn make(
        &self,
        spec: &str,
        seed: u64,
    ) -> Result<Box<dyn Player<GeneralPosition>>, SpecError> {
        match self.loaded.iter().find(|known| known.name == spec) {
            Some(network) => {
                let player = NetPlayer::<GeneralPosition>::new(
                    network.name.clone(),
                    network
                        .service
                        .client()
                        .with_parallel_requests(network.search_threads),
                    network.search.clone(),
                    seed,
                    network.avoid_repetition,
                    0,
                )
                .with_level(network.level);
                Ok(Box::new(match network.time {
                    Some(time) => player.with_time(time),
                    None => player,
                }))
            }
            None => seat_player(spec, seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use sumito_arena::general_match::play_general_match;
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};

    fn checkpoint(dir: &TempDir, game: NetGame) -> String {
        let model = crate::players::tests::tiny_model(game);
        let path = dir.path().join(format!("{game:?}"));
        PolicyValueNet::new(&model, tch::Device::Cpu)
            .unwrap()
            .save_checkpoint(&path, 0, None)
            .unwrap();
        format!("net:model={},simulations=8", path.display())
    }

    #[test]
    fn a_network_of_the_general_game_plays_a_three_player_match() {
        let dir = TempDir::new("variant-seats");
        let net = checkpoint(&dir, NetGame::General);
        let entrants = vec![net, "greedy".to_owned(), "random".to_owned()];
        let seats = GeneralNetSeats::load(&entrants, &no_bundles).unwrap();
        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.max_plies = Some(30);
        let setup = GeneralSetup::layout(GeneralLayout::from_name("three-player").unwrap());
        let report = play_general_match(
            &|spec, seed| seats.make(spec, seed),
            &entrants,
            &setup,
            &rules,
            3,
            0,
            5,
            2,
            &|| false,
        )
        .unwrap();
        assert_eq!(report.games.len(), 3);
        // Seats rotate: the network played each side once.
        let mut sides: Vec<usize> = report
            .games
            .iter()
            .map(|game| game.entrant_of_side.iter().position(|&e| e == 0).unwrap())
            .collect();
        sides.sort_unstable();
        assert_eq!(sides, [0, 1, 2]);
    }

    #[test]
    fn a_two_player_network_is_refused_by_name() {
        let dir = TempDir::new("variant-seats-two");
        let net = checkpoint(&dir, NetGame::TwoPlayer);
        let message = GeneralNetSeats::load(&[net], &no_bundles)
            .err()
            .unwrap()
            .to_string();
        assert!(message.contains("two-player game"), "{message}");
    }

    #[test]
    fn avoid_repetition_is_read_from_the_spec() {
        let dir = TempDir::new("variant-seats-repetition");
        let net = checkpoint(&dir, NetGame::General);
        let off = format!("{net},avoid_repetition=false");
        let seats = GeneralNetSeats::load(std::slice::from_ref(&off), &no_bundles).unwrap();
        assert!(!seats.loaded[0].avoid_repetition);
        let on = GeneralNetSeats::load(std::slice::from_ref(&net), &no_bundles).unwrap();
        assert!(on.loaded[0].avoid_repetition);
        let message =
            GeneralNetSeats::load(&[format!("{net},avoid_repetition=maybe")], &no_bundles)
                .err()
                .unwrap()
                .to_string();
        assert!(message.contains("avoid_repetition"), "{message}");
    }

    #[test]
    fn a_seat_takes_time_and_threads_and_refuses_what_the_general_game_lacks() {
        let dir = TempDir::new("variant-seats-time");
        let net = checkpoint(&dir, NetGame::General);
        let timed = format!("{net},time=50ms,threads=2");
        let entrants = vec![timed.clone(), "greedy".to_owned(), "random".to_owned()];
        let seats = GeneralNetSeats::load(&entrants, &no_bundles).unwrap();
        assert_eq!(
            seats.loaded[0].time,
            Some(std::time::Duration::from_millis(50))
        );
        assert_eq!(seats.loaded[0].search_threads, 2);
        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.max_plies = Some(12);
        let setup = GeneralSetup::layout(GeneralLayout::from_name("three-player").unwrap());
        let report = play_general_match(
            &|spec, seed| seats.make(spec, seed),
            &entrants,
            &setup,
            &rules,
            1,
            0,
            5,
            1,
            &|| false,
        )
        .unwrap();
        assert_eq!(report.games.len(), 1);
        for (param, named) in [("material=2", "material="), ("score=0.5", "score=")] {
            let message = GeneralNetSeats::load(&[format!("{net},{param}")], &no_bundles)
                .err()
                .unwrap()
                .to_string();
            assert!(message.contains(named), "{message}");
        }
    }

    fn no_bundles(_: Option<&Path>) -> Result<PathBuf, String> {
        Err("no bundles here".to_owned())
    }

    #[test]
    fn a_bundle_seat_loads_the_folder_its_finder_returns() {
        let dir = TempDir::new("variant-seats-bundle");
        let net = checkpoint(&dir, NetGame::General);
        let folder = PathBuf::from(
            net.trim_start_matches("net:model=")
                .split(',')
                .next()
                .unwrap(),
        );
        let asked = std::sync::Mutex::new(Vec::new());
        let finder = |given: Option<&Path>| {
            asked.lock().unwrap().push(given.map(Path::to_owned));
            Ok(folder.clone())
        };
        let specs = vec![
            "bundle:model=three,simulations=4".to_owned(),
            "bundle".to_owned(),
            "greedy".to_owned(),
        ];
        let seats = GeneralNetSeats::load(&specs, &finder).unwrap();
        assert_eq!(*asked.lock().unwrap(), [Some(PathBuf::from("three")), None]);
        let seat = seats.make(&specs[0], 1).unwrap();
        assert_eq!(seat.name(), specs[0]);
        // The finder's refusal is the seat's error, with the spec named.
        let message = GeneralNetSeats::load(&specs[..1], &no_bundles)
            .err()
            .unwrap()
            .to_string();
        assert!(message.contains("no bundles here"), "{message}");
        assert!(message.contains("player \"bundle\""), "{message}");
    }
}
