//! Many searches, one evaluator call per round.

use crate::Game;
use crate::error::SearchError;
use crate::eval::{EvalBatch, Evaluator};
use crate::search::{Gathered, Search, SearchResult};

/// Owns many independent [`Search`]es (one per game, each with its own seed
/// and configuration) and advances them in lockstep: each round gathers the
/// leaves that need evaluation from all of them into one batch, calls the
/// evaluator once, and backs the values up. With `virtual_loss_batch = 1` and
/// 64 games the evaluator sees batches of 64 states.
///
/// Every search stays single-threaded and deterministic: a game driven here
/// gets exactly the result that [`Search::search`] would give it with the
/// same seed, whatever the other games are.
///
/// Searches whose game is over are skipped; replace them with
/// [`MultiGameDriver::replace`] to keep the batches full.
#[derive(Debug)]
pub struct MultiGameDriver<G: Game> {
    searches: Vec<Search<G>>,
    batch: EvalBatch<G>,
    /// (search index, first batch item) of the searches with leaves in `batch`.
    gathered: Vec<(usize, usize)>,
    last_batch_size: usize,
}

impl<G: Game> Default for MultiGameDriver<G> {
    fn default() -> Self {
        MultiGameDriver {
            searches: Vec::new(),
            batch: EvalBatch::new(),
            gathered: Vec::new(),
            last_batch_size: 0,
        }
    }
}

impl<G: Game> MultiGameDriver<G> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a search and returns its index (indices never change).
    pub fn push(&mut self, search: Search<G>) -> usize {
        self.searches.push(search);
        self.searches.len() - 1
    }

    /// Puts `search` in place of the one at `index` (typically a finished
    /// game) and returns the old one.
    pub fn replace(&mut self, index: usize, search: Search<G>) -> Search<G> {
        std::mem::replace(&mut self.searches[index], search)
    }

    pub fn len(&self) -> usize {
        self.searches.len()
    }

    pub fn is_empty(&self) -> bool {
        self.searches.is_empty()
    }

    pub fn search(&self, index: usize) -> &Search<G> {
        &self.searches[index]
    }

    /// The search at `index`, e.g. to [`Search::advance`] it after its result.
    pub fn search_mut(&mut self, index: usize) -> &mut Search<G> {
        &mut self.searches[index]
    }

    pub fn searches(&self) -> &[Search<G>] {
        &self.searches
    }

    pub fn into_searches(self) -> Vec<Search<G>> {
        self.searches
    }

    pub fn all_games_over(&self) -> bool {
        self.searches.iter().all(Search::is_game_over)
    }

    /// How many states the last evaluator call received.
    pub fn last_batch_size(&self) -> usize {
        self.last_batch_size
    }

    /// One round: every search whose game is not over gathers its leaves
    /// (starting a new move search if it has none under way), the evaluator is
    /// called once on all of them, and the values are backed up. Returns the
    /// searches that finished their move search in this round, by index, with
    /// their results. Act on them (usually [`Search::advance`]) before the next
    /// round, or they search the same position again.
    ///
    /// On error every search drops its move search in progress (completed
    /// simulations stay in the trees) and the error is returned. A stop
    /// ([`crate::EvalError::Stopped`]) is such an error here, unlike in
    /// [`Search::search`]: a driver plays games whose searches are moves
    /// and training targets, and a stopped round of them is not played.
    pub fn step<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<Vec<(usize, SearchResult)>, SearchError> {
        self.step_where(evaluator, |_| true)
    }

    /// Runs rounds until every search whose game is not over has finished one
    /// move search; returns the results by search index (`None` for games
    /// that are over). Searches do not advance.
    pub fn search_all<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<Vec<Option<SearchResult>>, SearchError> {
        let mut results: Vec<Option<SearchResult>> = vec![None; self.searches.len()];
        let mut waiting: Vec<bool> = self.searches.iter().map(|s| !s.is_game_over()).collect();
        while waiting.iter().any(|&w| w) {
            for (index, result) in self.step_where(evaluator, |i| waiting[i])? {
                waiting[index] = false;
                results[index] = Some(result);
            }
        }
        Ok(results)
    }

    fn step_where<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
        active: impl Fn(usize) -> bool,
    ) -> Result<Vec<(usize, SearchResult)>, SearchError> {
        self.batch.clear();
        self.gathered.clear();
        let mut finished = Vec::new();
        for index in 0..self.searches.len() {
            let search = &mut self.searches[index];
            if !active(index) || search.is_game_over() {
                continue;
            }
            let start = self.batch.len();
            match search.gather(&mut self.batch) {
                Ok(Gathered::Finished) => finished.push((index, search.finish())),
                Ok(Gathered::Pending) => self.gathered.push((index, start)),
                Err(err) => return Err(self.abort_gathered(err)),
            }
        }
        self.last_batch_size = self.batch.len();
        if !self.batch.is_empty()
            && let Err(err) = evaluator.evaluate(&mut self.batch)
        {
            return Err(self.abort_gathered(err.into()));
        }
        for position in 0..self.gathered.len() {
            let (index, start) = self.gathered[position];
            let search = &mut self.searches[index];
            if let Err(err) = search.absorb(&self.batch, start) {
                self.gathered.drain(..=position);
                return Err(self.abort_gathered(err));
            }
            if search.is_complete() {
                finished.push((index, search.finish()));
            }
        }
        self.gathered.clear();
        finished.sort_by_key(|&(index, _)| index);
        Ok(finished)
    }

    /// Drops the move searches of every search still waiting on this batch.
    fn abort_gathered(&mut self, err: SearchError) -> SearchError {
        for (index, _) in self.gathered.drain(..) {
            self.searches[index].abort();
        }
        err
    }
}
