//! Learning from the mistakes in the page, as `sumito review --learn` does
//! in the terminal: the game's last review is kept with the positions it
//! judged, and a move the person tries in place of a reviewed one is judged
//! against the review's best move with the terminal's own verdict
//! (`sumito_play::review::attempt`). The model's own move keeps the
//! review's score for it, a move that ends the game its exact result;
//! any other is searched by the model after it is played (one bounded
//! search, run by the server like an analysis, `crate::searches`).

use sumito_engine::general::GeneralPosition;
use sumito_game::Board;
use sumito_play::review::{GAME_MOVE_TRIED, MoveReview, Review, ReviewMeta, attempt};

use super::{GameSession, Reviewed};
use crate::model::ReviewTarget;
use crate::protocol::ServerMessage;

/// A move tried in place of a reviewed one, to be searched: the position
/// after it, for the side that tried it.
#[derive(Clone, Debug)]
pub struct AttemptSearch {
    pub ply: usize,
    /// The move tried, as the page writes moves.
    pub tried: String,
    /// The reviewed move it replaces.
    pub judged: MoveReview,
    pub after: GeneralPosition,
    /// The side that tried it (whose expected score the search gives).
    pub side: usize,
    /// Simulations of the search: the review's a position.
    pub simulations: u32,
}

impl AttemptSearch {
    /// The verdict on the move, given its expected score (percent) for
    /// the side that tried it.
    pub fn verdict(&self, score: f32) -> ServerMessage {
        tried(self.ply, &self.tried, Some(score), &self.judged)
    }
}

/// How a move tried in place of a reviewed one is judged.
#[derive(Clone, Debug)]
pub enum Attempting {
    /// At once: the game's own move, the model's move (the review's search
    /// scored it), or a move that ends the game.
    Answered(ServerMessage),
    /// By a search of the position after it.
    Search(AttemptSearch),
}

/// The verdict message on `text` tried at `ply` in place of `judged`,
/// keeping `score` (none: the game's own move, not judged again).
fn tried(ply: usize, text: &str, score: Option<f32>, judged: &MoveReview) -> ServerMessage {
    let (solved, says) = match score {
        Some(score) => {
            let verdict = attempt(judged, text, score);
            (verdict.solved, verdict.says)
        }
        None => (false, GAME_MOVE_TRIED.to_string()),
    };
    ServerMessage::Tried {
        ply,
        tried: text.to_string(),
        score,
        solved,
        says,
    }
}

impl GameSession {
    /// Keeps `review`, the model's review of `target`, for the exercises
    /// (the page's learn mode).
    pub fn keep_review(&mut self, target: ReviewTarget, review: Review) {
        self.reviewed = Some(Reviewed {
            positions: target.positions,
            moves: target.moves,
            simulations: target.simulations,
            review,
        });
    }

    /// What a review of this game is of: the model and its simulations, who
    /// played, the result, the layout (the JSON's `meta`).
    pub fn review_meta(&self, simulations: u32) -> ReviewMeta {
        ReviewMeta {
            record: None,
            model: self.model().model_name(),
            simulations: Some(simulations),
            players: self.record.players.clone(),
            result: self.result_words(),
            layout: Some(self.layout().name()),
            date: None,
        }
    }

    /// How `text`, tried in place of move `ply` of the last review, is
    /// judged; why not, where there is no review of this game, the move is
    /// no reviewed move of a person's choosing (a random opening's), or the
    /// text is no legal move there.
    pub fn attempt(&self, ply: usize, text: &str) -> Result<Attempting, String> {
        let reviewed = self
            .reviewed
            .as_ref()
            .ok_or("there is no review of this game: review it first")?;
        if !self.moves.starts_with(&reviewed.moves) {
            return Err("the game changed since its review: review it again".into());
        }
        let judged = ply
            .checked_sub(1)
            .and_then(|index| reviewed.review.moves.get(index))
            .ok_or_else(|| {
                format!(
                    "move {ply}: the review judged moves 1 to {}",
                    reviewed.review.moves.len()
                )
            })?;
        if judged.random_opening {
            return Err(format!(
                "move {ply} was of the random opening: no one chose it"
            ));
        }
        let before = reviewed.positions[ply - 1];
        let mv = before
            .parse_move(text.trim())
            .map_err(|err| format!("move {ply}: {err}"))?;
        let text = mv.to_text();
        if text == judged.played {
            return Ok(Attempting::Answered(tried(ply, &text, None, judged)));
        }
        let side = Board::mover_side(&before);
        if judged
            .better
            .as_ref()
            .is_some_and(|(best, _)| *best == text)
        {
            return Ok(Attempting::Answered(tried(
                ply,
                &text,
                Some(judged.before),
                judged,
            )));
        }
        let after = before.play(mv);
        if let Some(result) = Board::result_for(&after, side) {
            let score = 50.0 * (1.0 + result);
            return Ok(Attempting::Answered(tried(ply, &text, Some(score), judged)));
        }
        Ok(Attempting::Search(AttemptSearch {
            ply,
            tried: text,
            judged: judged.clone(),
            after,
            side,
            simulations: reviewed.simulations,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use sumito_play::review::{Judgement, ReviewMeta, SideSummary};

    use super::*;
    use crate::menu::PagePolicy;
    use crate::model::Models;
    use crate::protocol::{ClientMessage, SeatRequest};

    /// A game of two people: A1B2, then White's first legal move.
    fn played() -> GameSession {
        let mut game = GameSession::new(
            Arc::new(Models::none()),
            Arc::new(PagePolicy::new(1024, None)),
            Arc::new(AtomicBool::new(false)),
            1,
        )
        .unwrap();
        let people = vec![SeatRequest::Human { name: None }; 2];
        game.new_game("standard", None, &people, None).unwrap();
        for text in ["A1B2".to_string(), {
            let after = game.positions[0].play(game.positions[0].parse_move("A1B2").unwrap());
            after.legal_moves()[0].to_text()
        }] {
            game.handle(ClientMessage::Move { text }).unwrap();
        }
        game
    }

    /// A review of `game` whose first move, A1B2, was a blunder (60 % with
    /// `best`, 40 % with it) and whose second is unjudged.
    fn blunder_review(game: &GameSession, best: &str) -> Review {
        let judged = |ply: usize, played: String, loss: f32| MoveReview {
            ply,
            mover: if ply == 1 { "Black" } else { "White" }.into(),
            side: ply - 1,
            played,
            before: 60.0,
            after: 60.0 - loss,
            loss,
            judgement: Judgement::of_loss(loss),
            better: (loss > 0.0).then(|| (best.to_string(), vec![best.to_string(), "I5H5".into()])),
            random_opening: false,
            push_offs: 0,
            reason: None,
        };
        Review {
            moves: vec![
                judged(1, game.moves[0].to_text(), 20.0),
                judged(2, game.moves[1].to_text(), 0.0),
            ],
            first_score: vec![50.0, 40.0, 40.0],
            side_scores: vec![vec![50.0, 50.0], vec![40.0, 60.0], vec![40.0, 60.0]],
            sides: vec![SideSummary::default(), SideSummary::default()],
            opening_plies: 0,
            middlegame_from: None,
            endgame_from: None,
            meta: ReviewMeta::default(),
        }
    }

    fn target(game: &GameSession) -> ReviewTarget {
        ReviewTarget {
            positions: game.positions.clone(),
            moves: game.moves.clone(),
            opening_plies: 0,
            simulations: 77,
            position_limit: Duration::from_secs(1),
        }
    }

    fn verdict(answer: Result<Attempting, String>) -> (Option<f32>, bool, String) {
        match answer {
            Ok(Attempting::Answered(ServerMessage::Tried {
                score,
                solved,
                says,
                ..
            })) => (score, solved, says),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_move_tried_in_place_of_a_reviewed_one_is_judged_against_the_review() {
        let mut game = played();
        assert!(
            game.attempt(1, "A1B2")
                .unwrap_err()
                .contains("no review of this game")
        );
        let start = game.positions[0];
        let texts: Vec<String> = start.legal_moves().iter().map(|mv| mv.to_text()).collect();
        let best = texts.iter().find(|text| *text != "A1B2").unwrap().clone();
        let other = texts
            .iter()
            .rfind(|text| **text != best && *text != "A1B2")
            .unwrap()
            .clone();
        let review = blunder_review(&game, &best);
        game.keep_review(target(&game), review);
        // The game's own move is not judged again.
        let (score, solved, says) = verdict(game.attempt(1, "A1B2"));
        assert_eq!(
            (score, solved, says.as_str()),
            (None, false, GAME_MOVE_TRIED)
        );
        // The model's move keeps the review's score for it.
        let (score, solved, says) = verdict(game.attempt(1, &best));
        assert_eq!(score, Some(60.0));
        assert!(solved && says.contains("the model's move too"), "{says}");
        // Any other move is searched after it is played, for its mover.
        let Ok(Attempting::Search(search)) = game.attempt(1, &other) else {
            panic!("a search")
        };
        assert_eq!((search.ply, search.side, search.simulations), (1, 0, 77));
        assert_eq!(search.tried, other);
        assert_eq!(search.after, start.play(start.parse_move(&other).unwrap()));
        let ServerMessage::Tried { solved, says, .. } = search.verdict(57.0) else {
            panic!()
        };
        assert!(solved, "{says}");
        let ServerMessage::Tried { solved, says, .. } = search.verdict(30.0) else {
            panic!()
        };
        assert!(!solved && says.contains("30.0 points short"), "{says}");
        // Bad requests name what is wrong.
        let err = game.attempt(1, "Z9").unwrap_err();
        assert!(err.starts_with("move 1: "), "{err}");
        let err = game.attempt(3, &best).unwrap_err();
        assert!(err.contains("the review judged moves 1 to 2"), "{err}");
        let err = game.attempt(0, &best).unwrap_err();
        assert!(err.contains("the review judged moves 1 to 2"), "{err}");
        // A random opening's move is no one's to learn from.
        let mut opening = blunder_review(&game, &best);
        opening.moves[0].random_opening = true;
        game.keep_review(target(&game), opening);
        assert!(
            game.attempt(1, &best)
                .unwrap_err()
                .contains("random opening")
        );
        // The game changed since its review; a new game has none.
        game.keep_review(target(&game), blunder_review(&game, &best));
        game.handle(ClientMessage::Undo {}).unwrap();
        let err = game.attempt(1, &best).unwrap_err();
        assert!(err.contains("changed since its review"), "{err}");
        let people = vec![SeatRequest::Human { name: None }; 2];
        game.new_game("standard", None, &people, None).unwrap();
        assert!(game.attempt(1, &best).unwrap_err().contains("no review"));
    }

    #[test]
    fn a_judged_moves_line_is_drawn_from_the_position_before_it() {
        let game = played();
        let start = game.positions[0];
        let best = start.legal_moves()[1].to_text();
        let review = blunder_review(&game, &best);
        let lines = GameSession::review_lines(&target(&game), &review);
        // The judged move only.
        assert_eq!(lines.len(), 1);
        let line = &lines[0];
        assert_eq!(line.ply, 1);
        assert_eq!(line.played.text, "A1B2");
        assert_eq!(line.played.from, ["A1", "B2", "C3"]);
        assert_eq!(line.played.to, ["B2", "C3", "D4"]);
        // The better move, then White's reply read after it.
        assert_eq!(line.better.len(), 2);
        assert_eq!(line.better[0].text, best);
        assert_eq!(line.better[1].text, "I5H5");
        assert_eq!(line.legal.len(), start.legal_moves().len());
        // The review's meta names who played and the layout.
        let meta = game.review_meta(77);
        assert_eq!(meta.players, ["you", "you"]);
        assert_eq!(meta.layout.as_deref(), Some("standard"));
        assert_eq!(meta.simulations, Some(77));
    }
}
