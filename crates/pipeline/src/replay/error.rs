//! What is wrong with a replay file's bytes, whichever game's encoding it
//! holds ([`super::container`], [`super::format`], [`super::general_format`]).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("not a replay file (bad magic bytes)")]
    BadMagic,
    #[error(
        "replay format version {found} is not supported (this sumito reads version {supported})"
    )]
    UnsupportedVersion { found: u16, supported: u16 },
    #[error("truncated: {length} bytes, {needed} needed")]
    Truncated { length: usize, needed: usize },
    #[error("checksum mismatch (stored {stored:08x}, computed {computed:08x})")]
    Checksum { stored: u32, computed: u32 },
    #[error("position {index}: {problem}")]
    BadPosition { index: usize, problem: String },
    #[error("{0}")]
    BadHeader(String),
    #[error("{extra} unexpected bytes after the last position")]
    TrailingBytes { extra: usize },
}
