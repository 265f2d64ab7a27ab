//! Coffer's domain vocabulary: money, currencies, identifiers, dates, contact data, paging and
//! the property-named validation errors every parser reports.
//!
//! Each type is parsed once at the edge ("parse, don't validate"), so code behind the routes
//! never sees an invalid value.

pub mod card_numbers;
pub mod clock;
pub mod country;
pub mod currency;
pub mod email;
pub mod fields;
pub mod iban;
pub mod ids;
pub mod locale;
pub mod minor_units;
pub mod money;
mod money_json;
pub mod paging;
mod serde_str;
mod text_enum;
pub mod timestamp;
pub mod trace;
pub mod validation;
pub mod zone;

pub use self::clock::{Clock, ManualClock, SystemClock};
pub use self::country::{CountryCode, CountryError};
pub use self::currency::{Currency, CurrencyError};
pub use self::email::{Email, EmailError};
pub use self::iban::{Iban, IbanError};
pub use self::ids::parse_uuid;
pub use self::locale::{Locale, LocaleError};
pub use self::minor_units::{MinorUnitsError, parse_minor_units};
pub use self::money::{Money, MoneyError};
pub use self::money_json::over_maximum;
pub use self::paging::{Paging, PagingLimits, PagingQuery};
pub use self::timestamp::{Date, DateError, UnixSeconds};
pub use self::validation::{FieldError, Violations};

/// For [`text_enum!`], which maps its enum to a text column.
#[doc(hidden)]
pub use diesel;
/// For [`text_enum!`], which implements `Serialize` wherever it is used.
#[doc(hidden)]
pub use serde;
#[doc(hidden)]
pub use utoipa;
