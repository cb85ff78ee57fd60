//! `sumito json-analysis`: the query loop of
//! `sumito_cli::commands::json_analysis` with a model bundle's network: one
//! inference service, whose batches gather the leaves of every query being
//! searched, and one search per thread on it.

use std::io::{BufReader, stdin, stdout};

use anyhow::Context;
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::command_board::{CommandBoard, first_layout, position_given, start_of};
use sumito_cli::commands::json_analysis::{Args, QueryGame, answer_queries};
use sumito_engine::general::GeneralLayout;
use sumito_game::with_board;
use sumito_net::NetBoard;
use sumito_net::{DeviceSpec, InferenceConfig, InferenceService, SymmetryMode};

use super::model_game::model_table;
use super::play::{open_model, search_device};

pub fn run(args: Args) -> anyhow::Result<()> {
    let bundle = open_model(args.model.as_deref()).context("loading the model")?;
    let device = search_device(&args.device)?;
    let model = bundle.load_torchscript(device)?;
    let config = InferenceConfig {
        device: match device {
            sumito_net::Device::Cuda(index) => DeviceSpec::Cuda(index),
            _ => DeviceSpec::Cpu,
        },
        symmetry: SymmetryMode::None,
        ..InferenceConfig::default()
    };
    let service = InferenceService::start_replicas(vec![model], &config)
        .context("starting the network's inference service")?;
    eprintln!("{}", bundle.summary());
    let threads = args.threads as usize;
    // The one choice of game: the model's.
    with_board!(
        bundle.meta.kind(),
        serve_queries(&args, &bundle, &service, threads)
    )
}

/// The queries of standard input answered on standard output, with `threads` searches of
/// the model's game `B` on `service`, every position under the rules it
/// learned.
fn serve_queries<B: NetBoard + CommandBoard>(
    args: &Args,
    bundle: &ModelBundle,
    service: &InferenceService,
    threads: usize,
) -> anyhow::Result<()> {
    let table = model_table::<B>(bundle)?;
    let read_layout = |name: &str| {
        let layout = GeneralLayout::from_name(name).map_err(|err| err.to_string())?;
        start_of::<B>(layout, &table).map_err(|err| format!("{err:#}"))
    };
    let read_position =
        |text: &str| position_given::<B>(text, &table).map_err(|err| format!("{err:#}"));
    let game = QueryGame {
        start: start_of(first_layout(&bundle.meta.name, &table)?, &table)?,
        read_position: &read_position,
        read_layout: &read_layout,
    };
    let name = format!(
        "{} (gen {})",
        bundle.meta.name, bundle.meta.training.generation
    );
    let make = || -> anyhow::Result<NetworkSearch<B>> {
        // The values every front end gives the model: its score utility.
        let client = service
            .client()
            .with_score_utility(bundle.meta.score_utility);
        Ok(NetworkSearch::new(
            name.clone(),
            Box::new(client),
            SearchBudget::Simulations(args.simulations),
            0,
        ))
    };
    let input = BufReader::new(stdin());
    answer_queries(
        input,
        stdout().lock(),
        &game,
        args.simulations,
        threads,
        &make,
    )
}
