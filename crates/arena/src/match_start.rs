//! Where a match's games start: [`MatchStart`], a layout under the match's
//! rules and its first position, for any game (`sumito_game::Board`).

use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Layout, Position, Rules};
use sumito_game::Board;

/// Where a match's games start: a layout under the match's rules, and its
/// first position.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchStart<B: Board> {
    pub layout: B::Layout,
    pub position: B,
}

impl<B: Board> MatchStart<B> {
    /// The layout of this game that `layout` names, under the rules of
    /// `table`; the error says what does not fit (a layout of more seats
    /// than the game has, a key the game does not know).
    pub fn of_table(layout: GeneralLayout, table: &RulesTable) -> Result<MatchStart<B>, String> {
        let rules = B::rules_of_table(table)?;
        let layout = B::layout_of_general(layout)?;
        Ok(MatchStart {
            layout,
            position: B::first_position(layout, &rules)
                .map_err(|err| format!("{layout}: {err}"))?,
        })
    }
}

impl MatchStart<Position> {
    /// `layout` under `rules`.
    pub fn two_player(layout: Layout, rules: Rules) -> MatchStart<Position> {
        MatchStart {
            layout,
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
