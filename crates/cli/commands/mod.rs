//! One module per subcommand, with its arguments. The commands that need no
//! network run here; the network ones run in `sumito-torch` (`network/`).

pub mod analyze;
pub mod arena;
pub mod bench;
pub mod curve;
pub mod export;
pub mod ladder;
pub mod moves;
pub mod perft;
pub mod play;
pub mod render;
pub mod selfplay;
pub mod serve;
/// Not a subcommand: the --fen/--record arguments of analyze and render.
pub mod source;
pub mod train;
