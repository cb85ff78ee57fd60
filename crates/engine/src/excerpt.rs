//! How an error message quotes a person's text: an excerpt, never the whole,
//! so that a megabyte of input does not make a megabyte of message (in a
//! log line, on a web page, in a terminal).

/// The most characters of a person's text an error message quotes back
/// (counting each character as printed escaped by `{:?}`).
pub const EXCERPT_CHARS: usize = 40;

/// `text` cut so that, quoted with `{:?}`, it shows at most
/// [`EXCERPT_CHARS`] characters of it, then `…` where it was cut. Short
/// texts come back whole. Characters that `{:?}` escapes (`\0`,
/// `\u{e0001}`) count as the length of their escape, so the quoted excerpt
/// is short however odd the text.
pub fn excerpt(text: &str) -> String {
    let mut shown = 0;
    for (at, ch) in text.char_indices() {
        shown += ch.escape_debug().count();
        if shown > EXCERPT_CHARS {
            return format!("{}…", &text[..at]);
        }
    }
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_whole_and_long_ones_cut_with_an_ellipsis() {
        assert_eq!(excerpt(""), "");
        assert_eq!(excerpt("E5E6"), "E5E6");
        let forty = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&forty), forty);
        assert_eq!(excerpt(&format!("{forty}y")), format!("{forty}…"));
        assert_eq!(excerpt(&"x".repeat(1 << 20)), format!("{forty}…"));
    }

    #[test]
    fn escaped_and_multi_byte_characters_count_as_printed() {
        // Cut between characters, never inside one.
        let accents = "é".repeat(100);
        assert_eq!(excerpt(&accents), format!("{}…", "é".repeat(EXCERPT_CHARS)));
        // "\0" prints as two characters, U+E0001 as nine (`\u{e0001}`).
        assert_eq!(excerpt(&"\0".repeat(100)), format!("{}…", "\0".repeat(20)));
        let tags = "\u{e0001}".repeat(100);
        let quoted = format!("{:?}", excerpt(&tags));
        assert_eq!(quoted, format!("\"{}…\"", "\\u{e0001}".repeat(4)));
        assert!(quoted.chars().count() <= EXCERPT_CHARS + 3);
    }
}
