//! Parsing contract types from JSON with errors that name the offending field, and JSON Schema
//! export for LLM structured output.

use crate::{Error, Result};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// Parses `json` into `T`, naming the path of the first offending value in the error
/// (`results[0].relevanceScore`, `metadata.createdAt`, `category`).
///
/// ```
/// use navigator_core::{from_json, SearchResult};
/// let err = from_json::<SearchResult>(r#"{"itemId":"a","itemType":"task","title":"t",
///     "category":"project","relevanceScore":1.5}"#).unwrap_err();
/// assert!(err.to_string().contains("relevanceScore"));
/// ```
pub fn from_json<T: DeserializeOwned>(json: &str) -> Result<T> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| parse_error::<T>(e))
}

/// Like [`from_json`], from an already parsed [`serde_json::Value`].
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| parse_error::<T>(e))
}

fn parse_error<T>(e: serde_path_to_error::Error<impl std::fmt::Display>) -> Error {
    let path = e.path().to_string();
    let message = e.into_inner().to_string();
    // A rule across fields (an action and the fields it allows) fails at the root, with an
    // `Error::InvalidField` message naming its field: that field is the path to report.
    let path = match (path.as_str(), root_field(&message)) {
        (".", Some(field)) => field.to_string(),
        (".", None) => "(root)".into(),
        _ => path,
    };
    Error::Parse {
        type_name: short_type_name::<T>(),
        path,
        message,
    }
}

/// The field an [`Error::InvalidField`] message names (`invalid `results`: ...`).
fn root_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("invalid `")?;
    rest.split_once("`: ").map(|(field, _)| field)
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// The JSON Schema of `T` as a JSON value (draft 2020-12, what schemars generates).
pub fn json_schema<T: JsonSchema>() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(serde_json::Value::Null)
}
