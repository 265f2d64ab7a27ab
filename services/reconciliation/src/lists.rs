//! What every list of reconciliation takes (an optional account and `from`/`size` paging),
//! and the one order they all share.

use crate::error::ReconciliationError;
use coffer_model::ids::parse_uuid;
use coffer_model::paging::{Paging, PagingLimits, PagingQuery};
use diesel::ExpressionMethods;
use diesel::helper_types::Desc;
use serde::Deserialize;

pub const LIMITS: PagingLimits = PagingLimits::new(100, 500);

/// A parameter it does not know (a misspelt `acount_uuid`) is 400 naming it, rather than a
/// filter silently left out.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only this account's.
    #[param(value_type = Option<uuid::Uuid>)]
    account_uuid: Option<String>,
    /// How many to skip.
    #[param(value_type = Option<i64>, minimum = 0, maximum = 4294967295_i64)]
    from: Option<String>,
    /// At most this many (0 to 500, 100 by default).
    #[param(value_type = Option<i64>, minimum = 0, maximum = 500)]
    size: Option<String>,
}

impl ListQuery {
    /// The account and the page; every wrong parameter is named.
    pub fn resolve(self) -> Result<(Option<uuid::Uuid>, Paging), ReconciliationError> {
        let mut errors = Vec::new();
        let paging = PagingQuery {
            from: self.from,
            size: self.size,
        }
        .resolve(LIMITS)
        .map_err(|e| errors.extend(e));
        let account = self
            .account_uuid
            .as_deref()
            .map(|raw| parse_uuid("account_uuid", raw))
            .transpose()
            .map_err(|e| errors.push(e));
        match (account, paging) {
            (Ok(account), Ok(paging)) => Ok((account, paging)),
            _ => Err(ReconciliationError::invalid_all(errors)),
        }
    }
}

/// The order of every list: newest first and, among those made in the same second (times
/// are whole seconds), by uuid. Paging skips `from` rows of it, so it must be total: with
/// ties, the database may order them differently from one page's query to the next, and a
/// client paging through would see one row twice and never see another.
pub fn newest_first<C, U>(created: C, uuid: U) -> (Desc<C>, Desc<U>)
where
    C: ExpressionMethods,
    U: ExpressionMethods,
{
    (created.desc(), uuid.desc())
}

/// A store query for one page of a list, in [`newest_first`] order: the account asked
/// for, the organisations the caller sees (all for `None`), offset and limit.
pub type PageQuery<T> = fn(
    &mut coffer_store::Db<'_>,
    Option<&str>,
    Option<&[String]>,
    i64,
    i64,
) -> diesel::QueryResult<Vec<T>>;

/// One page of a list, limited to what the caller may see. An account asked for must be
/// one the caller may see (403), as payments' lists answer; one the directory does not know
/// is 404.
pub async fn visible_page<T: Send + 'static>(
    store: &coffer_store::Store,
    caller: &coffer_auth::Caller,
    account: Option<uuid::Uuid>,
    paging: Paging,
    query: PageQuery<T>,
) -> Result<Vec<T>, ReconciliationError> {
    if let Some(account) = account {
        crate::tenancy::require_known_account(store, caller, account).await?;
    }
    let visible = crate::tenancy::visible(caller);
    let account = account.map(|a| a.to_string());
    store
        .query(move |db| {
            query(
                db,
                account.as_deref(),
                visible.as_deref(),
                paging.offset(),
                paging.limit(),
            )
        })
        .await
        .map_err(ReconciliationError::from)
}
