//! Upload use cases: credentials for a source, the pass that finds newly uploaded files,
//! the choice of which waiting files to read next (one per organisation, oldest first),
//! and the reading of one, in its turn.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::error::ReconciliationError;
use coffer_auth::Caller;
use coffer_uploads::UploadCredentials;

use crate::blueprints::store as blueprints;
use crate::blueprints::store::Blueprint;
use crate::files::commands::{Arrived, Origin, read_in_turn, refuse};
use crate::files::domain::{FileStatus, shown_name};
use crate::files::store::{self as files, Row};
use crate::files::turns::Turns;
use crate::object_store::ObjectStore;
use crate::sources::commands as sources;
use crate::sources::domain::{SourceKind, upload_prefix};
use crate::sources::store as source_rows;
use crate::state::ReconciliationState;

/// How long upload credentials stay valid (SPEC.md, Limits: 5 minutes).
pub const CREDENTIALS_TTL: time::Duration = time::Duration::minutes(5);
/// Where every source's files land: `sources/<source uuid>/<file name>`.
const ROOT: &str = "sources/";
/// Waiting files looked at by one query; a pass asks again while each answer is full and
/// names organisations not reading yet, up to [`ROUNDS`] times.
const DUE_PER_QUERY: i64 = 20;
const ROUNDS: usize = 5;
/// How long a file whose reading failed (the store unreachable) waits, per attempt.
const RETRY_SECONDS: i64 = 30;

pub(crate) fn objects(state: &ReconciliationState) -> Result<&ObjectStore, ReconciliationError> {
    state.objects.as_ref().ok_or_else(|| {
        ReconciliationError::NotConfigured(
            "no object store is configured for uploads (reconciliation.s3)",
        )
    })
}

/// A signed upload form for the source's prefix, valid for five minutes.
pub async fn credentials(
    state: &ReconciliationState,
    caller: &Caller,
    source: String,
) -> Result<UploadCredentials, ReconciliationError> {
    let source = sources::get(state, caller, source).await?;
    if source.kind == SourceKind::Sftp {
        return Err(ReconciliationError::invalid(
            "source_uuid",
            "an sftp source fetches its files from its server; upload to an api_upload or bank_transfer source",
        ));
    }
    let store = objects(state)?;
    coffer_uploads::issue(
        store.signer(),
        &upload_prefix(&source.uuid),
        state.clock.now(),
        CREDENTIALS_TTL,
        state.limits.max_bytes as u64,
    )
    .map_err(ReconciliationError::internal)
}

/// The source uuid and file name of a key `sources/<uuid>/<name>`: the name is the key's
/// last segment, also under folders below the prefix (`sources/<uuid>/2026/11/a.xml`).
fn place(key: &str) -> Option<(&str, &str)> {
    let rest = key.strip_prefix(ROOT)?;
    let (source, path) = rest.split_once('/')?;
    let name = path.rsplit('/').next().unwrap_or(path);
    (uuid::Uuid::parse_str(source).is_ok() && !name.is_empty()).then_some((source, name))
}

/// Finds files uploaded since the last pass and records each once (a listing seen again
/// records nothing); answers how many were new.
pub async fn receive_new(state: &ReconciliationState) -> Result<usize, anyhow::Error> {
    let Some(store) = state.objects.as_ref() else {
        return Ok(0);
    };
    // A key with a NUL (S3 takes one) is no text PostgreSQL keeps, nor a file's name.
    let (listed, unkeepable): (Vec<_>, Vec<_>) = store
        .list(ROOT)
        .await?
        .into_iter()
        .partition(|o| !o.key.contains('\0'));
    for object in unkeepable {
        tracing::warn!(key = ?object.key, "an uploaded file's key holds a NUL; it is left alone");
    }
    let mut new = 0;
    let mut blueprint_of: HashMap<String, Option<String>> = HashMap::new();
    for chunk in listed.chunks(500) {
        let keys: Vec<String> = chunk.iter().map(|o| o.key.clone()).collect();
        let known: HashMap<(String, String), FileStatus> = state
            .store
            .query(move |db| files::known(db, &keys))
            .await?
            .into_iter()
            .map(|(key, version, status)| ((key, version), status))
            .collect();
        for object in chunk {
            let seen = known.get(&(object.key.clone(), object.last_modified.clone()));
            match seen {
                // This very file was read, and its removal failed then: removed now. A
                // newer file under the same key has another version and is new.
                Some(FileStatus::Done) => {
                    if let Err(e) = store.delete(&object.key).await {
                        tracing::warn!(key = %object.key, error = %e, "removing a read file failed again");
                    }
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
            let Some((source, name)) = place(&object.key) else {
                continue;
            };
            let blueprint = match blueprint_of.get(source) {
                Some(b) => b.clone(),
                None => {
                    let key = source.to_owned();
                    let found = state
                        .store
                        .query(move |db| source_rows::find_row(db, &key))
                        .await?;
                    let b = found.map(|s| s.blueprint_uuid);
                    blueprint_of.insert(source.to_owned(), b.clone());
                    b
                }
            };
            let Some(blueprint_uuid) = blueprint else {
                tracing::warn!(key = %object.key, "an uploaded file names no source; it is left alone");
                continue;
            };
            let row = Row {
                uuid: uuid::Uuid::new_v4().to_string(),
                source_uuid: Some(source.to_owned()),
                blueprint_uuid,
                object_key: object.key.clone(),
                object_version: object.last_modified.clone(),
                name: shown_name(name),
                size: i64::try_from(object.size).unwrap_or(i64::MAX),
                status: FileStatus::Waiting,
                report_uuid: None,
                received: state.clock.unix(),
                attempts: 0,
                next_attempt: 0,
            };
            let added = state
                .store
                .write(move |tx| files::receive(tx, &row).map_err(ReconciliationError::from))
                .await?;
            new += usize::from(added);
        }
    }
    Ok(new)
}

/// The waiting files to start reading now: the oldest due file of each organisation not
/// in `busy` (reading one already), with its blueprint, oldest first. A file whose
/// blueprint is gone waits. Files in `reading` are left out.
pub async fn due_fairly(
    state: &ReconciliationState,
    busy: &HashSet<String>,
    reading: &HashSet<String>,
) -> Result<Vec<(Row, Blueprint)>, anyhow::Error> {
    if state.objects.is_none() {
        return Ok(Vec::new());
    }
    let now = state.clock.unix();
    let mut skip_organisations: Vec<String> = busy.iter().cloned().collect();
    let mut skip_files: Vec<String> = reading.iter().cloned().collect();
    let mut blueprint_of: HashMap<String, Option<Blueprint>> = HashMap::new();
    let mut picked = Vec::new();
    for _ in 0..ROUNDS {
        let (files_left_out, organisations) = (skip_files.clone(), skip_organisations.clone());
        let due = state
            .store
            .query(move |db| files::due(db, now, DUE_PER_QUERY, &files_left_out, &organisations))
            .await?;
        let full = due.len() as i64 == DUE_PER_QUERY;
        let before = picked.len();
        for file in due {
            skip_files.push(file.uuid.clone());
            let blueprint = match blueprint_of.get(&file.blueprint_uuid) {
                Some(found) => found.clone(),
                None => {
                    let key = file.blueprint_uuid.clone();
                    let found = state
                        .store
                        .query(move |db| blueprints::find(db, &key))
                        .await?;
                    blueprint_of.insert(file.blueprint_uuid.clone(), found.clone());
                    found
                }
            };
            let Some(blueprint) = blueprint else {
                tracing::warn!(file = %file.uuid, "the file's blueprint is gone; it waits");
                postpone(state, &file.uuid, file.attempts).await?;
                continue;
            };
            if skip_organisations.contains(&blueprint.organisation_uuid) {
                continue;
            }
            skip_organisations.push(blueprint.organisation_uuid.clone());
            picked.push((file, blueprint));
        }
        if !full || picked.len() == before {
            break;
        }
    }
    Ok(picked)
}

/// Reads one waiting file in its turn; its object is then removed from the store (a
/// removal that fails is made by a later pass, which finds it known). A file over the
/// memory budget is not fetched: its report says so. A file that cannot be fetched, or
/// whose report cannot be written, is tried again later. Answers whether it got its
/// report.
pub async fn read_upload(
    state: &ReconciliationState,
    turns: &Turns,
    file: Row,
    blueprint: Blueprint,
) -> Result<bool, anyhow::Error> {
    let store = objects(state)?;
    let size = usize::try_from(file.size).unwrap_or(usize::MAX);
    let turn = match turns.take(&blueprint.organisation_uuid, size).await {
        Ok(turn) => turn,
        Err(over) => {
            let refused = refuse(state, blueprint, Origin::of(&file), None, over.to_string());
            return reported(state, store, &file, refused.await.map(drop)).await;
        }
    };
    let bytes = match store.get(&file.object_key).await {
        Ok(bytes) => bytes,
        Err(e) => {
            tracing::warn!(file = %file.uuid, error = %e, "reading an uploaded file failed; it is tried again");
            postpone(state, &file.uuid, file.attempts).await?;
            return Ok(false);
        }
    };
    let arrived = Arrived {
        name: file.name.clone(),
        bytes: Arc::new(bytes),
        source_uuid: file.source_uuid.clone(),
        file_uuid: Some(file.uuid.clone()),
    };
    let read = read_in_turn(state, &turn, blueprint, arrived)
        .await
        .map(drop);
    drop(turn);
    reported(state, store, &file, read).await
}

/// After a file's report was written (its object is removed) or could not be (it is tried
/// again later); answers whether it got its report.
async fn reported(
    state: &ReconciliationState,
    store: &ObjectStore,
    file: &Row,
    written: Result<(), ReconciliationError>,
) -> Result<bool, anyhow::Error> {
    match written {
        Ok(()) => {
            removed(store, file).await;
            Ok(true)
        }
        Err(e) => {
            tracing::warn!(file = %file.uuid, error = %e, "recording a file's report failed; it is tried again");
            postpone(state, &file.uuid, file.attempts).await?;
            Ok(false)
        }
    }
}

/// Removes a file's object once it has its report, logging a removal that fails.
async fn removed(store: &ObjectStore, file: &Row) {
    if let Err(e) = remove_read(store, &file.object_key, &file.object_version).await {
        tracing::warn!(file = %file.uuid, error = %e, "removing a read file failed; a later pass removes it");
    }
}

/// Removes the object of a file just read, unless a newer file was uploaded under its key
/// meanwhile (that one is received by the next pass). The check and the removal are two
/// calls to the store: a file written between them, within milliseconds, would be lost, a
/// window a bank's daily file does not meet.
async fn remove_read(store: &ObjectStore, key: &str, version: &str) -> Result<(), anyhow::Error> {
    let now = store.list(key).await?;
    if now
        .iter()
        .any(|o| o.key == key && o.last_modified == version)
    {
        store.delete(key).await?;
    }
    Ok(())
}

async fn postpone(
    state: &ReconciliationState,
    file: &str,
    attempts: i32,
) -> Result<(), anyhow::Error> {
    let next = state.clock.unix() + RETRY_SECONDS * i64::from(attempts.clamp(0, 20) + 1);
    let key = file.to_owned();
    state
        .store
        .write(move |tx| files::postpone(tx, &key, next).map_err(ReconciliationError::from))
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn a_file_is_named_by_the_last_segment_of_its_key() {
        let source = "9a10fe49-7931-48dd-b709-41c45e4adb6a";
        assert_eq!(
            place(&format!("sources/{source}/camt.xml")),
            Some((source, "camt.xml"))
        );
        assert_eq!(
            place(&format!("sources/{source}/2026/11/camt.xml")),
            Some((source, "camt.xml"))
        );
        assert_eq!(place(&format!("sources/{source}/folder/")), None);
        assert_eq!(place("sources/not-a-uuid/camt.xml"), None);
        assert_eq!(place("elsewhere/camt.xml"), None);
    }
}
