//! The `--fen` / `--record` pair shared by `sumito analyse` and `sumito
//! render`: what the command works on, one position given as text or every
//! position of a recorded game, never both. The commands flatten
//! [`SourceArgs`] into their own arguments and adjust it to their needs:
//! `render` makes the group required (`mut_group("source", …)`), and each
//! command words the help of the two flags for what it does with them
//! (`mut_arg`).

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use sumito_engine::{Position, quote_position_text};
use sumito_play::record::GameRecord;

#[derive(Debug, ClapArgs)]
#[group(id = "source", multiple = false)]
pub struct SourceArgs {
    /// A position in the text format, e.g.
    /// "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0".
    #[arg(long)]
    pub fen: Option<String>,
    /// A game record (as written by `sumito play`'s save or by matches).
    #[arg(long)]
    pub record: Option<PathBuf>,
}

/// What the command line names, read and checked.
#[derive(Debug)]
pub enum Source<'a> {
    /// `--fen`: the position and the text it was read from.
    Position { position: Position, text: &'a str },
    /// `--record`: the game and the file it was read from.
    Record {
        record: GameRecord<Position>,
        path: &'a Path,
    },
    /// Neither flag (where the group is optional; the command decides).
    Neither,
}

impl SourceArgs {
    /// Reads the position text or the game record named on the command
    /// line; errors name the flag and what is wrong.
    pub fn read(&self) -> anyhow::Result<Source<'_>> {
        if let Some(text) = &self.fen {
            // The text is quoted back cut short: it may be huge.
            let position = Position::from_fen(text).map_err(|err| {
                let quoted = quote_position_text(text, err.column);
                anyhow::Error::new(err)
                    .context(format!("reading the position given by --fen {quoted}"))
            })?;
            return Ok(Source::Position { position, text });
        }
        if let Some(path) = &self.record {
            // The record's own errors name the file and the line.
            let record = GameRecord::read(path)?;
            return Ok(Source::Record { record, path });
        }
        Ok(Source::Neither)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Debug, Parser)]
    struct Analyse {
        #[command(flatten)]
        args: crate::commands::analyse::Args,
    }

    #[derive(Debug, Parser)]
    struct Render {
        #[command(flatten)]
        args: crate::commands::render::Args,
    }

    #[derive(Debug, Parser)]
    struct Bare {
        #[command(flatten)]
        source: SourceArgs,
    }

    #[test]
    fn each_command_keeps_its_own_group_rule_and_help() {
        Analyse::command().debug_assert();
        Render::command().debug_assert();
        assert!(Analyse::try_parse_from(["analyse"]).is_ok());
        let missing = Render::try_parse_from(["render", "--out", "x.svg"]).unwrap_err();
        assert!(missing.to_string().contains("--fen"), "{missing}");
        for command in ["analyse", "render"] {
            let both = [command, "--fen", "9/9 b 0 0", "--record", "game.txt"];
            let error = if command == "analyse" {
                Analyse::try_parse_from(both).unwrap_err()
            } else {
                Render::try_parse_from(both.into_iter().chain(["--out", "x.svg"])).unwrap_err()
            };
            assert!(error.to_string().contains("cannot be used with"), "{error}");
        }
        let analyse_help = Analyse::command().render_help().to_string();
        assert!(
            analyse_help.contains("default: the start of"),
            "{analyse_help}"
        );
        let render_help = Render::command().render_help().to_string();
        assert!(render_help.contains("OUT-000.svg"), "{render_help}");
    }

    #[test]
    fn reading_names_the_flag_or_says_neither() {
        let read = |args: &[&str]| {
            let bare = Bare::try_parse_from([&["bare"], args].concat()).unwrap();
            match bare.source.read() {
                Ok(Source::Position { position, text }) => Ok(format!("{text} -> {position}")),
                Ok(Source::Record { path, .. }) => Ok(path.display().to_string()),
                Ok(Source::Neither) => Ok("neither".to_string()),
                Err(error) => Err(format!("{error:#}")),
            }
        };
        assert_eq!(read(&[]), Ok("neither".to_string()));
        assert_eq!(
            read(&["--fen", "5/6/7/8/9/8/7/6/5 w 0 0"]),
            Ok("5/6/7/8/9/8/7/6/5 w 0 0 -> 5/6/7/8/9/8/7/6/5 w 0 0".to_string())
        );
        let bad = read(&["--fen", "9/9 b 0 0"]).unwrap_err();
        assert!(bad.contains("--fen") && bad.contains("2 rows"), "{bad}");
        let missing = read(&["--record", "/nonexistent/sumito-game.txt"]).unwrap_err();
        assert!(missing.contains("sumito-game.txt"), "{missing}");
    }
}
