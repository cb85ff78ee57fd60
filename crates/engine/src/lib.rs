//! The rules of Abalone. This crate knows nothing of search or networks.
