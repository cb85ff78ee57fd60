//! Game review, as lichess and KaTrain do it, and beyond: from a model's
//! analysis of every position of a game ([`crate::analysis::analyse_game`]),
//! each move's expected score for its player before and after it, the
//! loss, a judgement by fixed thresholds, the better move with its line, a
//! reason in plain words from the exact material count, the key moments,
//! and a summary per side (accuracy, judgements by phase of the game).
//! Written as a terminal table ([`format_review`]), JSON ([`review_json`]),
//! an SVG graph ([`render_review_svg`]) and a self-contained HTML report
//! ([`render_review_html`]); and replayed as exercises ([`learn`]).
//!
//! **Expected score** is `win + draw / 2` for the player to move, in
//! percent. **Points lost** by a move: the expected score of the search's
//! best move minus that of the move played, both from the one search of
//! the position before it (so that a network's bias towards the side to
//! move, which makes successive positions' values see-saw, does not count);
//! a move that search did not visit is taken at the value of the position
//! it led to. **Judgements**: a move that loses at least
//! [`INACCURACY`] points of expected score is an inaccuracy, at least
//! [`MISTAKE`] a mistake, at least [`BLUNDER`] a blunder (lichess's
//! thresholds on its winning-chances scale). **Accuracy** of a side is the
//! mean over its moves of lichess's per-move formula,
//! `103.1668 · e^(−0.04354 · loss) − 3.1669`, clamped to 0–100 (100 for a
//! move that loses nothing). The moves of a record's **random opening**
//! (`opening_plies`, which matches play to vary their games) are shown but
//! not judged. **Phases**: the opening lasts until the first push-off (at
//! most [`OPENING_PLIES`] moves); the endgame begins with the move after a
//! side has pushed off [`ENDGAME_MARBLES`] marbles, or at move
//! [`ENDGAME_PLY`]; the middlegame lies between. **Key moments**: the
//! [`KEY_MOMENTS`] judged moves that lost most.
//!
//! A file a part: `judging` (the review itself), `reasons` (the material
//! count's words), `table`, `json`, `report_svg` (the graph and the SVG
//! report), `line_picture` and `report_html` (the HTML report), `learn`.

mod json;
mod judging;
mod learn;
mod line_picture;
mod reasons;
mod report_html;
mod report_svg;
mod table;

pub use json::review_json;
pub use judging::{
    BLUNDER, ENDGAME_MARBLES, ENDGAME_PLY, INACCURACY, Judgement, KEY_MOMENTS, MISTAKE, MoveReview,
    OPENING_PLIES, Phase, Review, ReviewMeta, SideSummary, move_accuracy, review, review_game,
};
pub use learn::{
    Attempt, GAME_MOVE_TRIED, LearnOutcome, LearnView, MoveJudge, attempt, exercises, learn,
    solution,
};
pub use reasons::reason;
pub use report_html::render_review_html;
pub use report_svg::render_review_svg;
pub use table::format_review;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::PlyReport;
    use crate::board_text::BoardStyle;
    use sumito_engine::{Layout, Position, Rules};
    use sumito_mcts::Wdl;

    fn start() -> Position {
        Position::start(Layout::Standard, Rules::default())
    }

    /// Reports of a game whose Black scores (percent) are `scores`, the
    /// start first: every move played is the second legal one, the
    /// search's best the first.
    fn reports(scores: &[f32]) -> Vec<PlyReport> {
        let mut position = Position::start(Layout::Standard, Rules::default());
        let mut played = None;
        let mut reports = Vec::new();
        for (ply, &score) in scores.iter().enumerate() {
            let best = position.legal_moves()[0];
            let black = 2.0 * score / 100.0 - 1.0;
            reports.push(PlyReport {
                ply,
                played,
                played_side: played.map(|(seat, _)| seat),
                over: None,
                first: Wdl {
                    win: score / 100.0,
                    draw: 0.0,
                    loss: 1.0 - score / 100.0,
                },
                side_values: vec![black, -black],
                best: Some(best),
                line: vec![best],
                move_values: Vec::new(),
            });
            let mv = position.legal_moves()[1];
            played = Some((position.side_to_move().index(), mv));
            position = position.play(mv);
        }
        reports
    }

    #[test]
    fn losses_are_judged_by_the_thresholds_from_the_movers_view() {
        // Black 50 -> 44 (loses 6: inaccuracy), White 56 -> 70 for White
        // (gains), Black 30 -> 18 (loses 12: mistake), White 82 -> 60
        // (loses 22: blunder).
        let review = review(&start(), &reports(&[50.0, 44.0, 30.0, 18.0, 40.0]));
        let judged: Vec<Option<Judgement>> = review.moves.iter().map(|m| m.judgement).collect();
        assert_eq!(
            judged,
            [
                Some(Judgement::Inaccuracy),
                None,
                Some(Judgement::Mistake),
                Some(Judgement::Blunder)
            ]
        );
        assert!((review.moves[3].loss - 22.0).abs() < 1e-3);
        assert_eq!(review.moves[1].loss, 0.0);
        let [black, white] = &review.sides[..] else {
            panic!("two sides")
        };
        assert_eq!((black.moves, white.moves), (2, 2));
        assert_eq!(black.count(Judgement::Mistake), 1);
        assert_eq!(white.judgements[0][Judgement::Blunder as usize], 1);
        assert!((black.mean_loss - 9.0).abs() < 1e-3 && (white.mean_loss - 11.0).abs() < 1e-3);
        assert!((black.accuracy - 67.1).abs() < 0.2, "{black:?}");
        // The better move is the search's, with its line.
        assert!(review.moves[0].better.is_some());
        let table = format_review(&review);
        assert!(table.contains("?! inaccuracy"), "{table}");
        assert!(table.contains("?? blunder"), "{table}");
        assert!(table.contains("Black: 2 moves, accuracy"), "{table}");
        let svg = render_review_svg(&review, "a <game>");
        assert!(svg.contains("a &lt;game&gt;") && svg.contains("class=\"blunder\""));
        assert_eq!(svg.matches("<circle class=").count(), 3);
        // Below the graph: both sides' summaries and the three judged moves.
        assert_eq!(svg.matches("class=\"report\"").count(), 5, "{svg}");
        assert!(
            svg.contains("4. White") && svg.contains("?? blunder: 22.0 points lost, better "),
            "{svg}"
        );
    }

    #[test]
    fn the_loss_compares_the_moves_of_one_search_when_it_saw_both() {
        // The position values see-saw (a network's side-to-move bias), but
        // the search before Black's move rated it 0.4 and its best 0.5:
        // 5 points lost, whatever the next position's value says.
        let mut game = reports(&[60.0, 20.0]);
        let best = game[0].best.unwrap();
        let (_, played) = game[1].played.unwrap();
        game[0].move_values = vec![(best, 0.0), (played, -0.1)];
        let review = review(&start(), &game);
        let mv = &review.moves[0];
        assert!(
            (mv.loss - 5.0).abs() < 1e-3 && (mv.after - 45.0).abs() < 1e-3,
            "{mv:?}"
        );
        assert_eq!(mv.judgement, Some(Judgement::Inaccuracy));
    }

    #[test]
    fn accuracy_follows_lichess_and_phases_split_the_game() {
        assert_eq!(move_accuracy(0.0), 100.0);
        assert!(
            (move_accuracy(10.0) - 63.6).abs() < 0.1,
            "{}",
            move_accuracy(10.0)
        );
        assert_eq!(move_accuracy(200.0), 0.0);
        // A game without moves: nothing judged, full accuracy.
        let review = review(&start(), &reports(&[50.0]));
        assert!(review.moves.is_empty());
        assert_eq!(review.sides[0].accuracy, 100.0);
        assert_eq!((review.middlegame_from, review.endgame_from), (None, None));
        // Forty quiet moves: the opening ends after thirty.
        let review = super::review(&start(), &reports(&[50.0; 41]));
        assert!(review.moves.iter().all(|mv| mv.push_offs == 0));
        assert_eq!(review.middlegame_from, Some(OPENING_PLIES + 1));
        assert_eq!(review.phase_of(OPENING_PLIES), Phase::Opening);
        assert_eq!(review.phase_of(OPENING_PLIES + 1), Phase::Middlegame);
        assert_eq!(review.endgame_from, None);
    }

    #[test]
    fn the_random_opening_is_shown_but_not_judged() {
        // Black's first move loses 20 points, but it was the random opening's.
        let scores = [50.0, 30.0, 30.0, 18.0, 18.0];
        let review = review_game(&start(), &reports(&scores), 2);
        assert_eq!(review.opening_plies, 2);
        let first = &review.moves[0];
        assert!(first.random_opening && first.judgement.is_none() && first.loss == 0.0);
        // Black's third move (12 points lost) is judged: one move of Black's.
        assert_eq!(review.moves[2].judgement, Some(Judgement::Mistake));
        assert_eq!(review.sides[0].moves, 1);
        assert_eq!(review.sides[1].moves, 1);
        let table = format_review(&review);
        assert!(
            table.contains("random opening: moves 1-2, shown but not judged"),
            "{table}"
        );
        assert!(table.contains(" random "), "{table}");
        let json = review_json(&review);
        assert_eq!(json["meta"]["opening_plies"], 2);
        assert_eq!(json["moves"][0]["random_opening"], true);
        assert_eq!(json["moves"][0]["judgement"], serde_json::Value::Null);
        let svg = render_review_svg(&review, "random");
        assert!(svg.contains(r#"<rect class="band""#), "{svg}");
    }

    #[test]
    fn key_moments_are_the_largest_losses_in_the_order_of_the_game() {
        let scores = [
            50.0, 30.0, 60.0, 40.0, 45.0, 45.0, 44.0, 20.0, 70.0, 62.0, 55.0, 49.0, 49.0,
        ];
        let review = review(&start(), &reports(&scores));
        let key = review.key_moments();
        assert!(key.len() <= KEY_MOMENTS && !key.is_empty());
        assert!(key.windows(2).all(|pair| pair[0] < pair[1]));
        let smallest_key = key
            .iter()
            .map(|&i| review.moves[i].loss)
            .fold(f32::MAX, f32::min);
        for (index, mv) in review.moves.iter().enumerate() {
            if mv.judgement.is_some() && !key.contains(&index) {
                assert!(mv.loss <= smallest_key, "{mv:?}");
            }
        }
        let table = format_review(&review);
        assert!(
            table.contains("key moments (the largest losses):"),
            "{table}"
        );
    }

    #[test]
    fn the_json_and_the_reports_carry_what_was_reviewed() {
        let mut review = review(&start(), &reports(&[50.0, 44.0, 30.0, 18.0, 40.0]));
        review.meta = ReviewMeta {
            record: Some("game.txt".into()),
            model: Some("quick".into()),
            simulations: Some(400),
            players: vec!["human".into(), "greedy".into()],
            result: Some("White wins".into()),
            layout: Some("standard".into()),
            date: Some("2026-01-02T03:04:05Z".into()),
        };
        let json = review_json(&review);
        assert_eq!(json["meta"]["model"], "quick");
        assert_eq!(json["meta"]["simulations"], 400);
        assert_eq!(json["meta"]["players"][1], "greedy");
        assert_eq!(json["meta"]["result"], "White wins");
        assert_eq!(json["meta"]["layout"], "standard");
        assert_eq!(json["meta"]["date"], "2026-01-02T03:04:05Z");
        assert_eq!(json["key_moments"].as_array().unwrap().len(), 3);
        let table = format_review(&review);
        assert!(
            table.starts_with("players: Black human, White greedy\nresult: White wins\n"),
            "{table}"
        );
        assert!(
            table.contains("judged by: quick, 400 simulations a position"),
            "{table}"
        );
        let svg = render_review_svg(&review, "r");
        assert!(
            svg.contains(r#"class="players""#)
                && svg.contains("Black human, White greedy · White wins"),
            "{svg}"
        );
        // The HTML report: one page, nothing fetched, every judged move
        // with its picture and the better line's arrows.
        let positions = positions(5);
        let html = render_review_html(&review, &positions, "Review of <game.txt>");
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
        assert!(html.contains("Review of &lt;game.txt&gt;"));
        for forbidden in ["http://", "https://", "src=", "@import", "url(http"] {
            let outside = html.replace("http://www.w3.org/2000/svg", "");
            assert!(!outside.contains(forbidden), "{forbidden}");
        }
        assert_eq!(html.matches("class=\"board-picture\"").count(), 3);
        assert_eq!(html.matches("class=\"line-arrow played\"").count(), 3);
        assert!(html.matches("class=\"line-arrow better\"").count() >= 3);
        assert_eq!(html.matches("<article class=\"move\"").count(), 5);
        assert_eq!(html.matches("class=\"point\" data-ply=").count(), 5);
        assert!(html.contains("id=\"next-mistake\"") && html.contains("id=\"previous-mistake\""));
        assert!(html.contains("<h2>Key moments</h2>"));
    }

    /// The positions of the game of [`reports`] with `count` positions.
    fn positions(count: usize) -> Vec<Position> {
        let mut positions = vec![start()];
        while positions.len() < count {
            let last = *positions.last().unwrap();
            positions.push(last.play(last.legal_moves()[1]));
        }
        positions
    }

    /// Judges every move at 50 % but the first legal one, at the best's.
    struct FirstIsBest(f32);

    impl MoveJudge<Position> for FirstIsBest {
        fn score_after(
            &mut self,
            position: &Position,
            mv: sumito_engine::Move,
        ) -> Result<f32, String> {
            Ok(if mv == position.legal_moves()[0] {
                self.0
            } else {
                10.0
            })
        }
    }

    #[test]
    fn learning_sets_each_mistake_again_and_judges_the_answers() {
        // Black's mistake at move 3 (12 points) and White's blunder at move 4.
        let review = review(&start(), &reports(&[50.0, 44.0, 30.0, 18.0, 40.0]));
        assert_eq!(exercises(&review, &[0]), [2]);
        assert_eq!(exercises(&review, &[0, 1]), [2, 3]);
        let positions = positions(5);
        let best = <Position as sumito_game::Board>::move_text(positions[2].legal_moves()[0]);
        let played = review.moves[2].played.clone();
        let input = format!(
            "nonsense\n{played}\n{}\n{best}\nsolution\n",
            <Position as sumito_game::Board>::move_text(positions[2].legal_moves()[2])
        );
        let mut out = Vec::new();
        let view = LearnView {
            style: BoardStyle::Ascii,
            labels: &["you".into(), "greedy".into()],
            flipped: false,
        };
        let outcome = learn(
            &review,
            &positions,
            &[0, 1],
            &mut FirstIsBest(review.moves[2].before),
            &view,
            input.as_bytes(),
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            outcome,
            LearnOutcome {
                set: 2,
                solved: 1,
                shown: 1,
                skipped: 0
            },
            "{text}"
        );
        assert!(text.contains("1 of 2: move 3, Black to play."), "{text}");
        assert!(text.contains("That is the move of the game"), "{text}");
        assert!(
            text.contains("points short of the best move. Try again."),
            "{text}"
        );
        assert!(text.contains(&format!("Good: {best} keeps")), "{text}");
        assert!(text.contains("2 of 2: move 4, White to play."), "{text}");
        assert!(text.contains("The model's move: "), "{text}");
        assert!(
            text.contains("Solved 1 of 2 (1 solution shown, 0 skipped)."),
            "{text}"
        );
        // The board before each exercise, its last move bracketed.
        assert!(text.contains(")"), "{text}");
    }

    #[test]
    fn a_move_tried_solves_within_an_inaccuracy_of_the_best() {
        let review = review(&start(), &reports(&[50.0, 44.0, 30.0, 18.0, 40.0]));
        let mistake = &review.moves[2];
        let near = attempt(mistake, "A1B2", mistake.before - INACCURACY + 0.5);
        assert!(near.solved, "{near:?}");
        assert!(near.says.starts_with("Good: A1B2 keeps "), "{near:?}");
        let short = attempt(mistake, "A1B2", mistake.before - INACCURACY);
        assert!(!short.solved, "{short:?}");
        assert!(
            short.says.contains("5.0 points short of the best move"),
            "{short:?}"
        );
        let better = &mistake.better.as_ref().unwrap().0;
        let same = attempt(mistake, better, mistake.before);
        assert!(same.says.contains("the model's move too"), "{same:?}");
        assert!(solution(mistake).starts_with("The model's move: "));
    }

    #[test]
    fn every_sides_expected_score_is_kept_at_every_position() {
        let review = review(&start(), &reports(&[50.0, 44.0, 30.0, 18.0, 40.0]));
        assert_eq!(review.side_scores.len(), 5);
        for (scores, first) in review.side_scores.iter().zip(&review.first_score) {
            assert_eq!(scores[0], *first);
            assert!((scores[0] + scores[1] - 100.0).abs() < 1e-3, "{scores:?}");
        }
        let json = review_json(&review);
        assert_eq!(json["sides"], serde_json::json!(["black", "white"]));
        assert_eq!(json["expected_scores"].as_array().unwrap().len(), 5);
        assert_eq!(
            json["expected_scores"][1][0],
            json["black_expected_score"][1]
        );
    }
}
