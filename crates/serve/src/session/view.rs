//! What the page shows of a game session: the state (the board cell by
//! cell, the seats, the legal moves as the cells they pick up and where each
//! goes, the history, the model's levels) and an analysis's message, so that
//! the page knows no rules and draws every game.

use sumito_arena::record::Start;
use sumito_engine::Cell;
use sumito_engine::general::{CellContent, GeneralMove, GeneralPosition, MoveKind, SEAT_NAMES};
use sumito_game::LEVELS;

use super::{GameSession, Seat};
use crate::model::{Model, PageAnalysis};
use crate::protocol::{
    AnalysisMove, CellView, LevelView, ModelView, MoveView, PlyView, SeatView, ServerMessage,
    StateView,
};

fn cell_names(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(Cell::to_string).collect()
}

/// The cells a move picks up and where each goes, for the page.
fn move_cells(position: &GeneralPosition, mv: GeneralMove) -> (Vec<String>, Vec<String>) {
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

fn board_view(position: &GeneralPosition) -> Vec<CellView> {
    Cell::all()
        .map(|cell| CellView {
            cell: cell.to_string(),
            content: content_name(position, cell),
        })
        .collect()
}

impl GameSession {
    /// The analysis message for the page; `done` marks the last of a
    /// search's updates.
    pub fn analysis_message(
        position: &GeneralPosition,
        analysis: &PageAnalysis,
        done: bool,
    ) -> ServerMessage {
        let moves = analysis
            .moves
            .iter()
            .take(12)
            .map(|stats| {
                let (from, to) = move_cells(position, stats.mv);
                AnalysisMove {
                    text: stats.mv.to_text(),
                    from,
                    to,
                    visits: stats.visits,
                    prior: stats.prior,
                    q: stats.q,
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
        let shown = &self.positions[self.cursor];
        let last = self.current();
        let rules = last.rules();
        let seating = rules.seating;
        let (can_analyse, rules_note) = self.analysis_view();
        let human_to_move =
            !self.is_over() && matches!(self.seats[last.seat_to_move()], Seat::Human(_));
        let running = self.clock.is_some() && !self.is_over();
        let legal = if self.cursor == self.moves.len() && human_to_move {
            last.legal_moves()
                .into_iter()
                .map(|mv| {
                    let (from, to) = move_cells(last, mv);
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
                        player: match &self.seats[seat] {
                            Seat::Human(name) => name.clone(),
                            Seat::Player { name, .. } => name.clone(),
                        },
                        human: matches!(self.seats[seat], Seat::Human(_)),
                        score: shown.seat_score(seat),
                        side_score: shown.side_score(side),
                        target: rules.target(side),
                        marbles: shown.marble_count(seat),
                        clock_ms,
                    }
                })
                .collect(),
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
            result: self.ended.clone().or_else(|| last.describe_outcome()),
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
