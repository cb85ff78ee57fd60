//! Player specifications as written on the command line:
//! `NAME` or `NAME:key=value,key=value`, for example `alphabeta:depth=3`.
//!
//! A [`PlayerSpec`] is only syntax; the factory of the named kind reads its
//! parameters through [`SpecParams`], which converts values, remembers which
//! keys the kind understands, and rejects whatever is left over.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use thiserror::Error;

/// A player kind and its parameters, in the order written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerSpec {
    pub kind: String,
    pub params: Vec<(String, String)>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("empty player specification (expected NAME or NAME:key=value,...)")]
    Empty,
    #[error(
        "player name {name:?} in {spec:?} may only contain lowercase letters, digits, '-' and '_'"
    )]
    BadName { spec: String, name: String },
    #[error("parameter {item:?} in {spec:?} is not of the form key=value")]
    NotKeyValue { spec: String, item: String },
    #[error("parameter {key:?} is given twice in {spec:?}")]
    DuplicateKey { spec: String, key: String },
    #[error("unknown player {name:?}; known players: {known}")]
    UnknownPlayer { name: String, known: String },
    #[error("player {kind:?} has no parameter {key:?}; it takes: {allowed}")]
    UnknownKey {
        kind: String,
        key: String,
        allowed: String,
    },
    #[error("parameter {key}={value:?} of player {kind:?}: expected {expected}")]
    BadValue {
        kind: String,
        key: String,
        value: String,
        expected: String,
    },
    #[error("player {kind:?}: {message}")]
    Invalid { kind: String, message: String },
}

impl PlayerSpec {
    /// A spec with no parameters.
    pub fn bare(kind: &str) -> PlayerSpec {
        PlayerSpec {
            kind: kind.to_string(),
            params: Vec::new(),
        }
    }

    /// A reader for the parameters, used by the kind's factory.
    pub fn params(&self) -> SpecParams<'_> {
        SpecParams {
            spec: self,
            known: Vec::new(),
            taken: vec![false; self.params.len()],
        }
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let (kind, rest) = match text.split_once(':') {
            Some((kind, rest)) => (kind.trim(), Some(rest)),
            None => (text, None),
        };
        let name_ok = !kind.is_empty()
            && kind
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !name_ok {
            return Err(SpecError::BadName {
                spec: text.to_string(),
                name: kind.to_string(),
            });
        }
        let mut params: Vec<(String, String)> = Vec::new();
        for item in rest.into_iter().flat_map(|r| r.split(',')) {
            let not_key_value = || SpecError::NotKeyValue {
                spec: text.to_string(),
                item: item.to_string(),
            };
            let (key, value) = item.split_once('=').ok_or_else(not_key_value)?;
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || value.is_empty() {
                return Err(not_key_value());
            }
            if params.iter().any(|(k, _)| k == key) {
                return Err(SpecError::DuplicateKey {
                    spec: text.to_string(),
                    key: key.to_string(),
                });
            }
            params.push((key.to_string(), value.to_string()));
        }
        Ok(PlayerSpec {
            kind: kind.to_string(),
            params,
        })
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        for (i, (key, value)) in self.params.iter().enumerate() {
            let separator = if i == 0 { ':' } else { ',' };
            write!(f, "{separator}{key}={value}")?;
        }
        Ok(())
    }
}

/// Typed access to a spec's parameters. Every `get_*` call declares a key the
/// kind understands; [`SpecParams::finish`] then rejects any other key.
#[derive(Debug)]
pub struct SpecParams<'a> {
    spec: &'a PlayerSpec,
    known: Vec<&'static str>,
    taken: Vec<bool>,
}

impl SpecParams<'_> {
    fn raw(&mut self, key: &'static str) -> Option<&str> {
        self.known.push(key);
        let index = self.spec.params.iter().position(|(k, _)| k == key)?;
        self.taken[index] = true;
        Some(&self.spec.params[index].1)
    }

    fn bad_value(&self, key: &str, value: &str, expected: &str) -> SpecError {
        SpecError::BadValue {
            kind: self.spec.kind.clone(),
            key: key.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    /// An error about the spec as a whole (for checks across parameters).
    pub fn invalid(&self, message: impl Into<String>) -> SpecError {
        SpecError::Invalid {
            kind: self.spec.kind.clone(),
            message: message.into(),
        }
    }

    /// The value of `key` converted by `convert`, which returns `None` for
    /// a value that is not what `expected` describes.
    fn get_with<T>(
        &mut self,
        key: &'static str,
        expected: impl FnOnce() -> String,
        convert: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, SpecError> {
        let Some(value) = self.raw(key).map(str::to_string) else {
            return Ok(None);
        };
        match convert(&value) {
            Some(converted) => Ok(Some(converted)),
            None => Err(self.bad_value(key, &value, &expected())),
        }
    }

    /// A whole number in `min..=max`.
    pub fn get_u64(
        &mut self,
        key: &'static str,
        min: u64,
        max: u64,
    ) -> Result<Option<u64>, SpecError> {
        self.get_with(
            key,
            || format!("a whole number from {min} to {max}"),
            |v| v.parse::<u64>().ok().filter(|n| (min..=max).contains(n)),
        )
    }

    /// A whole number in `min..=max` that fits in `u32`.
    pub fn get_u32(
        &mut self,
        key: &'static str,
        min: u32,
        max: u32,
    ) -> Result<Option<u32>, SpecError> {
        Ok(self
            .get_u64(key, u64::from(min), u64::from(max))?
            .map(|n| u32::try_from(n).expect("bounded by a u32 maximum")))
    }

    /// A finite real number in `min..=max`.
    pub fn get_f64(
        &mut self,
        key: &'static str,
        min: f64,
        max: f64,
    ) -> Result<Option<f64>, SpecError> {
        self.get_with(
            key,
            || format!("a number from {min} to {max}"),
            |v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= min && *x <= max)
            },
        )
    }

    /// `true`/`false` (also `yes`/`no`, `1`/`0`).
    pub fn get_bool(&mut self, key: &'static str) -> Result<Option<bool>, SpecError> {
        self.get_with(
            key,
            || "true or false".to_string(),
            |v| match v {
                "true" | "yes" | "1" => Some(true),
                "false" | "no" | "0" => Some(false),
                _ => None,
            },
        )
    }

    /// A positive duration such as `250ms`, `2s`, `1.5s` or `1m`.
    pub fn get_duration(&mut self, key: &'static str) -> Result<Option<Duration>, SpecError> {
        self.get_with(
            key,
            || "a positive duration such as 250ms, 2s or 1m".to_string(),
            parse_duration,
        )
    }

    /// A value of a type that parses itself, such as an enumeration;
    /// `expected` names the accepted values for the error message.
    pub fn get_parsed<T: std::str::FromStr>(
        &mut self,
        key: &'static str,
        expected: &str,
    ) -> Result<Option<T>, SpecError> {
        self.get_with(key, || expected.to_string(), |v| v.parse().ok())
    }

    /// A file path (not checked here; the factory opens it).
    pub fn get_path(&mut self, key: &'static str) -> Option<PathBuf> {
        self.raw(key).map(PathBuf::from)
    }

    /// Fails on the first parameter that no `get_*` call asked for.
    pub fn finish(self) -> Result<(), SpecError> {
        match self.taken.iter().position(|&t| !t) {
            None => Ok(()),
            Some(index) => Err(SpecError::UnknownKey {
                kind: self.spec.kind.clone(),
                key: self.spec.params[index].0.clone(),
                allowed: if self.known.is_empty() {
                    "no parameters".to_string()
                } else {
                    self.known.join(", ")
                },
            }),
        }
    }
}

/// Parses `250ms`, `2s`, `1.5s`, `1m`; `None` if malformed or not positive.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (number, unit_seconds) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60.0)
    } else {
        return None;
    };
    let value: f64 = number.trim().parse().ok()?;
    let seconds = value * unit_seconds;
    (seconds.is_finite() && seconds > 0.0 && seconds < 1e9)
        .then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_parameters() {
        let spec: PlayerSpec = "alphabeta:depth=3, time=250ms".parse().unwrap();
        assert_eq!(spec.kind, "alphabeta");
        assert_eq!(
            spec.params,
            vec![
                ("depth".to_string(), "3".to_string()),
                ("time".to_string(), "250ms".to_string())
            ]
        );
        assert_eq!(spec.to_string(), "alphabeta:depth=3,time=250ms");
        assert_eq!(
            "random".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::bare("random")
        );
    }

    #[test]
    fn syntax_errors_say_what_is_wrong() {
        assert_eq!("".parse::<PlayerSpec>(), Err(SpecError::Empty));
        assert!(matches!(
            "Alpha:depth=3".parse::<PlayerSpec>(),
            Err(SpecError::BadName { .. })
        ));
        assert_eq!(
            "alphabeta:depth".parse::<PlayerSpec>(),
            Err(SpecError::NotKeyValue {
                spec: "alphabeta:depth".into(),
                item: "depth".into()
            })
        );
        assert!(matches!(
            "alphabeta:".parse::<PlayerSpec>(),
            Err(SpecError::NotKeyValue { .. })
        ));
        assert!(matches!(
            "alphabeta:depth=3,depth=4".parse::<PlayerSpec>(),
            Err(SpecError::DuplicateKey { .. })
        ));
    }

    #[test]
    fn typed_parameters_and_leftovers() {
        let spec: PlayerSpec = "x:depth=3,time=1.5s,flag=yes,w=0.25,file=a/b.toml"
            .parse()
            .unwrap();
        let mut p = spec.params();
        assert_eq!(p.get_u32("depth", 1, 10).unwrap(), Some(3));
        assert_eq!(
            p.get_duration("time").unwrap(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(p.get_bool("flag").unwrap(), Some(true));
        assert_eq!(p.get_f64("w", 0.0, 1.0).unwrap(), Some(0.25));
        assert_eq!(p.get_path("file"), Some(PathBuf::from("a/b.toml")));
        assert_eq!(p.get_u32("absent", 0, 1).unwrap(), None);
        p.finish().unwrap();

        let spec: PlayerSpec = "x:depth=0,speed=2".parse().unwrap();
        let mut p = spec.params();
        let err = p.get_u32("depth", 1, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter depth=\"0\" of player \"x\": expected a whole number from 1 to 10"
        );
        let err = p.finish().unwrap_err();
        assert_eq!(
            err.to_string(),
            "player \"x\" has no parameter \"speed\"; it takes: depth"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Some(Duration::from_secs(60)));
        for bad in ["", "5", "0s", "-1s", "xs", "nans", "1h"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}
