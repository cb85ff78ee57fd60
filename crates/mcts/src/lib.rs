//! Game-agnostic Monte Carlo tree search that turns a policy-value evaluator
//! into a player and produces training targets.
//!
//! The crate knows nothing of Abalone or of neural networks. It is built for
//! the case where the evaluator (a network on a small CPU) is the bottleneck:
//!
//! * [`MultiGameDriver`] advances many independent [`Search`]es in lockstep and
//!   hands the evaluator one large batch built from all of them per call, as
//!   KataGo and minigo do for self-play.
//! * The Gumbel root of "Policy improvement by planning with Gumbel"
//!   (Danihelka et al., 2022) learns from few simulations: Gumbel-top-k
//!   sampling, sequential halving, completed Q-values and the improved policy
//!   target. PUCT (AlphaZero) with Dirichlet noise is the alternative root.
//!
//! # Contracts
//!
//! ## [`Game`]
//! A game state that is cheap to clone (the search clones the root once per
//! simulation and applies the actions on the way down).
//!
//! * Actions are indices into a fixed action space `0..Game::NUM_ACTIONS`.
//! * [`Game::legal_actions`] clears its output and fills it with the legal
//!   actions of the state, in a deterministic order. It is empty exactly when
//!   the game is over: a state for which [`Game::terminal`] is `None` must have
//!   at least one legal action. The search asks for the legal actions of a new
//!   leaf first and calls [`Game::terminal`] only when there are none.
//! * [`Game::apply`] is only ever called with an action that
//!   [`Game::legal_actions`] returned for that state.
//! * [`Game::terminal`] is `Some` exactly when the game is over, and names the
//!   winner absolutely ([`Terminal::Win`]`(`[`Side`]`)`), a draw of all
//!   sides, or a tie among some ([`Terminal::Tie`]), not relative to the side
//!   to move.
//! * [`Game::to_play`] may return the same player twice in a row (passes);
//!   the search never assumes strict alternation.
//!
//! ## [`Evaluator`]
//! `evaluate(&self, batch: &mut EvalBatch<G>)` evaluates every state of the
//! batch in one call. For each item it writes
//!
//! * **policy logits** for that state's legal actions only, in the order of
//!   [`EvalBatch::legal_actions`] (which is the order of
//!   [`Game::legal_actions`]). Logits are unnormalised log-probabilities: the
//!   search applies the softmax over the legal actions itself, so a network
//!   can copy its raw outputs (`logits[j] = dense[legal[j]]`); a uniform prior
//!   is all zeros. `-inf` masks an action out; NaN, `+inf`, or all `-inf` is
//!   rejected. Logits rather than priors, because the Gumbel root needs them.
//! * a **value**: for two sides a [`Wdl`] (win, draw, loss probabilities
//!   summing to 1) from the point of view of the **side to move** in that
//!   state (a network with a scalar value head uses [`Wdl::from_value`]); for
//!   more, [`SideShares`]: each side's probability of winning, indexed by
//!   side, and of a draw shared by all.
//!
//! The batch arrives with every output set to NaN; anything left unwritten, a
//! NaN, or a WDL that is not a probability distribution makes the search fail
//! with [`SearchError::InvalidEvaluation`] rather than search on garbage.
//! Evaluator failures are returned as [`EvalError`] and propagate out of
//! [`Search::search`] and [`MultiGameDriver::step`] unchanged; the searches
//! involved drop their unfinished simulation round and stay usable. The one
//! exception is a stop ([`EvalError::Stopped`], see [`StoppableEvaluator`]):
//! [`Search::search`] then answers with the simulations it completed
//! ([`SearchResult::stopped`]), as an analysis stopped at its time limit
//! should.
//!
//! Writing into reused buffers instead of returning fresh vectors keeps the
//! search free of allocation per simulation, which matters at hundreds of
//! thousands of simulations per second with a cheap evaluator.
//!
//! ## Values inside the search
//! A game has two sides or more ([`Game::sides`]; a side is a player, or a
//! team whose players share one value), and names the side to move with
//! [`Game::to_play`]. Every side's value lies in `[-1, 1]`: twice its expected
//! share of the result, minus one (a win 1, a draw among `k` sides `1 / k`
//! each, a loss 0), so two sides get the familiar `win - loss` (module
//! [`values`]). The game picks how the tree stores them ([`Game::Values`]):
//! [`ZeroSum`] keeps one number per node, the first side's value (the other's
//! is its negation), and selection multiplies by the sign of the side
//! choosing, exactly a two-player search with no cost for the generality;
//! [`SideValues`] keeps one per side, and each node is chosen by the side
//! that moves there (max^n), which may be the same side several times in a
//! row. Either way a node's statistics are absolute, not relative to the side
//! to move, which keeps the backup free of per-node conversions and makes
//! tree reuse trivially correct. Everything the search reports
//! ([`SearchResult`]) is from the point of view of the side to move at the
//! root, plus [`SearchResult::side_values`] for every side. The draw
//! probability is carried along for reporting.
//!
//! # The search
//!
//! One simulation walks from the root to a node that has not been evaluated,
//! evaluates it (in a batch), and adds its value to every node on the way.
//! The evaluation of a fresh root is not a simulation.
//!
//! * **Selection, PUCT** ([`SearchConfig::gumbel`] unset): the child with the
//!   highest `Q + c * P * sqrt(N_parent) / (1 + N)`, where `c` is
//!   [`SearchConfig::c_puct`] or the AlphaZero schedule with
//!   [`SearchConfig::c_puct_base`]. An unvisited child is valued at the
//!   parent's value minus `fpu_reduction * sqrt(visited prior mass)`
//!   (first-play urgency, separate reduction at the root).
//! * **Root noise**: with [`SearchConfig::dirichlet`], Dirichlet noise with
//!   `alpha = total_alpha / n_legal` is mixed into the root priors of full
//!   searches (and taken out again afterwards; reported priors are clean).
//! * **Selection, Gumbel** ([`SearchConfig::gumbel`] set): at the root,
//!   Gumbel-top-k sampling of `m` actions and sequential halving of the
//!   budget (each phase scores `g + logit + sigma(completed Q)` and keeps the
//!   better half); below the root, the deterministic rule
//!   `argmax(pi'(a) - N(a) / (1 + sum_b N(b)))` with
//!   `pi' = softmax(logit + sigma(completed Q))`. Completed Q fills
//!   unvisited actions with the mixed value `v_mix`; `sigma(q) = (c_visit +
//!   max_b N(b)) * c_scale * q`, q brought to `[0, 1]`.
//! * **Terminal positions** carry their exact values (for two sides: win 1,
//!   draw 0, loss -1) and are re-used without evaluation on every visit.
//! * **Proven results** (MCTS-solver): a node whose result is known exactly
//!   is *proven*: the game is over there, a move there wins outright for the
//!   side choosing (value 1), or every move there is proven (then the best of
//!   them for the side choosing). Proofs propagate up the path after every
//!   visit of a proven node; a walk that reaches one backs up its exact value
//!   as it would a game's end, and selection uses exact values where known.
//!   The moves of the root that end the game are found before each search,
//!   without a visit, so a win in one is never missed whatever the priors or
//!   the Gumbel sampling; a proven win at the root is played whatever the
//!   temperature, and a move proven worse than another's prospects is never
//!   chosen. [`SearchResult::solved`] reports a proven root.
//! * **Virtual loss**: with [`SearchConfig::virtual_loss_batch`] `> 1`, one
//!   tree puts several leaves into each batch; a leaf waiting for its
//!   evaluation counts as a lost visit on its path so the next walks spread
//!   out. A walk that reaches a waiting leaf ends the batch.
//! * **The played move**: the temperature schedule samples from
//!   `visits^(1/T)` (PUCT) or from the improved policy (Gumbel); at
//!   temperature 0 it plays [`SearchResult::best_action`].
//! * **Training targets** ([`SearchResult`]): the visit distribution (PUCT) or
//!   the improved policy `softmax(logit + sigma(completed Q))` (Gumbel), and
//!   under playout cap randomization the flag saying whether this move's
//!   search was a full one, whose target should be trained on.
//! * **Tree reuse**: [`Search::advance`] keeps the subtree of the played move.
//!
//! The tree is an arena (`Vec` of nodes, children contiguous, addressed by
//! index). An evaluated leaf stores only its (action, logit) pairs; its
//! children become nodes, with the softmax of the logits as priors, the first
//! time a walk continues through it. The search allocates nothing per
//! simulation once its buffers have grown.
//!
//! ## Determinism
//! A [`Search`] is single-threaded and deterministic given its seed, its
//! configuration and an evaluator that returns the same output for the same
//! state. Driving it through [`MultiGameDriver`] gives exactly the same results
//! as [`Search::search`], whatever the other games in the batch are.
//!
//! # Example
//! ```
//! use sumito_mcts::{Search, SearchConfig, UniformEvaluator, toy::TicTacToe};
//!
//! let config = SearchConfig { simulations: 400, ..SearchConfig::default() };
//! let mut search = Search::new(TicTacToe::new(), config, 7).unwrap();
//! let result = search.search(&UniformEvaluator).unwrap();
//! search.advance(result.action).unwrap();
//! assert_eq!(search.moves_played(), 1);
//! ```
//!
//! Self-play with many games and one batched evaluator call per round:
//! ```
//! use sumito_mcts::{MultiGameDriver, Search, SearchConfig, UniformEvaluator, toy::TicTacToe};
//!
//! let config = SearchConfig { simulations: 64, ..SearchConfig::default() };
//! let mut driver = MultiGameDriver::new();
//! for seed in 0..8 {
//!     driver.push(Search::new(TicTacToe::new(), config.clone(), seed).unwrap());
//! }
//! while !driver.all_games_over() {
//!     for (index, result) in driver.step(&UniformEvaluator).unwrap() {
//!         // Record (state, result.root_actions[..].policy_target) for training here.
//!         driver.search_mut(index).advance(result.action).unwrap();
//!     }
//! }
//! ```

mod config;
mod driver;
mod error;
mod eval;
mod filter;
mod game;
mod gumbel;
mod planner;
mod sampling;
mod search;
mod side;
pub mod toy;
mod tree;
pub mod values;

pub use config::{
    DirichletConfig, GumbelConfig, PlayoutCapConfig, SearchConfig, SearchConfigError,
};
pub use driver::MultiGameDriver;
pub use error::{EvalError, SearchError};
pub use eval::{Estimate, EvalBatch, EvalSlot, Evaluator, StoppableEvaluator, UniformEvaluator};
pub use filter::{ActionFilter, ActionRule};
pub use game::Game;
pub use planner::{PROBE_SIMULATIONS, TimePlanner, search_for_time, search_within};
pub use search::{RootAction, Search, SearchResult};
pub use side::{MAX_SIDES, Side, Terminal};
pub use values::{SideShares, SideValues, Values, Wdl, ZeroSum};
