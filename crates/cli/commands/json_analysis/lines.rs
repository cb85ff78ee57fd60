//! The analysis program's input, line by line, each under a cap: a line longer than
//! the cap is skipped as it streams past (never held whole), a line that
//! is not UTF-8 is reported, and either way the next line is read as usual.

use std::io::{self, BufRead};

/// The longest query line read, in bytes (1 MiB: a game of thousands of
/// moves fits many times over).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What is wrong with one line.
#[derive(Debug)]
pub enum LineProblem {
    /// Longer than the cap; its bytes were skipped, not kept.
    TooLong { cap: usize },
    /// Not UTF-8 from byte `at` (counted from the line's start) on.
    NotUtf8 { at: usize },
}

impl std::fmt::Display for LineProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineProblem::TooLong { cap } => {
                write!(f, "longer than the cap of {cap} bytes: skipped")
            }
            LineProblem::NotUtf8 { at } => write!(f, "not UTF-8 text (a bad byte at byte {at})"),
        }
    }
}

/// The lines of `input`, numbered from 1.
#[derive(Debug)]
pub struct Lines<R> {
    input: R,
    cap: usize,
    number: u64,
    buffer: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    pub fn new(input: R, cap: usize) -> Lines<R> {
        Lines {
            input,
            cap,
            number: 0,
            buffer: Vec::new(),
        }
    }

    /// The next line (its number, and its text without the line end, or
    /// what is wrong with it); `None` at the end of the input. A read error
    /// ends the input with that error.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Result<String, LineProblem>)>> {
        self.buffer.clear();
        let mut too_long = false;
        let mut seen_any = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if available.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let (part, ends) = match available.iter().position(|&byte| byte == b'\n') {
                Some(end) => (&available[..end], true),
                None => (available, false),
            };
            let used = part.len() + usize::from(ends);
            if !too_long {
                if self.buffer.len() + part.len() > self.cap {
                    too_long = true;
                    // Its start is let go at once: only the cap is ever held.
                    self.buffer = Vec::new();
                } else {
                    self.buffer.extend_from_slice(part);
                }
            }
            self.input.consume(used);
            if ends {
                break;
            }
        }
        self.number += 1;
        if too_long {
            return Ok(Some((
                self.number,
                Err(LineProblem::TooLong { cap: self.cap }),
            )));
        }
        if self.buffer.last() == Some(&b'\r') {
            self.buffer.pop();
        }
        let text = match std::str::from_utf8(&self.buffer) {
            Ok(text) => Ok(text.to_owned()),
            Err(err) => Err(LineProblem::NotUtf8 {
                at: err.valid_up_to(),
            }),
        };
        Ok(Some((self.number, text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn all(input: &[u8], cap: usize) -> Vec<(u64, Result<String, String>)> {
        let mut lines = Lines::new(BufReader::with_capacity(4, input), cap);
        let mut out = Vec::new();
        while let Some((number, line)) = lines.next_line().unwrap() {
            out.push((number, line.map_err(|problem| problem.to_string())));
        }
        out
    }

    #[test]
    fn bad_bytes_and_long_lines_are_reported_by_number_and_reading_goes_on() {
        let input = b"{\"a\": 1}\r\n\xff\xfebad\nthis line is too long\nok\n\nlast";
        let lines = all(input, 12);
        let expected: Vec<(u64, Result<String, String>)> = vec![
            (1, Ok("{\"a\": 1}".into())),
            (2, Err("not UTF-8 text (a bad byte at byte 0)".into())),
            (3, Err("longer than the cap of 12 bytes: skipped".into())),
            (4, Ok("ok".into())),
            (5, Ok(String::new())),
            (6, Ok("last".into())),
        ];
        assert_eq!(lines, expected);
        // A cut multi-byte character is bad too, at its first byte.
        assert_eq!(
            all("ab\u{e9}".as_bytes().split_last().unwrap().1, 12)[0].1,
            Err("not UTF-8 text (a bad byte at byte 2)".into())
        );
    }

    /// A 50 MB line is refused once it has streamed past, and the line
    /// after it is read as usual (the program's end-to-end test measures
    /// that the process's memory stays flat meanwhile).
    #[test]
    fn a_long_line_is_never_held_whole() {
        struct Zeros(usize);
        impl Read for Zeros {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = out.len().min(self.0);
                out[..n].fill(b'0');
                self.0 -= n;
                Ok(n)
            }
        }
        let long = Zeros(50 << 20).chain(&b"\n{}\n"[..]);
        let mut lines = Lines::new(BufReader::new(long), 1 << 10);
        let (number, first) = lines.next_line().unwrap().unwrap();
        assert_eq!(number, 1);
        assert!(matches!(first, Err(LineProblem::TooLong { cap: 1024 })));
        let (number, second) = lines.next_line().unwrap().unwrap();
        assert_eq!((number, second.unwrap()), (2, "{}".to_string()));
        assert!(lines.next_line().unwrap().is_none());
    }
}
