//! The end-to-end tests: the real `sumito` and `sumito-torch` binaries run
//! as a person or a program would (through pipes, files, a browser). One
//! test binary, one module an area: one build and one link for them all,
//! and every test free to run beside any other.

mod common;
#[path = "common/training.rs"]
mod training;

mod bench;
mod docs_commands;
mod docs_links;
mod general_train;
mod inputs;
mod json_analysis;
mod layering;
mod object_store;
mod onnx;
mod play;
mod render;
mod review;
mod run_safety;
mod serve;
mod serve_analysis;
mod serve_review;
mod serve_security;
mod serve_variations;
mod startup;
mod stops;
mod train;
mod variants;
