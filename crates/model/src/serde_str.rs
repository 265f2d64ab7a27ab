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

/// Display, Serialize and Deserialize for a newtype over a validated `String`: written as
/// the string, read back through the type's own `parse`.
macro_rules! validated_string {
    ($t:ty) => {
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl ::serde::Serialize for $t {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $t {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                $crate::serde_str::deserialize_parsed(deserializer, Self::parse)
            }
        }
    };
}
pub(crate) use validated_string;
