//! Finds libtorch for the build script of sumito-net.
//!
//! This crate is a build-dependency of sumito-net so that its own build
//! script runs early, before torch-sys's (which only fails later, with a C++
//! compiler error about a missing `torch/torch.h`): a build without libtorch
//! stops with `libtorch not found at …: run scripts/setup-libtorch.sh`.

mod find;

pub use find::{LIBTORCH_VARIABLES, SETUP_HINT, libtorch_lib_dir};
