//! Each move of a game judged from a model's analysis of every position:
//! the mover's expected score with the search's best move and with the move
//! played, the points lost, the judgement, the better move with its line,
//! the marbles it pushed off, the reason in words where the exact material
//! check gives one ([`super::reasons`]), the phase of the game it falls in,
//! and a summary per side. The definitions are in the parent module's
//! documentation.

use std::fmt;

use sumito_game::Board;
use sumito_game::board::capitalised;

use super::reasons::reason;
use crate::analysis::PlyReport;

/// Points of expected score lost from which a move is an inaccuracy.
pub const INACCURACY: f32 = 5.0;
/// ... a mistake.
pub const MISTAKE: f32 = 10.0;
/// ... a blunder.
pub const BLUNDER: f32 = 15.0;

/// The opening lasts until the first push-off, and at most this many plies.
pub const OPENING_PLIES: usize = 30;
/// The endgame starts once a side has pushed off this many marbles...
pub const ENDGAME_MARBLES: u32 = 4;
/// ... or at this ply, whichever comes first.
pub const ENDGAME_PLY: usize = 120;

/// How many of the largest swings are a review's key moments.
pub const KEY_MOMENTS: usize = 5;

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// The judgement of a move that lost `loss` points, if any.
    pub fn of_loss(loss: f32) -> Option<Judgement> {
        if loss >= BLUNDER {
            Some(Judgement::Blunder)
        } else if loss >= MISTAKE {
            Some(Judgement::Mistake)
        } else if loss >= INACCURACY {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }

    /// The annotation symbols of chess: `?!`, `?`, `??`.
    pub fn symbol(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    /// Colour of a judgement's mark in the reports.
    pub fn colour(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "#d4a017",
            Judgement::Mistake => "#e07020",
            Judgement::Blunder => "#c02020",
        }
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The phase of the game a ply falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Opening,
    Middlegame,
    Endgame,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }
}

/// One move of the game, reviewed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// 1 for the first move of the game.
    pub ply: usize,
    /// Who played it: its seat as a sentence names it (`Black`), and the
    /// number of its side (partners share one).
    pub mover: String,
    pub side: usize,
    /// The move as a person writes it.
    pub played: String,
    /// The mover's expected score (percent) with the search's best move
    /// (before the move, with best play) and with the move played.
    pub before: f32,
    pub after: f32,
    /// Points lost (never below 0; 0 for a move of the random opening).
    pub loss: f32,
    /// None for a move that lost little, and for a move of the random
    /// opening, which no one chose.
    pub judgement: Option<Judgement>,
    /// The search's move where it differs from the one played, and its line
    /// (starting with that move).
    pub better: Option<(String, Vec<String>)>,
    /// Whether the move was one of the record's random opening plies.
    pub random_opening: bool,
    /// Marbles the move pushed off.
    pub push_offs: u32,
    /// Why the move was bad in plain words, from the exact material count,
    /// where it finds a reason (judged moves only).
    pub reason: Option<String>,
}

/// One side's summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// The side as a sentence names it: `Black`, `Black+red`.
    pub name: String,
    /// Its judged moves (those of the random opening not counted).
    pub moves: usize,
    /// Mean accuracy of its moves, 0 to 100 (100 without moves).
    pub accuracy: f32,
    /// Mean points lost a move.
    pub mean_loss: f32,
    /// Inaccuracies, mistakes and blunders in each phase (opening,
    /// middlegame, endgame).
    pub judgements: [[usize; 3]; 3],
}

impl SideSummary {
    /// Judgements of `kind` over the whole game.
    pub fn count(&self, kind: Judgement) -> usize {
        self.judgements
            .iter()
            .map(|phase| phase[kind as usize])
            .sum()
    }
}

/// What a review is of: the reports show it, the JSON carries it. Each part
/// is known only where the review is made from a record by a command.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReviewMeta {
    /// The record reviewed (its file name).
    pub record: Option<String>,
    /// The model that judged, and its simulations per position.
    pub model: Option<String>,
    pub simulations: Option<u32>,
    /// Who played each seat, as the record names them.
    pub players: Vec<String>,
    /// The game's result in words.
    pub result: Option<String>,
    /// Where the game started: its layout, or `position`.
    pub layout: Option<String>,
    /// When the review was made (RFC 3339, UTC).
    pub date: Option<String>,
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    pub moves: Vec<MoveReview>,
    /// The first side's (Black's) expected score (percent) at every
    /// position, the start first.
    pub first_score: Vec<f32>,
    /// Every side's expected score (percent) at every position, the start
    /// first: one line per side in a graph of a game of 3–6 players.
    pub side_scores: Vec<Vec<f32>>,
    /// Every side's summary, the first side first.
    pub sides: Vec<SideSummary>,
    /// Moves of the record's random opening (not judged).
    pub opening_plies: usize,
    /// The first ply of the middlegame and of the endgame, where the game
    /// reached them.
    pub middlegame_from: Option<usize>,
    pub endgame_from: Option<usize>,
    pub meta: ReviewMeta,
}

impl Review {
    /// The phase of move number `ply` (1 for the first move).
    pub fn phase_of(&self, ply: usize) -> Phase {
        match (self.middlegame_from, self.endgame_from) {
            (_, Some(endgame)) if ply >= endgame => Phase::Endgame,
            (Some(middlegame), _) if ply >= middlegame => Phase::Middlegame,
            _ => Phase::Opening,
        }
    }

    /// The key moments: the judged moves of the largest losses (at most
    /// [`KEY_MOMENTS`]), in the order of the game; indices into `moves`.
    pub fn key_moments(&self) -> Vec<usize> {
        let mut judged: Vec<usize> = (0..self.moves.len())
            .filter(|&index| self.moves[index].judgement.is_some())
            .collect();
        judged.sort_by(|&a, &b| self.moves[b].loss.total_cmp(&self.moves[a].loss));
        judged.truncate(KEY_MOMENTS);
        judged.sort_unstable();
        judged
    }
}

/// Lichess's accuracy of one move that lost `loss` points.
pub fn move_accuracy(loss: f32) -> f32 {
    if loss <= 0.0 {
        return 100.0;
    }
    (103.1668 * (-0.04354 * loss).exp() - 3.1669).clamp(0.0, 100.0)
}

/// The review of a game of the board `B` from its analysis (one report per
/// position, the start first, as [`crate::analysis::analyse_game`] gives
/// them); `start` is the game's first position (it names the sides). Every
/// move is judged: see [`review_game`] for a record with a random opening.
pub fn review<B: Board>(start: &B, reports: &[PlyReport<B>]) -> Review {
    review_game(start, reports, 0)
}

/// The review of a game whose first `opening_plies` moves were a random
/// opening (a match's, as its record counts them): those are shown but not
/// judged, and count for no side's accuracy.
pub fn review_game<B: Board>(start: &B, reports: &[PlyReport<B>], opening_plies: usize) -> Review {
    let first_score: Vec<f32> = reports.iter().map(|r| r.expected_score(0)).collect();
    let side_scores: Vec<Vec<f32>> = reports
        .iter()
        .map(|r| {
            (0..start.sides())
                .map(|side| r.expected_score(side))
                .collect()
        })
        .collect();
    // The positions, replayed from the start: the push-offs, the phases and
    // the reasons are read from them.
    let mut positions = vec![*start];
    for report in reports.iter().skip(1) {
        let Some((_, mv)) = report.played else { break };
        let last = *positions.last().expect("the start at least");
        if !last.is_legal(mv) {
            break;
        }
        positions.push(last.play(mv));
    }
    let (middlegame_from, endgame_from) = phases(&positions);
    let mut review = Review {
        moves: Vec::new(),
        first_score,
        side_scores,
        sides: (0..start.sides())
            .map(|side| SideSummary {
                name: capitalised(&start.side_name(side)),
                ..SideSummary::default()
            })
            .collect(),
        opening_plies,
        middlegame_from,
        endgame_from,
        meta: ReviewMeta::default(),
    };
    let mut sums = vec![(0usize, 0.0f32, 0.0f32); start.sides()];
    for (index, report) in reports.iter().enumerate().skip(1) {
        let (Some((seat, played)), Some(side)) = (report.played, report.played_side) else {
            continue;
        };
        let previous = &reports[index - 1];
        let root = previous.expected_score(side);
        // The played move as the search before it saw it, if it did.
        let searched = |mv: B::Move| {
            previous
                .move_values
                .iter()
                .find(|(candidate, _)| *candidate == mv)
                .map(|&(_, q)| 50.0 * (1.0 + q))
        };
        let after = searched(played).unwrap_or_else(|| report.expected_score(side));
        let before = previous.best.and_then(searched).unwrap_or(root);
        let random_opening = index <= opening_plies;
        let loss = if random_opening {
            0.0
        } else {
            (before - after).max(0.0)
        };
        let judgement = Judgement::of_loss(loss);
        let better_move = previous.best.filter(|&best| best != played);
        let better = better_move.map(|best| {
            (
                B::move_text(best),
                previous.line.iter().map(|&mv| B::move_text(mv)).collect(),
            )
        });
        let position = positions.get(index - 1);
        let push_offs = position.map_or(0, |position| position.push_offs(played));
        let reason = match (judgement, position) {
            (Some(_), Some(position)) => reason(position, played, better_move),
            _ => None,
        };
        let phase = review.phase_of(index);
        if let Some(summary) = review.sides.get_mut(side).filter(|_| !random_opening) {
            if let Some(kind) = judgement {
                summary.judgements[phase as usize][kind as usize] += 1;
            }
            let sum = &mut sums[side];
            sum.0 += 1;
            sum.1 += move_accuracy(loss);
            sum.2 += loss;
        }
        review.moves.push(MoveReview {
            ply: index,
            mover: B::seat_title(seat),
            side,
            played: B::move_text(played),
            before,
            after,
            loss,
            judgement,
            better,
            random_opening,
            push_offs,
            reason,
        });
    }
    for (side, (count, accuracy, loss)) in review.sides.iter_mut().zip(sums) {
        side.moves = count;
        side.accuracy = if count == 0 {
            100.0
        } else {
            accuracy / count as f32
        };
        side.mean_loss = if count == 0 { 0.0 } else { loss / count as f32 };
    }
    review
}

/// Where the middlegame and the endgame of the game through `positions`
/// (the start first) begin, as move numbers. The opening ends with the
/// first push-off (that move is the middlegame's first) or after
/// [`OPENING_PLIES`] moves; the endgame begins with the move after a side
/// has pushed off [`ENDGAME_MARBLES`] marbles, or at move [`ENDGAME_PLY`],
/// and never before the middlegame.
fn phases<B: Board>(positions: &[B]) -> (Option<usize>, Option<usize>) {
    let moves = positions.len().saturating_sub(1);
    let first_push_off = (1..=moves).find(|&ply| {
        let (before, after) = (&positions[ply - 1], &positions[ply]);
        (0..before.sides()).any(|side| after.side_score(side) > before.side_score(side))
    });
    let middlegame = first_push_off
        .unwrap_or(OPENING_PLIES + 1)
        .min(OPENING_PLIES + 1);
    let marbles = (1..=moves).find(|&ply| {
        let position = &positions[ply];
        (0..position.sides()).any(|side| position.side_score(side) >= ENDGAME_MARBLES)
    });
    let endgame = marbles
        .map_or(ENDGAME_PLY, |ply| (ply + 1).min(ENDGAME_PLY))
        .max(middlegame);
    (
        (middlegame <= moves).then_some(middlegame),
        (endgame <= moves).then_some(endgame),
    )
}
