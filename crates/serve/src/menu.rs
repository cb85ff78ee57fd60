//! What a page may ask the server to run. Any web page the user's browser
//! shows can reach a local server, so what a page sends is never trusted
//! with a file name, a memory size or an unbounded search: the classical
//! players come from a fixed menu with bounded parameters, every search has
//! a wall-clock limit, and the memory the pages' players hold is one budget
//! for the whole server. What the person who started the server chose on
//! the command line (a model, evaluation weights, the budget) is not a
//! page's to change.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sumito_arena::players::AlphaBetaConfig;
use sumito_arena::spec::PlayerSpec;
use sumito_game::GameKind;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The longest a classical player may think about one move.
pub const CLASSICAL_THINK_LIMIT: Duration = Duration::from_secs(10);
/// The deepest search a page may ask of the alpha-beta players.
pub const MAX_PAGE_DEPTH: u32 = 8;
/// The longest a model may think about one move, and the longest an
/// analysis runs.
pub const MODEL_THINK_LIMIT: Duration = Duration::from_secs(30);
/// The share of its time limit a model's timed move aims at: its search is
/// planned from its measured speed, which a growing tree slows, and the
/// limit itself is where the server stops it. `sumito json-analysis`'s
/// timed queries aim at the same share of their `time_ms`.
pub const MODEL_PLANNED_SHARE: f64 = 0.8;
/// The longest the search of one position of a review may take: a review
/// is a sequence of such searches, each taking a search slot of its own, so
/// other pages' searches run between them.
pub const REVIEW_POSITION_LIMIT: Duration = Duration::from_secs(1);
/// Where the server stops a review position's search that overran its
/// limit (its time is planned, not exact), ending the review.
pub const REVIEW_POSITION_DEADLINE: Duration = Duration::from_secs(3);
/// The most simulations a model's move or an analysis may ask for.
pub const MAX_SIMULATIONS: u32 = 20_000;
/// Memory reserved for a model's search tree while it searches (a seat's
/// move, an analysis, a review): a tree of `MAX_SIMULATIONS` simulations
/// stays below this (measured in the session's tests). A model seat keeps
/// no tree between its moves, so nothing is reserved while a game waits.
pub const MODEL_SEARCH_MB: u32 = 64;
/// The most moves a page's game may have (a loaded record, or a game of
/// players without a move limit): the page's memory is bounded.
pub const MAX_GAME_PLIES: usize = 5_000;
/// The most moves of a variation the page may show (its `goto`'s line).
pub const MAX_VARIATION_PLIES: usize = 500;
/// The most lines of variations a game keeps (the leaves of its tree): a
/// page that plays one after another cannot grow the server's memory
/// without end.
pub const MAX_VARIATIONS: usize = 256;

/// A classical player a page asked for, checked against the menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PagePlayer {
    /// The spec as the page wrote it, normalised (the seat's label).
    pub spec: String,
    /// Whether it searches (it then waits for one of the server's search
    /// slots; `random` and `greedy` answer at once).
    pub searches: bool,
    /// Memory it holds while its game lasts (its transposition table).
    pub memory_mb: u32,
}

/// Checks a page's player spec against the menu: `random`, `greedy`,
/// `alphabeta` with `depth=1..8` or `time=` up to 10 s (the two-player
/// engine's alpha-beta for a plain two-player game, the paranoid one
/// otherwise).
pub fn page_player(text: &str, two_player: bool) -> Result<PagePlayer, String> {
    let spec: PlayerSpec = text.parse().map_err(|err| format!("{err}"))?;
    let offered = "random, greedy, alphabeta:depth=1..8, alphabeta:time=DURATION (up to 10s)";
    match spec.kind.as_str() {
        "random" | "greedy" => {
            if let Some((key, _)) = spec.params.first() {
                return Err(format!(
                    "{} takes no parameters ({key}= given); the page may ask for {offered}",
                    spec.kind
                ));
            }
            Ok(PagePlayer {
                spec: spec.to_string(),
                searches: false,
                memory_mb: 0,
            })
        }
        "alphabeta" => {
            let mut params = spec.params();
            let depth = params
                .get_u32("depth", 1, MAX_PAGE_DEPTH)
                .map_err(|err| err.to_string())?;
            let time = params.get_duration("time").map_err(|err| err.to_string())?;
            if depth.is_some() && time.is_some() {
                return Err("alphabeta: give depth or time, not both".into());
            }
            if let Some(time) = time
                && (time.is_zero() || time > CLASSICAL_THINK_LIMIT)
            {
                return Err(format!(
                    "alphabeta: time={time:?} is outside what a page may ask (more than 0, at most {CLASSICAL_THINK_LIMIT:?})"
                ));
            }
            if let Some((key, _)) = spec
                .params
                .iter()
                .find(|(key, _)| key != "depth" && key != "time")
            {
                return Err(format!(
                    "alphabeta: {key}= is not offered to pages (weights, table sizes and node counts \
                     are set on the command line); the page may ask for {offered}"
                ));
            }
            Ok(PagePlayer {
                spec: spec.to_string(),
                searches: true,
                memory_mb: if two_player {
                    AlphaBetaConfig::default().table_megabytes as u32
                } else {
                    0
                },
            })
        }
        other => Err(format!(
            "unknown player {other:?}; the page may ask for {offered}"
        )),
    }
}

/// The memory the pages' players and searches may hold together, in
/// megabytes. A classical player's table is reserved with its game (it is
/// allocated with the player) and given back when the game ends (a new
/// game, the page closed); a model's tree is reserved while it searches. A
/// game or a search that does not fit is refused with a message that says
/// so; a page's first game then seats people only.
#[derive(Debug)]
pub struct MemoryBudget {
    total_mb: u32,
    left: Arc<Semaphore>,
}

/// Megabytes reserved from a [`MemoryBudget`], given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    _permit: Option<OwnedSemaphorePermit>,
}

impl MemoryBudget {
    pub fn new(total_mb: u32) -> MemoryBudget {
        MemoryBudget {
            total_mb,
            left: Arc::new(Semaphore::new(total_mb as usize)),
        }
    }

    pub fn total_mb(&self) -> u32 {
        self.total_mb
    }

    /// Reserves `mb` megabytes, or says why not.
    pub fn reserve(&self, mb: u32) -> Result<Reservation, String> {
        if mb == 0 {
            return Ok(Reservation { _permit: None });
        }
        match self.left.clone().try_acquire_many_owned(mb) {
            Ok(permit) => Ok(Reservation {
                _permit: Some(permit),
            }),
            Err(_) => Err(format!(
                "the server's memory budget for players ({} MB) is in use by other pages \
                 ({mb} MB needed): close another page, choose lighter players, or start the \
                 server with a larger --memory-mb",
                self.total_mb
            )),
        }
    }
}

/// What the server's command line decided for every page.
#[derive(Debug)]
pub struct PagePolicy {
    pub memory: MemoryBudget,
    /// Evaluation weights of the two-player alpha-beta players, if the
    /// command line named a file (checked at start).
    pub alphabeta_weights: Option<PathBuf>,
}

impl PagePolicy {
    pub fn new(memory_mb: u32, alphabeta_weights: Option<&Path>) -> PagePolicy {
        PagePolicy {
            memory: MemoryBudget::new(memory_mb),
            alphabeta_weights: alphabeta_weights.map(Path::to_path_buf),
        }
    }

    /// The spec a classical player of `game` is built from: the page's,
    /// with the command line's weights for the two-player engine's
    /// alpha-beta (the only one whose evaluation reads them).
    pub fn player_spec(&self, player: &PagePlayer, game: GameKind) -> String {
        match (&self.alphabeta_weights, player.searches, game) {
            (Some(path), true, GameKind::TwoPlayer) => {
                let separator = if player.spec.contains(':') { ',' } else { ':' };
                format!("{}{separator}weights={}", player.spec, path.display())
            }
            _ => player.spec.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_menu_offers_bounded_players_and_refuses_files_and_sizes() {
        let ok = page_player("alphabeta:depth=3", true).unwrap();
        assert!(ok.searches);
        assert_eq!(ok.memory_mb, 16);
        assert_eq!(page_player("random", true).unwrap().memory_mb, 0);
        assert!(!page_player("greedy", false).unwrap().searches);
        assert!(page_player("alphabeta:time=2s", false).is_ok());
        for (bad, says) in [
            ("alphabeta:tt_mb=65536", "tt_mb= is not offered"),
            ("alphabeta:weights=/etc/passwd", "weights= is not offered"),
            ("alphabeta:nodes=1000000000", "nodes= is not offered"),
            ("alphabeta:depth=64", "depth"),
            ("alphabeta:time=30s", "at most"),
            ("alphabeta:time=0s", "duration"),
            ("alphabeta:depth=2,time=1s", "not both"),
            ("greedy:weights=/proc/self/environ", "no parameters"),
            ("bundle:model=/tmp/x", "unknown player"),
            ("net:model=x", "unknown player"),
        ] {
            let err = page_player(bad, true).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
            assert!(!err.contains("root:"), "{err}");
        }
    }

    #[test]
    fn the_memory_budget_is_shared_and_given_back() {
        let budget = MemoryBudget::new(40);
        let first = budget.reserve(16).unwrap();
        let second = budget.reserve(16).unwrap();
        let err = budget.reserve(16).unwrap_err();
        assert!(err.contains("40 MB"), "{err}");
        drop(first);
        let third = budget.reserve(16).unwrap();
        assert!(budget.reserve(0).is_ok());
        drop((second, third));
        assert!(budget.reserve(40).is_ok());
    }

    #[test]
    fn command_line_weights_join_the_pages_spec() {
        let policy = PagePolicy::new(100, Some(Path::new("w.toml")));
        let two = GameKind::TwoPlayer;
        let player = page_player("alphabeta:depth=2", true).unwrap();
        assert_eq!(
            policy.player_spec(&player, two),
            "alphabeta:depth=2,weights=w.toml"
        );
        let player = page_player("alphabeta", true).unwrap();
        assert_eq!(policy.player_spec(&player, two), "alphabeta:weights=w.toml");
        let player = page_player("random", true).unwrap();
        assert_eq!(policy.player_spec(&player, two), "random");
        // The general game's alpha-beta takes no weights.
        let player = page_player("alphabeta:depth=2", false).unwrap();
        assert_eq!(
            policy.player_spec(&player, GameKind::General),
            "alphabeta:depth=2"
        );
    }
}
