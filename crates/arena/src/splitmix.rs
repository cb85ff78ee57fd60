//! SplitMix64, the mixing step the arena derives seeds and keys with (a
//! match's game seeds, the tactics generator's positions, the
//! transposition keys of the alpha-beta players).

/// One SplitMix64 step: a well-mixed 64-bit function of `x`, for deriving
/// seeds and keys from small numbers.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
