//! How a game's result becomes the value target of its positions: what
//! the trainer teaches the value head, apart from the replay files that
//! record the result (`replay::format`).

use crate::config::TrainingConfig;

/// How a two-player game's result becomes the win/draw/loss target of its
/// positions (`[training] move_limit_win`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueTarget {
    pub move_limit_win: f32,
}

impl ValueTarget {
    /// The target that a run's `[training]` asks for.
    pub fn of(config: &TrainingConfig) -> ValueTarget {
        ValueTarget {
            move_limit_win: config.move_limit_win as f32,
        }
    }

    /// The target of a position whose side to move got `result` (1, 0,
    /// -1): a game decided at the move limit counts `move_limit_win` of a
    /// win (or loss), the rest a draw.
    pub fn wdl(&self, result: i8, at_move_limit: bool) -> [f32; 3] {
        let decided = if at_move_limit {
            self.move_limit_win
        } else {
            1.0
        };
        match result {
            1 => [decided, 1.0 - decided, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 1.0 - decided, decided],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_at_the_move_limit_counts_as_configured() {
        let target = ValueTarget {
            move_limit_win: 0.5,
        };
        assert_eq!(target.wdl(1, false), [1.0, 0.0, 0.0]);
        assert_eq!(target.wdl(-1, false), [0.0, 0.0, 1.0]);
        assert_eq!(target.wdl(1, true), [0.5, 0.5, 0.0]);
        assert_eq!(target.wdl(0, true), [0.0, 1.0, 0.0]);
        let three_quarters = ValueTarget {
            move_limit_win: 0.75,
        };
        assert_eq!(three_quarters.wdl(-1, true), [0.0, 0.25, 0.75]);
        assert_eq!(
            ValueTarget::of(&TrainingConfig::default()).wdl(1, true),
            [1.0, 0.0, 0.0]
        );
    }
}
