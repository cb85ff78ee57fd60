//! Which of the two games something plays, and the one place where that
//! choice becomes a type.
//!
//! The layers above the engine are written once, generic over
//! [`crate::Board`]; a command, a run or a network picks its game as a
//! [`GameKind`] (from its rules, layouts and models, or from a file that
//! records it) and hands it to [`with_board!`](crate::with_board), whose one
//! `match` names each game's board type. Adding a game is an arm here
//! beside its implementations of the layers' interfaces
//! (ARCHITECTURE.md, "What a game is made of").

use serde::{Deserialize, Serialize};
use sumito_engine::Position;
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;

/// One of the two games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    /// Two players on the rule sheets' board: the fast engine
    /// (`sumito_engine::Position`).
    #[default]
    TwoPlayer,
    /// Variants and 3 to 6 players: the general engine
    /// (`sumito_engine::general::GeneralPosition`). (Written `variant` in
    /// checkpoints, bundles and configurations, as before the name changed.)
    #[serde(rename = "variant", alias = "general")]
    General,
}

impl GameKind {
    /// Both games, the two-player game first.
    pub const ALL: [GameKind; 2] = [GameKind::TwoPlayer, GameKind::General];

    /// The game's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::TwoPlayer => "the two-player game",
            GameKind::General => "the general game",
        }
    }

    pub fn is_two_player(&self) -> bool {
        *self == GameKind::TwoPlayer
    }

    /// The general game when the rules table needs it (holes, teams, ...),
    /// a layout seats more than two, or a model of the general game plays;
    /// otherwise the two-player game.
    pub fn of(table: &RulesTable, layouts: &[GeneralLayout], general_models: bool) -> GameKind {
        let general_layout = layouts
            .iter()
            .any(|layout| !matches!(layout, GeneralLayout::Two(_)));
        if table.is_general() || general_layout || general_models {
            GameKind::General
        } else {
            GameKind::TwoPlayer
        }
    }

    /// The game of a position given as text under `table`: [`GameKind::of`]
    /// the table, and the two-player game only when the text is a position
    /// of it (two colours, no cells with a role); any other text is the
    /// general game's, whose text reads every game.
    pub fn of_text(table: &RulesTable, text: &str) -> GameKind {
        match GameKind::of(table, &[], false) {
            GameKind::TwoPlayer if Position::from_fen(text).is_ok() => GameKind::TwoPlayer,
            _ => GameKind::General,
        }
    }
}

/// The engine types [`with_board!`](crate::with_board) names, reachable
/// from any crate that uses the macro.
#[doc(hidden)]
pub mod boards {
    pub use sumito_engine::Position as TwoPlayer;
    pub use sumito_engine::general::GeneralPosition as General;
}

/// The one `match` from a game's kind to its type, in two forms:
/// - `with_board!(kind, run_match(&args, kinds))` calls a function generic
///   over the board: `run_match::<Position>(&args, kinds)` or
///   `run_match::<GeneralPosition>(&args, kinds)`;
/// - `with_board!(kind, B => expression)` evaluates the expression with
///   `B` the board type, for what a function call cannot say (`B::Replay`,
///   `RunStarts::<B>::of(..)`).
#[macro_export]
macro_rules! with_board {
    ($kind:expr, $board:ident => $body:expr) => {
        match $kind {
            $crate::GameKind::TwoPlayer => {
                type $board = $crate::kind::boards::TwoPlayer;
                $body
            }
            $crate::GameKind::General => {
                type $board = $crate::kind::boards::General;
                $body
            }
        }
    };
    ($kind:expr, $($function:ident)::+ ($($arg:expr),* $(,)?)) => {
        match $kind {
            $crate::GameKind::TwoPlayer => {
                $($function)::+::<$crate::kind::boards::TwoPlayer>($($arg),*)
            }
            $crate::GameKind::General => {
                $($function)::+::<$crate::kind::boards::General>($($arg),*)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Board;
    use sumito_engine::Layout;

    #[test]
    fn the_macro_calls_the_board_of_each_kind() {
        fn kind_of<B: Board>() -> GameKind {
            B::KIND
        }
        for kind in GameKind::ALL {
            assert_eq!(with_board!(kind, kind_of()), kind);
            assert_eq!(with_board!(kind, B => B::KIND), kind);
        }
    }

    #[test]
    fn the_game_is_the_general_one_when_its_rules_layouts_or_models_say() {
        let plain = RulesTable::default();
        let standard = [GeneralLayout::Two(Layout::Standard)];
        assert_eq!(GameKind::of(&plain, &standard, false), GameKind::TwoPlayer);
        assert_eq!(GameKind::of(&plain, &[], false), GameKind::TwoPlayer);
        let three = [GeneralLayout::from_name("three-player").unwrap()];
        assert_eq!(GameKind::of(&plain, &three, false), GameKind::General);
        assert_eq!(GameKind::of(&plain, &standard, true), GameKind::General);
        let holes = RulesTable::from_toml("[rules]\nholes = [\"E5\"]\n").unwrap();
        assert_eq!(GameKind::of(&holes, &standard, false), GameKind::General);
        // A move limit alone is a rule of both games.
        let limit = RulesTable::from_toml("[rules]\nmax_plies = 80\n").unwrap();
        assert_eq!(GameKind::of(&limit, &standard, false), GameKind::TwoPlayer);
        // A position given as text: the two-player game's text under its
        // rules; any other text, or other rules, the general game.
        let start = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0";
        assert_eq!(GameKind::of_text(&limit, start), GameKind::TwoPlayer);
        assert_eq!(GameKind::of_text(&holes, start), GameKind::General);
        let three = "r4/6/7/8/9/8/7/6/b3w w 0,1,0";
        assert_eq!(GameKind::of_text(&plain, three), GameKind::General);
        assert_eq!(GameKind::of_text(&plain, "9/9 b 0 0"), GameKind::General);
    }

    #[test]
    fn it_reads_and_writes_as_the_files_always_have() {
        let names = ["\"two-player\"", "\"variant\""];
        for (kind, name) in [GameKind::TwoPlayer, GameKind::General].iter().zip(names) {
            assert_eq!(serde_json::to_string(kind).unwrap(), name);
            assert_eq!(serde_json::from_str::<GameKind>(name).unwrap(), *kind);
        }
        assert_eq!(
            serde_json::from_str::<GameKind>("\"general\"").unwrap(),
            GameKind::General
        );
    }
}
