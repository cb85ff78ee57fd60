//! Where a match's games start: [`MatchStart`], a layout under the match's
//! rules and its first position, or a position given as it is (a suite of
//! test positions, an opening book), for any game (`sumito_game::Board`).

use std::fmt;

use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Layout, Position, Rules};
use sumito_game::{Board, GameKind};

use crate::record::Start;

/// Where a match's games start: a layout under the match's rules and its
/// first position, or a position of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchStart<B: Board> {
    /// What the games' records name as their start.
    pub start: Start<B>,
    /// The position before the first move.
    pub position: B,
}

impl<B: Board> MatchStart<B> {
    /// Games that start at `position` (its ply counters included) under the
    /// rules it carries.
    pub fn at(position: B) -> MatchStart<B> {
        MatchStart {
            start: Start::Position(position),
            position,
        }
    }

    /// The layout of this game that `layout` names, under the rules of
    /// `table`; the error says what does not fit (a layout of more seats
    /// than the game has, a key the game does not know).
    pub fn of_table(layout: GeneralLayout, table: &RulesTable) -> Result<MatchStart<B>, String> {
        let rules = B::rules_of_table(table)?;
        let layout = B::layout_of_general(layout)?;
        Ok(MatchStart {
            start: Start::Layout(layout),
            position: B::first_position(layout, &rules)
                .map_err(|err| format!("{layout}: {err}"))?,
        })
    }
}

/// The layout's name, or the position's text.
impl<B: Board> fmt::Display for MatchStart<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.start {
            Start::Layout(layout) => write!(f, "{layout}"),
            Start::Position(position) => write!(f, "{position}"),
        }
    }
}

impl MatchStart<Position> {
    /// `layout` under `rules`.
    pub fn two_player(layout: Layout, rules: Rules) -> MatchStart<Position> {
        MatchStart {
            start: Start::Layout(layout),
            position: Position::start(layout, rules),
        }
    }
}

impl MatchStart<GeneralPosition> {
    /// `layout` under the `[rules]` table `table`; the error names the key
    /// at fault.
    pub fn general(
        layout: GeneralLayout,
        table: &RulesTable,
    ) -> Result<MatchStart<GeneralPosition>, String> {
        MatchStart::of_table(layout, table)
    }
}

/// The openings of a two-player match that names no layout, in turn: the
/// ladder's (each of its games starts on one of them).
pub const DEFAULT_TWO_PLAYER_LAYOUTS: [Layout; 3] =
    [Layout::Standard, Layout::BelgianDaisy, Layout::GermanDaisy];

/// The layouts of a match of `game` that names none, in turn: in the
/// two-player game the ladder's three openings
/// ([`DEFAULT_TWO_PLAYER_LAYOUTS`]), in the general game Standard alone (the
/// variants' cells may not fit the others). `sumito arena` plays them in
/// turn; `sumito serve` starts a new game on the first.
pub fn default_layouts(game: GameKind) -> Vec<GeneralLayout> {
    match game {
        GameKind::TwoPlayer => DEFAULT_TWO_PLAYER_LAYOUTS.map(GeneralLayout::Two).to_vec(),
        GameKind::General => vec![GeneralLayout::default()],
    }
}

/// The layouts `model` learned on (its table's `layouts`, empty if it
/// names none); the error names the model and the layout.
pub fn learned_layouts(model: &str, table: &RulesTable) -> Result<Vec<GeneralLayout>, String> {
    table
        .layouts
        .iter()
        .flatten()
        .map(|name| {
            GeneralLayout::from_name(name)
                .map_err(|err| format!("{model}'s layout {name:?}: {err}"))
        })
        .collect()
}

/// The layouts `model` learned on under `table`, or the default one
/// (Standard) where it names none (a two-player model's rules carry no
/// layouts): where its games start when no layout is asked for.
pub fn learned_or_default_layouts(
    model: &str,
    table: &RulesTable,
) -> Result<Vec<GeneralLayout>, String> {
    let learned = learned_layouts(model, table)?;
    Ok(if learned.is_empty() {
        vec![GeneralLayout::default()]
    } else {
        learned
    })
}
