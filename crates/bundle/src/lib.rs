//! Exported models. A bundle is one self-contained folder per trained model:
//! what `sumito export` writes from a run and what `sumito play --model`,
//! `sumito analyze` and `bundle:` arena players load, verified.
//!
//! This crate is the libtorch side of play: the terminal session, the search
//! and the analysis live in `sumito-play`, which knows nothing of torch, so
//! that the light `sumito` binary can play classical opponents without loading
//! libtorch.

pub mod arena_player;
pub mod bundle;
