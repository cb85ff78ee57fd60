//! `sumito json-analysis`: the query server of
//! `sumito_cli::commands::json_analysis` with a model bundle's network: one
//! inference service, whose batches gather the leaves of every position
//! being searched, one search per thread on it, and one cache of its
//! evaluations shared by them all.

use std::hash::Hash;
use std::io::{BufReader, stdin, stdout};
use std::sync::Arc;

use anyhow::Context;
use serde_json::{Value, json};
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_bundle::bundle::ModelBundle;
use sumito_cli::commands::command_board::{CommandBoard, first_layout, position_given, start_of};
use sumito_cli::commands::json_analysis::cache::{CachedEvaluator, EvaluationCache};
use sumito_cli::commands::json_analysis::{Analyst, Args, QueryGame, QueryServer, answer_queries};
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_game::{GameKind, with_board};
use sumito_mcts::Evaluator;
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
    // The one choice of game: the model's.
    with_board!(bundle.meta.kind(), serve_queries(&args, &bundle, &service))
}

/// What `query_models` says of the loaded model: its name, game, rules
/// and generation.
fn model_description(bundle: &ModelBundle, table: &RulesTable) -> anyhow::Result<Value> {
    let meta = &bundle.meta;
    Ok(json!([{
        "name": meta.name,
        "game": match meta.kind() {
            GameKind::TwoPlayer => "two-player",
            GameKind::General => "general",
        },
        "rules": serde_json::to_value(table).context("writing the model's rules")?,
        "rules_text": table.describe(),
        "generation": meta.training.generation,
        "encoding_version": meta.encoding_version,
        "parameters": meta.parameters,
        "score_utility": meta.score_utility,
    }]))
}

/// The queries of standard input answered on standard output, with
/// `--threads` searches of the model's game `B` on `service`, every
/// position under the rules it learned.
fn serve_queries<B: NetBoard + CommandBoard>(
    args: &Args,
    bundle: &ModelBundle,
    service: &InferenceService,
) -> anyhow::Result<()>
where
    B::Searched: Hash + Eq,
{
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
    let cache = (args.cache > 0).then(|| Arc::new(EvaluationCache::new(args.cache as usize)));
    // The values every front end gives the model: its score utility.
    let evaluator = || -> Box<dyn Evaluator<B::Searched>> {
        let client = service
            .client()
            .with_score_utility(bundle.meta.score_utility);
        match &cache {
            Some(cache) => Box::new(CachedEvaluator {
                cache: Arc::clone(cache),
                inner: Box::new(client),
            }),
            None => Box::new(client),
        }
    };
    let make_analyst = || -> anyhow::Result<Analyst<B>> {
        Ok(Analyst {
            search: NetworkSearch::new(
                name.clone(),
                evaluator(),
                SearchBudget::Simulations(args.simulations),
                0,
            ),
            evaluator: evaluator(),
        })
    };
    let clear_cache = || cache.as_ref().map_or(0, |cache| cache.clear());
    let server = QueryServer {
        game,
        default_visits: args.simulations,
        threads: args.threads as usize,
        make_analyst: &make_analyst,
        models: model_description(bundle, &table)?,
        clear_cache: &clear_cache,
    };
    answer_queries(BufReader::new(stdin()), stdout().lock(), &server)
}
