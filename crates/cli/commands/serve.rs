//! `sumito serve`: play and analysis in the browser. With a model (the
//! default: the shipped one) `sumito-torch` serves it (`network/serve.rs`);
//! with `--no-model` the classical engines are served here.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use clap::Args as ClapArgs;
use sumito_serve::{NoModel, ServeOptions, serve_blocking};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The model bundle to play and analyse with: a folder, or a name under
    /// models/ (or $SUMITO_MODELS); default: the shipped model.
    #[arg(long, conflicts_with = "no_model")]
    pub model: Option<std::path::PathBuf>,
    /// Serve the classical engines only (no libtorch is loaded).
    #[arg(long)]
    pub no_model: bool,
    /// The address to listen on; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The port (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Searches (engine moves and analyses) running at once, all pages together.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub max_searches: u16,
    /// Torch device of the model: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Seed of the engines' own randomness.
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
            seed: self.seed,
        }
    }
}

/// Serves the classical engines.
pub fn run(args: Args) -> anyhow::Result<()> {
    serve_blocking(args.options(), Arc::new(NoModel))?;
    Ok(())
}
