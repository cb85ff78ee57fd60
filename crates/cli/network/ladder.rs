//! `sumito ladder` for a network player (arguments and the ladder itself:
//! `sumito_cli::commands::ladder`), with the network players registered.

use sumito_cli::commands::ladder::Args;

pub fn run(args: Args) -> anyhow::Result<()> {
    sumito_cli::commands::ladder::run(args, &super::arena::registry()?)
}
