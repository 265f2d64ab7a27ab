//! Deserialisation of validated string newtypes: the wire form goes through the same parser
//! as route code, so a JSON body can never smuggle in a value `parse` would refuse.

use serde::{Deserialize, Deserializer, de::Error as _};
use std::fmt::Display;

pub(crate) fn deserialize_parsed<'de, D, T, E>(
    deserializer: D,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    E: Display,
{
    let raw = String::deserialize(deserializer)?;
    parse(&raw).map_err(D::Error::custom)
}
