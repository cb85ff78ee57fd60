//! Every file format the program writes and every version of it that is
//! still read, in one place (as KataGo's `modelversion.h`): a format
//! change is a new number here, a line saying what it changed, and the
//! reader that still takes the older ones. The crates that own each format
//! use these numbers; nothing else defines one.

/// The two-player network's input planes and policy layout
/// (`sumito_net::encoding`): the marbles, the side to move and the rules'
/// planes on the 9 × 9 grid, and the policy over it.
pub const ENCODING_VERSION: u32 = 1;
/// Version 2 of the two-player encoding: two more input planes, the
/// marbles each side can push off in one move (`[net.model]
/// push_off_planes`). Networks of version 1 are still read and played.
pub const PUSH_OFF_ENCODING_VERSION: u32 = 2;
/// The general game's input planes, policy layout and value sides
/// (`sumito_net::general_encoding`).
pub const GENERAL_ENCODING_VERSION: u32 = 1;

/// A network checkpoint's folder (`sumito_net::checkpoint`): weights and
/// optimiser state as safetensors, `meta.json`, `manifest.json` last.
pub const CHECKPOINT_FORMAT: u32 = 1;

/// The sidecar of an exported TorchScript module (`sumito_net::export`).
pub const EXPORT_FORMAT: &str = "sumito-torchscript-1";

/// An exported ONNX model (`sumito_net::onnx`): its metadata properties'
/// keys and their meaning (`sumito.format` holds this; `docs/onnx.md`).
pub const ONNX_FORMAT: &str = "sumito-onnx-1";

/// A model bundle's folder (`sumito_bundle::bundle`): `bundle.json` names
/// the format, and the version is bumped whenever the layout changes
/// incompatibly.
pub const BUNDLE_FORMAT: &str = "sumito-model-bundle";
pub const BUNDLE_VERSION: u32 = 1;

/// A run directory (`sumito_pipeline::rundir`): `run.json` names the
/// format, and the version is bumped whenever a file in it changes
/// incompatibly.
pub const RUN_FORMAT: &str = "sumito-run";
pub const RUN_FORMAT_VERSION: u32 = 1;

/// The container of every replay file (`sumito_pipeline::replay::container`):
/// magic, version, the game's byte, the length of the game's encoding.
pub const REPLAY_CONTAINER_VERSION: u16 = 1;
/// A two-player replay (`sumito_pipeline::replay::format`). Version 2 added
/// each policy target's surprise, version 3 dropped it again (the layout of
/// version 1); versions 1 and 2 are still read, a surprise skipped.
pub const TWO_PLAYER_REPLAY_VERSION: u16 = 3;
/// The oldest two-player replay still read: no policy surprise.
pub const TWO_PLAYER_REPLAY_FIRST_VERSION: u16 = 1;
/// The two-player replay that stores each policy target's surprise.
pub const TWO_PLAYER_REPLAY_SURPRISE_VERSION: u16 = 2;
/// A general-game replay (`sumito_pipeline::replay::general_format`).
/// Version 2 added the byte of how the game ended, version 3 each policy
/// target's surprise, version 4 dropped the surprise again; versions 1 to
/// 3 are still read, a surprise skipped.
pub const GENERAL_REPLAY_VERSION: u16 = 4;
pub const GENERAL_REPLAY_VERSION_1: u16 = 1;
pub const GENERAL_REPLAY_VERSION_2: u16 = 2;
pub const GENERAL_REPLAY_VERSION_3: u16 = 3;

/// A game record's first line (`sumito_arena::record_format`): version 2
/// is one format for both games; the two-player and variant records of
/// version 1 are still read.
pub const GAME_RECORD_MAGIC: &str = "# sumito game record v2";
pub const TWO_PLAYER_RECORD_MAGIC_V1: &str = "# sumito game record v1";
pub const VARIANT_RECORD_MAGIC_V1: &str = "# sumito variant game record v1";
