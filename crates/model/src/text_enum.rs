//! Statuses kept as text in the database and shown as text in JSON, but handled as enums:
//! a status is compared by variant, and only a text Coffer wrote can become one.

/// An enum of unit variants, each with its text: `as_str`, `parse`, `Display`, `Serialize`
/// as that text, and diesel's `ToSql`/`FromSql`/`AsExpression` for a `Text` column (nullable
/// too, as an `Option`) on PostgreSQL and SQLite, so a store row holds the enum.
///
/// ```
/// coffer_model::text_enum! {
///     pub enum Light {
///         Green => "green",
///         Red => "red",
///     }
/// }
/// assert_eq!(Light::parse("red"), Some(Light::Red));
/// assert_eq!(Light::Green.as_str(), "green");
/// ```
#[macro_export]
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident => $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$variant_meta])* $variant),+
        }

        impl $name {
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::serde::Serialize for $name {
            fn serialize<S: $crate::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        // In the API description: a string, one of the texts.
        impl $crate::utoipa::PartialSchema for $name {
            fn schema() -> $crate::utoipa::openapi::RefOr<$crate::utoipa::openapi::schema::Schema> {
                $crate::utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type($crate::utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }

        impl $crate::utoipa::ToSchema for $name {}

        // In a store row and in a query: the same text, in a text column, on either backend.
        // A text Coffer did not write fails the read instead of becoming some variant.
        impl<DB> $crate::diesel::serialize::ToSql<$crate::diesel::sql_types::Text, DB> for $name
        where
            DB: $crate::diesel::backend::Backend,
            str: $crate::diesel::serialize::ToSql<$crate::diesel::sql_types::Text, DB>,
        {
            fn to_sql<'b>(
                &'b self,
                out: &mut $crate::diesel::serialize::Output<'b, '_, DB>,
            ) -> $crate::diesel::serialize::Result {
                <str as $crate::diesel::serialize::ToSql<$crate::diesel::sql_types::Text, DB>>::to_sql(
                    self.as_str(),
                    out,
                )
            }
        }

        impl<DB> $crate::diesel::deserialize::FromSql<$crate::diesel::sql_types::Text, DB> for $name
        where
            DB: $crate::diesel::backend::Backend,
            String: $crate::diesel::deserialize::FromSql<$crate::diesel::sql_types::Text, DB>,
        {
            fn from_sql(
                raw: <DB as $crate::diesel::backend::Backend>::RawValue<'_>,
            ) -> $crate::diesel::deserialize::Result<Self> {
                let text = <String as $crate::diesel::deserialize::FromSql<
                    $crate::diesel::sql_types::Text,
                    DB,
                >>::from_sql(raw)?;
                Self::parse(&text)
                    .ok_or_else(|| format!("{text:?} is no {}", stringify!($name)).into())
            }
        }

        impl<DB> $crate::diesel::deserialize::Queryable<$crate::diesel::sql_types::Text, DB> for $name
        where
            DB: $crate::diesel::backend::Backend,
            Self: $crate::diesel::deserialize::FromSql<$crate::diesel::sql_types::Text, DB>,
        {
            type Row = Self;

            fn build(row: Self) -> $crate::diesel::deserialize::Result<Self> {
                Ok(row)
            }
        }

        // Written as its text, so a query binds a `&'static str` and nothing else.
        $crate::__text_enum_expression!($name, $crate::diesel::sql_types::Text);
        $crate::__text_enum_expression!(
            $name,
            $crate::diesel::sql_types::Nullable<$crate::diesel::sql_types::Text>
        );
    };
}

/// `AsExpression` for a [`text_enum!`] and a reference to one, as the text it stands for.
#[doc(hidden)]
#[macro_export]
macro_rules! __text_enum_expression {
    ($name:ident, $sql:ty) => {
        impl $crate::diesel::expression::AsExpression<$sql> for $name {
            type Expression =
                <&'static str as $crate::diesel::expression::AsExpression<$sql>>::Expression;

            fn as_expression(self) -> Self::Expression {
                $crate::diesel::expression::AsExpression::<$sql>::as_expression(self.as_str())
            }
        }

        impl<'a> $crate::diesel::expression::AsExpression<$sql> for &'a $name {
            type Expression =
                <&'static str as $crate::diesel::expression::AsExpression<$sql>>::Expression;

            fn as_expression(self) -> Self::Expression {
                $crate::diesel::expression::AsExpression::<$sql>::as_expression(self.as_str())
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::text_enum! {
        /// Two states, one with a default.
        #[derive(Default)]
        pub enum Door {
            Open => "open",
            #[default]
            Shut => "shut",
        }
    }

    #[test]
    fn a_variant_reads_back_from_its_text_and_serialises_as_it() {
        for door in [Door::Open, Door::Shut] {
            assert_eq!(Door::parse(door.as_str()), Some(door));
            assert_eq!(door.to_string(), door.as_str());
            assert_eq!(
                serde_json::to_value(door).ok(),
                Some(serde_json::Value::from(door.as_str()))
            );
        }
        assert_eq!(Door::parse("Open"), None);
        assert_eq!(Door::default(), Door::Shut);
    }
}
