//! `sumito ladder` for a network player (arguments and the ladder itself:
//! `sumito_cli::commands::ladder`), with the network players registered.

use sumito_cli::commands::ladder::Args;

pub fn run(args: Args) -> anyhow::Result<()> {
    sumito_cli::commands::ladder::run(args, &super::arena::NETWORK_PLAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::levels::LevelsReport;
    use sumito_bundle::bundle::{LEVELS_FILE, ModelBundle};

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// Runs `sumito ladder` of the shipped model `name` with `options`
    /// against 2 games of `random`, into a fresh folder: the model's folder
    /// and that folder.
    fn ladder_of(name: &str, options: &[&str]) -> (String, std::path::PathBuf) {
        use clap::Parser;
        let model = format!("{}/models/{name}", env!("CARGO_MANIFEST_DIR"));
        let out = std::env::temp_dir().join(format!("sumito-ladder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let mut line = vec!["ladder", model.as_str()];
        line.extend(options);
        line.extend(["--opponent", "random", "--games", "2", "--quiet", "--out"]);
        line.push(out.to_str().unwrap());
        run(Cli::try_parse_from(line).unwrap().args).unwrap();
        (model, out)
    }

    #[test]
    fn the_shipped_models_levels_are_rated_and_a_bundle_reads_them() {
        use clap::Parser;
        let (model, out) = ladder_of("quick", &["--levels", "1,2"]);
        let json = std::fs::read(out.join("levels.json")).unwrap();
        let report: LevelsReport = serde_json::from_slice(&json).unwrap();
        assert_eq!(report.anchor, "scale");
        let numbers: Vec<u32> = report.levels.iter().map(|level| level.level).collect();
        assert_eq!(numbers, [1, 2]);
        assert!(
            report.levels[0].player.ends_with("level=1"),
            "{}",
            report.levels[0].player
        );
        assert!(report.levels.iter().all(|level| level.rows[0].games == 2));
        assert!(
            std::fs::read_to_string(out.join("levels.md"))
                .unwrap()
                .contains("| 2 | novice |")
        );
        // A copy of the model with the report beside it knows its levels.
        let copy = out.join("model");
        std::fs::create_dir_all(&copy).unwrap();
        for entry in std::fs::read_dir(&model).unwrap() {
            let path = entry.unwrap().path();
            // (Its own levels aside: the copy gets this test's.)
            if path.file_name().unwrap() != LEVELS_FILE {
                std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
            }
        }
        assert!(ModelBundle::open(&copy).unwrap().level_elo(2).is_none());
        std::fs::write(copy.join(LEVELS_FILE), &json).unwrap();
        let bundle = ModelBundle::open(&copy).unwrap();
        assert_eq!(bundle.level_elo(2), Some(report.levels[1].elo));
        // A damaged report is refused, naming the file.
        std::fs::write(copy.join(LEVELS_FILE), b"{").unwrap();
        let err = ModelBundle::open(&copy).unwrap_err().to_string();
        assert!(err.contains(LEVELS_FILE), "{err}");
        // Levels are those of a model, each setting its own budget.
        for (line, why) in [
            (&["ladder", "greedy", "--levels"][..], "no model"),
            (
                &["ladder", "bundle:simulations=8", "--levels"][..],
                "simulations=",
            ),
        ] {
            let args = Cli::try_parse_from(line).unwrap().args;
            let err = run(args).unwrap_err().to_string();
            assert!(err.contains(why), "{err}");
        }
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn the_shipped_three_player_model_climbs_the_general_games_ladder() {
        let (_, out) = ladder_of("three-player", &["--simulations", "4"]);
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("ladder.json")).unwrap()).unwrap();
        // Rounded up to one rotation of the three seats, under the model's rules.
        assert_eq!(json["settings"]["games_per_opponent"], 3);
        assert_eq!(json["settings"]["max_plies"], 240);
        assert_eq!(json["settings"]["layouts"][0], "three-player");
        assert_eq!(json["rows"][0]["opponent"], "random");
        assert_eq!(json["rows"][0]["games"], 3);
        let records = std::fs::read_dir(out.join("records/opponent-1"))
            .unwrap()
            .count();
        assert_eq!(records, 3);
        std::fs::remove_dir_all(&out).unwrap();
        // Its levels, rated together on the same ladder.
        let (_, out) = ladder_of("three-player", &["--levels", "1,10"]);
        let report: LevelsReport =
            serde_json::from_slice(&std::fs::read(out.join("levels.json")).unwrap()).unwrap();
        assert_eq!(report.anchor, "random");
        assert!(report.settings.general_rules.is_some());
        let numbers: Vec<u32> = report.levels.iter().map(|level| level.level).collect();
        assert_eq!(numbers, [1, 10]);
        assert!(report.levels.iter().all(|level| level.rows[0].games == 3));
        assert!(
            std::fs::read_to_string(out.join("levels.md"))
                .unwrap()
                .contains("in the general game")
        );
        let records = std::fs::read_dir(out.join("records/level-10/opponent-1"))
            .unwrap()
            .count();
        assert_eq!(records, 3);
        std::fs::remove_dir_all(&out).unwrap();
    }
}
