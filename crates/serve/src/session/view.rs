//! What the page shows of a game session: the state (the board cell by
//! cell, the seats, the legal moves as the cells they pick up and where each
//! goes, the history, the model's levels) and an analysis's message, so that
//! the page knows no rules and draws every game.

use sumito_arena::record::Start;
use sumito_engine::Cell;
use sumito_engine::general::{CellContent, GeneralMove, GeneralPosition, MoveKind, SEAT_NAMES};
use sumito_game::LEVELS;
use sumito_play::review::Review;

use super::{GameSession, Seat};
use crate::model::{Model, PageAnalysis, ReviewTarget};
use crate::protocol::{
    AnalysisMove, CellView, LevelView, ModelView, MoveView, PlyView, ReviewLine, SeatView,
    ServerMessage, StateView, ThreatView, VariationView,
};

/// Candidates an analysis sends, and moves of each one's line.
const ANALYSIS_MOVES: usize = 12;
const LINE_MOVES: usize = 8;

fn cell_names(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(Cell::to_string).collect()
}

/// The cells a move picks up and where each goes, for the page.
pub(super) fn move_cells(
    position: &GeneralPosition,
    mv: GeneralMove,
) -> (Vec<String>, Vec<String>) {
    let _ = position;
    match mv.kind() {
        MoveKind::Group(group) => {
            let from: Vec<Cell> = group.cells().collect();
            let to: Vec<Cell> = from
                .iter()
                .filter_map(|c| c.neighbour(group.direction()))
                .collect();
            (cell_names(&from), cell_names(&to))
        }
        MoveKind::Shield(shield) => {
            let to: Vec<Cell> = shield
                .cells
                .iter()
                .filter_map(|c| c.neighbour(shield.dir))
                .collect();
            (cell_names(&shield.cells), cell_names(&to))
        }
        MoveKind::Rotation(rotation) => (cell_names(&rotation.ends), cell_names(&rotation.to)),
    }
}

fn content_name(position: &GeneralPosition, cell: Cell) -> &'static str {
    match position.at(cell) {
        CellContent::Empty => "empty",
        CellContent::Marble(_) if position.rules().one_colour => "common",
        CellContent::Marble(seat) => SEAT_NAMES[seat],
        CellContent::Neutral => "neutral",
        CellContent::Obstacle => "obstacle",
        CellContent::Hole => "hole",
    }
}

/// A move of `position` as the page draws it.
fn move_view(position: &GeneralPosition, mv: GeneralMove) -> MoveView {
    let (from, to) = move_cells(position, mv);
    MoveView {
        text: mv.to_text(),
        comma: mv.to_comma(),
        from,
        to,
    }
}

fn board_view(position: &GeneralPosition) -> Vec<CellView> {
    Cell::all()
        .map(|cell| CellView {
            cell: cell.to_string(),
            content: content_name(position, cell),
        })
        .collect()
}

impl GameSession {
    /// The lines of the judged moves of `review`, the review of `target`:
    /// on the position before each, the move played, the better move and
    /// its line (each move read on the position the line has reached, as
    /// far as it stays legal), and the legal moves there (learn mode).
    pub fn review_lines(target: &ReviewTarget, review: &Review) -> Vec<ReviewLine> {
        review
            .moves
            .iter()
            .filter(|judged| judged.judgement.is_some())
            .filter_map(|judged| {
                let before = *target.positions.get(judged.ply - 1)?;
                let played = *target.moves.get(judged.ply - 1)?;
                let mut better = Vec::new();
                let mut line = before;
                for text in judged.better.iter().flat_map(|(_, line)| line) {
                    if line.is_game_over() {
                        break;
                    }
                    let Ok(mv) = line.parse_move(text) else { break };
                    better.push(move_view(&line, mv));
                    line = line.play(mv);
                }
                Some(ReviewLine {
                    ply: judged.ply,
                    played: move_view(&before, played),
                    better,
                    legal: before
                        .legal_moves()
                        .into_iter()
                        .map(|mv| move_view(&before, mv))
                        .collect(),
                })
            })
            .collect()
    }

    /// The analysis message for the page; `done` marks the last of a
    /// search's updates.
    pub fn analysis_message(
        position: &GeneralPosition,
        analysis: &PageAnalysis,
        done: bool,
    ) -> ServerMessage {
        // The move the search plays first, then the others in the search's
        // own order (its rating, visits breaking ties): the visits alone may
        // disagree, since an analysis searches in steps that keep the tree
        // and the Gumbel root's rounds weigh the prior with the value.
        let mut ranked: Vec<_> = analysis.moves.iter().collect();
        ranked.sort_by(|a, b| {
            (b.mv == analysis.best)
                .cmp(&(a.mv == analysis.best))
                .then(b.rating.total_cmp(&a.rating))
                .then(b.visits.cmp(&a.visits))
        });
        let moves = ranked
            .into_iter()
            .take(ANALYSIS_MOVES)
            .map(|stats| {
                let (from, to) = move_cells(position, stats.mv);
                AnalysisMove {
                    text: stats.mv.to_text(),
                    from,
                    to,
                    visits: stats.visits,
                    prior: stats.prior,
                    q: stats.q,
                    rating: stats.rating,
                    line: stats
                        .line
                        .iter()
                        .take(LINE_MOVES)
                        .map(|mv| mv.to_text())
                        .collect(),
                }
            })
            .collect();
        let mut pv_boards = Vec::new();
        let mut line = *position;
        for &mv in &analysis.principal_variation {
            if line.is_game_over() || !line.is_legal(mv) {
                break;
            }
            line = line.play(mv);
            pv_boards.push(board_view(&line));
        }
        let seating = position.rules().seating;
        ServerMessage::Analysis {
            position: position.to_string(),
            side: seating.side_name(position.side_to_move()),
            ply: position.ply(),
            wdl: [analysis.wdl.win, analysis.wdl.draw, analysis.wdl.loss],
            values_by_side: analysis.side_values.clone(),
            best: analysis.best.to_text(),
            moves,
            pv: analysis
                .principal_variation
                .iter()
                .map(|mv| mv.to_text())
                .collect(),
            pv_boards,
            simulations: analysis.simulations,
            elapsed_ms: analysis.elapsed.as_millis() as u64,
            done,
        }
    }

    /// Everything the page shows.
    pub fn state(&self) -> StateView {
        let shown = self.shown();
        let last = self.current();
        let rules = last.rules();
        let seating = rules.seating;
        let (can_analyse, rules_note) = self.analysis_view();
        let human_to_move =
            !self.is_over() && matches!(self.seats[last.seat_to_move()], Seat::Human(_));
        let running = self.clock.is_some() && !self.is_over();
        // At the end on a person's turn the moves of the game; anywhere
        // else those of a variation from the shown position.
        let playable = if self.at_end() {
            human_to_move
        } else {
            !shown.is_game_over()
        };
        let legal = if playable {
            shown
                .legal_moves()
                .into_iter()
                .map(|mv| {
                    let (from, to) = move_cells(shown, mv);
                    MoveView {
                        text: mv.to_text(),
                        comma: mv.to_comma(),
                        from,
                        to,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        StateView {
            layout: match &self.record.start {
                Start::Layout(layout) => layout.name(),
                Start::Position(_) => "position".into(),
            },
            rules: rules.to_string(),
            position: shown.to_string(),
            cursor: self.cursor,
            board: board_view(shown),
            seats: (0..seating.seats())
                .map(|seat| {
                    let side = seating.side_of(seat);
                    let clock_ms = self.clock.map(|_| {
                        let mut left = self.clocks[seat];
                        if running && last.seat_to_move() == seat {
                            left = left.saturating_sub(self.turn_started.elapsed());
                        }
                        left.as_millis() as u64
                    });
                    SeatView {
                        colour: SEAT_NAMES[seat],
                        player: self.seats[seat].name(),
                        human: matches!(self.seats[seat], Seat::Human(_)),
                        score: shown.seat_score(seat),
                        side_score: shown.side_score(side),
                        target: rules.target(side),
                        marbles: shown.marble_count(seat),
                        clock_ms,
                        request: self.seats[seat].request(),
                    }
                })
                .collect(),
            clock: self.clock.map(Box::new),
            to_move: shown.seat_to_move(),
            human_to_move,
            legal,
            history: self
                .moves
                .iter()
                .enumerate()
                .map(|(index, mv)| PlyView {
                    ply: index + 1,
                    seat: self.positions[index].seat_to_move(),
                    text: mv.to_text(),
                    position: self.positions[index + 1].to_string(),
                    win: self.wins[index],
                    think_ms: self.thinks[index].map(|d| d.as_secs_f64() * 1000.0),
                })
                .collect(),
            line: self.line.iter().map(|mv| mv.to_text()).collect(),
            variations: self
                .variations
                .iter()
                .map(|variation| VariationView {
                    ply: variation.ply,
                    moves: variation.moves.iter().map(|mv| mv.to_text()).collect(),
                })
                .collect(),
            threats: shown
                .push_off_threats()
                .into_iter()
                .map(|threat| ThreatView {
                    cell: threat.cell.to_string(),
                    by: SEAT_NAMES[threat.seat],
                    now: threat.seat == shown.seat_to_move(),
                })
                .collect(),
            result: self.result_words(),
            can_analyse,
            model: self.model().model_name(),
            levels: levels_of(self.model()),
            models: self
                .models
                .list()
                .iter()
                .filter_map(|model| {
                    Some(ModelView {
                        name: model.model_name()?,
                        layouts: model.model_game()?.layouts(),
                        levels: levels_of(model.as_ref()),
                    })
                })
                .collect(),
            rules_note,
        }
    }
}

/// A model's strength levels for the page (none without a model).
fn levels_of(model: &dyn Model) -> Vec<LevelView> {
    if model.model_name().is_none() {
        return Vec::new();
    }
    LEVELS
        .iter()
        .map(|level| LevelView {
            number: level.number,
            name: level.name,
            simulations: level.simulations,
            elo: model.level_elo(level.number),
        })
        .collect()
}
