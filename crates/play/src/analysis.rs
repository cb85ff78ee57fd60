//! Analysis for people: the search's view of one position (its value and
//! its top moves with visits, Q and prior), and of a whole recorded game
//! (the value after each move).

use std::fmt::Write as _;
use std::time::Duration;

use sumito_arena::record::GameRecord;
use sumito_engine::Position;
use sumito_game::Board;
use sumito_game::board::capitalised;
use sumito_mcts::{SearchError, Wdl};

use sumito_arena::players::network::{Analysis, NetworkSearch};

/// `+0.12` style: a value in `[-1, 1]` with its sign.
fn signed(value: f32) -> String {
    format!("{value:+.3}")
}

fn percent(p: f32) -> String {
    format!("{:.0}%", 100.0 * p)
}

/// How reports name the side to move: its seat (`Black`), and the side
/// the values are for (the same but for partners: `black+red`).
fn mover_names<B: Board>(position: &B) -> (String, String) {
    let seat = B::seat_title(position.seat_to_move());
    let side = if position.sides() == position.seats() {
        seat.clone()
    } else {
        position.side_name(position.mover_side())
    };
    (seat, side)
}

/// The search's report on `position` (of either game) with the `top` most
/// visited moves. With more than two sides, each side's value follows the
/// mover's.
pub fn format_position<B: Board>(position: &B, analysis: &Analysis<B::Move>, top: usize) -> String {
    let mut text = String::new();
    let (seat, side) = mover_names(position);
    let wdl = analysis.wdl;
    let _ = writeln!(text, "position: {position}");
    let _ = writeln!(
        text,
        "{seat} to move: value {} for {side} (win {}, draw {}, loss {}), {} simulations in {:.1} s",
        signed(wdl.value()),
        percent(wdl.win),
        percent(wdl.draw),
        percent(wdl.loss),
        analysis.simulations,
        analysis.elapsed.as_secs_f64()
    );
    if position.sides() > 2 {
        let values: Vec<String> = analysis
            .side_values
            .iter()
            .enumerate()
            .map(|(side, value)| format!("{} {}", position.side_name(side), signed(*value)))
            .collect();
        let _ = writeln!(
            text,
            "values by side (+1 a win, -1 a loss): {}",
            values.join(", ")
        );
    }
    if let Some(solved) = analysis.solved {
        let result = match solved {
            v if v > 0.5 => "a win",
            v if v < -0.5 => "a loss",
            _ => "a draw",
        };
        let _ = writeln!(text, "proven: {result} for {side} with best play");
    }
    let names: Vec<String> = analysis
        .moves
        .iter()
        .take(top)
        .map(|stats| B::move_text(stats.mv))
        .collect();
    let width = names.iter().map(String::len).max().unwrap_or(0).max(8);
    let _ = writeln!(
        text,
        "  {:<width$} {:>7} {:>6} {:>7} {:>6}",
        "move", "visits", "share", "Q", "prior"
    );
    let total = analysis.visits.max(1);
    for (stats, name) in analysis.moves.iter().zip(&names) {
        let q = stats.q.map_or_else(|| "-".to_string(), signed);
        let _ = writeln!(
            text,
            "  {name:<width$} {:>7} {:>6} {:>7} {:>6.3}",
            stats.visits,
            format!("{:.1}%", 100.0 * stats.visits as f64 / f64::from(total)),
            q,
            stats.prior
        );
    }
    if analysis.moves.len() > top {
        let _ = writeln!(
            text,
            "  ... {} more legal moves",
            analysis.moves.len() - top
        );
    }
    let line: Vec<String> = analysis
        .principal_variation
        .iter()
        .map(|mv| B::move_text(*mv))
        .collect();
    let _ = writeln!(text, "principal variation: {}", line.join(" "));
    text
}

/// The view after one move of a game (or of its start), in the game of the
/// board `B`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyReport<B: Board = Position> {
    /// 0 for the start, then the number of moves played.
    pub ply: usize,
    /// The move that led here and the seat that played it.
    pub played: Option<(usize, B::Move)>,
    /// The side of that seat (partners share one).
    pub played_side: Option<usize>,
    /// The result in words if the game is over here.
    pub over: Option<String>,
    /// Win/draw/loss for the first side (Black's; searched, or exact when
    /// over). With more than two sides and another side to move, its value
    /// only: a win and a loss, no draw.
    pub first: Wdl,
    /// Each side's value here, -1 to 1 (searched, or exact when over).
    pub side_values: Vec<f32>,
    /// The search's best move here (none when over).
    pub best: Option<B::Move>,
    /// The line the search expects from here, starting with `best`.
    pub line: Vec<B::Move>,
    /// Each move the search visited here, with its mean value for the side
    /// to move (-1 to 1): the moves compared by one search.
    pub move_values: Vec<(B::Move, f32)>,
}

impl<B: Board> PlyReport<B> {
    /// The expected score of `side` here, in percent: `win + draw / 2`.
    pub fn expected_score(&self, side: usize) -> f32 {
        50.0 * (1.0 + self.side_values.get(side).copied().unwrap_or(0.0))
    }
}

/// `record` replayed under `rules` (a model's training rules: a model plays
/// and judges under those only), with a note for the person when the
/// record's own rules differ; refused when under `rules` the game would end
/// before its last move, or a move is not legal.
pub fn record_under_rules<B: Board>(
    record: &GameRecord<B>,
    rules: &B::Rules,
) -> Result<(GameRecord<B>, Option<String>), String> {
    if record.rules == *rules {
        return Ok((record.clone(), None));
    }
    let describe = |rules: &B::Rules| B::rules_table(rules).describe();
    let mut replayed = GameRecord {
        rules: rules.clone(),
        ..record.clone()
    };
    // (Checked move by move: a move in a finished game is not played.)
    let mut position = replayed
        .start_position()
        .map_err(|err| format!("under the model's rules ({}) {err}", describe(rules)))?;
    for (ply, &mv) in replayed.moves.iter().enumerate() {
        if position.is_over() {
            return Err(format!(
                "under the model's rules ({}) this game ends after move {ply}, but the record \
                 goes on to move {}",
                describe(rules),
                record.moves.len()
            ));
        }
        if !position.is_legal(mv) {
            return Err(format!(
                "under the model's rules ({}) move {} ({}) is not legal",
                describe(rules),
                ply + 1,
                B::move_text(mv)
            ));
        }
        position = position.play(mv);
    }
    // A variation that the model's rules do not allow is left out.
    replayed.keep_playable_variations();
    let note = format!(
        "the record's rules ({}) are not the model's ({}): the game is taken under the model's",
        describe(&record.rules),
        describe(rules)
    );
    Ok((replayed, Some(note)))
}

/// Searches every position of a game (`positions`, the start first, and
/// the `moves` between them) with `search`'s budget; `progress(done, all)`
/// after each position.
pub fn analyse_game<B: Board>(
    search: &mut NetworkSearch<B>,
    positions: &[B],
    moves: &[B::Move],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<PlyReport<B>>, SearchError> {
    let mut reports = Vec::with_capacity(positions.len());
    for (ply, position) in positions.iter().enumerate() {
        progress(ply, positions.len());
        let sides = position.sides();
        let played = ply.checked_sub(1).map(|previous| {
            let before = &positions[previous];
            (
                (before.seat_to_move(), moves[previous]),
                before.mover_side(),
            )
        });
        let report = if position.is_over() {
            let side_values: Vec<f32> = (0..sides)
                .map(|side| position.result_for(side).unwrap_or(0.0))
                .collect();
            PlyReport {
                ply,
                played: played.map(|(played, _)| played),
                played_side: played.map(|(_, side)| side),
                over: position.result_text(),
                first: match side_values[0] {
                    0.0 => Wdl::DRAW,
                    value => Wdl::from_value(value),
                },
                side_values,
                best: None,
                line: Vec::new(),
                move_values: Vec::new(),
            }
        } else {
            let analysis = search.analyse(position, None)?;
            let mover = position.mover_side();
            let first = match (mover, sides) {
                (0, _) => analysis.wdl,
                (_, 2) => analysis.wdl.flipped(),
                _ => Wdl::from_value(analysis.side_values.first().copied().unwrap_or(0.0)),
            };
            // Two sides: exactly the mover's win/draw/loss, turned.
            let side_values = if sides == 2 {
                vec![first.value(), -first.value()]
            } else {
                analysis.side_values.clone()
            };
            PlyReport {
                ply,
                played: played.map(|(played, _)| played),
                played_side: played.map(|(_, side)| side),
                over: None,
                first,
                side_values,
                best: Some(analysis.best),
                move_values: analysis
                    .moves
                    .iter()
                    .filter_map(|stats| Some((stats.mv, stats.q?)))
                    .collect(),
                line: analysis.principal_variation,
            }
        };
        reports.push(report);
    }
    progress(positions.len(), positions.len());
    Ok(reports)
}

/// One line per position of a game (`start` its first, which names the
/// sides): the move, the first side's value and chances (with more than two
/// sides, each side's value), and the best continuation.
pub fn format_game<B: Board>(start: &B, reports: &[PlyReport<B>], elapsed: Duration) -> String {
    let mut text = String::new();
    let sides = start.sides();
    let name = |side: usize| capitalised(&start.side_name(side));
    let columns: Vec<String> = if sides == 2 {
        vec!["value".into(), name(0), "draw".into(), name(1)]
    } else {
        (0..sides).map(name).collect()
    };
    let header: Vec<String> = columns.iter().map(|c| format!("{c:>8}")).collect();
    let _ = writeln!(
        text,
        "{:>4}  {:<16} {}  best next move",
        "ply",
        "move",
        header.join(" ")
    );
    for report in reports {
        let played = report.played.map_or_else(
            || "start".to_string(),
            |(seat, mv)| format!("{} {}", B::seat_title(seat), B::move_text(mv)),
        );
        let next = match (report.best, &report.over) {
            (Some(best), _) => B::move_text(best),
            (None, Some(result)) => format!("game over: {result}"),
            (None, None) => String::new(),
        };
        let cells: Vec<String> = if sides == 2 {
            vec![
                signed(report.first.value()),
                percent(report.first.win),
                percent(report.first.draw),
                percent(report.first.loss),
            ]
        } else {
            report.side_values.iter().map(|v| signed(*v)).collect()
        };
        let cells: Vec<String> = cells.iter().map(|c| format!("{c:>8}")).collect();
        let _ = writeln!(
            text,
            "{:>4}  {:<16} {}  {next}",
            report.ply,
            played,
            cells.join(" ")
        );
    }
    let _ = writeln!(
        text,
        "({}; {} positions in {:.1} s)",
        if sides == 2 {
            format!("value and win chances for {}", name(0))
        } else {
            "each side's value, +1 a win, -1 a loss".to_string()
        },
        reports.len(),
        elapsed.as_secs_f64()
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    use sumito_arena::players::network::SearchBudget;
    use sumito_arena::record::Start;
    use sumito_engine::{Color, EndReason, Ending, Layout, Outcome, Rules};
    use sumito_mcts::UniformEvaluator;

    fn uniform() -> NetworkSearch {
        NetworkSearch::new(
            "uniform",
            Box::new(UniformEvaluator),
            SearchBudget::Simulations(64),
            3,
        )
    }

    #[test]
    fn a_position_report_lists_the_top_moves() {
        let start = Position::start(Layout::Standard, Rules::default());
        let analysis = uniform().analyse(&start, None).unwrap();
        let text = format_position(&start, &analysis, 5);
        assert!(text.contains("Black to move: value "), "{text}");
        assert!(text.contains("64 simulations"), "{text}");
        assert!(text.contains("... 39 more legal moves"), "{text}");
        assert!(
            text.contains(&format!("principal variation: {}", analysis.best)),
            "{text}"
        );
        // Header plus five moves between the summary and the "more" line.
        let rows = text
            .lines()
            .skip_while(|line| !line.trim_start().starts_with("move"))
            .skip(1)
            .take_while(|line| !line.contains("more legal moves"))
            .count();
        assert_eq!(rows, 5, "{text}");
    }

    #[test]
    fn a_report_of_the_general_game_names_every_side_and_its_top_moves() {
        use sumito_engine::general::{
            GeneralLayout, GeneralPosition, GeneralRules, GeneralSetup, Seating,
        };
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let position = GeneralSetup::layout(GeneralLayout::from_name("three-player").unwrap())
            .start(&rules)
            .unwrap();
        let mut search: NetworkSearch<GeneralPosition> = NetworkSearch::new(
            "uniform",
            Box::new(UniformEvaluator),
            SearchBudget::Simulations(64),
            3,
        );
        let analysis = search.analyse(&position, None).unwrap();
        assert_eq!(analysis.side_values.len(), 3);
        let report = format_position(&position, &analysis, 5);
        assert!(report.contains("Black to move: value "), "{report}");
        assert!(report.contains("64 simulations"), "{report}");
        assert!(
            report.contains("values by side (+1 a win, -1 a loss): black "),
            "{report}"
        );
        for side in ["white", "red"] {
            assert!(report.contains(&format!(", {side} ")), "{side}: {report}");
        }
        let rows = report
            .lines()
            .skip_while(|line| !line.trim_start().starts_with("move"))
            .skip(1)
            .take_while(|line| !line.contains("more legal moves"))
            .count();
        assert_eq!(rows, 5, "{report}");
        // The move the search plays is listed first and is the line's first move,
        // each move of the line legal where it is played.
        let best = analysis.best.to_text();
        let first_row = report
            .lines()
            .skip_while(|line| !line.trim_start().starts_with("move"))
            .nth(1)
            .unwrap();
        assert!(first_row.trim_start().starts_with(&best), "{report}");
        assert!(
            report.contains(&format!("principal variation: {best}")),
            "{report}"
        );
        let mut current = position;
        for mv in &analysis.principal_variation {
            assert!(current.is_legal(*mv), "{report}");
            current = current.play(*mv);
        }
        // Partners share a side: four players in two teams.
        let rules = GeneralRules::plain(Seating::new(4, true).unwrap());
        let four = GeneralSetup::layout(GeneralLayout::from_name("four-player").unwrap())
            .start(&rules)
            .unwrap();
        let analysis = search.analyse(&four, None).unwrap();
        let report = format_position(&four, &analysis, 3);
        assert!(report.contains("Black to move: value "), "{report}");
        assert!(report.contains(" for black+red (win "), "{report}");
    }

    #[test]
    fn a_win_in_one_is_reported_proven() {
        // Black's E7-E8 pushes White's E9 off, the sixth marble.
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5").unwrap();
        let analysis = uniform().analyse(&position, None).unwrap();
        assert_eq!(analysis.best, position.parse_move("E7E8").unwrap());
        assert_eq!(analysis.solved, Some(1.0));
        let text = format_position(&position, &analysis, 3);
        assert!(
            text.contains("proven: a win for Black with best play"),
            "{text}"
        );
    }

    #[test]
    fn a_game_report_has_one_line_per_position_and_the_result() {
        // Black's E7-E8 pushes White's E9 off, the sixth marble.
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5").unwrap();
        let push_off = position.parse_move("E7E8").unwrap();
        let record = GameRecord {
            start: Start::Position(position),
            rules: Rules::default(),
            players: vec!["b".into(), "w".into()],
            opening_plies: 0,
            moves: vec![push_off],
            variations: Vec::new(),
            result: Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::MarblesOff,
            }),
            forfeit: None,
        };
        let reports = analyse_game(
            &mut uniform(),
            &record.positions().unwrap(),
            &record.moves,
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(reports.len(), 2);
        assert_eq!(reports[0].played, None);
        assert!(reports[0].best.is_some());
        assert_eq!(reports[1].played, Some((0, push_off)));
        assert_eq!(reports[1].played_side, Some(0));
        assert!(reports[1].over.as_ref().unwrap().starts_with("Black wins"));
        assert_eq!(reports[1].first, Wdl::from_value(1.0));
        assert_eq!(reports[1].side_values, [1.0, -1.0]);
        let text = format_game(&position, &reports, Duration::from_millis(1500));
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.contains("start"), "{text}");
        assert!(text.contains("Black E7E8"), "{text}");
        assert!(text.contains("+1.000"), "{text}");
        assert!(text.contains("game over: Black wins"), "{text}");
        assert!(text.contains("2 positions in 1.5 s"), "{text}");
    }

    #[test]
    fn a_record_of_the_general_game_is_taken_under_a_models_other_limits() {
        use sumito_engine::general::{GeneralLayout, GeneralPosition};
        use sumito_engine::rules_table::RulesTable;
        let table = |text: &str| RulesTable::from_toml(text).unwrap();
        let own = table("[rules]\nlayouts = [\"three-player\"]\nmax_plies = 300\n");
        let layout = GeneralLayout::from_name("three-player").unwrap();
        let mut record =
            GameRecord::<GeneralPosition>::unplayed(Start::Layout(layout), own.clone());
        let mut position = record.start_position().unwrap();
        for _ in 0..6 {
            let mv = position.legal_moves()[0];
            record.moves.push(mv);
            position = position.play(mv);
        }
        assert_eq!(record_under_rules(&record, &own).unwrap().1, None);
        let model = table("[rules]\nlayouts = [\"three-player\"]\nmax_plies = 100\n");
        let (taken, note) = record_under_rules(&record, &model).unwrap();
        assert_eq!(taken.rules, model);
        assert_eq!(taken.positions().unwrap()[6].rules().max_plies, Some(100));
        let note = note.unwrap();
        assert!(
            note.contains("max_plies = 300") && note.contains("max_plies = 100"),
            "{note}"
        );
        // Under a limit the record passes, it is refused.
        let short = table("[rules]\nlayouts = [\"three-player\"]\nmax_plies = 4\n");
        let err = record_under_rules::<GeneralPosition>(&record, &short).unwrap_err();
        assert!(err.contains("ends after move 4"), "{err}");
    }

    #[test]
    fn a_game_of_the_general_game_is_analysed_and_reviewed_side_by_side() {
        use sumito_engine::general::{
            GeneralLayout, GeneralPosition, GeneralRules, GeneralSetup, Seating,
        };
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        let start = GeneralSetup::layout(GeneralLayout::from_name("three-player").unwrap())
            .start(&rules)
            .unwrap();
        let mut positions = vec![start];
        let mut moves = Vec::new();
        for _ in 0..4 {
            let last = *positions.last().unwrap();
            let mv = last.legal_moves()[1];
            moves.push(mv);
            positions.push(last.play(mv));
        }
        let mut search: NetworkSearch<GeneralPosition> = NetworkSearch::new(
            "uniform",
            Box::new(UniformEvaluator),
            SearchBudget::Simulations(16),
            3,
        );
        let reports = analyse_game(&mut search, &positions, &moves, &mut |_, _| {}).unwrap();
        assert_eq!(reports.len(), 5);
        assert!(reports.iter().all(|report| report.side_values.len() == 3));
        // The fourth move is Black's again: seats 0, 1, 2, 0.
        let seats: Vec<usize> = reports[1..]
            .iter()
            .map(|report| report.played.unwrap().0)
            .collect();
        assert_eq!(seats, [0, 1, 2, 0]);
        let review = crate::review::review(&start, &reports);
        let names: Vec<&str> = review.sides.iter().map(|side| side.name.as_str()).collect();
        assert_eq!(names, ["Black", "White", "Red"]);
        assert_eq!(review.moves.len(), 4);
        assert_eq!(review.sides[0].moves, 2);
        assert_eq!(review.moves[2].mover, "Red");
        assert_eq!(review.first_score.len(), 5);
        let table = crate::review::format_review(&review);
        assert!(table.contains("Red: 1 moves, accuracy"), "{table}");
        // The game's table: each side's value at every position.
        let text = format_game(&start, &reports, Duration::from_millis(10));
        assert_eq!(text.lines().count(), 7, "{text}");
        assert!(text.contains("   Black    White      Red"), "{text}");
        assert!(text.contains("Red "), "{text}");
    }
}
