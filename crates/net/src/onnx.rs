//! Export as ONNX: the network written as an ONNX graph (opset
//! [`ONNX_OPSET`]) from its trained weights, for runtimes without libtorch
//! (ONNX Runtime in Python, C++, C# or a browser; tract in Rust), with the
//! model's description in the file's metadata properties, a stated
//! contract as KataGo's models have (`docs/onnx.md` is its reference).
//!
//! The graph is built here node by node from the variables of the network
//! (the names its checkpoints use), as the forward pass of
//! [`crate::model`] computes it: convolutions with their batch norms (in
//! evaluation mode, as `BatchNormalization` nodes, which runtimes fold
//! themselves), ReLU and the hexagon's mask after every layer, the
//! residual additions, the heads' mean and max pooling, the policy's gather
//! from the per-cell logits into the action space. Tracing through
//! libtorch's own exporter is not available from Rust; writing the graph
//! keeps the export free of Python.
//!
//! One input, `planes`: float32 `[batch, planes, 9, 9]`, the encoding of
//! [`crate::encoding`] (or [`crate::general_encoding`]) whose version the
//! metadata names. Three outputs: `policy` (logits, network frame),
//! `value` (logits) and `marbles` (the auxiliary prediction, already
//! squashed), as [`metadata`] describes for each game.

use std::collections::HashMap;
use std::path::Path;

use prost::Message;
use sumito_engine::general::MAX_SEATS;
use sumito_engine::rules_table::RulesTable;
use sumito_game::GameKind;
use sumito_mcts::MAX_SIDES;
use tch::{Kind, Tensor};

use crate::config::ModelConfig;
use crate::encoding::GRID;
use crate::fsutil::write_atomically;
use crate::model::{BATCH_NORM_EPS, OutputColumns, PolicyValueNet, board_mask};
use crate::onnx_proto::{
    ATTRIBUTE_FLOAT, ATTRIBUTE_INT, ATTRIBUTE_INTS, AttributeProto, DATA_FLOAT, DATA_INT64,
    Dimension, DimensionValue, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TensorTypeProto, TypeProto,
    ValueInfoProto,
};
use crate::{CELL_COUNT, NetError};

pub use sumito_game::formats::ONNX_FORMAT;

/// The ONNX operator set the graph uses: 17 (ONNX 1.12, 2022), which every
/// ONNX Runtime since 1.12 and tract read.
pub const ONNX_OPSET: i64 = 17;
/// The ONNX IR version of opset 17's release.
const IR_VERSION: i64 = 8;
/// The graph's input.
pub const INPUT_NAME: &str = "planes";
/// The graph's outputs, in order.
pub const OUTPUT_NAMES: [&str; 3] = ["policy", "value", "marbles"];

/// What the model's metadata says that the network itself does not know.
#[derive(Clone, Debug, PartialEq)]
pub struct OnnxDescription {
    /// The model's name (its bundle's folder).
    pub name: String,
    /// Optimiser steps of its weights.
    pub training_step: u64,
    /// The rules it was trained under, as a `[rules]` table.
    pub rules: RulesTable,
    /// The weight of the marble prediction in the values it plays with
    /// (`bundle.json`'s `score_utility`).
    pub score_utility: f32,
}

impl PolicyValueNet {
    /// Writes the network as ONNX to `path`, atomically.
    pub fn export_onnx(&self, path: &Path, description: &OnnxDescription) -> Result<(), NetError> {
        let bytes = self.onnx_model(description)?.encode_to_vec();
        write_atomically(path, &bytes)
    }

    /// The network as an ONNX model. Refuses a network prepared for
    /// inference (its batch norms are folded into weights the variables
    /// do not hold, maybe in another number format).
    pub(crate) fn onnx_model(&self, description: &OnnxDescription) -> Result<ModelProto, NetError> {
        if self.is_folded() {
            return Err(NetError::FoldedNetwork);
        }
        let graph = GraphWriter::new(self).network()?;
        Ok(ModelProto {
            ir_version: IR_VERSION,
            producer_name: "sumito".to_owned(),
            producer_version: env!("CARGO_PKG_VERSION").to_owned(),
            domain: "sumito".to_owned(),
            model_version: 0,
            doc_string: format!(
                "Sumito's policy-value network for {} (metadata: sumito.*; docs/onnx.md)",
                self.game().name()
            ),
            graph: Some(graph),
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: ONNX_OPSET,
            }],
            metadata_props: metadata(self.config(), description)
                .into_iter()
                .map(|(key, value)| StringStringEntryProto { key, value })
                .collect(),
        })
    }
}

/// The metadata properties of a model: every key starts with `sumito.`,
/// every value is text (numbers in decimal, tables as JSON). The contract
/// (`docs/onnx.md` lists it for programs that read it):
///
/// | key | value |
/// |---|---|
/// | `sumito.format` | [`ONNX_FORMAT`]: a change to any key's meaning is a new one |
/// | `sumito.name`, `sumito.training_step` | the model and its optimiser steps |
/// | `sumito.game` | `two-player` or `general` (variants, 3 to 6 players) |
/// | `sumito.encoding_version` | the version of the input planes and policy layout |
/// | `sumito.input.name`, `.dtype`, `.planes`, `.height`, `.width`, `.layout` | the input tensor |
/// | `sumito.policy.length`, `.meaning` | the `policy` output |
/// | `sumito.value.length`, `.meaning` | the `value` output |
/// | `sumito.marbles.length`, `.meaning`, `.range` | the `marbles` output |
/// | `sumito.rules` | the `[rules]` table it was trained under, as JSON |
/// | `sumito.score_utility` | the weight of `marbles` in the values it plays with |
/// | `sumito.architecture` | `[net.model]` of its run, as JSON |
pub fn metadata(config: &ModelConfig, description: &OnnxDescription) -> Vec<(String, String)> {
    let game = config.game;
    let shape = config.shape();
    let planes = shape.input_planes();
    let (game_name, policy, value, marbles, range) = match game {
        GameKind::TwoPlayer => (
            "two-player",
            "logits of the 1734 moves, unmasked: the entry of engine action a (sumito's \
             action index) is a itself when Black moves and the action turned by 180 degrees \
             when White moves (the network sees the board from the mover's side); softmax over \
             the legal moves' entries gives the prior"
                .to_owned(),
            "logits of win, draw, loss for the side to move; softmax gives their probabilities"
                .to_owned(),
            "the predicted final marble difference for the side to move (marbles it pushes off \
             minus marbles it loses) / 6, through tanh"
                .to_owned(),
            "[-1, 1]",
        ),
        GameKind::General => (
            "general",
            format!(
                "logits of the {} moves of every kind (groups, then shield moves, then \
                 rotations), unmasked: the entry of a move is the index of its image in the \
                 network's frame (the board turned by 180 degrees when the second of two seats \
                 moves, as it is otherwise); softmax over the legal moves' entries gives the prior",
                game.policy_len()
            ),
            format!(
                "logits: entry k < {MAX_SIDES} a win of the side that moves k sides after the \
                 mover's side, entry {MAX_SIDES} a draw; softmax over the entries of the sides \
                 the game has and the draw gives their probabilities (the others are unused)"
            ),
            format!(
                "for each relative seat k < {MAX_SEATS} (the seat that moves k turns after the \
                 mover), the marbles it will have pushed off at the end / 6, through a sigmoid"
            ),
            "[0, 1]",
        ),
    };
    let frame = match game {
        GameKind::TwoPlayer => {
            "the board turned by 180 degrees when White moves, so that the mover's marbles \
             come first and start at the bottom"
        }
        GameKind::General => {
            "seats relative to the mover (relative seat k moves k turns after it), the board \
             turned by 180 degrees when the second of two seats moves, as it is otherwise"
        }
    };
    let rules = serde_json::to_string(&description.rules).expect("a rules table serialises");
    let architecture = serde_json::to_string(config).expect("a model config serialises");
    [
        ("format", ONNX_FORMAT.to_owned()),
        ("name", description.name.clone()),
        ("training_step", description.training_step.to_string()),
        ("game", game_name.to_owned()),
        ("encoding_version", shape.encoding_version().to_string()),
        ("input.name", INPUT_NAME.to_owned()),
        ("input.dtype", "float32".to_owned()),
        ("input.planes", planes.to_string()),
        ("input.height", GRID.to_string()),
        ("input.width", GRID.to_string()),
        (
            "input.layout",
            format!(
                "[batch, {planes}, {GRID}, {GRID}]: plane, then grid row = the cell's row \
                 (0 for A ... 8 for I), then grid column = its diagonal - 1; the 20 grid points \
                 off the hexagon are 0 in every plane; {frame}"
            ),
        ),
        ("policy.length", game.policy_len().to_string()),
        ("policy.meaning", policy),
        ("value.length", game.value_len().to_string()),
        ("value.meaning", value),
        ("marbles.length", game.aux_len().to_string()),
        ("marbles.meaning", marbles),
        ("marbles.range", range.to_owned()),
        ("rules", rules),
        ("score_utility", description.score_utility.to_string()),
        ("architecture", architecture),
    ]
    .into_iter()
    .map(|(key, value)| (format!("sumito.{key}"), value))
    .collect()
}

/// Builds the graph: nodes in the order the forward pass runs them, each
/// variable of the network once as an initializer.
struct GraphWriter<'a> {
    network: &'a PolicyValueNet,
    variables: HashMap<String, Tensor>,
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
}

impl<'a> GraphWriter<'a> {
    fn new(network: &'a PolicyValueNet) -> GraphWriter<'a> {
        GraphWriter {
            network,
            variables: network.vars().variables(),
            nodes: Vec::new(),
            initializers: Vec::new(),
        }
    }

    /// The variable `name` of the network as an initializer of that name.
    fn variable(&mut self, name: &str) -> Result<String, NetError> {
        let tensor = self
            .variables
            .get(name)
            .ok_or_else(|| NetError::Checkpoint {
                path: name.into(),
                problem: "the network has no such variable to export".to_owned(),
            })?;
        let dims = tensor.size();
        let values = Vec::<f32>::try_from(tensor.to_kind(Kind::Float).flatten(0, -1).contiguous())
            .map_err(NetError::torch(format!("reading {name} for ONNX")))?;
        Ok(self.floats(name, &dims, &values))
    }

    fn floats(&mut self, name: &str, dims: &[i64], values: &[f32]) -> String {
        self.initializers.push(TensorProto {
            dims: dims.to_vec(),
            data_type: DATA_FLOAT,
            name: name.to_owned(),
            raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        name.to_owned()
    }

    fn integers(&mut self, name: &str, values: &[i64]) -> String {
        self.initializers.push(TensorProto {
            dims: vec![values.len() as i64],
            data_type: DATA_INT64,
            name: name.to_owned(),
            raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        name.to_owned()
    }

    /// Appends a node; its output is named after the node (`output`).
    fn node(
        &mut self,
        op: &str,
        output: &str,
        inputs: &[&str],
        attributes: Vec<AttributeProto>,
    ) -> String {
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|&name| name.to_owned()).collect(),
            output: vec![output.to_owned()],
            name: output.to_owned(),
            op_type: op.to_owned(),
            attribute: attributes,
        });
        output.to_owned()
    }

    /// A convolution (no bias) and its batch norm, variables under `prefix`.
    fn conv_bn(&mut self, prefix: &str, input: &str) -> Result<String, NetError> {
        let weight = self.variable(&format!("{prefix}.conv.weight"))?;
        let kernel = self.variables[&weight].size()[2];
        let pad = kernel / 2;
        let conv = self.node(
            "Conv",
            &format!("{prefix}.conv"),
            &[input, &weight],
            vec![
                ints("kernel_shape", &[kernel, kernel]),
                ints("pads", &[pad; 4]),
            ],
        );
        let [scale, bias, mean, var] = ["weight", "bias", "running_mean", "running_var"]
            .map(|part| self.variable(&format!("{prefix}.norm.{part}")));
        Ok(self.node(
            "BatchNormalization",
            &format!("{prefix}.norm"),
            &[&conv, &scale?, &bias?, &mean?, &var?],
            vec![float("epsilon", BATCH_NORM_EPS as f32)],
        ))
    }

    /// ReLU, then the grid points off the hexagon set to 0.
    fn activate(&mut self, input: &str) -> String {
        let relu = self.node("Relu", &format!("{input}.relu"), &[input], vec![]);
        self.node("Mul", &format!("{input}.act"), &[&relu, "mask"], vec![])
    }

    /// Mean over the hexagon's cells and max over the grid, per channel:
    /// `[batch, 2 * channels]`. The input is masked and non-negative, so
    /// the grid's max is the hexagon's.
    fn pool(&mut self, input: &str) -> String {
        let sum = self.node(
            "ReduceSum",
            &format!("{input}.sum"),
            &[input, "pool_axes"],
            vec![int("keepdims", 0)],
        );
        let mean = self.node("Div", &format!("{input}.mean"), &[&sum, "cells"], vec![]);
        let max = self.node(
            "ReduceMax",
            &format!("{input}.max"),
            &[input],
            vec![ints("axes", &[2, 3]), int("keepdims", 0)],
        );
        self.node(
            "Concat",
            &format!("{input}.pool"),
            &[&mean, &max],
            vec![int("axis", 1)],
        )
    }

    /// A linear layer (`weight` `[out, in]`, `bias`) under `prefix`.
    fn linear(&mut self, prefix: &str, input: &str, output: &str) -> Result<String, NetError> {
        let weight = self.variable(&format!("{prefix}.weight"))?;
        let bias = self.variable(&format!("{prefix}.bias"))?;
        Ok(self.node(
            "Gemm",
            output,
            &[input, &weight, &bias],
            vec![int("transB", 1)],
        ))
    }

    /// The whole forward pass as a graph.
    fn network(mut self) -> Result<GraphProto, NetError> {
        let config = *self.network.config();
        let game = config.game;
        let grid = GRID as i64;
        self.floats("mask", &[1, 1, grid, grid], &board_mask());
        self.integers("pool_axes", &[2, 3]);
        self.floats("cells", &[], &[CELL_COUNT as f32]);
        self.integers("head_axes", &[2, 3]);
        self.integers("gather_index", game.policy_gather_index());

        let stem = self.conv_bn("stem", INPUT_NAME)?;
        let mut trunk = self.activate(&stem);
        for block in 0..config.blocks {
            let first = self.conv_bn(&format!("blocks.{block}.first"), &trunk)?;
            let first = self.activate(&first);
            let second = self.conv_bn(&format!("blocks.{block}.second"), &first)?;
            let sum = self.node(
                "Add",
                &format!("blocks.{block}.sum"),
                &[&trunk, &second],
                vec![],
            );
            trunk = self.activate(&sum);
        }

        let pool = self.conv_bn("policy.pool", &trunk)?;
        let pool = self.activate(&pool);
        let pooled = self.pool(&pool);
        let bias = self.linear("policy.pool_bias", &pooled, "policy.pool_bias")?;
        let bias = self.node(
            "Unsqueeze",
            "policy.pool_bias.spatial",
            &[&bias, "head_axes"],
            vec![],
        );
        let main = self.conv_bn("policy.main", &trunk)?;
        let biased = self.node("Add", "policy.biased", &[&main, &bias], vec![]);
        let features = self.activate(&biased);
        let weight = self.variable("policy.out.weight")?;
        let out_bias = self.variable("policy.out.bias")?;
        let cells = self.node(
            "Conv",
            "policy.out",
            &[&features, &weight, &out_bias],
            vec![ints("kernel_shape", &[1, 1])],
        );
        let flat = self.node("Flatten", "policy.flat", &[&cells], vec![int("axis", 1)]);
        self.node(
            "Gather",
            OUTPUT_NAMES[0],
            &[&flat, "gather_index"],
            vec![int("axis", 1)],
        );

        let value = self.conv_bn("value.main", &trunk)?;
        let value = self.activate(&value);
        let pooled = self.pool(&value);
        let hidden = self.linear("value.hidden", &pooled, "value.hidden")?;
        let hidden = self.node("Relu", "value.hidden.relu", &[&hidden], vec![]);
        self.linear("value.wdl", &hidden, OUTPUT_NAMES[1])?;
        let aux = self.linear("value.aux", &hidden, "value.aux")?;
        let squash = match game {
            GameKind::TwoPlayer => "Tanh",
            GameKind::General => "Sigmoid",
        };
        self.node(squash, OUTPUT_NAMES[2], &[&aux], vec![]);

        let planes = config.shape().input_planes() as i64;
        Ok(GraphProto {
            node: self.nodes,
            name: "sumito".to_owned(),
            initializer: self.initializers,
            doc_string: String::new(),
            input: vec![tensor_info(
                INPUT_NAME,
                &[None, Some(planes), Some(grid), Some(grid)],
                "the encoded positions (sumito.input.*)",
            )],
            output: vec![
                tensor_info(
                    OUTPUT_NAMES[0],
                    &[None, Some(game.policy_len() as i64)],
                    "policy logits (sumito.policy.meaning)",
                ),
                tensor_info(
                    OUTPUT_NAMES[1],
                    &[None, Some(game.value_len() as i64)],
                    "value logits (sumito.value.meaning)",
                ),
                tensor_info(
                    OUTPUT_NAMES[2],
                    &[None, Some(game.aux_len() as i64)],
                    "marble prediction (sumito.marbles.meaning)",
                ),
            ],
        })
    }
}

/// A float32 tensor's name, shape (`None`: the batch, named `batch`) and
/// description.
fn tensor_info(name: &str, dims: &[Option<i64>], doc: &str) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|size| Dimension {
            value: Some(match size {
                Some(size) => DimensionValue::Fixed(*size),
                None => DimensionValue::Named("batch".to_owned()),
            }),
        })
        .collect();
    ValueInfoProto {
        name: name.to_owned(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: DATA_FLOAT,
                shape: Some(TensorShapeProto { dim }),
            }),
        }),
        doc_string: doc.to_owned(),
    }
}

fn int(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: name.to_owned(),
        i: Some(value),
        r#type: ATTRIBUTE_INT,
        ..Default::default()
    }
}

fn ints(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.to_owned(),
        ints: values.to_vec(),
        r#type: ATTRIBUTE_INTS,
        ..Default::default()
    }
}

fn float(name: &str, value: f32) -> AttributeProto {
    AttributeProto {
        name: name.to_owned(),
        f: Some(value),
        r#type: ATTRIBUTE_FLOAT,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::config::Precision;
    use crate::model::tests::tiny_config;
    use sumito_engine::rules_table::Targets;

    fn description() -> OnnxDescription {
        OnnxDescription {
            name: "tiny".to_owned(),
            training_step: 42,
            rules: RulesTable {
                marbles_to_win: Some(Targets::All(6)),
                max_plies: Some(200),
                ..RulesTable::default()
            },
            score_utility: 0.25,
        }
    }

    fn config(game: GameKind) -> ModelConfig {
        ModelConfig {
            game,
            ..tiny_config()
        }
    }

    #[test]
    fn the_graph_uses_every_variable_once_and_defines_every_tensor_before_use() {
        for game in GameKind::ALL {
            let net = PolicyValueNet::new(&config(game), tch::Device::Cpu).unwrap();
            let model = net.onnx_model(&description()).unwrap();
            let graph = model.graph.as_ref().unwrap();
            let mut defined: HashSet<&str> = HashSet::from([INPUT_NAME]);
            for tensor in &graph.initializer {
                assert!(defined.insert(&tensor.name), "{} twice", tensor.name);
                let elements: i64 = tensor.dims.iter().product();
                let width = if tensor.data_type == DATA_INT64 { 8 } else { 4 };
                assert_eq!(
                    tensor.raw_data.len() as i64,
                    elements * width,
                    "{}",
                    tensor.name
                );
            }
            // The network's every variable is a weight of the graph.
            for name in net.vars().variables().keys() {
                assert!(defined.contains(name.as_str()), "{name} is not exported");
            }
            for node in &graph.node {
                for input in &node.input {
                    assert!(
                        defined.contains(input.as_str()),
                        "{} reads {input} before it is made",
                        node.name
                    );
                }
                for output in &node.output {
                    assert!(defined.insert(output), "{output} made twice");
                }
            }
            for output in OUTPUT_NAMES {
                assert!(defined.contains(output), "no node makes {output}");
            }
            let names: Vec<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
            assert_eq!(names, OUTPUT_NAMES);
            assert_eq!(model.opset_import[0].version, ONNX_OPSET);
            // The file reads back as written.
            let bytes = model.encode_to_vec();
            assert_eq!(ModelProto::decode(bytes.as_slice()).unwrap(), model);
        }
    }

    #[test]
    fn the_metadata_states_the_contract() {
        for game in GameKind::ALL {
            let config = config(game);
            let net = PolicyValueNet::new(&config, tch::Device::Cpu).unwrap();
            let model = net.onnx_model(&description()).unwrap();
            let properties: HashMap<&str, &str> = model
                .metadata_props
                .iter()
                .map(|entry| (entry.key.as_str(), entry.value.as_str()))
                .collect();
            assert_eq!(properties.len(), model.metadata_props.len(), "unique keys");
            assert_eq!(properties["sumito.format"], ONNX_FORMAT);
            assert_eq!(properties["sumito.name"], "tiny");
            assert_eq!(properties["sumito.training_step"], "42");
            assert_eq!(
                properties["sumito.encoding_version"],
                config.shape().encoding_version().to_string()
            );
            assert_eq!(
                properties["sumito.input.planes"],
                config.shape().input_planes().to_string()
            );
            assert_eq!(properties["sumito.input.dtype"], "float32");
            assert_eq!(properties["sumito.input.height"], "9");
            assert_eq!(
                properties["sumito.policy.length"],
                game.policy_len().to_string()
            );
            assert_eq!(
                properties["sumito.value.length"],
                game.value_len().to_string()
            );
            assert_eq!(
                properties["sumito.marbles.length"],
                game.aux_len().to_string()
            );
            assert_eq!(properties["sumito.score_utility"], "0.25");
            let rules: RulesTable = serde_json::from_str(properties["sumito.rules"]).unwrap();
            assert_eq!(rules, description().rules);
            let architecture: ModelConfig =
                serde_json::from_str(properties["sumito.architecture"]).unwrap();
            assert_eq!(architecture, config);
            let expected_game = match game {
                GameKind::TwoPlayer => "two-player",
                GameKind::General => "general",
            };
            assert_eq!(properties["sumito.game"], expected_game);
            assert!(
                model
                    .metadata_props
                    .iter()
                    .all(|entry| entry.key.starts_with("sumito."))
            );
        }
    }

    #[test]
    fn a_network_prepared_for_inference_is_refused() {
        let net = PolicyValueNet::new(&tiny_config(), tch::Device::Cpu)
            .unwrap()
            .for_inference(Precision::F32);
        let dir = crate::fsutil::fresh_test_path("onnx-folded");
        let refused = net.export_onnx(&dir.join("model.onnx"), &description());
        assert!(
            matches!(refused, Err(NetError::FoldedNetwork)),
            "{refused:?}"
        );
        assert!(!dir.exists(), "nothing is written");
    }
}
