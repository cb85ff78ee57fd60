//! JSON read into a `serde_json::Value`, refusing an object that names a
//! key twice (serde_json's own `Value` keeps the last silently, so that
//! `{"visits": 1, "visits": 5000}` would search 5000). The same parser,
//! with a visitor that checks each object's keys as they come.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// A JSON text that is not one value with unique keys.
#[derive(Debug)]
pub struct JsonProblem {
    /// The repeated key's path (`avoid_moves[0].side`), if that is the
    /// problem.
    pub duplicate: Option<String>,
    /// serde_json's message, with the line and column.
    pub message: String,
}

/// `text` as one JSON value, every object's keys unique.
pub fn parse(text: &str) -> Result<Value, JsonProblem> {
    let duplicate = RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = Checked {
        path: "",
        duplicate: &duplicate,
    }
    .deserialize(&mut reader)
    .and_then(|value| reader.end().map(|()| value));
    value.map_err(|err| JsonProblem {
        duplicate: duplicate.into_inner(),
        message: err.to_string(),
    })
}

/// Reads one value found at `path`, noting the first repeated key.
#[derive(Clone, Copy)]
struct Checked<'a> {
    path: &'a str,
    duplicate: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, reader: D) -> Result<Value, D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // (NaN and infinities are not JSON: the parser gives none.)
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        let mut list = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, list.len());
            let seed = Checked {
                path: &path,
                duplicate: self.duplicate,
            };
            match items.next_element_seed(seed)? {
                Some(item) => list.push(item),
                None => return Ok(Value::Array(list)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = entries.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if map.contains_key(&key) {
                self.duplicate.replace(Some(path));
                return Err(de::Error::custom(format_args!(
                    "the key `{key}` is given twice"
                )));
            }
            let value = entries.next_value_seed(Checked {
                path: &path,
                duplicate: self.duplicate,
            })?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 2.5, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert!(parse("{} x").unwrap_err().message.contains("trailing"));
        assert!(parse("{").unwrap_err().duplicate.is_none());
    }

    #[test]
    fn a_repeated_key_is_refused_by_its_path() {
        let problem = parse(r#"{"visits": 1, "visits": 5000}"#).unwrap_err();
        assert_eq!(problem.duplicate.as_deref(), Some("visits"));
        assert!(
            problem
                .message
                .starts_with("the key `visits` is given twice at line 1"),
            "{}",
            problem.message
        );
        let nested = parse(r#"{"avoid_moves": [{"side": "black"}, {"side": "a", "side": "b"}]}"#)
            .unwrap_err();
        assert_eq!(nested.duplicate.as_deref(), Some("avoid_moves[1].side"));
        // The same key in different objects is no repeat.
        assert!(parse(r#"[{"a": 1}, {"a": 2, "b": {"a": 3}}]"#).is_ok());
    }
}
