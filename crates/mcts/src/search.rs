//! One game's search: the tree walk, expansion, backup, and the result.
//!
//! A [`Search`] is a small state machine so that a driver can interleave many
//! of them around one evaluator call: `gather` walks the tree and puts the
//! leaves that need evaluation into a batch, `absorb` expands them from the
//! evaluator's answers and backs the values up, and `finish` turns the root's
//! statistics into a [`SearchResult`]. [`Search::search`] runs the same cycle
//! with a batch of its own, which is why a game gives identical results alone
//! or inside a [`crate::MultiGameDriver`].

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::{GumbelConfig, SearchConfig};
use crate::error::{EvalError, SearchError};
use crate::eval::{EvalBatch, Evaluator};
use crate::filter::ActionFilter;
use crate::gumbel::{
    considered_visit_sequence, improved_policy, interior_choice, sigma_completed_q,
};
use crate::sampling::{dirichlet, gumbel, sample_with_temperature};
use crate::tree::{Kind, Node, NodeId, ROOT, Tree};
use crate::values::Values;
use crate::values::Wdl;
use crate::{Game, Side};

/// What a search reports for its root.
#[derive(Clone, PartialEq, Debug)]
pub struct SearchResult {
    /// The action to play, chosen with the temperature of this move.
    pub action: usize,
    /// The action the search rates best (what temperature 0 plays): the most
    /// visited action for PUCT, the sequential-halving winner for Gumbel.
    pub best_action: usize,
    /// Whether this was a full search whose policy target should be trained on
    /// (false for the reduced searches of playout cap randomization).
    pub full_search: bool,
    /// Simulations run by this search (not counting visits kept by tree reuse).
    pub simulations: u32,
    /// Whether the search was stopped before it ran all its simulations
    /// (its evaluator refused a batch with [`crate::EvalError::Stopped`]):
    /// the result is then that of the `simulations` it completed.
    pub stopped: bool,
    /// The root's mean value in `[-1, 1]` for the side to move.
    pub value: f32,
    /// The root's win/draw/loss estimate for the side to move (with more
    /// than two sides, a loss is any result but a win or a draw of all).
    pub wdl: Wdl,
    /// The root's mean value in `[-1, 1]` for every side, indexed by side.
    pub side_values: Vec<f32>,
    /// The exact value for the side to move when the search has proven the
    /// result (MCTS-solver): 1 a certain win, -1 a certain loss, and so on.
    pub solved: Option<f32>,
    /// One entry per legal action, in [`Game::legal_actions`] order.
    pub root_actions: Vec<RootAction>,
    /// The expected line of play, starting with `best_action`: after the first
    /// move, the most visited child at each step.
    pub principal_variation: Vec<usize>,
}

/// The search's statistics for one legal action at the root.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct RootAction {
    pub action: usize,
    /// The evaluator's prior (before any Dirichlet noise).
    pub prior: f32,
    /// Visits of this action in the tree (including visits kept by tree reuse).
    pub visits: u32,
    /// Mean value for the side to move at the root; `None` if never visited.
    pub q: Option<f32>,
    /// The training target: visit share for PUCT, the improved policy
    /// `softmax(logits + sigma(completed Q))` for Gumbel. Sums to 1.
    pub policy_target: f32,
}

impl SearchResult {
    /// `(action, policy_target)` for every legal action.
    pub fn policy_target(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.root_actions
            .iter()
            .map(|a| (a.action, a.policy_target))
    }

    /// How much the search taught over the evaluator's prior: the
    /// Kullback-Leibler divergence `KL(target ‖ prior)` in nats, over the
    /// root's actions (KataGo's "policy surprise"); self-play reports its
    /// mean. Priors are floored at 1e-6 so that a target on an action the
    /// prior all but ruled out stays finite.
    pub fn policy_surprise(&self) -> f32 {
        let prior_total: f32 = self.root_actions.iter().map(|a| a.prior).sum();
        if prior_total <= 0.0 {
            return 0.0;
        }
        let divergence: f32 = self
            .root_actions
            .iter()
            .filter(|a| a.policy_target > 0.0)
            .map(|a| {
                let prior = (a.prior / prior_total).max(1e-6);
                a.policy_target * (a.policy_target / prior).ln()
            })
            .sum();
        divergence.max(0.0)
    }
}

/// What `gather` left for the caller to do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Gathered {
    /// Leaves were added to the batch; call `absorb` once it is evaluated.
    Pending,
    /// The search has run all its simulations; call `finish`.
    Finished,
}

/// The move search in progress.
#[derive(Clone, Copy, Debug)]
struct Run {
    simulations: u32,
    full_search: bool,
    /// Simulations begun (completed or waiting for their leaf's evaluation).
    started: u32,
    completed: u32,
    /// The root is expanded and noise (PUCT) or Gumbel sampling (Gumbel) is set up.
    root_ready: bool,
    /// Dirichlet noise was mixed into the root priors (the clean ones are in `saved_priors`).
    noised: bool,
}

/// A leaf in the batch, waiting for its evaluation.
#[derive(Clone, Copy, Debug)]
struct PendingLeaf {
    node: NodeId,
    /// Its path from the root, as a range of `Search::pending_paths`.
    path_start: u32,
    path_end: u32,
}

enum Descent<G> {
    /// A new leaf that needs evaluation; the state and its legal actions
    /// (in `Search::legal`).
    Leaf(G),
    /// A terminal node: back up its exact value.
    Terminal,
    /// The walk reached a leaf already waiting in this batch.
    Collision,
}

/// The search of one game: its current position, its tree (reused between
/// moves), its configuration and its random generator.
#[derive(Clone, Debug)]
pub struct Search<G: Game> {
    config: SearchConfig,
    root_state: G,
    /// `root_state.terminal().is_some()`, kept because the driver asks every
    /// round and an outcome check can cost a move generation.
    game_over: bool,
    tree: Tree<G::Values>,
    /// The game's number of sides.
    sides: usize,
    rng: ChaCha8Rng,
    moves_played: u32,
    run: Option<Run>,
    // Buffers reused across simulations and moves.
    path: Vec<NodeId>,
    legal: Vec<usize>,
    pending: Vec<PendingLeaf>,
    pending_paths: Vec<NodeId>,
    scores: Vec<f32>,
    touched: Vec<(u32, f32)>,
    saved_priors: Vec<f32>,
    /// Gumbel root: the noise `g` and this search's visits per root child, and
    /// the sequential-halving schedule.
    root_noise: Vec<f32>,
    root_search_visits: Vec<u32>,
    schedule: Vec<u32>,
    own_batch: EvalBatch<G>,
    /// Moves the search may not explore (an analysis's avoided or allowed
    /// moves); `None`: every legal move.
    filter: Option<ActionFilter>,
    filtered_actions: Vec<usize>,
    filtered_logits: Vec<f32>,
}

impl<G: Game> Search<G> {
    /// A search of `root` that will play its moves with `config`, drawing its
    /// randomness from `seed`.
    pub fn new(root: G, config: SearchConfig, seed: u64) -> Result<Search<G>, SearchError> {
        const {
            assert!(
                G::NUM_ACTIONS <= u32::MAX as usize,
                "actions are stored as u32"
            )
        };
        config.validate()?;
        Ok(Search {
            config,
            game_over: root.terminal().is_some(),
            sides: root.sides(),
            root_state: root,
            tree: Tree::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            moves_played: 0,
            run: None,
            path: Vec::new(),
            legal: Vec::new(),
            pending: Vec::new(),
            pending_paths: Vec::new(),
            scores: Vec::new(),
            touched: Vec::new(),
            saved_priors: Vec::new(),
            root_noise: Vec::new(),
            root_search_visits: Vec::new(),
            schedule: Vec::new(),
            own_batch: EvalBatch::new(),
            filter: None,
            filtered_actions: Vec::new(),
            filtered_logits: Vec::new(),
        })
    }

    /// The current position.
    pub fn root(&self) -> &G {
        &self.root_state
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Replaces the configuration (e.g. another simulation count for analysis).
    /// The tree is kept.
    pub fn set_config(&mut self, config: SearchConfig) -> Result<(), SearchError> {
        if self.run.is_some() {
            return Err(SearchError::SearchInProgress);
        }
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// Leaves out of the search the moves `filter` forbids (`None`: none),
    /// from the next node evaluated on: set it on a fresh search, before
    /// its root is evaluated.
    pub fn set_action_filter(&mut self, filter: Option<ActionFilter>) {
        self.filter = filter;
    }

    /// The line that starts with the root's action `action`: the action,
    /// then the most visited child at each step. `None` if `action` is not
    /// one of the root's explored moves.
    pub fn line_after(&self, action: usize) -> Option<Vec<usize>> {
        let root = self.tree.root();
        if root.kind != Kind::Expanded {
            return None;
        }
        let child = root
            .children()
            .find(|&child| self.tree.nodes[child].action as usize == action)?;
        Some(self.principal_variation(child as NodeId))
    }

    /// Moves played with [`Search::advance`] since the search was created; the
    /// temperature schedule counts these.
    pub fn moves_played(&self) -> u32 {
        self.moves_played
    }

    pub fn is_game_over(&self) -> bool {
        self.game_over
    }

    /// Nodes and stored edges in the tree (for diagnostics and memory estimates).
    pub fn tree_size(&self) -> usize {
        self.tree.size()
    }

    /// Visits of the current root, including those kept by tree reuse.
    pub fn root_visits(&self) -> u32 {
        self.tree.root().visits
    }

    /// Searches the current position and returns the result, calling
    /// `evaluator` with batches of up to `virtual_loss_batch` states. Runs
    /// `simulations` new simulations; searching the same position again
    /// continues the same tree (deeper analysis), and the reported visits
    /// include the earlier ones. Stopped (the evaluator refuses a batch with
    /// [`EvalError::Stopped`], as [`crate::StoppableEvaluator`] does once its
    /// flag is set), it drops the leaves of the refused batch and returns
    /// the result of the simulations it completed, marked
    /// [`SearchResult::stopped`], as KataGo's search answers with what it
    /// has at its time limit; only a search stopped before its root was
    /// evaluated has nothing to report and returns the error.
    pub fn search<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<SearchResult, SearchError> {
        let mut batch = std::mem::take(&mut self.own_batch);
        let result = self.search_with(evaluator, &mut batch);
        self.own_batch = batch;
        result
    }

    fn search_with<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
        batch: &mut EvalBatch<G>,
    ) -> Result<SearchResult, SearchError> {
        loop {
            batch.clear();
            if self.gather(batch)? == Gathered::Finished {
                return Ok(self.finish());
            }
            if let Err(err) = evaluator.evaluate(batch) {
                // Stopped once the root is ready: what the completed
                // simulations found is the result. Stopped before, there
                // is no root to report on.
                if matches!(err, EvalError::Stopped) && self.run.is_some_and(|run| run.root_ready) {
                    self.drop_pending();
                    return Ok(self.finish_stopped());
                }
                self.abort();
                return Err(err.into());
            }
            self.absorb(batch, 0)?;
        }
    }

    /// Plays `action` in the current position. With tree reuse the subtree
    /// below it becomes the new tree.
    pub fn advance(&mut self, action: usize) -> Result<(), SearchError> {
        if self.run.is_some() {
            return Err(SearchError::SearchInProgress);
        }
        if self.is_game_over() {
            return Err(SearchError::GameOver);
        }
        if self.tree.root().kind == Kind::Evaluated {
            self.tree.expand(ROOT)?;
        }
        let root = *self.tree.root();
        let child = if root.kind == Kind::Expanded {
            let child = root
                .children()
                .find(|&c| self.tree.nodes[c].action as usize == action);
            Some(child.ok_or(SearchError::IllegalAction { action })?)
        } else {
            self.root_state.legal_actions(&mut self.legal);
            if !self.legal.contains(&action) {
                return Err(SearchError::IllegalAction { action });
            }
            None
        };
        self.root_state.apply(action);
        self.game_over = self.root_state.terminal().is_some();
        match child {
            Some(child)
                if self.config.tree_reuse
                    && matches!(
                        self.tree.nodes[child].kind,
                        Kind::Evaluated | Kind::Expanded
                    ) =>
            {
                self.tree.reroot(child as NodeId);
            }
            _ => self.tree.reset(),
        }
        self.moves_played += 1;
        Ok(())
    }

    /// True when the current move search has run all its simulations.
    pub(crate) fn is_complete(&self) -> bool {
        self.run
            .is_some_and(|run| run.root_ready && run.completed == run.simulations)
    }

    /// Puts the leaves this search needs evaluated into `batch` (starting a new
    /// move search if none is under way). On error the move search is dropped.
    pub(crate) fn gather(&mut self, batch: &mut EvalBatch<G>) -> Result<Gathered, SearchError> {
        let result = self.try_gather(batch);
        if result.is_err() {
            self.abort();
        }
        result
    }

    fn try_gather(&mut self, batch: &mut EvalBatch<G>) -> Result<Gathered, SearchError> {
        debug_assert!(
            self.pending.is_empty(),
            "absorb must follow every pending gather"
        );
        if self.run.is_none() {
            self.start_run()?;
        }
        let root = self.tree.root();
        if root.kind == Kind::Unvisited {
            // A fresh root is evaluated first; that is not a simulation.
            self.path.clear();
            self.path.push(ROOT);
            let state = self.root_state.clone();
            if self.reach(ROOT, &state)? {
                // `outcome` said the game goes on but there are no legal actions.
                return Err(SearchError::NoLegalActions);
            }
            self.commit_leaf(state, batch);
            return Ok(Gathered::Pending);
        }
        let mut run = self.run.expect("started above");
        // Written back before returning, also on error, so that `abort` sees
        // whether the root priors carry noise.
        let gathered = self.gather_leaves(&mut run, batch);
        self.run = Some(run);
        gathered
    }

    /// Walks the tree for the leaves of one batch (see `gather`).
    fn gather_leaves(
        &mut self,
        run: &mut Run,
        batch: &mut EvalBatch<G>,
    ) -> Result<Gathered, SearchError> {
        if !run.root_ready {
            self.prepare_root(run)?;
        }
        let mut leaves = 0;
        while leaves < self.config.virtual_loss_batch && run.started < run.simulations {
            match self.descend()? {
                Descent::Leaf(state) => {
                    self.commit_leaf(state, batch);
                    leaves += 1;
                }
                Descent::Terminal => {
                    let (value, draw) = self.tree.nodes
                        [*self.path.last().expect("non-empty path") as usize]
                        .exact_backup();
                    backup(&mut self.tree.nodes, &self.path, value, draw, false);
                    self.tree.propagate_proof(&self.path);
                    run.completed += 1;
                }
                // Nothing was changed; the next batch will take this walk again.
                Descent::Collision => break,
            }
            if self.config.gumbel.is_some() {
                let root_child = self.path[1] as usize - self.tree.root().first_child as usize;
                self.root_search_visits[root_child] += 1;
            }
            run.started += 1;
        }
        Ok(if leaves == 0 {
            Gathered::Finished
        } else {
            Gathered::Pending
        })
    }

    /// Expands the batch items `start..` (this search's leaves, in the order
    /// `gather` added them) and backs their values up. On error the move
    /// search is dropped.
    pub(crate) fn absorb(&mut self, batch: &EvalBatch<G>, start: usize) -> Result<(), SearchError> {
        for index in 0..self.pending.len() {
            if let Err(err) = self.absorb_leaf(batch, start + index, self.pending[index]) {
                self.pending.drain(..index);
                self.abort();
                return Err(err);
            }
        }
        self.pending.clear();
        self.pending_paths.clear();
        Ok(())
    }

    fn absorb_leaf(
        &mut self,
        batch: &EvalBatch<G>,
        item: usize,
        leaf: PendingLeaf,
    ) -> Result<(), SearchError> {
        let invalid = |problem: String| SearchError::InvalidEvaluation { item, problem };
        let to_play = self.tree.nodes[leaf.node as usize].to_play;
        let (value, draw) =
            G::Values::from_estimate(batch.value(item), to_play, self.sides).map_err(invalid)?;
        let logits = batch.logits(item);
        let mut max_logit = f32::NEG_INFINITY;
        for (j, &logit) in logits.iter().enumerate() {
            if logit.is_nan() || logit == f32::INFINITY {
                return Err(invalid(format!(
                    "logit {logit} for action {}",
                    batch.legal_actions(item)[j]
                )));
            }
            max_logit = max_logit.max(logit);
        }
        if max_logit == f32::NEG_INFINITY {
            return Err(invalid("every legal action has logit -inf".into()));
        }
        match &self.filter {
            None => self
                .tree
                .add_edges(leaf.node, batch.legal_actions(item), logits)?,
            Some(filter) => {
                let depth = leaf.path_end - leaf.path_start - 1;
                filter.keep(
                    depth,
                    to_play,
                    batch.legal_actions(item),
                    logits,
                    &mut self.filtered_actions,
                    &mut self.filtered_logits,
                );
                self.tree
                    .add_edges(leaf.node, &self.filtered_actions, &self.filtered_logits)?;
            }
        }
        self.tree.nodes[leaf.node as usize].raw_value = value;
        let path = &self.pending_paths[leaf.path_start as usize..leaf.path_end as usize];
        backup(&mut self.tree.nodes, path, value, draw, true);
        if leaf.node != ROOT {
            self.run.as_mut().expect("a run is under way").completed += 1;
        }
        Ok(())
    }

    /// Drops the move search under way: releases the virtual losses of leaves
    /// still waiting, forgets them, and restores clean root priors. Completed
    /// simulations stay in the tree.
    pub(crate) fn abort(&mut self) {
        self.drop_pending();
        self.end_run();
    }

    /// Forgets the leaves waiting for their evaluation, as if their walks
    /// had never begun: releases their virtual losses and takes them out of
    /// the simulations begun (and of the Gumbel root's visits per child).
    fn drop_pending(&mut self) {
        let first_child = self.tree.root().first_child as usize;
        for leaf in self.pending.drain(..) {
            let path = &self.pending_paths[leaf.path_start as usize..leaf.path_end as usize];
            for &id in path {
                self.tree.nodes[id as usize].in_flight -= 1;
            }
            self.tree.nodes[leaf.node as usize].kind = Kind::Unvisited;
            // The root's own evaluation is not a simulation.
            if leaf.node == ROOT {
                continue;
            }
            if let Some(run) = &mut self.run {
                run.started -= 1;
                if self.config.gumbel.is_some() && run.root_ready {
                    self.root_search_visits[path[1] as usize - first_child] -= 1;
                }
            }
        }
        self.pending_paths.clear();
    }

    fn end_run(&mut self) {
        if let Some(run) = self.run.take()
            && run.noised
        {
            let children = self.tree.root().children();
            for (node, &prior) in self.tree.nodes[children].iter_mut().zip(&self.saved_priors) {
                node.prior = prior;
            }
        }
    }

    fn start_run(&mut self) -> Result<(), SearchError> {
        if self.is_game_over() {
            return Err(SearchError::GameOver);
        }
        let (simulations, full_search) = match &self.config.playout_cap {
            Some(cap) if self.rng.random::<f32>() >= cap.full_search_probability => {
                (cap.reduced_simulations, false)
            }
            _ => (self.config.simulations, true),
        };
        self.run = Some(Run {
            simulations,
            full_search,
            started: 0,
            completed: 0,
            root_ready: false,
            noised: false,
        });
        Ok(())
    }

    /// Sets up the root of an evaluated tree for this move search: its
    /// children, Gumbel sampling and the halving schedule, or Dirichlet noise
    /// on the priors.
    fn prepare_root(&mut self, run: &mut Run) -> Result<(), SearchError> {
        if self.tree.root().kind == Kind::Evaluated {
            self.tree.expand(ROOT)?;
        }
        self.mark_game_ending_moves();
        let children = self.tree.root().children();
        let count = children.len();
        if let Some(config) = &self.config.gumbel {
            gumbel(
                &mut self.rng,
                config.gumbel_scale,
                count,
                &mut self.root_noise,
            );
            self.root_search_visits.clear();
            self.root_search_visits.resize(count, 0);
            let considered = config.considered_actions.min(count as u32);
            considered_visit_sequence(considered, run.simulations, &mut self.schedule);
        } else if let Some(noise) = &self.config.dirichlet
            && run.full_search
        {
            self.saved_priors.clear();
            self.saved_priors
                .extend(self.tree.nodes[children.clone()].iter().map(|n| n.prior));
            dirichlet(&mut self.rng, noise.total_alpha, count, &mut self.scores);
            for (node, &eta) in self.tree.nodes[children].iter_mut().zip(&self.scores) {
                node.prior = (1.0 - noise.weight) * node.prior + noise.weight * eta;
            }
            run.noised = true;
        }
        run.root_ready = true;
        Ok(())
    }

    /// Walks from the root to a node that is not expanded, leaving the walk in
    /// `self.path`.
    fn descend(&mut self) -> Result<Descent<G>, SearchError> {
        let mut state = self.root_state.clone();
        self.path.clear();
        self.path.push(ROOT);
        let mut node = ROOT;
        loop {
            if node != ROOT && self.tree.nodes[node as usize].proven {
                // Solved: its exact result is backed up like a game's end.
                return Ok(Descent::Terminal);
            }
            match self.tree.nodes[node as usize].kind {
                kind @ (Kind::Evaluated | Kind::Expanded) => {
                    if kind == Kind::Evaluated {
                        self.tree.expand(node)?;
                    }
                    let child = match (&self.config.gumbel, node == ROOT) {
                        (None, is_root) => self.select_puct(node, is_root),
                        (Some(config), true) => self.select_gumbel_root(*config),
                        (Some(config), false) => self.select_gumbel_interior(node, *config),
                    };
                    state.apply(self.tree.nodes[child as usize].action as usize);
                    self.path.push(child);
                    node = child;
                }
                Kind::Unvisited => {
                    return Ok(if self.reach(node, &state)? {
                        Descent::Terminal
                    } else {
                        Descent::Leaf(state)
                    });
                }
                Kind::Terminal => return Ok(Descent::Terminal),
                Kind::Pending => return Ok(Descent::Collision),
            }
        }
    }

    /// First visit of `node`, whose state is `state`: marks it terminal (and
    /// returns true) if the game is over, otherwise computes its legal actions
    /// into `self.legal` and marks it pending evaluation. Asks for the legal
    /// actions first and for the outcome only when there are none, which
    /// saves a move generation per leaf in games like Abalone where the
    /// outcome check itself has to look for legal moves.
    fn reach(&mut self, node: NodeId, state: &G) -> Result<bool, SearchError> {
        state.legal_actions(&mut self.legal);
        let node = &mut self.tree.nodes[node as usize];
        if self.legal.is_empty() {
            let outcome = state.terminal().ok_or(SearchError::NoLegalActions)?;
            node.mark_terminal(outcome, self.sides);
            return Ok(true);
        }
        node.to_play = state.to_play();
        node.kind = Kind::Pending;
        Ok(false)
    }

    /// Puts the leaf at the end of `self.path` into the batch and applies
    /// virtual loss along its path.
    fn commit_leaf(&mut self, state: G, batch: &mut EvalBatch<G>) {
        let path_start = self.pending_paths.len() as u32;
        for &id in &self.path {
            self.tree.nodes[id as usize].in_flight += 1;
        }
        self.pending_paths.extend_from_slice(&self.path);
        let node = *self.path.last().expect("non-empty path");
        self.pending.push(PendingLeaf {
            node,
            path_start,
            path_end: self.pending_paths.len() as u32,
        });
        batch.push(state, &self.legal);
    }

    /// PUCT: `Q + c * P * sqrt(N_parent) / (1 + N)`, with virtual losses counted
    /// as lost visits and first-play urgency for unvisited children.
    fn select_puct(&self, parent: NodeId, is_root: bool) -> NodeId {
        let parent_node = &self.tree.nodes[parent as usize];
        let player = parent_node.to_play;
        let parent_visits = parent_node.effective_visits() as f32;
        let exploration = self.config.exploration(parent_visits) * parent_visits.sqrt();
        let children = parent_node.children();
        let first = children.start;
        let mut best_visited: Option<(usize, f32)> = None;
        let mut best_unvisited: Option<(usize, f32)> = None;
        let mut visited_prior = 0.0f32;
        for (offset, child) in self.tree.nodes[children].iter().enumerate() {
            let visits = child.effective_visits();
            if visits == 0 {
                if best_unvisited.is_none_or(|(_, prior)| child.prior > prior) {
                    best_unvisited = Some((offset, child.prior));
                }
                continue;
            }
            visited_prior += child.prior;
            let q = match child.exact(player) {
                Some(exact) => exact,
                None => {
                    ((G::Values::sum_for(&child.value_sum, player) - f64::from(child.in_flight))
                        / f64::from(visits)) as f32
                }
            };
            let score = q + exploration * child.prior / (1.0 + visits as f32);
            if best_visited.is_none_or(|(_, best)| score > best) {
                best_visited = Some((offset, score));
            }
        }
        let choice = match (best_visited, best_unvisited) {
            (Some((visited, _)), None) => visited,
            (visited, Some((unvisited, prior))) => {
                let reduction = if is_root {
                    self.config.fpu_reduction_root
                } else {
                    self.config.fpu_reduction
                };
                let fpu = parent_node.q(player) - reduction * visited_prior.sqrt();
                let score = fpu + exploration * prior;
                match visited {
                    Some((visited, best)) if best >= score => visited,
                    _ => unvisited,
                }
            }
            (None, None) => unreachable!("an expanded node has children"),
        };
        (first + choice) as NodeId
    }

    /// Fills `self.scores` with `sigma(completed Q)` of the children of
    /// `parent`, seen by the player to move there.
    fn sigma_of_children(&mut self, parent: NodeId, config: &GumbelConfig) {
        let node = &self.tree.nodes[parent as usize];
        let player = node.to_play;
        let children = &self.tree.nodes[node.children()];
        sigma_completed_q(
            children,
            player,
            node.raw_value.for_player(player),
            config,
            &mut self.scores,
        );
    }

    /// Gumbel root: among the actions with exactly the visit count that the
    /// sequential-halving schedule asks for at this simulation, the one with
    /// the highest `g + logit + sigma(completed Q)`.
    fn select_gumbel_root(&mut self, config: GumbelConfig) -> NodeId {
        self.sigma_of_children(ROOT, &config);
        let root = self.tree.root();
        let children = &self.tree.nodes[root.children()];
        let simulation: u32 = self.root_search_visits.iter().sum();
        let wanted = self.schedule[simulation as usize];
        let score = |i: usize| self.root_noise[i] + children[i].log_prior + self.scores[i];
        let best = argmax(
            (0..children.len()).filter(|&i| self.root_search_visits[i] == wanted),
            score,
        )
        // The schedule guarantees a candidate; stay total anyway.
        .or_else(|| {
            let least = *self.root_search_visits.iter().min().expect("children");
            argmax(
                (0..children.len()).filter(|&i| self.root_search_visits[i] == least),
                score,
            )
        })
        .expect("an expanded root has children");
        root.first_child + best as NodeId
    }

    /// Gumbel interior rule: `argmax(pi'(a) - N(a) / (1 + sum_b N(b)))` with
    /// `pi' = softmax(logits + sigma(completed Q))`; deterministic.
    fn select_gumbel_interior(&mut self, parent: NodeId, config: GumbelConfig) -> NodeId {
        let node = &self.tree.nodes[parent as usize];
        let player = node.to_play;
        let children = &self.tree.nodes[node.children()];
        let raw_value = node.raw_value.for_player(player);
        let best = interior_choice(children, player, raw_value, &config, &mut self.touched);
        node.first_child + best as NodeId
    }

    /// Turns the finished move search into its result and ends it.
    pub(crate) fn finish(&mut self) -> SearchResult {
        let run = self.run.expect("finish follows a complete run");
        debug_assert!(run.completed == run.simulations && self.pending.is_empty());
        self.result_of(run, false)
    }

    /// Turns the move search stopped after `run.completed` simulations
    /// (its waiting leaves dropped) into its result and ends it.
    fn finish_stopped(&mut self) -> SearchResult {
        let run = self.run.expect("a stopped search was under way");
        debug_assert!(run.started == run.completed && self.pending.is_empty());
        self.result_of(run, true)
    }

    /// The result of `run`, complete or `stopped`; ends it.
    fn result_of(&mut self, run: Run, stopped: bool) -> SearchResult {
        self.end_run(); // restores clean priors for the report
        let root = *self.tree.root();
        let player = root.to_play;
        // `best` is what temperature 0 plays; `self.scores` gets the policy target.
        let best = match self.config.gumbel {
            Some(config) => {
                self.sigma_of_children(ROOT, &config);
                let children = &self.tree.nodes[root.children()];
                let score = |i: usize| self.root_noise[i] + children[i].log_prior + self.scores[i];
                let best = match stopped {
                    // Sequential halving's winner: the best score among the
                    // last candidates, which share the most visits.
                    false => {
                        let most = *self.root_search_visits.iter().max().expect("children");
                        argmax(
                            (0..children.len()).filter(|&i| self.root_search_visits[i] == most),
                            score,
                        )
                    }
                    // Stopped in the middle of the halving: the actions
                    // still in it are those with at least the visits the
                    // schedule asks for next (each one with fewer was
                    // dropped by a halving against them on the same score),
                    // and the best score among those of them visited is the
                    // halving's choice so far. The most visited alone would
                    // be wrong: within a phase the candidates are visited
                    // in turn, so which of them has one visit more says
                    // only where the stop fell. Nothing visited yet (stopped
                    // at its first batch): the best score over all, the
                    // action its first simulation would have taken.
                    true => {
                        let done: u32 = self.root_search_visits.iter().sum();
                        let level = self.schedule.get(done as usize).copied().unwrap_or(0);
                        argmax(
                            (0..children.len())
                                .filter(|&i| self.root_search_visits[i] >= level.max(1)),
                            score,
                        )
                        .or_else(|| argmax(0..children.len(), score))
                    }
                }
                .expect("children");
                improved_policy(children, &mut self.scores);
                best
            }
            None => {
                let children = &self.tree.nodes[root.children()];
                let total: u32 = children.iter().map(|c| c.visits).sum();
                self.scores.clear();
                if total == 0 {
                    // Stopped before any visit: the prior is all it knows.
                    self.scores.extend(children.iter().map(|c| c.prior));
                } else {
                    self.scores
                        .extend(children.iter().map(|c| c.visits as f32 / total as f32));
                }
                most_visited(children, player)
                    .or_else(|| argmax(0..children.len(), |i| children[i].prior))
                    .expect("children")
            }
        };
        let (best, proven_win) = self.solved_choice(best);
        let temperature = self.config.temperature_after(self.moves_played);
        let chosen = if temperature > 0.0 && !proven_win {
            sample_with_temperature(&mut self.rng, &self.scores, temperature)
        } else {
            best
        };
        let children = &self.tree.nodes[root.children()];
        let root_actions = children
            .iter()
            .zip(&self.scores)
            .map(|(child, &policy_target)| RootAction {
                action: child.action as usize,
                prior: child.prior,
                visits: child.visits,
                q: (child.visits > 0).then(|| child.q(player)),
                policy_target,
            })
            .collect();
        let value = root.q(player);
        let draw = (root.draw_sum / root.visits as f32).clamp(0.0, 1.0);
        // value = 2 * (win + draw / sides) - 1 (see `values`).
        let win = ((1.0 + value) / 2.0 - draw / self.sides as f32).clamp(0.0, 1.0);
        let wdl = Wdl {
            win,
            draw,
            loss: (1.0 - win - draw).max(0.0),
        };
        let side_values = (0..self.sides)
            .map(|side| root.q(Side::new(side)))
            .collect();
        SearchResult {
            action: children[chosen].action as usize,
            best_action: children[best].action as usize,
            full_search: run.full_search,
            simulations: run.completed,
            stopped,
            value,
            wdl,
            side_values,
            solved: root.exact(player),
            root_actions,
            principal_variation: self.principal_variation(root.first_child + best as NodeId),
        }
    }

    /// Marks the root's moves that end the game (found without a visit, so
    /// that a win in one is never missed, whatever the priors), and the root
    /// proven if one of them wins.
    fn mark_game_ending_moves(&mut self) {
        let children = self.tree.root().children();
        for index in children {
            let child = &self.tree.nodes[index];
            if child.kind != Kind::Unvisited || !self.root_state.may_end_game(child.action as usize)
            {
                continue;
            }
            let mut state = self.root_state.clone();
            state.apply(child.action as usize);
            if let Some(outcome) = state.terminal() {
                self.tree.nodes[index].mark_terminal(outcome, self.sides);
            }
        }
        if !self.tree.root().proven {
            self.tree.prove(ROOT);
        }
    }

    /// The move to play given the search's choice `best` and what is proven:
    /// a move that wins outright (one that ends the game first), and never a
    /// move proven worse than another move's prospects. Also says whether the
    /// move is a proven win (which is played whatever the temperature).
    fn solved_choice(&self, best: usize) -> (usize, bool) {
        let root = self.tree.root();
        let player = root.to_play;
        let children = &self.tree.nodes[root.children()];
        let win = (0..children.len())
            .filter(|&i| children[i].exact(player) == Some(1.0))
            .max_by_key(|&i| (children[i].kind == Kind::Terminal, children[i].visits));
        if let Some(win) = win {
            return (win, true);
        }
        if let Some(exact) = children[best].exact(player) {
            let better = (0..children.len())
                .filter(|&i| children[i].settled_q(player).is_some_and(|q| q > exact))
                .max_by_key(|&i| children[i].visits);
            if let Some(better) = better {
                return (better, false);
            }
        }
        (best, false)
    }

    /// `first`, then the most visited child at each step while there is one.
    fn principal_variation(&self, first: NodeId) -> Vec<usize> {
        let mut node = &self.tree.nodes[first as usize];
        let mut line = vec![node.action as usize];
        while node.kind == Kind::Expanded {
            let children = &self.tree.nodes[node.children()];
            let Some(best) = most_visited(children, node.to_play) else {
                break;
            };
            node = &children[best];
            line.push(node.action as usize);
        }
        line
    }
}

/// Adds one visit with `value` and `draw` to every node of `path`, releasing
/// one virtual loss each if `in_flight`.
fn backup<V: Values>(nodes: &mut [Node<V>], path: &[NodeId], value: V, draw: f32, in_flight: bool) {
    for &id in path {
        let node = &mut nodes[id as usize];
        node.visits += 1;
        value.add_to(&mut node.value_sum);
        node.draw_sum += draw;
        if in_flight {
            node.in_flight -= 1;
        }
    }
}

/// The index of the most visited of `children` (ties: better Q for `player`,
/// then the higher prior), or `None` if none has been visited.
fn most_visited<V: Values>(children: &[Node<V>], player: Side) -> Option<usize> {
    let key = |c: &Node<V>| (c.visits, c.q(player), c.prior);
    (0..children.len())
        .filter(|&i| children[i].visits > 0)
        .max_by(|&a, &b| {
            key(&children[a])
                .partial_cmp(&key(&children[b]))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.cmp(&a))
        })
}

/// The first index with the highest score.
fn argmax(indices: impl Iterator<Item = usize>, score: impl Fn(usize) -> f32) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for i in indices {
        let s = score(i);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result_with(priors: &[f32], targets: &[f32]) -> SearchResult {
        SearchResult {
            action: 0,
            best_action: 0,
            full_search: true,
            simulations: 16,
            stopped: false,
            value: 0.0,
            wdl: Wdl::DRAW,
            side_values: vec![0.0, 0.0],
            solved: None,
            root_actions: priors
                .iter()
                .zip(targets)
                .enumerate()
                .map(|(action, (&prior, &policy_target))| RootAction {
                    action,
                    prior,
                    visits: 0,
                    q: None,
                    policy_target,
                })
                .collect(),
            principal_variation: vec![0],
        }
    }

    #[test]
    fn a_filter_keeps_moves_out_of_the_search_and_each_root_move_has_its_line() {
        use crate::eval::UniformEvaluator;
        use crate::filter::ActionRule;
        use crate::toy::TicTacToe;
        let config = SearchConfig {
            simulations: 200,
            ..SearchConfig::default()
        };
        let mut search = Search::new(TicTacToe::new(), config, 1).unwrap();
        let first = Side::new(0);
        search.set_action_filter(Some(ActionFilter {
            // The first side may not open in the centre, and the reply to
            // it is one of the corners.
            rules: vec![
                ActionRule::new(first, 1, vec![4], false),
                ActionRule::new(first.opponent(), 2, vec![0, 2, 6, 8], true),
            ],
        }));
        let result = search.search(&UniformEvaluator).unwrap();
        let actions: Vec<usize> = result.root_actions.iter().map(|a| a.action).collect();
        assert_eq!(actions, [0, 1, 2, 3, 5, 6, 7, 8]);
        for root in &result.root_actions {
            let line = search.line_after(root.action).unwrap();
            assert_eq!(line[0], root.action);
            if root.visits > 1 {
                assert!([0, 2, 6, 8].contains(&line[1]), "{line:?}");
            }
        }
        assert_eq!(
            search.line_after(result.best_action).unwrap(),
            result.principal_variation
        );
        assert_eq!(search.line_after(4), None);
    }

    /// Evaluates like its inner evaluator, and sets the stop flag once it
    /// has evaluated `batches` batches (the root's first): a search over it
    /// behind a [`crate::StoppableEvaluator`] is stopped at its next batch.
    struct StopAfter<E> {
        inner: E,
        batches: std::sync::atomic::AtomicUsize,
        stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    }

    impl<G: Game, E: Evaluator<G>> Evaluator<G> for StopAfter<E> {
        fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), crate::EvalError> {
            use std::sync::atomic::Ordering;
            self.inner.evaluate(batch)?;
            if self.batches.fetch_sub(1, Ordering::Relaxed) == 1 {
                self.stop.store(true, Ordering::Relaxed);
            }
            Ok(())
        }
    }

    /// `search`'s result when it is stopped after `batches` batches of
    /// evaluations by `inner`.
    fn stopped_after<G: Game, E: Evaluator<G>>(
        search: &mut Search<G>,
        inner: E,
        batches: usize,
    ) -> Result<SearchResult, SearchError> {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(batches == 0));
        let counting = StopAfter {
            inner,
            batches: batches.into(),
            stop: stop.clone(),
        };
        search.search(&crate::StoppableEvaluator::new(counting, stop))
    }

    type Connect4 = crate::toy::ConnectK<7, 6, 4>;

    fn visits_of(result: &SearchResult) -> u32 {
        result.root_actions.iter().map(|a| a.visits).sum()
    }

    #[test]
    fn a_stopped_search_answers_with_the_simulations_it_completed() {
        use crate::eval::UniformEvaluator;
        let config = SearchConfig {
            simulations: 1000,
            ..SearchConfig::default()
        };
        // One leaf a batch: the root's evaluation, then 40 simulations.
        let mut search = Search::new(Connect4::new(), config.clone(), 1).unwrap();
        let result = stopped_after(&mut search, UniformEvaluator, 41).unwrap();
        assert!(result.stopped);
        assert_eq!(result.simulations, 40);
        assert_eq!(visits_of(&result), 40);
        assert_eq!(search.root_visits(), 41);
        let most = result.root_actions.iter().map(|a| a.visits).max().unwrap();
        let best = result
            .root_actions
            .iter()
            .find(|a| a.action == result.best_action);
        assert_eq!(best.unwrap().visits, most, "{result:?}");
        assert_eq!(result.principal_variation[0], result.best_action);
        let target: f32 = result.root_actions.iter().map(|a| a.policy_target).sum();
        assert!((target - 1.0).abs() < 1e-5, "{target}");
        // The search goes on from its tree, with nothing left in flight.
        search
            .set_config(SearchConfig {
                simulations: 10,
                ..config.clone()
            })
            .unwrap();
        let more = search.search(&UniformEvaluator).unwrap();
        assert!(!more.stopped);
        assert_eq!(visits_of(&more), 50);

        // Eight leaves a batch: the refused batch's leaves are dropped, and
        // every completed simulation counts.
        let batched = SearchConfig {
            virtual_loss_batch: 8,
            ..config.clone()
        };
        let mut search = Search::new(Connect4::new(), batched, 1).unwrap();
        let result = stopped_after(&mut search, UniformEvaluator, 6).unwrap();
        assert!(result.stopped);
        assert!((5..=40).contains(&result.simulations), "{result:?}");
        assert_eq!(visits_of(&result), result.simulations);
        assert_eq!(search.root_visits(), result.simulations + 1);
        search
            .set_config(SearchConfig {
                simulations: 16,
                ..config.clone()
            })
            .unwrap();
        let more = search.search(&UniformEvaluator).unwrap();
        assert_eq!(visits_of(&more), result.simulations + 16);

        // Stopped before its root is evaluated, it has nothing to say.
        let mut search = Search::new(Connect4::new(), config, 1).unwrap();
        assert!(matches!(
            stopped_after(&mut search, UniformEvaluator, 0),
            Err(SearchError::Eval(crate::EvalError::Stopped))
        ));
    }

    #[test]
    fn a_stopped_gumbel_search_picks_among_the_actions_still_in_its_halving() {
        use crate::toy::HashEvaluator;
        // Four considered actions and 64 simulations: eight visits each in
        // the first phase (simulations 0..32), then the better two share
        // the rest, sixteen each.
        let config = SearchConfig {
            simulations: 64,
            gumbel: Some(GumbelConfig {
                considered_actions: 4,
                gumbel_scale: 0.0,
                ..GumbelConfig::default()
            }),
            ..SearchConfig::default()
        };
        let search_stopped_after = |simulations: usize| {
            let mut search = Search::new(Connect4::new(), config.clone(), 1).unwrap();
            stopped_after(&mut search, HashEvaluator, simulations + 1).unwrap()
        };
        let visits = |result: &SearchResult, action: usize| {
            result
                .root_actions
                .iter()
                .find(|a| a.action == action)
                .unwrap()
                .visits
        };
        // With Gumbel noise, over many seeds: an action dropped by the
        // first halving may score above the two left by the time of the
        // stop (their values moved with their visits), but is never chosen.
        let noisy = SearchConfig {
            gumbel: config.gumbel.map(|gumbel| GumbelConfig {
                gumbel_scale: 1.0,
                ..gumbel
            }),
            ..config.clone()
        };
        // In the middle of a round, the one visited last is chosen only
        // when it scores best after its visit.
        let mut visited_last = 0;
        for seed in 0..200 {
            let noisy_stopped_after = |simulations: usize| {
                let mut search = Search::new(Connect4::new(), noisy.clone(), seed).unwrap();
                stopped_after(&mut search, HashEvaluator, simulations + 1).unwrap()
            };
            let result = noisy_stopped_after(40);
            assert_eq!(
                visits(&result, result.best_action),
                12,
                "seed {seed}: {result:?}"
            );
            let result = noisy_stopped_after(35);
            assert!(
                visits(&result, result.best_action) >= 9,
                "seed {seed}: {result:?}"
            );
            visited_last += usize::from(visits(&result, result.best_action) == 10);
        }
        assert!((1..200).contains(&visited_last), "{visited_last}");

        let counts = |result: &SearchResult| {
            let mut counts: Vec<u32> = result.root_actions.iter().map(|a| a.visits).collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            counts
        };
        // Stopped at the end of the second phase's fourth round: the two
        // actions still in the halving have 12 visits, the two dropped 8.
        let result = search_stopped_after(40);
        assert!(result.stopped);
        assert_eq!(result.simulations, 40);
        assert_eq!(counts(&result)[..5], [12, 12, 8, 8, 0], "{result:?}");
        assert_eq!(visits(&result, result.best_action), 12, "{result:?}");
        // In the middle of a round, one of the two has a visit more; the
        // choice is between both, on their scores, not on that visit.
        let result = search_stopped_after(35);
        assert_eq!(counts(&result)[..4], [10, 9, 8, 8], "{result:?}");
        assert!(visits(&result, result.best_action) >= 9, "{result:?}");
        // In the first round, among the actions visited.
        let result = search_stopped_after(2);
        assert_eq!(counts(&result)[..3], [1, 1, 0], "{result:?}");
        assert_eq!(visits(&result, result.best_action), 1, "{result:?}");
        // A search that ran all its simulations is not marked.
        let mut search = Search::new(Connect4::new(), config.clone(), 1).unwrap();
        let whole = search.search(&HashEvaluator).unwrap();
        assert!(!whole.stopped);
        assert_eq!(whole.simulations, 64);
    }

    #[test]
    fn the_policy_surprise_is_the_divergence_of_the_target_from_the_prior() {
        // The target agrees with the prior: nothing learned.
        let agreed = result_with(&[0.5, 0.25, 0.25], &[0.5, 0.25, 0.25]);
        assert!(agreed.policy_surprise().abs() < 1e-6);
        // All on the action the prior gave a quarter: ln 4.
        let found = result_with(&[0.5, 0.25, 0.25], &[0.0, 1.0, 0.0]);
        assert!((found.policy_surprise() - 4f32.ln()).abs() < 1e-5);
        // Unnormalised priors are normalised first; a zero prior stays finite.
        let scaled = result_with(&[2.0, 1.0, 1.0], &[0.0, 1.0, 0.0]);
        assert!((scaled.policy_surprise() - 4f32.ln()).abs() < 1e-5);
        let unseen = result_with(&[1.0, 0.0], &[0.0, 1.0]);
        assert!((unseen.policy_surprise() - 1e6f32.ln()).abs() < 1e-3);
    }
}
