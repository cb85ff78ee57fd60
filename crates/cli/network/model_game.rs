//! Not a subcommand: what a model judges, in its game and under the rules it
//! learned, for `analyse`, `review` and `json-analysis` alike: its rules as a
//! `[rules]` table, and a saved game taken under them.

use std::path::Path;

use anyhow::Context;
use sumito_arena::record::{AnyRecord, GameRecord};
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::command_board::{CommandBoard, rules_of};
use sumito_engine::rules_table::RulesTable;
use sumito_game::GameKind;
use sumito_net::NetBoard;

/// The rules the model `bundle` of game `B` learned, as a `[rules]` table
/// (layouts included for a model of the general game); an error if it is
/// a model of the other game.
pub fn model_table<B: NetBoard + CommandBoard>(bundle: &ModelBundle) -> anyhow::Result<RulesTable> {
    Ok(B::rules_table(&bundle.trained_rules::<B>()?))
}

/// The game saved at `path` as the model `bundle` (of game `B`, whose rules
/// are `table`) judges it: replayed under its rules, with a note on
/// standard error when the record's own rules differ. A record of the other
/// game is refused, naming both.
pub fn record_for_model<B: NetBoard + CommandBoard>(
    path: &Path,
    bundle: &ModelBundle,
    table: &RulesTable,
) -> anyhow::Result<GameRecord<B>> {
    let any = AnyRecord::read(path)?;
    let game = any.kind();
    if game != B::KIND {
        let name = &bundle.meta.name;
        anyhow::bail!(
            "{}: {}",
            path.display(),
            match game {
                GameKind::General => format!(
                    "a record of the general game (variants or 3-6 players), which {name} cannot judge: it is a two-player model; take a model of the general game (--model NAME_OR_DIR)"
                ),
                GameKind::TwoPlayer => format!(
                    "a record of the two-player game, which {name} cannot judge: it is a model of the general game; take a two-player model (--model quick)"
                ),
            }
        );
    }
    let record = GameRecord::<B>::from_general(any.into_general())
        .map_err(|refusal| anyhow::anyhow!("{}: {}", path.display(), refusal.why))?;
    // The model judges under its own rules only.
    let own = rules_of::<B>(table)?;
    if record.rules != own {
        eprintln!(
            "note: {}: the record's rules ({}) are not the model's ({}): the game is taken under the model's",
            path.display(),
            B::rules_table(&record.rules).describe(),
            table.describe()
        );
    }
    Ok(GameRecord {
        rules: own,
        ..record
    })
}

/// Every position of `record` (under the model's rules: the game may end
/// sooner than the record says), the start first.
pub fn positions_of<B: CommandBoard>(
    record: &GameRecord<B>,
    path: &Path,
) -> anyhow::Result<Vec<B>> {
    record
        .positions()
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("{}: under the model's rules", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::record::Start;
    use sumito_engine::general::{GeneralLayout, GeneralPosition};
    use sumito_engine::{Layout, Position, Rules};

    fn shipped(name: &str) -> ModelBundle {
        ModelBundle::open(Path::new(&format!(
            "{}/models/{name}",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap()
    }

    #[test]
    fn a_record_is_taken_under_the_models_rules_and_the_other_game_refused() {
        let dir = std::env::temp_dir().join(format!("sumito-model-game-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A two-player game under the rule sheets' rules (no move limit).
        let mut two =
            GameRecord::<Position>::unplayed(Start::Layout(Layout::Standard), Rules::default());
        let mut position = two.start_position().unwrap();
        for _ in 0..4 {
            let mv = position.legal_moves()[0];
            two.moves.push(mv);
            position = position.play(mv);
        }
        let two_path = dir.join("two.txt");
        two.write(&two_path).unwrap();
        // A three-player game.
        let table = RulesTable::default();
        let three = GameRecord::<GeneralPosition>::unplayed(
            Start::Layout(GeneralLayout::from_name("three-player").unwrap()),
            table,
        );
        let three_path = dir.join("three.txt");
        three.write(&three_path).unwrap();

        // The two-player model takes the two-player game under its rules.
        let quick = shipped("quick");
        let own = model_table::<Position>(&quick).unwrap();
        assert_eq!(own.max_plies, quick.meta.rules().max_plies);
        let taken = record_for_model::<Position>(&two_path, &quick, &own).unwrap();
        assert_eq!(taken.rules, quick.meta.rules());
        assert_eq!(taken.moves, two.moves);
        assert_eq!(positions_of(&taken, &two_path).unwrap().len(), 5);
        // ... and refuses the general game, naming why.
        let err = record_for_model::<Position>(&three_path, &quick, &own)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("three.txt") && err.contains("it is a two-player model"),
            "{err}"
        );
        // A model of the general game: the other way round.
        let general = shipped("three-player");
        assert!(model_table::<Position>(&general).is_err());
        let own = model_table::<GeneralPosition>(&general).unwrap();
        let taken = record_for_model::<GeneralPosition>(&three_path, &general, &own).unwrap();
        assert_eq!(taken.rules, own);
        let err = record_for_model::<GeneralPosition>(&two_path, &general, &own)
            .unwrap_err()
            .to_string();
        assert!(err.contains("a record of the two-player game"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
