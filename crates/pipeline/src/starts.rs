//! Where a run's games start, for every game: its `[rules]` table read as
//! the game's rules, and the layouts its self-play draws from (`[rules]
//! layouts`) or its evaluation games take in turn (`[evaluation]
//! openings`), each checked once against the game and its seats.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_game::Board;

/// The rules and start layouts of a run's games in game `B`.
#[derive(Debug, Clone)]
pub struct RunStarts<B: Board> {
    /// The rules every game is played under.
    pub rules: B::Rules,
    /// The start layouts, each known to start a game of `seats` seats.
    pub layouts: Vec<B::Layout>,
    /// The seats of every start.
    pub seats: usize,
}

impl<B: Board> RunStarts<B> {
    /// The layouts `names` (at least one) under `table`: the error names
    /// the layout a game `B` cannot start from, or that seats another
    /// number of players than the first.
    pub fn of(table: &RulesTable, names: &[String]) -> Result<RunStarts<B>, String> {
        let rules = B::rules_of_table(table)?;
        let mut layouts = Vec::with_capacity(names.len());
        let mut seats = None;
        for name in names {
            let general = GeneralLayout::from_name(name).map_err(|err| err.to_string())?;
            let layout = B::layout_of_general(general)?;
            let start =
                B::first_position(layout, &rules).map_err(|err| format!("{name}: {err}"))?;
            match seats {
                Some(seats) if seats != start.seats() => {
                    return Err(format!(
                        "{name} seats {} players, but {} seats {seats}: the games of a run seat alike",
                        start.seats(),
                        names[0]
                    ));
                }
                _ => seats = Some(start.seats()),
            }
            layouts.push(layout);
        }
        let seats = seats.ok_or_else(|| "names no layout".to_owned())?;
        Ok(RunStarts {
            rules,
            layouts,
            seats,
        })
    }

    /// The first position of `layout` (one of [`RunStarts::layouts`]).
    pub fn start(&self, layout: B::Layout) -> Result<B, String> {
        B::first_position(layout, &self.rules)
    }

    /// The start of a layout drawn uniformly with `rng`.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> Result<B, String> {
        self.start(self.layouts[rng.random_range(0..self.layouts.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use sumito_engine::Position;
    use sumito_engine::general::GeneralPosition;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn both_games_start_from_the_layouts_named() {
        let table = RulesTable::default();
        let two =
            RunStarts::<Position>::of(&table, &names(&["standard", "belgian-daisy"])).unwrap();
        assert_eq!((two.layouts.len(), two.seats), (2, 2));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(two.draw(&mut rng).unwrap().ply(), 0);
        let three = RunStarts::<GeneralPosition>::of(&table, &names(&["three-player"])).unwrap();
        assert_eq!(three.seats, 3);
        assert_eq!(three.draw(&mut rng).unwrap().sides(), 3);
    }

    #[test]
    fn a_layout_of_another_game_or_seat_count_is_named() {
        let table = RulesTable::default();
        let err = RunStarts::<Position>::of(&table, &names(&["three-player"])).unwrap_err();
        assert!(err.contains("seats more than two"), "{err}");
        let err = RunStarts::<GeneralPosition>::of(&table, &names(&["three-player", "standard"]))
            .unwrap_err();
        assert!(
            err.contains("standard seats 2 players, but three-player seats 3"),
            "{err}"
        );
        let err = RunStarts::<Position>::of(&table, &[]).unwrap_err();
        assert_eq!(err, "names no layout");
    }
}
