//! Test tooling, not a layer: the text fuzzing that the parsers' property
//! tests share (`crates/engine/tests/engine/fuzz_text.rs`,
//! `crates/arena/tests/arena/fuzz_text.rs`; docs/fuzzing.md). Each of them
//! keeps its own grammar's generators and checks; this holds the rest:
//!
//! - the run's settings ([`config`]: a fixed seed, no regression files);
//! - the check every parser's answer gets ([`Grammar::check`]: a value that
//!   reads back, or an error whose message is short, [`Grammar::short`]);
//! - the inputs: any text ([`Grammar::any_text`]), edits of real texts
//!   ([`Grammar::edit`], [`Grammar::apply`]) made of the format's own
//!   pieces ([`Grammar::piece`]), and a megabyte anywhere
//!   ([`with_megabyte`]).
//!
//! A [`Grammar`] says what differs from format to format: the tokens the
//! edits insert, what the text's parts are (fields or lines), which edits
//! are made, and the longest error message allowed.

use std::fmt::Display;
use std::ops::Range;

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::RngSeed;

/// The settings of a fuzzing block of `cases` inputs: a fixed seed, so that
/// every run tries the same inputs, and no `proptest-regressions/` files (a
/// failure prints its shrunk input, which becomes a unit test beside the
/// parser).
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x5u64 << 40 | 0x0031),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A kind of edit of a text, as a [`Grammar`] lists the edits it makes.
/// Places are picked modulo the text's length (in characters or parts), so
/// every edit applies to every text.
#[derive(Clone, Debug)]
pub enum EditKind {
    /// Characters deleted: a run of a length in `len`.
    Delete { len: Range<usize> },
    /// A [`Grammar::piece`] inserted.
    Insert,
    /// A run of a length in `len` replaced by a piece.
    Replace { len: Range<usize> },
    /// A run of a length in `len` doubled.
    Duplicate { len: Range<usize> },
    /// Two parts (fields or lines) swapped.
    SwapParts,
    /// A part doubled.
    DuplicatePart,
    /// A part deleted.
    DeletePart,
    /// A piece repeated many times (a huge number, a long row or name,
    /// many fields or lines): 2 to 299 copies.
    Repeat,
}

/// One edit of a text (see [`EditKind`]).
#[derive(Clone, Debug)]
pub enum Edit {
    Delete {
        at: usize,
        len: usize,
    },
    Insert {
        at: usize,
        piece: String,
    },
    Replace {
        at: usize,
        len: usize,
        piece: String,
    },
    Duplicate {
        at: usize,
        len: usize,
    },
    SwapParts {
        a: usize,
        b: usize,
    },
    DuplicatePart {
        at: usize,
    },
    DeletePart {
        at: usize,
    },
    Repeat {
        at: usize,
        piece: String,
        times: usize,
    },
}

/// A text format as the fuzzing sees it.
#[derive(Debug)]
pub struct Grammar {
    /// The longest error message its parsers may give, in characters.
    pub message_limit: usize,
    /// Pieces that the edits insert: the format's own tokens, numbers at and
    /// past their types' limits, separators, and characters that are not
    /// ASCII.
    pub tokens: &'static [&'static str],
    /// What separates the parts of a text that edits swap, duplicate and
    /// delete: `' '` between fields, `'\n'` between lines.
    pub separator: char,
    /// The edits made, each as likely as the others.
    pub edits: &'static [EditKind],
    /// The printable text among [`Grammar::any_text`]'s inputs (a regex).
    pub printable: &'static str,
    /// The bytes of its byte inputs: fewer than this.
    pub bytes: usize,
}

impl Grammar {
    /// Fails unless `message` is at most [`Grammar::message_limit`]
    /// characters.
    pub fn short(&self, message: String, input_chars: usize) -> Result<(), TestCaseError> {
        let length = message.chars().count();
        prop_assert!(
            length <= self.message_limit,
            "a {length}-character error for {input_chars} characters of input: {}…",
            message.chars().take(400).collect::<String>()
        );
        Ok(())
    }

    /// Checks what a parser answered for `text`: a value, which `back`
    /// checks (that it writes and reads back to itself, say), or an error
    /// with a short message.
    pub fn check<T, E: Display>(
        &self,
        text: &str,
        answer: Result<T, E>,
        back: impl FnOnce(T) -> Result<(), TestCaseError>,
    ) -> Result<(), TestCaseError> {
        match answer {
            Ok(value) => back(value),
            Err(err) => self.short(err.to_string(), text.chars().count()),
        }
    }

    /// A piece that edits insert: mostly one of the tokens, else any
    /// character or a few printable ones.
    pub fn piece(&self) -> impl Strategy<Value = String> + use<> {
        prop_oneof![
            4 => proptest::sample::select(self.tokens).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
            1 => "[ -~]{1,4}",
        ]
    }

    /// One edit of a text, of one of the grammar's kinds.
    pub fn edit(&self) -> impl Strategy<Value = Edit> + use<> {
        let at = any::<usize>;
        let arms: Vec<BoxedStrategy<Edit>> = self
            .edits
            .iter()
            .map(|kind| match kind.clone() {
                EditKind::Delete { len } => (at(), len)
                    .prop_map(|(at, len)| Edit::Delete { at, len })
                    .boxed(),
                EditKind::Insert => (at(), self.piece())
                    .prop_map(|(at, piece)| Edit::Insert { at, piece })
                    .boxed(),
                EditKind::Replace { len } => (at(), len, self.piece())
                    .prop_map(|(at, len, piece)| Edit::Replace { at, len, piece })
                    .boxed(),
                EditKind::Duplicate { len } => (at(), len)
                    .prop_map(|(at, len)| Edit::Duplicate { at, len })
                    .boxed(),
                EditKind::SwapParts => (at(), any::<usize>())
                    .prop_map(|(a, b)| Edit::SwapParts { a, b })
                    .boxed(),
                EditKind::DuplicatePart => at().prop_map(|at| Edit::DuplicatePart { at }).boxed(),
                EditKind::DeletePart => at().prop_map(|at| Edit::DeletePart { at }).boxed(),
                EditKind::Repeat => (at(), self.piece(), 2..300usize)
                    .prop_map(|(at, piece, times)| Edit::Repeat { at, piece, times })
                    .boxed(),
            })
            .collect();
        Union::new(arms)
    }

    /// `count` edits (see [`Grammar::edit`]).
    pub fn edits(&self, count: Range<usize>) -> impl Strategy<Value = Vec<Edit>> + use<> {
        proptest::collection::vec(self.edit(), count)
    }

    /// `text` with `edits` applied in turn.
    pub fn apply(&self, text: &str, edits: &[Edit]) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        let place = |at: usize, chars: &Vec<char>| at % (chars.len() + 1);
        let separator = self.separator;
        let parts = |chars: &Vec<char>| -> Vec<String> {
            let text: String = chars.iter().collect();
            text.split(separator).map(str::to_owned).collect()
        };
        let joined = |parts: Vec<String>| -> Vec<char> {
            parts.join(&separator.to_string()).chars().collect()
        };
        for edit in edits {
            match edit {
                Edit::Delete { at, len } => {
                    let start = place(*at, &chars);
                    let end = (start + len).min(chars.len());
                    chars.drain(start..end);
                }
                Edit::Insert { at, piece } => {
                    let start = place(*at, &chars);
                    chars.splice(start..start, piece.chars());
                }
                Edit::Replace { at, len, piece } => {
                    let start = place(*at, &chars);
                    let end = (start + len).min(chars.len());
                    chars.splice(start..end, piece.chars());
                }
                Edit::Duplicate { at, len } => {
                    let start = place(*at, &chars);
                    let end = (start + len).min(chars.len());
                    let copy: Vec<char> = chars[start..end].to_vec();
                    chars.splice(end..end, copy);
                }
                Edit::SwapParts { a, b } => {
                    let mut all = parts(&chars);
                    let (a, b) = (a % all.len(), b % all.len());
                    all.swap(a, b);
                    chars = joined(all);
                }
                Edit::DuplicatePart { at } => {
                    let mut all = parts(&chars);
                    let at = at % all.len();
                    all.insert(at, all[at].clone());
                    chars = joined(all);
                }
                Edit::DeletePart { at } => {
                    let mut all = parts(&chars);
                    all.remove(at % all.len());
                    chars = joined(all);
                }
                Edit::Repeat { at, piece, times } => {
                    let start = place(*at, &chars);
                    let run: Vec<char> = piece.repeat(*times).chars().collect();
                    chars.splice(start..start, run);
                }
            }
        }
        chars.into_iter().collect()
    }

    /// Arbitrary text: any characters, printable ones, or any bytes read as
    /// UTF-8 the way a file of unknown encoding is (`from_utf8_lossy`).
    pub fn any_text(&self) -> impl Strategy<Value = String> + use<> {
        prop_oneof![
            any::<String>(),
            self.printable,
            proptest::collection::vec(any::<u8>(), 0..self.bytes)
                .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        ]
    }
}

/// `text` with `piece` repeated to a megabyte inserted before character
/// `at` (modulo the length).
pub fn with_megabyte(text: &str, at: usize, piece: &str) -> String {
    let at = at % (text.chars().count() + 1);
    let byte = text
        .char_indices()
        .nth(at)
        .map_or(text.len(), |(byte, _)| byte);
    let mut huge = String::with_capacity(text.len() + (1 << 20));
    huge.push_str(&text[..byte]);
    huge.push_str(&piece.repeat((1 << 20) / piece.len()));
    huge.push_str(&text[byte..]);
    huge
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: Grammar = Grammar {
        message_limit: 10,
        tokens: &["x"],
        separator: '\n',
        edits: &[EditKind::Insert, EditKind::SwapParts],
        printable: "[a-z]{0,4}",
        bytes: 8,
    };

    #[test]
    fn edits_apply_to_any_text_and_parts_are_the_grammars() {
        let edits = [
            Edit::SwapParts { a: 0, b: 5 },
            Edit::DuplicatePart { at: 1 },
            Edit::DeletePart { at: 7 },
            Edit::Delete { at: 1, len: 2 },
            Edit::Duplicate { at: 0, len: 1 },
            Edit::Replace {
                at: 6,
                len: 3,
                piece: "é".into(),
            },
            Edit::Repeat {
                at: 0,
                piece: "ab".into(),
                times: 2,
            },
        ];
        // Lines: "a b\nc d" → lines 0 and 5 % 2 = 1 swapped → "c d\na b" →
        // line 1 doubled → "c d\na b\na b" → line 7 % 3 = 1 deleted →
        // "c d\na b" → characters 1..3 deleted → "c\na b" → "c" doubled →
        // "cc\na b" → at the end (6 of 6) "é" replacing nothing → "cc\na bé"
        // → "abab" in front.
        assert_eq!(LINES.apply("a b\nc d", &edits), "ababcc\na bé");
        let fields = Grammar {
            separator: ' ',
            ..LINES
        };
        // Fields: "a b\nc d" is "a", "b\nc", "d"; 0 and 5 % 3 = 2 swapped.
        assert_eq!(fields.apply("a b\nc d", &edits[..1]), "d b\nc a");
        // Every edit applies to the empty text.
        assert_eq!(LINES.apply("", &edits), "ababé");
    }

    #[test]
    fn a_long_error_fails_and_a_value_is_checked() {
        assert!(LINES.short("0123456789".into(), 1).is_ok());
        assert!(LINES.short("0123456789a".into(), 1).is_err());
        let answer: Result<u8, String> = Ok(3);
        assert!(
            LINES
                .check("3", answer, |v| {
                    prop_assert_eq!(v, 3);
                    Ok(())
                })
                .is_ok()
        );
        let answer: Result<u8, String> = Err("far too long an error".into());
        assert!(LINES.check("x", answer, |_| Ok(())).is_err());
    }

    #[test]
    fn a_megabyte_goes_where_it_is_put() {
        let huge = with_megabyte("ab", 1, "xy");
        assert_eq!(huge.len(), 2 + (1 << 20));
        assert!(huge.starts_with("axy") && huge.ends_with("xyb"));
    }
}
