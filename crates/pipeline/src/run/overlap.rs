//! Whether `sumito train` plays self-play and trains side by side
//! (`[selfplay] overlap_training`, decided once when the loop starts), and,
//! when it does, what each round plays while the trainer trains.
//!
//! Overlapped, a round is: the trainer trains every step owed to the games
//! already read (`[training] samples_per_position` of them a position, as in
//! turns) and writes their candidate, while self-play plays the next
//! generation's games with the best model there was when the round began.
//! The round ends when both have finished, and only then are the new games
//! read. So the trainer waits for data (it never trains ahead of the
//! positions it owes), and self-play waits for the trainer only when
//! training the games before took longer than playing these: letting
//! self-play run further ahead would make the trainer fall behind by more
//! every generation, its models ever older than the games they learn from,
//! or make it train less per position than the config says.

use sumito_net::DeviceSpec;

use crate::config::{Config, OverlapTraining};

/// How `sumito train` runs self-play and training, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Overlap {
    pub(super) on: bool,
    /// The threads an overlapped round's rating gives its fixed opponents
    /// ([`rating_threads`]); 0 where it rates against none.
    pub(super) rating_threads: usize,
    why: String,
}

/// The threads self-play and the trainer are configured to use at once:
/// self-play's drivers (`[selfplay] workers`) and, on the CPU, the
/// network's `[net.threads] intra_op` threads (a single driver runs the
/// network itself, so its own thread is one of them); the trainer's
/// `intra_op`. On a GPU one thread drives the network for each (the
/// inference service's beside several drivers). `cores` stands for an
/// `intra_op` of 0 (one a core).
fn threads(config: &Config, cores: usize) -> (usize, usize) {
    let intra_op = match config.net.threads.intra_op {
        0 => cores,
        threads => threads,
    };
    let workers = config.selfplay.workers;
    if config.net.inference.device == DeviceSpec::Cpu {
        let selfplay = if workers == 1 {
            intra_op
        } else {
            workers + intra_op
        };
        (selfplay, intra_op)
    } else {
        (workers + usize::from(workers > 1), 1)
    }
}

/// The threads on which an overlapped round's rating lets its fixed
/// opponents (`[evaluation] opponents`, classical players) choose their
/// moves. The rating runs on the trainer's thread after its training,
/// beside self-play, and its opponents' moves are chosen side by side, a
/// thread a game played at once (`[evaluation] games_in_parallel`), on a
/// pool of rayon's: on all the cores, it would take self-play's. So the
/// pool has the cores self-play leaves (at least one). 0 where the run rates
/// against no fixed opponent; the rating's network, the candidate's, runs
/// on the trainer's threads.
fn rating_threads(config: &Config, cores: usize, selfplay: usize) -> usize {
    if config.evaluation.opponents.is_empty() {
        return 0;
    }
    let left = cores.saturating_sub(selfplay).max(1);
    config.evaluation.games_in_parallel.clamp(1, left)
}

/// `n` and `noun`, plural unless `n` is 1.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

impl Overlap {
    /// The mode of `config` on a machine where this process may run on
    /// `cores` cores. Beside self-play the trainer's thread trains, then
    /// rates: its threads are the most of the two.
    pub(super) fn decide(config: &Config, cores: usize) -> Overlap {
        let setting = config.selfplay.overlap_training;
        let (selfplay, trainer) = threads(config, cores);
        let rating = rating_threads(config, cores, selfplay);
        let on = match setting {
            OverlapTraining::On => true,
            OverlapTraining::Off => false,
            OverlapTraining::Auto => selfplay + trainer.max(rating) <= cores,
        };
        let rated = match rating {
            0 => String::new(),
            rating => format!(" (its rating's opponents then {rating})"),
        };
        let why = match setting {
            OverlapTraining::Auto => format!(
                "overlap_training = \"auto\": self-play's {} and the trainer's {trainer}{rated} {} the {} here",
                counted(selfplay, "thread"),
                if on { "fit in" } else { "need more than" },
                counted(cores, "core"),
            ),
            setting => format!("overlap_training = {}", setting.as_str()),
        };
        Overlap {
            on,
            rating_threads: rating,
            why,
        }
    }

    /// The mode for `config` on the cores this process may run on (its
    /// affinity mask and CPU quota).
    pub(super) fn here(config: &Config) -> Overlap {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Overlap::decide(config, cores)
    }

    /// The line the loop says when it starts.
    pub(super) fn describe(&self) -> String {
        let mode = if self.on {
            "self-play and training overlapped: each generation's games are played while the trainer trains on the games before them"
        } else {
            "self-play and training alternating"
        };
        format!("{mode} ({})", self.why)
    }
}

/// Where the trainer stands when an overlapped round begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Standing {
    /// The newest candidate (`trainer/state.json`).
    pub(super) generation: u32,
    /// Games read since that candidate.
    pub(super) games_since_candidate: u64,
    pub(super) games_per_generation: u64,
    /// `[budget] generations`.
    pub(super) generations_limit: Option<u32>,
}

/// What an overlapped round does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Round {
    /// The budget is spent and every game played is in a candidate: the
    /// loop ends (saying what was spent).
    Stop(String),
    /// The trainer trains what is owed (and writes the candidate once its
    /// generation's games are all read) while self-play plays this many
    /// games (0: the trainer alone, the budget's last candidate).
    Play(u64),
}

/// The next overlapped round from where the trainer stands and what of the
/// budget is spent (`spent`: generations, games or hours, as the loop in
/// turns checks it). Once the budget is spent no more games are played, but
/// the games already played are trained on and made a candidate (as the
/// loop in turns leaves none untrained), unless that would pass the budget's
/// generations; and no games are played beside the budget's last candidate.
pub(super) fn next_round(standing: Standing, spent: Option<String>) -> Round {
    let Standing {
        generation,
        games_since_candidate,
        games_per_generation,
        generations_limit,
    } = standing;
    // The games of the next candidate are all read: the trainer makes it
    // this round.
    let candidate_owed = games_since_candidate >= games_per_generation;
    let reaches_limit =
        |generation: u32| generations_limit.is_some_and(|limit| generation >= limit);
    if let Some(spent) = spent {
        return if candidate_owed && !reaches_limit(generation) {
            Round::Play(0)
        } else {
            Round::Stop(spent)
        };
    }
    if candidate_owed {
        if reaches_limit(generation + 1) {
            Round::Play(0)
        } else {
            // The generation after the candidate's.
            Round::Play(games_per_generation)
        }
    } else {
        // The rest of the candidate's own (the first round, or one after an
        // interrupted round).
        Round::Play(games_per_generation - games_since_candidate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(extra: &str) -> Config {
        let text = format!(
            "[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n{extra}"
        );
        Config::parse(&text, Path::new("test.toml")).unwrap()
    }

    fn quick() -> Config {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/quick.toml");
        Config::load(&path).unwrap()
    }

    #[test]
    fn auto_overlaps_only_where_the_threads_of_both_fit_in_the_cores() {
        // The quick config: one driver running the network on 2 threads,
        // and a trainer on 2: four threads.
        let quick = quick();
        assert_eq!(threads(&quick, 2), (2, 2));
        let two_cores = Overlap::decide(&quick, 2);
        assert!(!two_cores.on);
        assert!(
            two_cores.describe().contains(
                "self-play's 2 threads and the trainer's 2 (its rating's opponents then 1) need \
                 more than the 2 cores here"
            ),
            "{}",
            two_cores.describe()
        );
        assert!(!Overlap::decide(&quick, 3).on);
        let four = Overlap::decide(&quick, 4);
        assert!(four.on, "{four:?}");
        assert!(
            four.describe()
                .contains("the trainer's 2 (its rating's opponents then 2) fit in the 4 cores"),
            "{four:?}"
        );

        // One thread each fits in two cores, and the counts read as words.
        let single = config("[net.threads]\nintra_op = 1\n");
        let two = Overlap::decide(&single, 2);
        assert!(two.on);
        assert!(
            two.describe()
                .contains("self-play's 1 thread and the trainer's 1"),
            "{two:?}"
        );
        let one = Overlap::decide(&single, 1);
        assert!(!one.on);
        assert!(
            one.describe().contains("need more than the 1 core here"),
            "{one:?}"
        );

        // Several drivers share the inference service, which runs the
        // network on its own threads.
        let drivers = config("[selfplay]\nworkers = 12\n[net.threads]\nintra_op = 2\n");
        assert_eq!(threads(&drivers, 16), (14, 2));
        assert!(Overlap::decide(&drivers, 16).on);
        assert!(!Overlap::decide(&drivers, 15).on);
        // One thread a core: self-play alone takes every core.
        let every_core = config("[net.threads]\nintra_op = 0\n");
        assert_eq!(threads(&every_core, 16), (16, 16));
        assert!(!Overlap::decide(&every_core, 16).on);
        // On a GPU a thread drives the network for each.
        let gpu = config(
            "[selfplay]\nworkers = 12\n[net.threads]\nintra_op = 0\n[net.inference]\ndevice = \"cuda\"\n",
        );
        assert_eq!(threads(&gpu, 16), (13, 1));
        assert!(Overlap::decide(&gpu, 16).on);
        assert!(!Overlap::decide(&gpu, 8).on);
    }

    #[test]
    fn the_ratings_opponents_get_the_cores_self_play_leaves() {
        // The quick config rates against classical players, 20 games at
        // once: on the cores self-play's 2 threads leave.
        let quick = quick();
        assert_eq!(quick.evaluation.games_in_parallel, 20);
        assert_eq!(Overlap::decide(&quick, 4).rating_threads, 2);
        assert_eq!(Overlap::decide(&quick, 64).rating_threads, 20);
        // Self-play takes every core: one thread still, and the rating's
        // is counted where the trainer's would fit.
        let gpu = config(
            "[selfplay]\nworkers = 12\n[net.inference]\ndevice = \"cuda\"\n[evaluation]\ngames_in_parallel = 4\n",
        );
        assert_eq!(threads(&gpu, 14), (13, 1));
        let fourteen = Overlap::decide(&gpu, 14);
        assert_eq!(fourteen.rating_threads, 1);
        assert!(fourteen.on);
        assert_eq!(Overlap::decide(&gpu, 16).rating_threads, 3);
        let thirteen = Overlap::decide(&gpu, 13);
        assert_eq!(thirteen.rating_threads, 1);
        assert!(!thirteen.on);
        // No fixed opponents: no threads of theirs, and none said.
        let unrated = config("[evaluation]\nopponents = []\n");
        let decided = Overlap::decide(&unrated, 8);
        assert_eq!(decided.rating_threads, 0);
        assert!(!decided.describe().contains("rating"), "{decided:?}");
    }

    #[test]
    fn true_and_false_decide_whatever_the_cores() {
        let on = Overlap::decide(&config("[selfplay]\noverlap_training = true\n"), 1);
        assert!(on.on);
        assert!(
            on.describe().contains("(overlap_training = true)"),
            "{on:?}"
        );
        let off = Overlap::decide(&config("[selfplay]\noverlap_training = false\n"), 64);
        assert!(!off.on);
        assert_eq!(
            off.describe(),
            "self-play and training alternating (overlap_training = false)"
        );
    }

    fn standing(generation: u32, games_since_candidate: u64, limit: Option<u32>) -> Standing {
        Standing {
            generation,
            games_since_candidate,
            games_per_generation: 8,
            generations_limit: limit,
        }
    }

    #[test]
    fn a_round_plays_the_next_generation_while_the_trainer_makes_the_candidate_of_the_last() {
        // A new run: the first generation's games alone (nothing to train).
        assert_eq!(next_round(standing(0, 0, None), None), Round::Play(8));
        // Its games read: the trainer makes gen 1 from them while self-play
        // plays the second generation's.
        assert_eq!(next_round(standing(0, 8, None), None), Round::Play(8));
        assert_eq!(next_round(standing(5, 8, None), None), Round::Play(8));
        // Resumed after a round was cut short: the rest of the candidate's
        // games first.
        assert_eq!(next_round(standing(5, 3, None), None), Round::Play(5));
        // More than a generation read (a `sumito selfplay` beside the run):
        // all of it goes into the candidate, and the next one is played.
        assert_eq!(next_round(standing(5, 20, None), None), Round::Play(8));
    }

    #[test]
    fn no_game_is_played_that_the_budget_would_leave_untrained() {
        let limit = Some(2);
        // Two generations: 8 games, then gen 1 beside 8 more, then gen 2
        // alone: 16 games, as in turns.
        let rounds: Vec<Round> = [(0, 0), (0, 8), (1, 8), (2, 0)]
            .into_iter()
            .map(|(generation, games)| {
                let spent = (generation >= 2).then(|| "2 generations".to_owned());
                next_round(standing(generation, games, limit), spent)
            })
            .collect();
        assert_eq!(
            rounds,
            [
                Round::Play(8),
                Round::Play(8),
                Round::Play(0),
                Round::Stop("2 generations".to_owned())
            ]
        );
        // The generations spent: no candidate past them, even with games
        // read for one.
        assert_eq!(
            next_round(standing(2, 8, limit), Some("2 generations".into())),
            Round::Stop("2 generations".to_owned())
        );
        // Games or hours spent: the games played are trained on and made a
        // candidate, then the loop ends.
        let hours = || Some("1.00 hours".to_owned());
        assert_eq!(next_round(standing(4, 8, None), hours()), Round::Play(0));
        assert_eq!(
            next_round(standing(5, 0, None), hours()),
            Round::Stop("1.00 hours".to_owned())
        );
        // Part of a generation when the budget ran out: it stays for a
        // longer budget to finish.
        assert_eq!(
            next_round(standing(5, 3, None), hours()),
            Round::Stop("1.00 hours".to_owned())
        );
    }
}
