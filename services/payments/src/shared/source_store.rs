//! The payment source as stored, read and written alike by payments (a source kept with a
//! payment, decided with it, charged again) and by payment sources: its row, recorded,
//! found, ended once its donor decided, and the provider's references to charge. Sources'
//! own changes (their custom parameters) stay in sources/store.rs.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::method::PaymentMethod;
use super::source::{Source, SourceStatus};
use crate::schema::payment_sources::dsl as s;

type Row = (
    String,
    String,
    String,
    i64,
    bool,
    PaymentMethod,
    String,
    String,
    String,
    SourceStatus,
    Option<String>,
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
);

fn json(text: &str) -> QueryResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

pub fn insert(db: &mut Db<'_>, x: &Source) -> QueryResult<()> {
    let row = (
        s::uuid.eq(&x.uuid),
        s::organisation_uuid.eq(&x.organisation_uuid),
        s::account_uuid.eq(&x.account_uuid),
        s::created.eq(x.created),
        s::updated.eq(x.created),
        s::test_mode.eq(x.test_mode),
        s::payment_method.eq(&x.payment_method),
        s::profile.eq(&x.profile),
        s::payment_provider.eq(&x.payment_provider),
        s::provider_reference.eq(&x.provider_reference),
        s::status.eq(x.status),
        s::status_reason.eq(&x.status_reason),
        s::payment_information.eq(x.payment_information.to_string()),
        s::supporter_uuid.eq(&x.supporter_uuid),
        s::custom_parameters.eq(x.custom_parameters.to_string()),
        s::action.eq(x.action.as_ref().map(ToString::to_string)),
        s::return_url.eq(&x.return_url),
    );
    db_run!(db: { diesel::insert_into(s::payment_sources).values(&row).execute(db).map(drop) })
}

/// Ends a pending source as `status` (active or failed); false when it was not pending, so
/// an approval racing a decline cannot both win.
pub fn complete(
    db: &mut Db<'_>,
    uuid: &str,
    status: SourceStatus,
    reason: Option<&str>,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(s::payment_sources.find(uuid).filter(s::status.eq(SourceStatus::Pending)))
            .set((
                s::status.eq(status),
                s::status_reason.eq(reason),
                s::action.eq(None::<String>),
                s::updated.eq(now),
            ))
            .execute(db)
    })?;
    Ok(changed == 1)
}

/// The provider references of the sources among `uuids` that exist: (uuid, reference).
pub fn references(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<(String, String)>> {
    db_run!(db: {
        s::payment_sources
            .filter(s::uuid.eq_any(uuids))
            .select((s::uuid, s::provider_reference))
            .load(db)
    })
}

/// The columns a [`Source`] is read from, in [`Row`]'s order.
macro_rules! source_columns {
    () => {
        (
            s::uuid,
            s::organisation_uuid,
            s::account_uuid,
            s::created,
            s::test_mode,
            s::payment_method,
            s::profile,
            s::payment_provider,
            s::provider_reference,
            s::status,
            s::status_reason,
            s::payment_information,
            s::supporter_uuid,
            s::custom_parameters,
            s::action,
            s::return_url,
        )
    };
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Source>> {
    let row: Option<Row> = db_run!(db: {
        s::payment_sources.find(uuid).select(source_columns!()).first(db).optional()
    })?;
    row.map(from_row).transpose()
}

/// The sources among `uuids` that exist, in one statement.
pub fn find_many(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<Source>> {
    let rows: Vec<Row> = db_run!(db: {
        s::payment_sources.filter(s::uuid.eq_any(uuids)).select(source_columns!()).load(db)
    })?;
    rows.into_iter().map(from_row).collect()
}

fn from_row(row: Row) -> QueryResult<Source> {
    let (
        uuid,
        organisation,
        account,
        created,
        test_mode,
        method,
        profile,
        provider,
        reference,
        status,
        reason,
        info,
        supporter,
        custom,
        action,
        return_url,
    ) = row;
    Ok(Source {
        uuid,
        created,
        organisation_uuid: organisation,
        account_uuid: account,
        test_mode,
        payment_method: method,
        profile,
        payment_provider: provider,
        provider_reference: reference,
        status,
        status_reason: reason,
        payment_information: json(&info)?,
        supporter_uuid: supporter,
        custom_parameters: json(&custom)?,
        action: action.as_deref().map(json).transpose()?,
        return_url,
    })
}
