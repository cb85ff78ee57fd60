//! Analysis of positions of the general game (variants, 3 to 6 players) for
//! people: what a search thinks of the position for every side (teams are
//! one side), and its top moves for the mover with visits, Q and prior. The
//! two-player game's analysis (`crate::analysis`) reads a win/draw/loss for
//! one side; here each side has its own value, the search's max^n view.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use sumito_engine::variant::{VariantMove, VariantPosition};
use sumito_game::VariantGame;
use sumito_mcts::{Evaluator, Search, SearchConfig, SearchError, SearchResult};

/// One search of a position of the general game.
#[derive(Clone, Debug)]
pub struct VariantAnalysis {
    pub position: VariantPosition,
    pub result: SearchResult,
    pub elapsed: Duration,
}

impl VariantAnalysis {
    /// The move of `action` (one of the position's legal moves).
    fn move_of(&self, action: usize) -> String {
        VariantGame(self.position)
            .move_of(action)
            .map_or_else(|| format!("#{action}"), |mv: VariantMove| mv.to_text())
    }
}

/// Searches `position` (a game in progress) with `config` on `evaluator`.
pub fn analyse_variant_position(
    position: &VariantPosition,
    evaluator: &dyn Evaluator<VariantGame>,
    config: SearchConfig,
    seed: u64,
) -> Result<VariantAnalysis, SearchError> {
    let started = Instant::now();
    let mut search = Search::new(VariantGame(*position), config, seed)?;
    let result = search.search(evaluator)?;
    Ok(VariantAnalysis {
        position: *position,
        result,
        elapsed: started.elapsed(),
    })
}

/// The search's report with the `top` most visited moves.
pub fn format_variant_position(analysis: &VariantAnalysis, top: usize) -> String {
    let mut text = String::new();
    let position = &analysis.position;
    let seating = position.rules().seating;
    let result = &analysis.result;
    let mover = seating.side_name(position.side_to_move());
    let _ = writeln!(text, "position: {position}");
    let _ = writeln!(
        text,
        "{mover} to move; {} simulations in {:.1} s",
        result.simulations,
        analysis.elapsed.as_secs_f64()
    );
    // A value in [-1, 1] per side: +1 a certain win, -1 a certain loss
    // (a draw among all sides is 0).
    let values: Vec<String> = result
        .side_values
        .iter()
        .enumerate()
        .map(|(side, value)| format!("{} {value:+.3}", seating.side_name(side)))
        .collect();
    let _ = writeln!(text, "values (+1 a win, -1 a loss): {}", values.join(", "));
    if let Some(solved) = result.solved {
        let outcome = match solved {
            v if v > 0.5 => "a win",
            v if v < -0.5 => "a loss",
            _ => "a draw",
        };
        let _ = writeln!(text, "proven: {outcome} for {mover} with best play");
    }
    let _ = writeln!(
        text,
        "  {:<14} {:>7} {:>6} {:>7} {:>6}",
        "move", "visits", "share", "Q", "prior"
    );
    let mut actions = result.root_actions.clone();
    // Most visited first; the prior breaks ties (and orders the unvisited).
    actions.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(b.prior.total_cmp(&a.prior))
            .then(a.action.cmp(&b.action))
    });
    let total: u32 = actions.iter().map(|a| a.visits).sum::<u32>().max(1);
    for stats in actions.iter().take(top) {
        let q = stats
            .q
            .map_or_else(|| "-".to_owned(), |q| format!("{q:+.3}"));
        let _ = writeln!(
            text,
            "  {:<14} {:>7} {:>6} {:>7} {:>6.3}",
            analysis.move_of(stats.action),
            stats.visits,
            format!("{:.1}%", 100.0 * f64::from(stats.visits) / f64::from(total)),
            q,
            stats.prior
        );
    }
    if actions.len() > top {
        let _ = writeln!(text, "  ... {} more legal moves", actions.len() - top);
    }
    // The line is played out to name each move in its own position.
    let mut line = Vec::new();
    let mut current = *position;
    for &action in &result.principal_variation {
        let Some(mv) = VariantGame(current).move_of(action) else {
            break;
        };
        line.push(mv.to_text());
        current = current.play(mv);
        if current.outcome().is_some() {
            break;
        }
    }
    let _ = writeln!(text, "principal variation: {}", line.join(" "));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::variant::{Seating, VariantLayout, VariantRules, VariantSetup};
    use sumito_mcts::{GumbelConfig, UniformEvaluator};

    fn three_player_start() -> VariantPosition {
        let rules = VariantRules::plain(Seating::new(3, false).unwrap());
        VariantSetup::layout(VariantLayout::from_name("three-player").unwrap())
            .start(&rules)
            .unwrap()
    }

    #[test]
    fn the_report_names_every_side_and_the_top_moves() {
        let position = three_player_start();
        let config = SearchConfig {
            simulations: 64,
            gumbel: Some(GumbelConfig {
                considered_actions: 8,
                gumbel_scale: 0.0,
                ..GumbelConfig::default()
            }),
            ..SearchConfig::default()
        };
        let analysis = analyse_variant_position(&position, &UniformEvaluator, config, 0).unwrap();
        assert_eq!(analysis.result.side_values.len(), 3);
        let report = format_variant_position(&analysis, 5);
        assert!(report.contains("black to move; 64 simulations"), "{report}");
        for side in ["black", "white", "red"] {
            assert!(report.contains(&format!("{side} ")), "{side}: {report}");
        }
        let move_lines = report.lines().filter(|line| line.starts_with("  ")).count();
        // Five moves, the column titles, and the rest counted.
        assert_eq!(move_lines, 7, "{report}");
        assert!(report.contains("more legal moves"), "{report}");
        // The most visited move is listed first and is the line's first move.
        let best = analysis.move_of(analysis.result.principal_variation[0]);
        let first_row = report
            .lines()
            .skip_while(|line| !line.contains("visits"))
            .nth(1)
            .unwrap();
        assert!(first_row.trim_start().starts_with(&best), "{report}");
        assert!(
            report.contains(&format!("principal variation: {best}")),
            "{report}"
        );
    }
}
