//! What a match shows: a progress bar while it runs, then the tables and the
//! machine-readable last line.

use std::fmt::Write as _;
use sumito_game::Board;

use indicatif::{ProgressBar, ProgressStyle};

use crate::arena::{MatchObserver, MatchResults, PlayedGame, Standings};
use crate::elo::{Anchor, Ratings};
use sumito_engine::EndReason;

/// `W-D-L` per player, for the progress bar.
pub fn standings_line(standings: &Standings) -> String {
    let mut line = standings
        .players
        .iter()
        .zip(&standings.tallies)
        .map(|(name, t)| format!("{name} {}-{}-{}", t.wins, t.draws, t.losses))
        .collect::<Vec<_>>()
        .join(" | ");
    if let Some(sprt) = standings.sprt {
        let _ = write!(
            line,
            " | LLR {:.2} ({:.2}..{:.2})",
            sprt.llr, sprt.lower_bound, sprt.upper_bound
        );
    }
    line
}

/// A progress bar on standard error (drawn only on a terminal) with games
/// done, each player's wins-draws-losses and the time left.
#[derive(Debug)]
pub struct ProgressObserver {
    bar: ProgressBar,
}

impl Default for ProgressObserver {
    fn default() -> ProgressObserver {
        ProgressObserver::new()
    }
}

impl ProgressObserver {
    pub fn new() -> ProgressObserver {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} games, ETA {eta}  W-D-L: {wide_msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        ProgressObserver { bar }
    }
}

impl<B: Board> MatchObserver<B> for ProgressObserver {
    fn match_started(&self, standings: &Standings) {
        self.bar.set_length(standings.total_games as u64);
        self.bar.set_message(standings_line(standings));
    }

    fn game_finished(&self, _game: &PlayedGame<B>, standings: &Standings) {
        self.bar.set_position(standings.games_done as u64);
        self.bar.set_message(standings_line(standings));
    }

    fn match_finished(&self, _standings: &Standings) {
        self.bar.finish_and_clear();
    }
}

fn score_text(score: Option<f64>) -> String {
    score.map_or_else(|| "-".to_string(), |s| format!("{s:.3}"))
}

fn signed(x: f64) -> String {
    let rounded = x.round();
    if rounded == 0.0 {
        "0".to_string()
    } else {
        format!("{rounded:+.0}")
    }
}

/// The tables printed after a match: pairings (in games of two sides),
/// then players with their points per game and ratings (`ratings` is `Err`
/// with the reason when none could be fitted; with more sides, fitted to
/// the pairs of each game's finishing order), then the SPRT verdict if
/// there was a test.
pub fn summary<B: Board>(results: &MatchResults<B>, ratings: &Result<Ratings, String>) -> String {
    let mut out = String::new();
    let pairing_names: Vec<String> = results
        .pairings()
        .iter()
        .map(|p| format!("{} vs {}", results.players[p.a], results.players[p.b]))
        .collect();
    let width = pairing_names
        .iter()
        .map(String::len)
        .chain(results.players.iter().map(String::len))
        .chain([7])
        .max()
        .unwrap_or(7);
    if !pairing_names.is_empty() {
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5}",
            "pairing", "games", "wins", "draws", "losses", "score"
        );
        for (pairing, name) in results.pairings().iter().zip(&pairing_names) {
            let t = pairing.tally;
            let _ = writeln!(
                out,
                "{name:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5}",
                t.games(),
                t.wins,
                t.draws,
                t.losses,
                score_text(t.score())
            );
        }
        out.push('\n');
    }
    let many = results.sides > 2;
    let _ = writeln!(
        out,
        "{:<width$}  {:>5}{}  {:>5}  {:>6}  95% interval",
        "player",
        "games",
        if many { "   wins  draws" } else { "" },
        if many { "points" } else { "score" },
        "elo"
    );
    let tallies = results.tallies();
    let scores = results.scores();
    for (i, (name, tally)) in results.players.iter().zip(&tallies).enumerate() {
        let (elo, interval) = match ratings {
            Ok(r) if r.anchor.holds(i) => (signed(r.elo[i]), "(anchor)".to_string()),
            Ok(r) => {
                let (low, high) = r.interval(i);
                (
                    signed(r.elo[i]),
                    format!("[{}, {}]", signed(low), signed(high)),
                )
            }
            Err(_) => ("-".to_string(), String::new()),
        };
        let wins_draws = if many {
            format!("  {:>5}  {:>5}", tally.wins, tally.draws)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{name:<width$}  {:>5}{wins_draws}  {:>5}  {elo:>6}  {interval}",
            tally.games(),
            score_text(scores[i])
        );
    }
    match ratings {
        Ok(r) if r.anchor == Anchor::Mean => {
            let _ = writeln!(
                out,
                "Elo anchored at a mean of 0 (no classical player of the scale took part)."
            );
        }
        Ok(_) => {
            let _ = writeln!(
                out,
                "Elo on the one scale, the classical players held at theirs: {}.",
                crate::scale::describe()
            );
        }
        Err(reason) => {
            let _ = writeln!(out, "no Elo ratings: {reason}");
        }
    }
    if let Ok(r) = ratings
        && r.prior_draws > 0.0
    {
        let _ = writeln!(
            out,
            "Some group of players won or lost all its games, so no finite maximum-likelihood \
             rating exists; {} virtual draw(s) per pairing were added, which pulls the \
             ratings together.",
            r.prior_draws
        );
    }
    if many {
        let _ = writeln!(
            out,
            "Points: 1 a win, 1/k a draw shared by k sides; Elo from the pairs of each game's \
             finishing order (the winner first, the others by marbles pushed off)."
        );
    }
    if let Some(line) = endings_line(&results.games) {
        out.push_str(&line);
    }
    if let Some(sprt) = results.sprt {
        let _ = writeln!(
            out,
            "SPRT ({} vs {}): {} (LLR {:.2}, bounds {:.2}..{:.2}) after {} of {} games",
            results.players[0],
            results.players[1],
            sprt.verdict,
            sprt.llr,
            sprt.lower_bound,
            sprt.upper_bound,
            results.games.len(),
            results.scheduled
        );
    }
    out
}

/// How the games ended: by marbles pushed off or at the move limit, and how
/// many cycled (a position repeated), with the median ply of the first
/// repetition; `None` without games.
pub fn endings_line<B: Board>(games: &[PlayedGame<B>]) -> Option<String> {
    if games.is_empty() {
        return None;
    }
    let count = |counted: fn(EndReason) -> bool| {
        games
            .iter()
            .filter(|game| game.ending().is_some_and(|ending| counted(ending.reason)))
            .count()
    };
    let mut repeated: Vec<u32> = games
        .iter()
        .filter_map(|game| game.first_repetition)
        .collect();
    repeated.sort_unstable();
    let median = repeated
        .get(repeated.len() / 2)
        .map_or_else(String::new, |ply| {
            format!(" (the first repetition at a median ply of {ply})")
        });
    Some(format!(
        "games: {} ended by marbles pushed off, {} at the move limit; {} cycled{median}\n",
        count(EndReason::by_push_off),
        count(|reason| reason == EndReason::MoveLimit),
        repeated.len()
    ))
}

/// The last line of `sumito arena`: `result: NAME=SCORE ...`, each player's
/// points per game (0 to 1; a draw shared by k sides is 1/k). Names contain
/// no spaces but may contain `=`: the score follows the last `=`.
pub fn result_line<B: Board>(results: &MatchResults<B>) -> String {
    let items: Vec<String> = results
        .players
        .iter()
        .zip(results.scores())
        .map(|(name, score)| format!("{name}={}", score_text(score)))
        .collect();
    format!("result: {}", items.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{MatchConfig, Silent, play_match};
    use crate::arena_board::ArenaBoard;
    use sumito_engine::Rules;

    #[test]
    fn tables_and_result_line() {
        let registry = sumito_engine::Position::classical_players();
        let entrants = vec![
            registry.prepare_str("greedy").unwrap(),
            registry.prepare_str("random").unwrap(),
        ];
        let rules = Rules {
            max_plies: Some(120),
            ..Rules::default()
        };
        let config = MatchConfig {
            games_per_pairing: 4,
            threads: 1,
            ..MatchConfig::two_player(&[sumito_engine::Layout::BelgianDaisy], rules)
        };
        let results = play_match(&entrants, &config, &Silent).unwrap();
        let ratings = results.ratings().map_err(|e| e.to_string());
        let text = summary(&results, &ratings);
        assert!(text.contains("greedy vs random"), "{text}");
        assert!(text.contains("(anchor)"), "{text}");
        let ended = |reason| {
            results
                .games
                .iter()
                .filter(|g| g.ending().map(|ending| ending.reason) == Some(reason))
                .count()
        };
        let cycled = results
            .games
            .iter()
            .filter(|g| g.first_repetition.is_some())
            .count();
        assert!(
            text.contains(&format!(
                "games: {} ended by marbles pushed off, {} at the move limit; {cycled} cycled",
                ended(EndReason::MarblesOff),
                ended(EndReason::MoveLimit)
            )),
            "{text}"
        );
        let line = result_line(&results);
        let tallies = results.tallies();
        let expected = format!(
            "result: greedy={:.3} random={:.3}",
            tallies[0].score().unwrap(),
            tallies[1].score().unwrap()
        );
        assert_eq!(line, expected);
        // Parse it back as a script would.
        let scores: Vec<f64> = line
            .strip_prefix("result: ")
            .unwrap()
            .split(' ')
            .map(|item| item.rsplit_once('=').unwrap().1.parse().unwrap())
            .collect();
        assert!((scores[0] + scores[1] - 1.0).abs() < 1e-3);
    }
}
