//! `sumito serve`: play and analysis in the browser. A local web server
//! (axum, one WebSocket per page) serves a page built into the binary and
//! plays every variant and 3–6 players with the classical players, and a
//! model's own game when the command line loads one (play, analysis and
//! review under the rules it was trained with, whatever its game). Nothing
//! here links libtorch: a model reaches the server through [`model::Model`],
//! which `sumito-torch` implements with a model bundle.
//!
//! The files: `server` (the web server, one WebSocket a page), `page` (a
//! page's socket as the server reads it), `searches` (a page's searches:
//! moves, analyses, reviews, each bounded and stoppable), `slots` (the
//! search slots, shared fairly between pages), `session`
//! (one page's game), `seat_player` (the programs that play its seats),
//! `model` (the model interface and the policy on models), `menu` (what a
//! page may ask for), `protocol` (the messages), `access` and `guard` (who
//! may connect, and how many).

pub mod access;
pub mod guard;
pub mod menu;
pub mod model;
mod page;
pub mod protocol;
mod searches;
pub mod seat_player;
pub mod server;
pub mod session;
pub mod slots;
#[cfg(test)]
pub(crate) mod test_model;

pub use model::{Model, ModelGame, Models, NoModel};
pub use server::{ServeOptions, serve, serve_blocking, serve_on};
