//! The arena's integration tests as one test binary: one build and one
//! link, and its tests run side by side rather than binary after binary.

mod fuzz_text;
mod strength;
