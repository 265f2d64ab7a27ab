//! One search endpoint, from request body to response body, for every service's
//! `POST /search/<objects>`.

use coffer_error::ApiError;
use coffer_store::Store;
use serde_json::Value;
use uuid::Uuid;

use crate::plan::Plan;
use crate::query::Schema;
use crate::run::{Render, Source, run};

/// Reads the body, checks it against `schema`, and runs it over the caller's
/// organisations (`visible`; all for a platform caller) on `store`. `source` chooses where
/// counts come from for the plan; `render` gives each hit.
pub async fn search(
    store: &Store,
    schema: &'static Schema,
    body: Value,
    visible: Option<&[Uuid]>,
    source: fn(&Plan) -> Source<'static>,
    render: Render,
) -> Result<Value, ApiError> {
    let plan = Plan::read(schema, body).map_err(ApiError::validation)?;
    let visible = visible.map(<[Uuid]>::to_vec);
    store
        .search(&tenant(visible.as_deref()), move |db, deadline| {
            let source = source(&plan);
            run(
                db,
                schema,
                &plan,
                visible.as_deref(),
                (source, render),
                deadline,
            )
        })
        .await
        .map_err(ApiError::from)
}

/// Whose bound of running searches a search counts against: the organisations it may
/// see, which are one organisation's, a partner's (its organisations) or the platform's.
fn tenant(visible: Option<&[Uuid]>) -> String {
    match visible {
        None => "platform".into(),
        Some(ids) => ids
            .iter()
            .map(Uuid::to_string)
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// Serialises a found object for [`Render`], reporting a failure as the database's.
pub fn rendered<T: serde::Serialize>(found: Option<T>) -> diesel::QueryResult<Option<Value>> {
    found
        .map(|x| {
            serde_json::to_value(x)
                .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))
        })
        .transpose()
}
