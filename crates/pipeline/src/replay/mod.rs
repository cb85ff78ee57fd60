//! Self-play games on disk ([`format`], [`files`]) and the sliding-window
//! store the trainer samples from ([`store`]).

pub mod files;
pub mod format;
pub mod store;
pub mod variant_format;
