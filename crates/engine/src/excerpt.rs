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

/// The longest message [`shorten_quotes`] gives, in characters.
pub const MESSAGE_CHARS: usize = 240;

/// `message` with each part it quotes, between backticks or double quotes,
/// cut to [`EXCERPT_CHARS`] characters and `…`, and the whole cut to
/// [`MESSAGE_CHARS`]: for messages made elsewhere (serde's, TOML's, a
/// record line's) that quote an unknown key or a wrong value whole, however
/// long. A part already cut to an [`excerpt`] is left as it is.
pub fn shorten_quotes(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = char::from(rest.as_bytes()[open]);
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        // The closing quote is the next one not escaped (serde and `{:?}`
        // write a quoted value as a Rust string literal).
        let mut escaped = false;
        let close = body
            .char_indices()
            .find(|&(_, ch)| {
                let closes = ch == quote && !escaped;
                escaped = quote == '"' && ch == '\\' && !escaped;
                closes
            })
            .map_or(body.len(), |(at, _)| at);
        let quoted = &body[..close];
        // (The quoted text is as printed, escapes and all: count it as is.)
        if quoted.chars().count() > EXCERPT_CHARS + 1 {
            out.extend(quoted.chars().take(EXCERPT_CHARS));
            out.push('…');
        } else {
            out.push_str(quoted);
        }
        rest = &body[close..];
        if let Some(after) = rest.strip_prefix(quote) {
            out.push(quote);
            rest = after;
        }
    }
    out.push_str(rest);
    if out.chars().count() > MESSAGE_CHARS {
        out = out.chars().take(MESSAGE_CHARS - 1).collect();
        out.push('…');
    }
    out
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

    #[test]
    fn quoted_parts_of_a_message_are_cut_and_the_rest_kept() {
        let long = "k".repeat(1000);
        let cut = format!("{}…", "k".repeat(EXCERPT_CHARS));
        assert_eq!(
            shorten_quotes(&format!("unknown field `{long}`, expected `holes`")),
            format!("unknown field `{cut}`, expected `holes`")
        );
        // An escaped quote does not end the quoted part.
        let value = format!("{:?}", format!("a\"{long}"));
        assert_eq!(
            shorten_quotes(&format!("invalid type: string {value}, expected u32")),
            format!(
                "invalid type: string \"a\\\"{}…\", expected u32",
                "k".repeat(EXCERPT_CHARS - 3)
            )
        );
        // An unclosed quote runs to the end; short parts and excerpts stay.
        assert_eq!(shorten_quotes(&format!("`{long}")), format!("`{cut}"));
        let excerpted = format!("move {:?} is not legal", excerpt(&long));
        assert_eq!(shorten_quotes(&excerpted), excerpted);
        assert_eq!(shorten_quotes("no quotes"), "no quotes");
        // Many quoted parts: the whole is cut too.
        let many = format!("`{long}` ").repeat(10);
        let shortened = shorten_quotes(&many);
        assert_eq!(shortened.chars().count(), MESSAGE_CHARS);
        assert!(shortened.ends_with('…'));
    }
}
