//! The delivery log in the database: a row per try, written when the try begins and
//! completed with its answer.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::deliveries::domain::log::WebhookResponse;
use crate::schema::webhook_responses::dsl as r;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::webhook_responses)]
// An absent value is written as NULL, not DEFAULT, so that many rows go in one statement
// on SQLite too (which has no DEFAULT in a multi-row VALUES).
#[diesel(treat_none_as_default_value = false)]
struct Row {
    uuid: String,
    task_uuid: String,
    organisation_uuid: String,
    account_uuid: Option<String>,
    webhook_configuration_uuid: String,
    event_uuid: String,
    object_uuid: String,
    sent_at: i64,
    answered: bool,
    error: bool,
    status_code: i32,
    reason_phrase: String,
    error_message: Option<String>,
    response_time: i64,
    do_not_retry: bool,
    request_headers: String,
    request_body: String,
    response_headers: String,
    response_body: String,
}

impl From<Row> for WebhookResponse {
    fn from(x: Row) -> Self {
        WebhookResponse {
            uuid: x.uuid,
            task_uuid: x.task_uuid,
            organisation_uuid: x.organisation_uuid,
            account_uuid: x.account_uuid,
            webhook_configuration_uuid: x.webhook_configuration_uuid,
            event_uuid: x.event_uuid,
            object_uuid: x.object_uuid,
            sent_at: x.sent_at,
            answered: x.answered,
            error: x.error,
            status_code: x.status_code,
            reason_phrase: x.reason_phrase,
            error_message: x.error_message,
            response_time: x.response_time,
            do_not_retry: x.do_not_retry,
            request_headers: x.request_headers,
            request_body: x.request_body,
            response_headers: x.response_headers,
            response_body: x.response_body,
        }
    }
}

impl From<&WebhookResponse> for Row {
    fn from(x: &WebhookResponse) -> Self {
        Row {
            uuid: x.uuid.clone(),
            task_uuid: x.task_uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            webhook_configuration_uuid: x.webhook_configuration_uuid.clone(),
            event_uuid: x.event_uuid.clone(),
            object_uuid: x.object_uuid.clone(),
            sent_at: x.sent_at,
            answered: x.answered,
            error: x.error,
            status_code: x.status_code,
            reason_phrase: x.reason_phrase.clone(),
            error_message: x.error_message.clone(),
            response_time: x.response_time,
            do_not_retry: x.do_not_retry,
            request_headers: x.request_headers.clone(),
            request_body: x.request_body.clone(),
            response_headers: x.response_headers.clone(),
            response_body: x.response_body.clone(),
        }
    }
}

/// Adds tries' rows, many to a statement.
pub fn insert_many(db: &mut Db<'_>, entries: &[WebhookResponse]) -> QueryResult<()> {
    // 19 columns: a chunk stays well under SQLite's limit of bound values.
    for chunk in entries.chunks(500) {
        let rows: Vec<Row> = chunk.iter().map(Row::from).collect();
        db_run!(db: { diesel::insert_into(r::webhook_responses).values(&rows).execute(db).map(drop) })?;
    }
    Ok(())
}

/// Removes the rows of tries that were let go before they were made.
pub fn delete_many(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<()> {
    for chunk in uuids.chunks(500) {
        db_run!(db: {
            diesel::delete(r::webhook_responses.filter(r::uuid.eq_any(chunk))).execute(db).map(drop)
        })?;
    }
    Ok(())
}

/// Completes tries' rows with their answers (and when and how each was sent: a try
/// claimed ahead is signed again when made), in one statement per chunk and without
/// reading them first; a row that is missing (purged meanwhile) is written whole.
pub fn complete_many(db: &mut Db<'_>, entries: &[WebhookResponse]) -> QueryResult<()> {
    use diesel::upsert::excluded;
    for chunk in entries.chunks(500) {
        let rows: Vec<Row> = chunk.iter().map(Row::from).collect();
        db_run!(db: {
            diesel::insert_into(r::webhook_responses)
                .values(&rows)
                .on_conflict(r::uuid)
                .do_update()
                .set((
                    r::sent_at.eq(excluded(r::sent_at)),
                    r::request_headers.eq(excluded(r::request_headers)),
                    r::answered.eq(excluded(r::answered)),
                    r::error.eq(excluded(r::error)),
                    r::status_code.eq(excluded(r::status_code)),
                    r::reason_phrase.eq(excluded(r::reason_phrase)),
                    r::error_message.eq(excluded(r::error_message)),
                    r::response_time.eq(excluded(r::response_time)),
                    r::do_not_retry.eq(excluded(r::do_not_retry)),
                    r::response_headers.eq(excluded(r::response_headers)),
                    r::response_body.eq(excluded(r::response_body)),
                ))
                .execute(db)
                .map(drop)
        })?;
    }
    Ok(())
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<WebhookResponse>> {
    let row: Option<Row> = db_run!(db: {
        r::webhook_responses.find(uuid).select(Row::as_select()).first(db).optional()
    })?;
    Ok(row.map(WebhookResponse::from))
}

/// What a list is narrowed to; `organisations` none means every one (a platform caller).
#[derive(Debug, Default, Clone)]
pub struct Scope {
    pub organisations: Option<Vec<String>>,
    pub account: Option<String>,
    pub endpoint: Option<String>,
    pub event: Option<String>,
    /// Only failed tries (true) or only successful ones (false).
    pub failed: Option<bool>,
    pub status_code: Option<i32>,
}

/// Tries of `scope`, newest first, skipping `offset`, at most `limit`.
pub fn list(
    db: &mut Db<'_>,
    scope: &Scope,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<WebhookResponse>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = r::webhook_responses.select(Row::as_select()).into_boxed();
        if let Some(orgs) = &scope.organisations {
            q = q.filter(r::organisation_uuid.eq_any(orgs));
        }
        if let Some(account) = &scope.account {
            q = q.filter(r::account_uuid.eq(account));
        }
        if let Some(endpoint) = &scope.endpoint {
            q = q.filter(r::webhook_configuration_uuid.eq(endpoint));
        }
        if let Some(event) = &scope.event {
            q = q.filter(r::event_uuid.eq(event));
        }
        if let Some(failed) = scope.failed {
            q = q.filter(r::error.eq(failed));
        }
        if let Some(code) = scope.status_code {
            q = q.filter(r::status_code.eq(code));
        }
        q.order((r::sent_at.desc(), r::uuid.desc())).offset(offset).limit(limit).load(db)
    })?;
    Ok(rows.into_iter().map(WebhookResponse::from).collect())
}

/// Removes tries made before `before` (Unix seconds), at most `limit` of them.
pub fn purge(db: &mut Db<'_>, before: i64, limit: i64) -> QueryResult<usize> {
    db_run!(db: {
        let old: Vec<String> = r::webhook_responses
            .filter(r::sent_at.lt(before))
            .select(r::uuid)
            .limit(limit)
            .load(db)?;
        diesel::delete(r::webhook_responses.filter(r::uuid.eq_any(old))).execute(db)
    })
}
