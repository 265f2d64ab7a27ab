//! The process record as SPEC.md shows it.

use serde::Serialize;
use serde_json::Value;

use super::domain::ProcessStatus;
use super::store::ProcessRow;

/// Which form of the record: the partner's (create, by uuid) carries the integration's
/// uuid; the one read by token does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Partner,
    ByToken,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ProcessRecord {
    pub uuid: String,
    pub onboarding_configuration_uuid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner_integration_uuid: Option<Option<String>>,
    /// The state as a person reads it.
    pub label: String,
    /// `pending` or `completed`.
    // Described as the plain string it has always been, so the API description is unchanged.
    #[schema(value_type = String)]
    pub status: ProcessStatus,
    pub token: String,
    pub expires_at: i64,
    pub expired: bool,
    pub created: i64,
    pub external_id: String,
    #[schema(value_type = Object)]
    pub initialisation_data: Value,
    /// `{organisation: {uuid}, accounts: {<label>: {uuid}}, user: {uuid}}` once completed.
    #[schema(value_type = Object)]
    pub results: Value,
}

impl ProcessRecord {
    pub fn of(row: &ProcessRow, form: Form, now: i64) -> Self {
        let status = row.status;
        ProcessRecord {
            uuid: row.uuid.clone(),
            onboarding_configuration_uuid: row.configuration_uuid.clone(),
            partner_integration_uuid: (form == Form::Partner)
                .then(|| row.partner_integration_uuid.clone()),
            label: status.label().to_owned(),
            status,
            token: row.token.clone(),
            expires_at: row.expires_at,
            expired: status == ProcessStatus::Pending && now >= row.expires_at,
            created: row.created,
            external_id: row.external_id.clone(),
            initialisation_data: serde_json::from_str(&row.initialisation_data)
                .unwrap_or(Value::Null),
            results: row
                .results
                .as_deref()
                .and_then(|r| serde_json::from_str(r).ok())
                .unwrap_or_else(|| serde_json::json!({})),
        }
    }

    /// The record as events carry it: without the token, which opens the process.
    pub fn for_event(row: &ProcessRow, now: i64) -> Value {
        let mut v = serde_json::to_value(Self::of(row, Form::Partner, now)).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.remove("token");
        }
        v
    }
}
