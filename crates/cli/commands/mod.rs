//! One module per subcommand, with its arguments. The commands that need no
//! network run here; the network ones run in `sumito-torch` (`network/`).

pub mod analyse;
pub mod arena;
pub mod bench;
/// Not a subcommand: the game a command plays, chosen once, and its rules.
pub mod command_board;
pub mod curve;
pub mod export;
pub mod json_analysis;
pub mod ladder;
/// Not a subcommand: how arena and ladder watch and stop their matches.
pub mod match_observer;
pub mod moves;
pub mod perft;
pub mod play;
pub mod render;
pub mod review;
pub mod selfplay;
pub mod serve;
/// Not a subcommand: the --fen/--record arguments of analyse and render.
pub mod source;
pub mod train;

use sumito_store::Location;

/// Reads `--run-dir`: a folder, or `s3://BUCKET/PREFIX` for a run on an
/// S3-compatible object store (README, "A run on object storage").
pub fn run_location(text: &str) -> Result<Location, String> {
    Location::parse(text)
        .map_err(|err| err.to_string())
        .and_then(|location| match location {
            Location::Memory(_) => Err(format!(
                "{text}: memory:// stores live inside one process and hold no run"
            )),
            location => Ok(location),
        })
}
