//! Self-play games on disk (one [`container`] for the encodings of both
//! games, [`format`](mod@format) and [`general_format`], each implementing
//! [`replay_game::ReplayGame`]; [`files`]; what is
//! wrong with a file: [`error`]) and the sliding-window
//! store the trainer samples from ([`store`]), which can follow the folder
//! from a background thread ([`reader`]).

pub mod container;
pub mod error;
pub mod files;
pub mod format;
pub mod general_format;
pub mod reader;
pub mod replay_game;
pub mod store;
