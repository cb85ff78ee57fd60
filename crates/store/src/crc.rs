//! CRC-32C (Castagnoli), the checksum of what a run stores: every object on
//! an object store (its metadata), replay files, and TensorBoard's TFRecord
//! framing (which masks it).
//! Table-driven, one byte at a time: the files are small and written once.

const POLYNOMIAL: u32 = 0x82F6_3B78; // reflected 0x1EDC6F41

const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut index = 0;
    while index < 256 {
        let mut crc = index as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLYNOMIAL
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[index] = crc;
        index += 1;
    }
    table
};

/// The CRC-32C of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc = TABLE[((crc ^ u32::from(byte)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// TFRecord's masked CRC: a CRC stored next to the data it covers is rotated
/// and offset so that checksumming a checksum does not give a fixed point.
pub fn masked_crc32c(data: &[u8]) -> u32 {
    let crc = crc32c(data);
    crc.rotate_right(15).wrapping_add(0xA282_EAD8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_check_values() {
        // RFC 3720 (iSCSI) appendix B.4 and the standard "123456789" check.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn masked_values_match_an_independent_implementation() {
        // Computed with a bit-at-a-time CRC-32C and TFRecord's mask in Python.
        assert_eq!(masked_crc32c(&[0u8; 8]), 0x0798_0329);
        assert_eq!(masked_crc32c(b"abc"), 0x21F1_576E);
    }
}
