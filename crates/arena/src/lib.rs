//! Fixed opponents of graded strength, matches between any players, game
//! records, and ratings.

pub mod elo;
pub mod spec;
pub mod sprt;
