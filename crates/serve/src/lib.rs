//! `sumito serve`: play and analysis in the browser. A local web server
//! (axum, one WebSocket per page) serves a page built into the binary and
//! plays every variant and 3–6 players with the classical engines, and a
//! model's own game when the command line loads one (play, analysis and
//! review under the rules it was trained with, whatever its game). Nothing
//! here links libtorch: a model reaches the server
//! through [`session::Engines`], which `sumito-torch` implements with a
//! model bundle.

pub mod access;
pub mod guard;
pub mod menu;
pub mod protocol;
pub mod server;
pub mod session;

pub use server::{ServeOptions, serve, serve_blocking, serve_on};
pub use session::{Engines, ModelGame, Models, NoModel};
