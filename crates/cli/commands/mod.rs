//! One module per subcommand.

pub mod arena;
pub mod bench;
pub mod moves;
pub mod perft;
