//! One module per subcommand.

pub mod arena;
pub mod bench;
pub mod evaluate;
pub mod moves;
pub mod perft;
pub mod selfplay;
pub mod train;
pub mod trainer;
