//! Networks of the general game (variants, 3 to 6 players) as seats of
//! many-player matches (`sumito arena --layout three-player --player
//! net:model=DIR ...`): each move a search over `GeneralGame` (max^n values,
//! the Gumbel root by default) with the network as evaluator, and the move
//! chosen with the checks of `sumito_game::choice` (a win at once, a loss at
//! once, and cycles unless ahead: `avoid_repetition=false` turns that off).
//! Every game of a match that seats one network shares one batching
//! inference service. A seat's spec takes what a two-player network
//! player's does (`simulations=`, `considered=`, `puct=`, `time=`,
//! `threads=`, `avoid_repetition=`, `material=`: the count of one side
//! against all the others; `score=`: the marbles each seat is predicted to
//! push off, `sumito_net::general_search::with_utilities`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sumito_arena::player::{Entrant, PlayerFactory, SearchLimit};
use sumito_arena::spec::{PlayerSpec, SpecError};
use sumito_engine::general::GeneralPosition;
use sumito_engine::rules_table::RulesTable;
use sumito_net::{InferenceConfig, InferenceService, NetGame, PolicyValueNet};

use crate::players::{NetPlayer, SEARCH_PARAMS_HELP, network_settings};

/// What a `bundle:` spec names, found and verified.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundBundle {
    /// Its folder, which holds the weights as a checkpoint.
    pub folder: PathBuf,
    /// The `[rules]` table it learned under.
    pub rules: Option<RulesTable>,
    /// The score weight its run searched with, its seats' `score=` unless
    /// their spec gives one.
    pub score_utility: f32,
}

/// Finds and verifies the bundle a `bundle:` spec names (its `model=`, if
/// given).
pub type BundleFinder = dyn Fn(Option<&Path>) -> Result<FoundBundle, String> + Send + Sync;

/// Makes players of networks of the general game: `net:model=DIR` (a
/// checkpoint folder) or `bundle:model=NAME_OR_DIR` (an exported model of
/// the general game), with `simulations=N`, `considered=M`, `puct=true`,
/// `time=`, `threads=`, `level=` or `avoid_repetition=false` as for
/// two-player networks. Each entrant loads its network once and all its
/// games share one batching inference service.
pub struct GeneralNetFactory {
    kind: &'static str,
    bundles: Option<Box<BundleFinder>>,
}

impl std::fmt::Debug for GeneralNetFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneralNetFactory")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl GeneralNetFactory {
    /// `net:model=CHECKPOINT_DIR`.
    pub fn checkpoints() -> GeneralNetFactory {
        GeneralNetFactory {
            kind: "net",
            bundles: None,
        }
    }

    /// `bundle:model=NAME_OR_DIR`, found by `bundles`.
    pub fn bundles(
        bundles: impl Fn(Option<&Path>) -> Result<FoundBundle, String> + Send + Sync + 'static,
    ) -> GeneralNetFactory {
        GeneralNetFactory {
            kind: "bundle",
            bundles: Some(Box::new(bundles)),
        }
    }
}

impl PlayerFactory<GeneralPosition> for GeneralNetFactory {
    fn kind(&self) -> &str {
        self.kind
    }

    fn help(&self) -> String {
        let what = if self.bundles.is_some() {
            "an exported model of the general game; model=NAME_OR_DIR"
        } else {
            "a checkpoint of a run of the general game; model=CHECKPOINT_DIR"
        };
        format!("{}: {what}, {SEARCH_PARAMS_HELP}", self.kind)
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<GeneralPosition>, SpecError> {
        let mut params = spec.params();
        let given = params.get_path("model");
        let mut settings = network_settings(&mut params)?;
        params.finish()?;
        let invalid = |problem: String| spec.params().invalid(problem);
        let (model, trained) = match (&self.bundles, given) {
            (None, Some(path)) => (path, None),
            (None, None) => return Err(invalid("needs model=CHECKPOINT_DIR".to_owned())),
            (Some(find), given) => {
                let found = find(given.as_deref()).map_err(invalid)?;
                // Unless the spec says, the model plays with the weight it
                // learned with.
                settings.score_utility = settings.score_utility.or(Some(found.score_utility));
                (found.folder, found.rules)
            }
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
        let service = InferenceService::start_replicas(replicas, &InferenceConfig::default())
            .map_err(|err| invalid(format!("cannot start {}: {err}", model.display())))?;
        let service = Arc::new(service);
        let name = spec.to_string();
        let label = name.clone();
        let entrant = Entrant::new(name, SearchLimit::default(), move |seed| {
            let player = NetPlayer::<GeneralPosition>::new(
                label.clone(),
                service
                    .client()
                    .with_score_utility(settings.score_utility.unwrap_or(0.0))
                    .with_parallel_requests(settings.search_threads),
                settings.search.clone(),
                seed,
                settings.avoid_repetition,
                settings.material_plies,
            )
            .with_level(settings.level);
            Box::new(match settings.limit.time {
                Some(time) => player.with_time(time),
                None => player,
            })
        });
        Ok(match trained {
            Some(table) => entrant.with_trained_rules(table),
            None => entrant,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use sumito_arena::arena::{MatchConfig, MatchResults, MatchStart, Silent, play_match};
    use sumito_arena::player::PlayerRegistry;
    use sumito_arena::players::general::general_registry;
    use sumito_engine::general::GeneralLayout;
    use sumito_engine::rules_table::RulesTable;

    fn checkpoint(dir: &TempDir, game: NetGame) -> String {
        let model = crate::players::tests::tiny_model(game);
        let path = dir.path().join(format!("{game:?}"));
        PolicyValueNet::new(&model, tch::Device::Cpu)
            .unwrap()
            .save_checkpoint(&path, 0, None)
            .unwrap();
        format!("net:model={},simulations=8", path.display())
    }

    /// The classical players and `net:` checkpoints.
    fn registry() -> PlayerRegistry<GeneralPosition> {
        let mut registry = general_registry();
        registry
            .register(Box::new(GeneralNetFactory::checkpoints()))
            .unwrap();
        registry
    }

    fn prepared(specs: &[String]) -> Vec<Entrant<GeneralPosition>> {
        let registry = registry();
        specs
            .iter()
            .map(|spec| registry.prepare_str(spec).unwrap())
            .collect()
    }

    /// A three-player match of `games` games ending at `max_plies`.
    fn three_player_match(
        entrants: &[Entrant<GeneralPosition>],
        max_plies: u32,
        games: u32,
        threads: usize,
    ) -> MatchResults<GeneralPosition> {
        let table = RulesTable::from_toml(&format!("[rules]\nmax_plies = {max_plies}\n")).unwrap();
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let config = MatchConfig {
            games_per_pairing: games,
            starts: vec![MatchStart::general(layout, &table).unwrap()],
            rules: table,
            opening_plies: 0,
            seed: 5,
            threads,
            record_dir: None,
            sprt: None,
        };
        play_match(entrants, &config, &Silent).unwrap()
    }

    fn refusal(spec: &str) -> String {
        registry().prepare_str(spec).err().unwrap().to_string()
    }

    #[test]
    fn a_network_of_the_general_game_plays_a_three_player_match() {
        let dir = TempDir::new("variant-seats");
        let net = checkpoint(&dir, NetGame::General);
        let entrants = prepared(&[net.clone(), "greedy".to_owned(), "random".to_owned()]);
        let report = three_player_match(&entrants, 30, 3, 2);
        assert_eq!(report.games.len(), 3);
        // Seats rotate: the network played each side once.
        let mut sides: Vec<usize> = report
            .games
            .iter()
            .map(|game| game.side_of(0).unwrap())
            .collect();
        sides.sort_unstable();
        assert_eq!(sides, [0, 1, 2]);
        // With the material check over two plies (one side against the
        // others), it plays its games too.
        let entrants = prepared(&[
            format!("{net},material=2"),
            "greedy".to_owned(),
            "random".to_owned(),
        ]);
        let report = three_player_match(&entrants, 30, 3, 1);
        assert_eq!(report.games.len(), 3);
        // And searching with the score utility (the marbles each seat is
        // predicted to push off).
        let entrants = prepared(&[
            format!("{net},score=0.5"),
            "greedy".to_owned(),
            "random".to_owned(),
        ]);
        let report = three_player_match(&entrants, 30, 3, 1);
        assert_eq!(report.games.len(), 3);
    }

    #[test]
    fn a_two_player_network_is_refused_by_name() {
        let dir = TempDir::new("variant-seats-two");
        let net = checkpoint(&dir, NetGame::TwoPlayer);
        let message = refusal(&net);
        assert!(message.contains("two-player game"), "{message}");
    }

    #[test]
    fn avoid_repetition_is_read_from_the_spec() {
        let dir = TempDir::new("variant-seats-repetition");
        let net = checkpoint(&dir, NetGame::General);
        assert!(
            registry()
                .prepare_str(&format!("{net},avoid_repetition=false"))
                .is_ok()
        );
        let message = refusal(&format!("{net},avoid_repetition=maybe"));
        assert!(message.contains("avoid_repetition"), "{message}");
    }

    #[test]
    fn a_seat_takes_time_and_threads_and_refuses_what_the_general_game_lacks() {
        let dir = TempDir::new("variant-seats-time");
        let net = checkpoint(&dir, NetGame::General);
        let timed = format!("{net},time=50ms,threads=2");
        let entrants = prepared(&[timed, "greedy".to_owned(), "random".to_owned()]);
        let report = three_player_match(&entrants, 12, 3, 1);
        assert_eq!(report.games.len(), 3);
        // The first game seats the network at side 0.
        assert_eq!(report.games[0].side_of(0), Some(0));
        // It searched by time: an 8-simulation search of this network takes
        // a millisecond or two, a 50-ms one (planned at 90 %) far longer.
        let thinking = report.games[0].thinking[0];
        assert!(thinking.moves >= 1);
        assert!(
            thinking.time >= std::time::Duration::from_millis(10) * thinking.moves,
            "{thinking:?}"
        );
        let message = refusal(&format!("{net},score=2"));
        assert!(message.contains("score="), "{message}");
    }

    #[test]
    fn a_bundle_seat_loads_the_folder_its_finder_returns_with_its_rules() {
        let dir = TempDir::new("variant-seats-bundle");
        let net = checkpoint(&dir, NetGame::General);
        let folder = PathBuf::from(
            net.trim_start_matches("net:model=")
                .split(',')
                .next()
                .unwrap(),
        );
        let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let table: RulesTable = toml::from_str("layouts = [\"three-player\"]").unwrap();
        let mut registry = general_registry();
        let (heard, found) = (asked.clone(), table.clone());
        registry
            .register(Box::new(GeneralNetFactory::bundles(move |given| {
                heard.lock().unwrap().push(given.map(Path::to_owned));
                Ok(FoundBundle {
                    folder: folder.clone(),
                    rules: Some(found.clone()),
                    score_utility: 0.5,
                })
            })))
            .unwrap();
        let named = registry
            .prepare_str("bundle:model=three,simulations=4")
            .unwrap();
        let plain = registry.prepare_str("bundle").unwrap();
        assert_eq!(*asked.lock().unwrap(), [Some(PathBuf::from("three")), None]);
        assert_eq!(named.name, "bundle:model=three,simulations=4");
        assert_eq!(named.trained_rules, Some(table));
        assert_eq!(named.build(1).name(), named.name);
        assert!(plain.trained_rules.is_some());
        // The finder's refusal is the seat's error, with the spec named.
        let mut refusing = general_registry();
        refusing
            .register(Box::new(GeneralNetFactory::bundles(|_| {
                Err("no bundles here".to_owned())
            })))
            .unwrap();
        let message = refusing.prepare_str("bundle").err().unwrap().to_string();
        assert!(message.contains("no bundles here"), "{message}");
        assert!(message.contains("player \"bundle\""), "{message}");
    }
}
