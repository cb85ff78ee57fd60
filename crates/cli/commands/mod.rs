//! One module per subcommand.

pub mod analyze;
pub mod arena;
pub mod bench;
pub mod evaluate;
pub mod export;
/// Not a subcommand: Ctrl-C handling of the long-running commands.
pub mod interrupt;
pub mod moves;
pub mod perft;
pub mod play;
pub mod render;
pub mod selfplay;
/// Not a subcommand: the --fen/--record arguments of analyze and render.
pub mod source;
pub mod train;
pub mod trainer;
