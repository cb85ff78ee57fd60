//! Where a run's games start, for every game: its `[rules]` table read as
//! the game's rules, and the layouts its self-play draws from (`[rules]
//! layouts`) or its evaluation games take in turn (`[evaluation]
//! openings`), each checked once against the game and its seats.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_game::Board;

/// The rules and start positions of a run's games in game `B`.
#[derive(Debug, Clone)]
pub struct RunStarts<B: Board> {
    /// The rules every game is played under.
    pub rules: B::Rules,
    /// Each layout's name and first position, made once; all seat alike.
    pub starts: Vec<(String, B)>,
}

impl<B: Board> RunStarts<B> {
    /// The layouts `names` (at least one) under `table`: the error names
    /// the layout a game `B` cannot start from, or that seats another
    /// number of players than the first.
    pub fn of(table: &RulesTable, names: &[String]) -> Result<RunStarts<B>, String> {
        let rules = B::rules_of_table(table)?;
        let mut starts: Vec<(String, B)> = Vec::with_capacity(names.len());
        for name in names {
            let general = GeneralLayout::from_name(name).map_err(|err| err.to_string())?;
            let layout = B::layout_of_general(general)?;
            let start =
                B::first_position(layout, &rules).map_err(|err| format!("{name}: {err}"))?;
            if let Some((first, other)) = starts.first()
                && other.seats() != start.seats()
            {
                return Err(format!(
                    "{name} seats {} players, but {first} seats {}: the games of a run seat alike",
                    start.seats(),
                    other.seats()
                ));
            }
            starts.push((general.name().to_string(), start));
        }
        if starts.is_empty() {
            return Err("names no layout".to_owned());
        }
        Ok(RunStarts { rules, starts })
    }

    /// The seats of every start.
    pub fn seats(&self) -> usize {
        self.starts[0].1.seats()
    }

    /// The start of a layout drawn uniformly with `rng`.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> B {
        self.starts[rng.random_range(0..self.starts.len())].1
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
        assert_eq!((two.starts.len(), two.seats()), (2, 2));
        assert_eq!(two.starts[1].0, "belgian-daisy");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(two.draw(&mut rng).ply(), 0);
        let three = RunStarts::<GeneralPosition>::of(&table, &names(&["three-player"])).unwrap();
        assert_eq!(three.seats(), 3);
        assert_eq!(three.draw(&mut rng).sides(), 3);
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
