//! The network as an arena player of either game
//! (`net:model=DIR,simulations=64`), so that `sumito arena` and other match
//! code can pit trained models against the fixed opponents. Register a
//! [`NetPlayerFactory`] of the game in its `PlayerRegistry`. A network seat
//! searches (the Gumbel root by default; max^n values in the general game)
//! with the network as evaluator, and chooses its move with the checks of
//! `sumito_game::choice`; every game of a match that seats one network
//! shares one batching inference service.

use std::marker::PhantomData;
use std::sync::Arc;

use sumito_arena::player::{Entrant, PlayerFactory, SearchLimit};
use sumito_arena::players::network::{CONSIDERED_ACTIONS, NetworkSearch, search_of};
use sumito_arena::spec::{PlayerSpec, SpecError, SpecParams};
use sumito_game::GameKind;
use sumito_game::choice::DEFAULT_MATERIAL_PLIES;
use sumito_game::{FULL_STRENGTH, Level};
use sumito_mcts::{GumbelConfig, SearchConfig};
use sumito_net::{
    InferenceConfig, InferenceService, NetBoard, NetError, PackedModel, PolicyValueNet, Precision,
};

/// Simulations per move when the spec does not say.
pub const DEFAULT_SIMULATIONS: u32 = 64;

/// Why a network cannot play game `B`, naming both games; `None` when it
/// can.
pub fn wrong_network<B: NetBoard>(game: GameKind) -> Option<&'static str> {
    match (B::KIND, game) {
        (wanted, found) if wanted == found => None,
        (GameKind::General, _) => Some(
            "a network of the two-player game; the variants and many-player games need one trained on them",
        ),
        (_, _) => Some(
            "a network of the general game (variants, 3 to 6 players); the two-player game needs a two-player network",
        ),
    }
}

/// Makes `net` players of game `B`: `net:model=DIR[,simulations=N]`, where
/// DIR is a checkpoint of a run of the game, such as
/// `runs/quick/models/gen-000012`. Each entrant loads its network once and
/// all its games share one batching inference service.
#[derive(Debug)]
pub struct NetPlayerFactory<B> {
    game: PhantomData<fn() -> B>,
}

impl<B> NetPlayerFactory<B> {
    pub fn new() -> NetPlayerFactory<B> {
        NetPlayerFactory { game: PhantomData }
    }
}

impl<B> Default for NetPlayerFactory<B> {
    fn default() -> Self {
        NetPlayerFactory::new()
    }
}

impl<B: NetBoard> PlayerFactory<B> for NetPlayerFactory<B> {
    fn kind(&self) -> &str {
        "net"
    }

    fn help(&self) -> String {
        format!(
            "net: a trained network with MCTS; model=CHECKPOINT_DIR (e.g. runs/quick/models/gen-000012), precision=auto|f32|bf16 (default auto: bf16 where the CPU has it natively), {SEARCH_PARAMS_HELP}"
        )
    }

    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<B>, SpecError> {
        let mut params = spec.params();
        let model = params
            .get_path("model")
            .ok_or_else(|| params.invalid("needs model=CHECKPOINT_DIR"))?;
        let settings = network_settings(&mut params)?;
        let precision = params
            .get_parsed("precision", Precision::NAMES)?
            .unwrap_or(InferenceConfig::default().precision);
        params.finish()?;
        let invalid = |problem: String| spec.params().invalid(problem);
        let cannot_load =
            |err: NetError| invalid(format!("cannot load {}: {err}", model.display()));
        let (net, meta) =
            PolicyValueNet::load_checkpoint(&model, None, tch::Device::Cpu).map_err(cannot_load)?;
        if let Some(why) = wrong_network::<B>(net.game()) {
            return Err(invalid(format!("{} is {why}", model.display())));
        }
        let net = net.for_inference(precision);
        let mut replicas = Vec::with_capacity(settings.search_threads);
        for _ in 1..settings.search_threads {
            replicas.push(net.replica().map_err(cannot_load)?);
        }
        replicas.push(net);
        let entrant = network_entrant(spec.to_string(), replicas, settings).map_err(cannot_load)?;
        // A checkpoint of a run may know the rules it learned under.
        Ok(match B::checkpoint_rules(&meta) {
            Some(rules) => entrant.with_trained_rules(rules),
            None => entrant,
        })
    }
}

/// The search parameters of network players, as [`network_search`] reads them.
pub const SEARCH_PARAMS_HELP: &str = "simulations=N per move (default 64), considered=M (default 16): the Gumbel root's sequential halving over the M most likely moves; noise=S (0 to 4, default 0: the best move) the Gumbel root's noise, 1 draws the move from the search's improved policy as self-play does, so that games from one position vary with the seed; time=DURATION (e.g. 1s) per move instead of simulations, planned from the measured speed; avoid_repetition=false to play the best move even into a position of the game (default: avoid it unless ahead); material=N (0 to 4, default 0: no check) plies over which the move chosen is checked by an exact count of marbles, and replaced by a move that keeps more of them (solves the tactics suite, plays weaker: docs/levers.md); score=W (0 to 1; default: a bundle's own weight, else 0) adds W times the predicted marble difference to the search's values, so that it plays for more marbles pushed off; threads=N (default 1) copies of the network that evaluate the parts of each leaf batch side by side, so that one game uses N cores (each search then gathers N times the leaves); level=N (1 beginner to 10 full strength) a strength level: its simulations, and its moves drawn from the search's policy with a temperature and now and then at random (sumito_game::level; not with simulations= or time=)";

/// How a network player plays, from its spec.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkPlayerSettings {
    pub search: SearchConfig,
    pub limit: SearchLimit,
    /// Step out of cycles unless ahead (`sumito_game::choice`).
    pub avoid_repetition: bool,
    /// Plies of the exact material check of the move chosen (`material=N`,
    /// `sumito_game::choice`; 0: none).
    pub material_plies: u32,
    /// Weight of the predicted marble difference in the search's values
    /// (`score=W`, `sumito_net::InferenceClient::with_score_utility`);
    /// `None`: the model's own (a bundle's `score_utility`, else 0).
    pub score_utility: Option<f32>,
    /// Copies of the network evaluating one search's leaves side by side
    /// (`threads=N`): the search gathers [`VIRTUAL_LOSS_BATCH`] leaves per
    /// thread and each copy evaluates one part.
    pub search_threads: usize,
    /// Its strength level (`level=N`): the level's simulations (in
    /// `search`) and move choice.
    pub level: Option<Level>,
}

/// The most plies of a network player's material check: 4 already costs
/// milliseconds in tactical positions.
pub const MAX_MATERIAL_PLIES: u32 = 4;

/// The largest Gumbel noise scale of a network player (`noise=`): at 1 it
/// draws from the search's improved policy; more spreads the draws further.
pub const MAX_NOISE: f64 = 4.0;

/// The most search threads a network player may ask for.
pub const MAX_SEARCH_THREADS: u32 = 64;

/// All the play parameters of a network player's spec (see
/// [`SEARCH_PARAMS_HELP`]).
pub fn network_settings(params: &mut SpecParams<'_>) -> Result<NetworkPlayerSettings, SpecError> {
    let search_threads = params
        .get_u32("threads", 1, MAX_SEARCH_THREADS)?
        .unwrap_or(1);
    let level = params
        .get_u32("level", 1, FULL_STRENGTH)?
        .map(|number| sumito_game::level::level(number).map_err(|err| params.invalid(err)))
        .transpose()?;
    let mut search = network_search_at(params, level)?;
    search.virtual_loss_batch = VIRTUAL_LOSS_BATCH * search_threads;
    let limit = network_limit(params)?;
    if level.is_some() && limit.time.is_some() {
        return Err(
            params.invalid("level= sets the simulations a move; give level= or time=, not both")
        );
    }
    Ok(NetworkPlayerSettings {
        level,
        search,
        limit,
        avoid_repetition: params.get_bool("avoid_repetition")?.unwrap_or(true),
        material_plies: params
            .get_u32("material", 0, MAX_MATERIAL_PLIES)?
            .unwrap_or(DEFAULT_MATERIAL_PLIES),
        score_utility: params
            .get_f64("score", 0.0, 1.0)?
            .map(|weight| weight as f32),
        search_threads: search_threads as usize,
    })
}

/// A network player's time per move (`time=DURATION`), if its spec gives one:
/// then it searches as many simulations as its measured speed fits.
pub fn network_limit(params: &mut SpecParams<'_>) -> Result<SearchLimit, SpecError> {
    Ok(SearchLimit {
        time: params.get_duration("time")?,
        ..SearchLimit::default()
    })
}

/// The search of a network player from its spec: `simulations` (default
/// [`DEFAULT_SIMULATIONS`]) with the Gumbel root (sequential halving over
/// `considered` moves, default [`CONSIDERED_ACTIONS`], its Gumbel noise
/// scaled by `noise`, default 0: the best move).
///
/// `noise=1` is the Gumbel root of self-play: the move is drawn from the
/// search's improved policy (Danihelka et al. 2022), so that games from one
/// position differ from seed to seed, and each game's moves still come from
/// a full search (a strong player that varies, unlike a level's draws).
///
/// Always the Gumbel root: it is much stronger than a PUCT root at the few
/// simulations arena matches use. Against `greedy`, 20 games each: checkpoint 13 of a
/// quick run scored 0.68 with 256 simulations and the Gumbel root, 0.33 with
/// PUCT; checkpoint 12 scored 0.13 with 64 simulations and the Gumbel root,
/// 0.00 with PUCT.
pub fn network_search(params: &mut SpecParams<'_>) -> Result<SearchConfig, SpecError> {
    network_search_at(params, None)
}

/// [`network_search`] at strength `level`, whose simulations replace the
/// default (`simulations=` with `level=` is refused).
fn network_search_at(
    params: &mut SpecParams<'_>,
    level: Option<Level>,
) -> Result<SearchConfig, SpecError> {
    let given = params.get_u32("simulations", 1, 1_000_000)?;
    if level.is_some() && given.is_some() {
        return Err(params
            .invalid("level= sets the simulations a move; give level= or simulations=, not both"));
    }
    let simulations = given
        .or(level.map(|level| level.simulations))
        .unwrap_or(DEFAULT_SIMULATIONS);
    let considered = params.get_u32("considered", 2, 1734)?;
    let noise = params.get_f64("noise", 0.0, MAX_NOISE)?;
    let gumbel = GumbelConfig {
        considered_actions: considered.unwrap_or(CONSIDERED_ACTIONS),
        gumbel_scale: noise.unwrap_or(0.0) as f32,
        ..GumbelConfig::default()
    };
    let config = SearchConfig {
        gumbel: Some(gumbel),
        virtual_loss_batch: VIRTUAL_LOSS_BATCH,
        ..SearchConfig::default()
    };
    Ok(search_of(&config, simulations))
}

/// An arena entrant that plays one network with `settings` (see
/// [`network_settings`]), the tree kept across moves. All games the arena
/// plays at once share one [`InferenceService`], so their searches are
/// evaluated together in batches (one game alone would run batches of
/// [`VIRTUAL_LOSS_BATCH`] leaves); `replicas` are the copies of the network
/// its workers run (`settings.search_threads` of them, each search's leaves
/// split among them). Used for checkpoints (`net`) and for exported bundles
/// by the play layer.
pub fn network_entrant<B: NetBoard, M: PackedModel + 'static>(
    name: String,
    replicas: Vec<M>,
    settings: NetworkPlayerSettings,
) -> Result<Entrant<B>, NetError> {
    // The default configuration: on the CPU, batches of up to 64 leaves.
    let service = Arc::new(InferenceService::start_replicas(
        replicas,
        &InferenceConfig::default(),
    )?);
    Ok(Entrant::new(name, settings.limit, move |seed| {
        let client = service
            .client()
            .with_score_utility(settings.score_utility.unwrap_or(0.0))
            .with_parallel_requests(settings.search_threads);
        let player = NetworkSearch::<B>::with_settings(
            "net",
            Box::new(client),
            settings.search.clone(),
            seed,
        )
        .avoiding_repetition(settings.avoid_repetition)
        .with_material_plies(settings.material_plies);
        let player = match settings.level {
            Some(level) => player.with_level(level),
            None => player,
        };
        // A time limit, from `time=` or `sumito ladder --time-per-move`, is
        // the budget of a network in a match (matches have no clocks).
        Box::new(player.by_time())
    }))
}

/// Leaves gathered per network call by one game's search.
pub const VIRTUAL_LOSS_BATCH: u32 = 8;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_arena::player::{Player, PlayerRegistry};
    use sumito_engine::{Layout, Position, Rules};
    use sumito_net::ModelConfig;

    fn registry() -> PlayerRegistry {
        let mut registry = Position::classical_players();
        registry
            .register(Box::new(NetPlayerFactory::<Position>::new()))
            .unwrap();
        registry
    }

    /// The shape of the tiny networks of this crate's tests.
    pub(crate) fn tiny_model(game: sumito_game::GameKind) -> ModelConfig {
        ModelConfig {
            blocks: 1,
            channels: 8,
            policy_channels: 4,
            value_channels: 4,
            value_hidden: 8,
            game,
            push_off_planes: false,
        }
    }

    /// A freshly initialised tiny network saved as `gen-000001` in `dir`.
    fn tiny_checkpoint(dir: &TempDir) -> std::path::PathBuf {
        let model = tiny_model(sumito_game::GameKind::TwoPlayer);
        let net = PolicyValueNet::new(&model, tch::Device::Cpu).unwrap();
        let path = dir.path().join("gen-000001");
        net.save_checkpoint(&path, 0, None).unwrap();
        path
    }

    #[test]
    fn a_saved_model_plays_legal_moves_and_keeps_its_tree() {
        let dir = TempDir::new("net-player");
        let path = tiny_checkpoint(&dir);
        for precision in ["auto", "f32", "bf16"] {
            let entrant = registry()
                .prepare_str(&format!(
                    "net:model={},simulations=8,precision={precision}",
                    path.display()
                ))
                .unwrap();
            let mut player = entrant.build(3);
            player.new_game();
            let mut position = Position::start(Layout::BelgianDaisy, Rules::default());
            for _ in 0..4 {
                let mv = player.choose_move(&position, &entrant.limit).unwrap();
                assert!(position.is_legal(mv));
                player.observe_move(&position, mv);
                position = position.play(mv);
            }
        }
    }

    #[test]
    fn a_network_of_the_general_game_keeps_its_tree_along_the_game() {
        use sumito_arena::player::Player;
        use sumito_engine::general::{
            GeneralLayout, GeneralPosition, GeneralRules, GeneralSetup, Seating,
        };
        use sumito_game::Board;
        let model = tiny_model(sumito_game::GameKind::General);
        let net = PolicyValueNet::new(&model, tch::Device::Cpu).unwrap();
        let service = InferenceService::start(net, &InferenceConfig::default()).unwrap();
        let config = SearchConfig {
            simulations: 16,
            gumbel: Some(GumbelConfig {
                considered_actions: 4,
                gumbel_scale: 0.0,
                ..GumbelConfig::default()
            }),
            ..SearchConfig::default()
        };
        let mut player = NetworkSearch::<GeneralPosition>::with_settings(
            "three",
            Box::new(service.client()),
            config,
            1,
        )
        .with_material_plies(0);
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let mut position = GeneralSetup::layout(GeneralLayout::from_name("three-player").unwrap())
            .start(&rules)
            .unwrap();
        player.new_game();
        for _ in 0..6 {
            let mv = player
                .choose_move(&position, &SearchLimit::default())
                .unwrap();
            assert!(position.is_legal(mv));
            player.observe_move(&position, mv);
            position = position.play(mv);
            // The subtree of the move played is the next search's start.
            let kept = player.tree().expect("the tree is kept");
            assert_eq!(*kept.root(), position.searched());
            assert!(kept.root_visits() > 0);
        }
    }

    #[test]
    fn under_a_time_limit_the_player_plans_its_simulations() {
        let dir = TempDir::new("net-player-timed");
        let path = tiny_checkpoint(&dir);
        let entrant = registry()
            .prepare_str(&format!("net:model={},time=150ms", path.display()))
            .unwrap();
        let limit = entrant.limit;
        assert_eq!(limit.time, Some(std::time::Duration::from_millis(150)));
        let mut player = entrant.build(5);
        player.new_game();
        let mut position = Position::start(Layout::Standard, Rules::default());
        for _ in 0..3 {
            let mv = player.choose_move(&position, &limit).unwrap();
            assert!(position.is_legal(mv));
            player.observe_move(&position, mv);
            position = position.play(mv);
        }
    }

    #[test]
    fn search_parameters_choose_the_root() {
        let search = |text: &str| {
            let spec: PlayerSpec = text.parse().unwrap();
            let mut params = spec.params();
            let search = network_search(&mut params);
            search.and_then(|search| params.finish().map(|()| search))
        };
        let default = search("net").unwrap();
        assert_eq!(default.simulations, DEFAULT_SIMULATIONS);
        let root = default.gumbel.unwrap();
        assert_eq!(root.considered_actions, CONSIDERED_ACTIONS);
        // No sampling noise: the player is deterministic.
        assert_eq!(root.gumbel_scale, 0.0);
        let few = search("net:simulations=12,considered=16").unwrap();
        assert_eq!(few.simulations, 12);
        // No more actions considered than simulations.
        assert_eq!(few.gumbel.unwrap().considered_actions, 12);
        let err = search("net:considered=1").unwrap_err().to_string();
        assert!(err.contains("considered"), "{err}");
        // The PUCT root lost to the Gumbel root in play: no such parameter.
        let err = search("net:puct=true").unwrap_err().to_string();
        assert!(err.contains("puct"), "{err}");
        let noisy = search("net:noise=1,simulations=32").unwrap();
        assert_eq!(noisy.gumbel.unwrap().gumbel_scale, 1.0);
        for bad in ["net:noise=5", "net:noise=-1"] {
            let err = search(bad).unwrap_err().to_string();
            assert!(err.contains("noise"), "{bad}: {err}");
        }
    }

    #[test]
    fn noise_varies_the_move_from_seed_to_seed_and_none_keeps_it() {
        let dir = TempDir::new("net-player-noise");
        let path = tiny_checkpoint(&dir);
        let position = Position::start(Layout::BelgianDaisy, Rules::default());
        let moves_of = |extra: &str| {
            let entrant = registry()
                .prepare_str(&format!(
                    "net:model={},simulations=16{extra}",
                    path.display()
                ))
                .unwrap();
            (1..=12)
                .map(|seed| {
                    let mut player = entrant.build(seed);
                    player.new_game();
                    let mv = player
                        .choose_move(&position, &SearchLimit::default())
                        .unwrap();
                    assert!(position.is_legal(mv));
                    mv
                })
                .collect::<std::collections::HashSet<_>>()
        };
        assert_eq!(
            moves_of("").len(),
            1,
            "no noise: one move whatever the seed"
        );
        assert!(
            moves_of(",noise=1").len() > 1,
            "noise: different seeds choose different moves"
        );
    }

    #[test]
    fn a_level_sets_the_simulations_and_the_move_choice() {
        let settings = |text: &str| {
            let spec: PlayerSpec = text.parse().unwrap();
            let mut params = spec.params();
            let settings = network_settings(&mut params);
            settings.and_then(|settings| params.finish().map(|()| settings))
        };
        assert_eq!(settings("net").unwrap().level, None);
        for level in sumito_game::LEVELS {
            let at = settings(&format!("net:level={}", level.number)).unwrap();
            assert_eq!(at.level, Some(level));
            assert_eq!(at.search.simulations, level.simulations);
        }
        for (bad, why) in [
            ("net:level=0", "level"),
            ("net:level=11", "level"),
            ("net:level=3,simulations=10", "not both"),
            ("net:level=3,time=1s", "not both"),
        ] {
            let err = settings(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
        // A beginner plays legal moves, not always the search's.
        let dir = TempDir::new("net-player-level");
        let path = tiny_checkpoint(&dir);
        let entrant = registry()
            .prepare_str(&format!("net:model={},level=1", path.display()))
            .unwrap();
        let position = Position::start(Layout::Standard, Rules::default());
        let moves: std::collections::HashSet<_> = (0..12)
            .map(|seed| {
                let mut player = entrant.build(seed);
                player.new_game();
                player.choose_move(&position, &entrant.limit).unwrap()
            })
            .collect();
        assert!(moves.iter().all(|mv| position.is_legal(*mv)));
        assert!(moves.len() > 1, "{moves:?}");
    }

    #[test]
    fn material_utility_makes_the_search_take_the_marble_on_the_board() {
        // A network that knows nothing and says so: every weight zero, so
        // uniform priors and even values, the same on every run.
        let net = PolicyValueNet::new(
            &tiny_model(sumito_game::GameKind::TwoPlayer),
            tch::Device::Cpu,
        )
        .unwrap();
        tch::no_grad(|| {
            for (_, mut weights) in net.vars().variables() {
                let _ = weights.zero_();
            }
        });
        // Positions of the tactics suite where the mover can push a marble off.
        let positions: Vec<Position> = [
            "ww3/w1wwww/1ww1w2/1wbwb3/2wbb4/3bbb2/3bbb1/3bbb/5 b 1 1 86 26",
            "5/2b3/wbbb3/1wwbbb2/4w4/5w2/bbwww2/bbbww1/bb1w1 w 0 3 25 0",
            "5/2b3/wbbb3/wwbbb3/4w4/5w2/ww1w3/bbbww1/bb1w1 b 2 3 28 0",
            "3b1/w2bb1/ww1ww2/1w1w1bb1/2bb1bb2/1bbbww2/1bbwww1/4ww/5 b 0 0 20 20",
            "1ww2/2bb2/3bwbb/1b3bb1/4bwww1/4www1/6w/b5/5 b 4 4 86 15",
            "www1w/1wwww1/1wwbww1/1wwbb3/3bbb3/2bbb3/3bb2/1bb1b1/5 b 0 0 50 50",
            "w3w/1wbwwb/1wwbwb1/1wwb2w1/4b4/2b1b3/3bb2/1bbbb1/5 w 0 3 65 8",
            "1wbb1/www2b/2wb3/w3bb2/9/3bww2/1bbbww1/bbbww1/3w1 w 1 1 15 7",
        ]
        .iter()
        .map(|text| text.parse().unwrap())
        .collect();
        let service = Arc::new(
            InferenceService::start_replicas(
                vec![net.for_inference(Precision::F32)],
                &InferenceConfig::default(),
            )
            .unwrap(),
        );
        // A network player's settings, as `net:simulations=200,considered=200`.
        let spec: PlayerSpec = "net:simulations=200,considered=200".parse().unwrap();
        let settings = network_settings(&mut spec.params()).unwrap();
        let push_offs = |weight: f32| {
            positions
                .iter()
                .filter(|position| {
                    let client = service.client().with_material_utility(weight);
                    let mut player = NetworkSearch::<Position>::with_settings(
                        "net",
                        Box::new(client),
                        settings.search.clone(),
                        1,
                    )
                    .avoiding_repetition(settings.avoid_repetition)
                    .with_material_plies(settings.material_plies);
                    player.new_game();
                    let mv = player
                        .choose_move(position, &SearchLimit::default())
                        .unwrap();
                    position.is_push_off(mv)
                })
                .count()
        };
        // The network alone sees no marble; weighing the marbles on the
        // board (as self-play's search does), the search takes it every time.
        let (alone, weighing) = (push_offs(0.0), push_offs(1.0));
        assert!(alone < positions.len(), "{alone}");
        assert_eq!(weighing, positions.len());
    }

    #[test]
    fn search_threads_split_each_batch_of_leaves() {
        let settings = |text: &str| {
            let spec: PlayerSpec = text.parse().unwrap();
            let mut params = spec.params();
            let settings = network_settings(&mut params);
            settings.and_then(|settings| params.finish().map(|()| settings))
        };
        let one = settings("net").unwrap();
        assert_eq!(one.search_threads, 1);
        assert_eq!(one.search.virtual_loss_batch, VIRTUAL_LOSS_BATCH);
        let two = settings("net:threads=2,simulations=100").unwrap();
        assert_eq!(two.search_threads, 2);
        assert_eq!(two.search.virtual_loss_batch, 2 * VIRTUAL_LOSS_BATCH);
        for bad in ["net:threads=0", "net:threads=65", "net:threads=two"] {
            let err = settings(bad).unwrap_err().to_string();
            assert!(err.contains("threads"), "{bad}: {err}");
        }
        // The material check: off unless told.
        assert_eq!(one.material_plies, DEFAULT_MATERIAL_PLIES);
        assert_eq!(settings("net:material=2").unwrap().material_plies, 2);
        assert_eq!(settings("net:material=4").unwrap().material_plies, 4);
        // A player with two copies of its network plays, fixed and timed.
        let dir = TempDir::new("net-player-threads");
        let path = tiny_checkpoint(&dir);
        for extra in ["simulations=40", "time=100ms"] {
            let entrant = registry()
                .prepare_str(&format!("net:model={},threads=2,{extra}", path.display()))
                .unwrap();
            let mut player = entrant.build(9);
            player.new_game();
            let mut position = Position::start(Layout::Standard, Rules::default());
            for _ in 0..3 {
                let mv = player.choose_move(&position, &entrant.limit).unwrap();
                assert!(position.is_legal(mv));
                player.observe_move(&position, mv);
                position = position.play(mv);
            }
        }
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let err = registry()
            .prepare_str("net:simulations=8")
            .unwrap_err()
            .to_string();
        assert!(err.contains("model="), "{err}");
        let err = registry()
            .prepare_str("net:model=/nonexistent/gen-1")
            .unwrap_err()
            .to_string();
        assert!(err.contains("/nonexistent/gen-1"), "{err}");
        let err = registry()
            .prepare_str("net:model=x,depth=3")
            .unwrap_err()
            .to_string();
        assert!(err.contains("depth"), "{err}");
        let err = registry()
            .prepare_str("net:model=x,precision=fp8")
            .unwrap_err()
            .to_string();
        assert!(err.contains("precision") && err.contains("fp8"), "{err}");
        assert!(err.contains("auto, f32 or bf16"), "{err}");
        let err = registry()
            .prepare_str("net:model=x,avoid_repetition=maybe")
            .unwrap_err()
            .to_string();
        assert!(err.contains("avoid_repetition"), "{err}");
        let err = registry()
            .prepare_str("net:model=x,material=5")
            .unwrap_err()
            .to_string();
        assert!(err.contains("material") && err.contains('5'), "{err}");
    }
}

/// Network seats of the general game (variants, 3 to 6 players).
#[cfg(test)]
mod general_tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use sumito_arena::arena::{MatchConfig, MatchResults, MatchStart, Silent, play_match};
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_arena::player::PlayerRegistry;
    use sumito_engine::general::{GeneralLayout, GeneralPosition};
    use sumito_engine::rules_table::RulesTable;

    fn checkpoint(dir: &TempDir, game: GameKind) -> String {
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
        let mut registry = GeneralPosition::classical_players();
        registry
            .register(Box::new(NetPlayerFactory::<GeneralPosition>::new()))
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
        let net = checkpoint(&dir, GameKind::General);
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
        let net = checkpoint(&dir, GameKind::TwoPlayer);
        let message = refusal(&net);
        assert!(message.contains("two-player game"), "{message}");
    }

    #[test]
    fn avoid_repetition_is_read_from_the_spec() {
        let dir = TempDir::new("variant-seats-repetition");
        let net = checkpoint(&dir, GameKind::General);
        assert!(
            registry()
                .prepare_str(&format!("{net},avoid_repetition=false"))
                .is_ok()
        );
        let message = refusal(&format!("{net},avoid_repetition=maybe"));
        assert!(message.contains("avoid_repetition"), "{message}");
    }

    #[test]
    fn a_seat_takes_time_and_threads_and_a_score_weight_in_range() {
        let dir = TempDir::new("variant-seats-time");
        let net = checkpoint(&dir, GameKind::General);
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
}
