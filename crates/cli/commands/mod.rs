//! One module per subcommand.

pub mod analyze;
pub mod arena;
pub mod bench;
pub mod evaluate;
pub mod export;
pub mod moves;
pub mod perft;
pub mod play;
pub mod render;
pub mod selfplay;
pub mod train;
pub mod trainer;
