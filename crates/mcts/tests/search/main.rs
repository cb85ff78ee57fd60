//! The search's integration tests as one test binary: one build and one
//! link, and its tests run side by side rather than binary after binary.

mod common;
mod driver;
mod features;
mod many_sides;
mod solver;
mod tactics;
