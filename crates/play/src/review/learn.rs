//! Learn from your mistakes, as lichess offers it: each mistake and blunder
//! of the learner's sides is set again, the board as it stood before it,
//! and the learner types a move; the model judges it by the expected
//! score it keeps. A move within [`INACCURACY`] points of the best solves
//! the exercise; another says how far short it falls, and the learner tries
//! again, asks for the `solution`, `skip`s, or `quit`s.

use std::io::{self, BufRead, Write};

use sumito_game::Board;

use super::judging::{INACCURACY, Judgement, MoveReview, Review};
use super::table::better_text;
use crate::board_text::BoardStyle;
use crate::drawing::{DrawBoard, SeatNotes};
use crate::session::{NOT_UTF8, read_line};

/// What judges a move the learner tries.
pub trait MoveJudge<B: Board> {
    /// The expected score (percent, `win + draw / 2`) that the side to
    /// move in `position` keeps with `mv`, a legal move there.
    fn score_after(&mut self, position: &B, mv: B::Move) -> Result<f32, String>;
}

/// How the exercises went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LearnOutcome {
    /// Exercises set (of those the learner reached).
    pub set: usize,
    /// Solved: a move found within [`INACCURACY`] points of the best.
    pub solved: usize,
    /// The solution asked for.
    pub shown: usize,
    pub skipped: usize,
}

/// The exercises of `review` for `sides`: the indices (into its moves) of
/// their mistakes and blunders, in the order of the game.
pub fn exercises(review: &Review, sides: &[usize]) -> Vec<usize> {
    review
        .moves
        .iter()
        .enumerate()
        .filter(|(_, mv)| {
            sides.contains(&mv.side) && mv.judgement.is_some_and(|j| j >= Judgement::Mistake)
        })
        .map(|(index, _)| index)
        .collect()
}

/// How a learner's session is shown.
#[derive(Clone, Copy, Debug)]
pub struct LearnView<'a> {
    pub style: BoardStyle,
    /// Who played each seat, beside the board.
    pub labels: &'a [String],
    /// Whether the board is turned half round (for a learner at White).
    pub flipped: bool,
}

/// Runs the exercises of `review` for `sides` on the game's `positions`
/// (the start first), reading the learner's lines from `input`.
pub fn learn<B: DrawBoard, R: BufRead, W: Write>(
    review: &Review,
    positions: &[B],
    sides: &[usize],
    judge: &mut dyn MoveJudge<B>,
    view: &LearnView<'_>,
    mut input: R,
    out: &mut W,
) -> io::Result<LearnOutcome> {
    let set = exercises(review, sides);
    let mut outcome = LearnOutcome::default();
    if set.is_empty() {
        writeln!(out, "No mistakes or blunders to learn from: well played.")?;
        return Ok(outcome);
    }
    writeln!(
        out,
        "Learn from your mistakes: {} position{} to solve. Type a better move, `solution` to see it, `skip`, or `quit`.",
        set.len(),
        if set.len() == 1 { "" } else { "s" }
    )?;
    'exercises: for (number, &index) in set.iter().enumerate() {
        let mv = &review.moves[index];
        let Some(&before) = positions.get(mv.ply - 1) else {
            break;
        };
        outcome.set += 1;
        // The move that led here, marked on the board.
        let last_move = mv.ply.checked_sub(2).and_then(|earlier_ply| {
            let earlier = *positions.get(earlier_ply)?;
            let previous = review.moves.iter().find(|m| m.ply + 1 == mv.ply)?;
            Some((earlier, earlier.parse_move(&previous.played).ok()?))
        });
        let notes = SeatNotes {
            labels: view.labels,
            clocks: None,
            last_move,
            flipped: view.flipped,
        };
        writeln!(out)?;
        write!(out, "{}", before.draw(view.style, &notes))?;
        let judgement = mv.judgement.expect("an exercise is a judged move");
        writeln!(
            out,
            "{} of {}: move {}, {} to play. The game went {} here: {} {judgement}, {:.1} points lost.",
            number + 1,
            set.len(),
            mv.ply,
            mv.mover,
            mv.played,
            judgement.symbol(),
            mv.loss
        )?;
        loop {
            write!(out, "your move> ")?;
            out.flush()?;
            let Some(line) = read_line(&mut input)? else {
                writeln!(out)?;
                break 'exercises;
            };
            let Ok(line) = String::from_utf8(line) else {
                writeln!(out, "{NOT_UTF8}")?;
                continue;
            };
            match line.trim().to_ascii_lowercase().as_str() {
                "" => continue,
                "quit" | "exit" => break 'exercises,
                "skip" => {
                    outcome.skipped += 1;
                    writeln!(out, "Skipped. {}", solution(mv))?;
                    continue 'exercises;
                }
                "solution" | "hint" => {
                    outcome.shown += 1;
                    writeln!(out, "{}", solution(mv))?;
                    continue 'exercises;
                }
                _ => {}
            }
            let tried = match before.parse_move(line.trim()) {
                Ok(tried) => tried,
                Err(err) => {
                    writeln!(out, "{err}")?;
                    continue;
                }
            };
            let tried_text = B::move_text(tried);
            if tried_text == mv.played {
                writeln!(out, "{GAME_MOVE_TRIED}")?;
                continue;
            }
            let score = match judge.score_after(&before, tried) {
                Ok(score) => score,
                Err(err) => {
                    writeln!(out, "the model could not judge it: {err}")?;
                    continue;
                }
            };
            let verdict = attempt(mv, &tried_text, score);
            writeln!(out, "{}", verdict.says)?;
            if verdict.solved {
                outcome.solved += 1;
                continue 'exercises;
            }
        }
    }
    writeln!(
        out,
        "\nSolved {} of {} ({} solution{} shown, {} skipped).",
        outcome.solved,
        outcome.set,
        outcome.shown,
        if outcome.shown == 1 { "" } else { "s" },
        outcome.skipped
    )?;
    Ok(outcome)
}

/// What the learner is told on trying the move of the game itself.
pub const GAME_MOVE_TRIED: &str = "That is the move of the game: find a better one.";

/// The model's verdict on a move tried in place of a reviewed move.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    /// Within [`INACCURACY`] points of the best move.
    pub solved: bool,
    /// The verdict in words, with the scores.
    pub says: String,
}

/// The verdict on `tried` (a legal move other than the game's) played in
/// place of `mv`, keeping `score` (percent) for its mover: solved when it
/// falls short of the best move's expected score by less than
/// [`INACCURACY`] points. The terminal's exercises and the page's say the
/// same.
pub fn attempt(mv: &MoveReview, tried: &str, score: f32) -> Attempt {
    let short = mv.before - score;
    if short < INACCURACY {
        let compared = match &mv.better {
            Some((best, _)) if best == tried => "the model's move too".to_string(),
            Some(_) => format!("the model's {}: {:.1}%", better_text(mv), mv.before),
            None => format!("the best move {:.1}%", mv.before),
        };
        return Attempt {
            solved: true,
            says: format!(
                "Good: {tried} keeps {score:.1}% ({compared}; the game's move {:.1}%).",
                mv.after
            ),
        };
    }
    Attempt {
        solved: false,
        says: format!(
            "{tried} keeps {score:.1}%, {short:.1} points short of the best move. Try again."
        ),
    }
}

/// The model's answer: the better move, its line, and the reason.
pub fn solution(mv: &MoveReview) -> String {
    let mut text = match &mv.better {
        Some(_) => format!("The model's move: {}.", better_text(mv)),
        None => "The model had no other move.".to_string(),
    };
    if let Some(why) = &mv.reason {
        text.push_str(&format!(" The game's move {} {why}.", mv.played));
    }
    text
}
