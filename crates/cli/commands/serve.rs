//! `sumito serve`: play and analysis in the browser. With a model (the
//! default: the shipped one) `sumito-torch` serves it (`network/serve.rs`);
//! with `--no-model` the classical players are served here.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use clap::Args as ClapArgs;
use sumito_serve::{Models, ServeOptions, serve_blocking};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// A model bundle to play and analyse with: a folder, or a name under
    /// models/ (or $SUMITO_MODELS); default: the shipped model. Repeatable:
    /// the page offers each model on the layouts it plays (e.g. `--model
    /// quick --model three-player`).
    #[arg(long, value_name = "MODEL", conflicts_with = "no_model")]
    pub model: Vec<std::path::PathBuf>,
    /// Serve the classical players only (no libtorch is loaded).
    #[arg(long)]
    pub no_model: bool,
    /// The address to listen on; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The port (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Searches (players' moves and analyses) running at once, all pages together.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub max_searches: u16,
    /// Pages (browser tabs) open at once.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub max_pages: u16,
    /// TCP connections open at once; silent ones make room for new ones.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u16).range(4..=4096))]
    pub max_connections: u16,
    /// Memory the pages' players may hold together, in megabytes (tables of
    /// the alpha-beta players, the model's search trees).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(64..=1_048_576))]
    pub memory_mb: u32,
    /// An origin besides the server's own whose pages may use it, e.g.
    /// http://board.lan:8080 when serving a local network with --host
    /// (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Evaluation weights (TOML) of the two-player alpha-beta players that
    /// pages seat; pages cannot name files themselves.
    // `--engine-weights`: the flag's older name, still read (a hidden
    // alias).
    #[arg(long, value_name = "FILE", alias = "engine-weights")]
    pub alphabeta_weights: Option<std::path::PathBuf>,
    /// Torch device of the model: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Seed of the players' own randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

impl Args {
    /// Whether a model is served (then `sumito-torch` runs the command).
    pub fn needs_network(&self) -> bool {
        !self.no_model
    }

    /// The server's options.
    pub fn options(&self) -> ServeOptions {
        ServeOptions {
            address: SocketAddr::new(self.host, self.port),
            max_searches: usize::from(self.max_searches),
            max_pages: usize::from(self.max_pages),
            max_connections: usize::from(self.max_connections),
            memory_mb: self.memory_mb,
            allowed_origins: self.allow_origins.clone(),
            alphabeta_weights: self.alphabeta_weights.clone(),
            seed: self.seed,
        }
    }
}

/// Serves the classical players.
pub fn run(args: Args) -> anyhow::Result<()> {
    serve_blocking(args.options(), Arc::new(Models::none()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn the_alphabeta_weights_are_read_under_the_flags_older_name_too() {
        for flag in ["--alphabeta-weights", "--engine-weights"] {
            let serve = Serve::try_parse_from(["serve", "--no-model", flag, "w.toml"]).unwrap();
            assert_eq!(
                serve.args.options().alphabeta_weights.as_deref(),
                Some(std::path::Path::new("w.toml")),
                "{flag}"
            );
        }
    }
}
