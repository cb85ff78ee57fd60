//! Searching for a time budget with the Gumbel root. Its sequential halving
//! divides a simulation budget known up front among the considered moves, so
//! it cannot simply stop when a clock says; a timed search instead plans its
//! simulations from the speed measured on the searches before it. The first
//! search of a player, whose speed is not known yet, runs a short probe,
//! measures it, and then spends the rest of its time as planned. This keeps
//! the Gumbel root, much stronger than PUCT at the few hundred simulations a
//! second a CPU gives, for `--time-per-move`, clocks and `alphabeta:time=`
//! matches alike.

use std::time::{Duration, Instant};

use crate::Game;
use crate::config::SearchConfig;
use crate::error::SearchError;
use crate::eval::Evaluator;
use crate::search::{Search, SearchResult};

/// Simulations of the probe that measures the speed of a first timed search.
pub const PROBE_SIMULATIONS: u32 = 16;

/// The share of the time left that a planned search aims to use: the rest
/// covers the work around it (choosing the move, the speed's variation).
const TIME_SHARE: f64 = 0.9;

/// Weight of the newest measurement in the running speed estimate.
const NEWEST_WEIGHT: f64 = 0.5;

/// The measured speed of one player's searches, in simulations per second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimePlanner {
    rate: Option<f64>,
}

impl TimePlanner {
    pub fn new() -> TimePlanner {
        TimePlanner::default()
    }

    /// Simulations per second measured so far, if any.
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    /// The simulations that fit in `time` at the measured speed, or `None`
    /// before any measurement.
    pub fn plan(&self, time: Duration) -> Option<u32> {
        self.rate
            .map(|rate| (rate * time.as_secs_f64() * TIME_SHARE).clamp(0.0, 1e9) as u32)
    }

    /// Takes in a search of `simulations` that took `elapsed`.
    pub fn observe(&mut self, simulations: u32, elapsed: Duration) {
        // Searches too short to time say little (the tree may have run out
        // of lines, or the clock's resolution dominates).
        if simulations < 4 || elapsed < Duration::from_micros(200) {
            return;
        }
        let rate = f64::from(simulations) / elapsed.as_secs_f64();
        self.rate = Some(match self.rate {
            Some(old) => (1.0 - NEWEST_WEIGHT) * old + NEWEST_WEIGHT * rate,
            None => rate,
        });
    }
}

/// Searches `search`'s current position for about `time`: one search planned
/// from `planner`'s speed, or, before any measurement, a probe of
/// [`PROBE_SIMULATIONS`] (four times more each time it was too quick to
/// time) and then the planned rest; never more than `limit` simulations in
/// all. `configure(n)` gives the configuration of a search of `n`
/// simulations (the Gumbel root sized for `n`). Returns the last search's
/// result and the simulations run in all; a search stopped from outside
/// ([`SearchResult::stopped`]) ends it there, with its result so far.
pub fn search_for_time<G: Game, E: Evaluator<G> + ?Sized>(
    search: &mut Search<G>,
    evaluator: &E,
    planner: &mut TimePlanner,
    time: Duration,
    limit: u32,
    configure: impl Fn(u32) -> SearchConfig,
) -> Result<(SearchResult, u32), SearchError> {
    let start = Instant::now();
    let mut done = 0u32;
    let mut probe = PROBE_SIMULATIONS;
    let mut last: Option<SearchResult> = None;
    loop {
        let left = time.saturating_sub(start.elapsed());
        let allowed = limit.saturating_sub(done);
        let planned = planner.plan(left).map(|n| n.min(allowed));
        if let Some(result) = last.take_if(|_| left.is_zero() || allowed == 0 || planned == Some(0))
        {
            return Ok((result, done));
        }
        let simulations = planned.unwrap_or(probe.min(allowed)).max(1);
        search.set_config(configure(simulations))?;
        let started = Instant::now();
        let result = search.search(evaluator)?;
        planner.observe(result.simulations, started.elapsed());
        done += result.simulations;
        // A planned search spends the whole budget; a search that could add
        // nothing (every line ends the game) cannot do better with more; a
        // stopped one ends the whole search with what it has.
        if planned.is_some() || result.simulations == 0 || result.stopped {
            return Ok((result, done));
        }
        // A probe too quick to time: a larger one.
        probe = probe.saturating_mul(4);
        last = Some(result);
    }
}

/// Searches `search`'s current position with `limit` simulations, or, when
/// `time` is given, for about that long ([`search_for_time`], `limit` then
/// a ceiling). `configure(n)` gives the configuration of a search of `n`
/// simulations. Returns the last search's result and the simulations run
/// in all.
pub fn search_within<G: Game, E: Evaluator<G> + ?Sized>(
    search: &mut Search<G>,
    evaluator: &E,
    planner: &mut TimePlanner,
    time: Option<Duration>,
    limit: u32,
    configure: impl Fn(u32) -> SearchConfig,
) -> Result<(SearchResult, u32), SearchError> {
    match time {
        None => {
            search.set_config(configure(limit))?;
            let result = search.search(evaluator)?;
            let done = result.simulations;
            Ok((result, done))
        }
        Some(time) => search_for_time(search, evaluator, planner, time, limit, configure),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GumbelConfig;
    use crate::eval::UniformEvaluator;
    use crate::toy::ConnectK;

    #[test]
    fn the_plan_follows_the_measured_speed() {
        let mut planner = TimePlanner::new();
        assert_eq!(planner.plan(Duration::from_secs(1)), None);
        planner.observe(1000, Duration::from_millis(500));
        assert_eq!(planner.rate(), Some(2000.0));
        assert_eq!(planner.plan(Duration::from_secs(1)), Some(1800));
        // The estimate moves half-way to a new measurement.
        planner.observe(1000, Duration::from_secs(1));
        assert_eq!(planner.rate(), Some(1500.0));
        // Measurements too small to time are ignored.
        planner.observe(2, Duration::from_secs(1));
        planner.observe(100, Duration::from_micros(10));
        assert_eq!(planner.rate(), Some(1500.0));
    }

    #[test]
    fn a_timed_search_probes_then_spends_its_time() {
        let game = ConnectK::<7, 6, 4>::new();
        let gumbel = |n: u32| SearchConfig {
            simulations: n,
            gumbel: Some(GumbelConfig {
                considered_actions: 3.min(n).max(2),
                gumbel_scale: 0.0,
                ..GumbelConfig::default()
            }),
            ..SearchConfig::default()
        };
        let timed = |seed: u64, planner: &mut TimePlanner, time: Duration, limit: u32| {
            let mut search = Search::new(game, gumbel(8), seed).unwrap();
            search_for_time(&mut search, &UniformEvaluator, planner, time, limit, gumbel).unwrap()
        };
        let mut planner = TimePlanner::new();
        let time = Duration::from_millis(60);
        let started = Instant::now();
        let (_, first) = timed(1, &mut planner, time, u32::MAX);
        let elapsed = started.elapsed();
        assert!(first > PROBE_SIMULATIONS, "{first}");
        assert!(planner.rate().is_some());
        // Only a bound against a search that never ends: wall-clock figures
        // are not checked on a shared machine.
        assert!(elapsed < 500 * time, "{elapsed:?}");
        // Once the speed is known, a single planned search.
        let (result, second) = timed(2, &mut planner, time, u32::MAX);
        assert_eq!(result.simulations, second);
        assert!(second > PROBE_SIMULATIONS, "{second}");
        // A limit caps the probe and the plan together.
        let (_, limited) = timed(3, &mut TimePlanner::new(), Duration::from_secs(3600), 40);
        assert_eq!(limited, 40);
    }
}
