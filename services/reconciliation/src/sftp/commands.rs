//! Polling SFTP sources. Each poll runs outside any transaction: the server is called
//! between short writes (the file recorded, its report, the poll's outcome), never inside
//! one. A file is recorded before it is read and its report written with its row marked
//! done, so a crash anywhere repeats a download at most, never a report. A file is read
//! only by a poll that finds it as an earlier poll recorded it (the same size and time),
//! so one still being written is not read half-way.

use std::sync::Arc;

use coffer_store::StoreError;
use futures_util::StreamExt;
use zeroize::Zeroizing;

use super::client::{ClientError, Connection, Credential, Target};
use super::domain::{self, Listed, Step};
use crate::blueprints::store::{self as blueprints, Blueprint};
use crate::files::commands::{Arrived, Origin, read_in_turn, refuse};
use crate::files::domain::{FileStatus, shown_name};
use crate::files::store::{self as files, Row as FileRow};
use crate::files::turns::Turns;
use crate::sources::domain::secret_context;
use crate::sources::domain::{DEFAULT_POLL_SECONDS, SourceKind};
use crate::sources::store::{self as sources, Row};
use crate::state::ReconciliationState;

/// Sources polled at once by one worker: a slow server holds only its own poll.
const POLLS_AT_ONCE: usize = 4;
/// A poll error is shown to the source's owner; a long list of refused files is cut.
const MAX_ERROR_CHARS: usize = 2_000;

/// Why a poll stopped before its files were looked at, or part-way.
#[derive(Debug, thiserror::Error)]
pub enum PollError {
    #[error("the source has no SFTP settings")]
    NotSftp,
    #[error("SFTP sources need the master keys (secrets.master_keys)")]
    NoMasterKeys,
    #[error("the source's password or private key does not open with the master keys")]
    Sealed,
    #[error("the source's blueprint is gone")]
    NoBlueprint,
    #[error(transparent)]
    Client(#[from] ClientError),
    /// Detail goes to the log, not to the source's owner.
    #[error("the poll could not be recorded; it is tried again")]
    Store(#[from] StoreError),
}

/// What one poll did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Polled {
    /// Files read (each got its report).
    pub read: usize,
    /// Files moved to `processed/`, those read earlier whose move had failed included.
    pub moved: usize,
    /// Files seen for the first time in their size and time: read by a later poll that
    /// finds them unchanged.
    pub waiting: usize,
    /// Waiting rows forgotten because their file is no longer listed as it was.
    pub forgotten: usize,
    /// Files that were left on the server, and why: shown as the source's `poll_error`.
    pub problems: Vec<String>,
}

/// Polls every SFTP source that is due, a few at once; answers how many were polled. One
/// source's failure is recorded on it and never stops the others.
pub async fn poll_due(state: &ReconciliationState, turns: &Turns) -> Result<usize, StoreError> {
    let rows = state
        .store
        .query(|db| sources::of_kind(db, SourceKind::Sftp))
        .await?;
    let now = state.clock.unix();
    let due: Vec<Row> = rows
        .into_iter()
        .filter(|r| {
            let every = r.sftp_poll_seconds.unwrap_or(DEFAULT_POLL_SECONDS);
            domain::is_due(r.polled, every, now)
        })
        .collect();
    let polled = futures_util::stream::iter(due)
        .map(|row| poll_claimed(state, turns, row))
        .buffer_unordered(POLLS_AT_ONCE)
        .filter(|polled| std::future::ready(*polled))
        .count()
        .await;
    Ok(polled)
}

/// Claims the source's poll (another replica may have), polls it and records how it went;
/// false when another replica had claimed it.
async fn poll_claimed(state: &ReconciliationState, turns: &Turns, row: Row) -> bool {
    let at = state.clock.unix();
    let (uuid, seen) = (row.uuid.clone(), row.polled);
    let claimed = state
        .store
        .write(move |tx| sources::claim_poll(tx, &uuid, seen, at).map_err(StoreError::from))
        .await;
    match claimed {
        Ok(true) => {}
        Ok(false) => return false,
        Err(e) => {
            tracing::warn!(source = %row.uuid, error = %e, "claiming an SFTP poll failed");
            return false;
        }
    }
    let error = match poll_source(state, turns, &row).await {
        Ok(polled) => {
            if polled.read > 0 || polled.moved > 0 || polled.forgotten > 0 {
                tracing::info!(source = %row.uuid, read = polled.read, moved = polled.moved, waiting = polled.waiting, forgotten = polled.forgotten, "SFTP source polled");
            }
            let problems = shown(&polled.problems);
            if let Some(problems) = &problems {
                tracing::warn!(source = %row.uuid, problems, "an SFTP poll left files on the server");
            }
            problems
        }
        Err(e) => {
            tracing::warn!(source = %row.uuid, error = ?e, "polling an SFTP source failed");
            Some(e.to_string())
        }
    };
    let uuid = row.uuid.clone();
    let recorded = state
        .store
        .write(move |tx| {
            sources::record_poll(tx, &uuid, at, error.as_deref()).map_err(StoreError::from)
        })
        .await;
    if let Err(e) = recorded {
        tracing::warn!(source = %row.uuid, error = %e, "recording an SFTP poll failed");
    }
    true
}

/// The problems as one line, cut to a length a source shows.
fn shown(problems: &[String]) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let joined = problems.join("; ");
    Some(if joined.chars().count() > MAX_ERROR_CHARS {
        let mut cut: String = joined.chars().take(MAX_ERROR_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        joined
    })
}

/// One poll of one source: connect, list, forget the waiting rows of files no longer
/// listed, and for each file (oldest first, at most [`domain::FILES_PER_POLL`]) take its
/// [`Step`]: record a new one, download, read and move one found unchanged to
/// `processed/`, only move one read before whose move failed.
pub async fn poll_source(
    state: &ReconciliationState,
    turns: &Turns,
    source: &Row,
) -> Result<Polled, PollError> {
    let (Some(host), Some(port), Some(username), Some(directory), Some(host_key)) = (
        source.sftp_host.as_deref(),
        source.sftp_port.and_then(|p| u16::try_from(p).ok()),
        source.sftp_username.as_deref(),
        source.sftp_directory.as_deref(),
        source.sftp_host_key.as_deref(),
    ) else {
        return Err(PollError::NotSftp);
    };
    let credential = credential(state, source)?;
    let key = source.blueprint_uuid.clone();
    let blueprint = state
        .store
        .query(move |db| blueprints::find(db, &key))
        .await?
        .ok_or(PollError::NoBlueprint)?;
    let target = Target {
        host,
        port,
        username,
        credential,
        host_key,
    };
    let mut connection = Connection::open(target, &state.sftp_addresses).await?;
    let polled = read_new(
        (state, turns),
        &mut connection,
        source,
        directory,
        &blueprint,
    )
    .await;
    connection.close().await;
    polled
}

/// The password or private key, opened from its seal for this poll only.
fn credential(state: &ReconciliationState, source: &Row) -> Result<Credential, PollError> {
    let secrets = state.secrets.as_ref().ok_or(PollError::NoMasterKeys)?;
    let sealed = source.sftp_secret.as_deref().ok_or(PollError::NotSftp)?;
    let opened = secrets
        .open(&secret_context(&source.uuid), sealed)
        .map_err(|_| PollError::Sealed)?;
    let text = Zeroizing::new(String::from_utf8(opened.to_vec()).map_err(|_| PollError::Sealed)?);
    Ok(match source.sftp_secret_kind.as_deref() {
        Some("private_key") => Credential::PrivateKey(text),
        _ => Credential::Password(text),
    })
}

async fn read_new(
    (state, turns): (&ReconciliationState, &Turns),
    connection: &mut Connection,
    source: &Row,
    directory: &str,
    blueprint: &Blueprint,
) -> Result<Polled, PollError> {
    let max = state.limits.max_bytes;
    let listed = connection.list(directory).await?;
    let mut polled = Polled {
        forgotten: forget_vanished(state, source, &listed).await?,
        ..Polled::default()
    };
    for file in domain::oldest_first(listed) {
        if usize::try_from(file.size).map_or(true, |size| size > max) {
            polled.problems.push(
                ClientError::TooLarge {
                    name: file.name.clone(),
                    max,
                }
                .to_string(),
            );
            continue;
        }
        let (row, recorded) = record(state, source, &file).await?;
        match domain::step(recorded, row.status != FileStatus::Waiting) {
            Step::Wait => {
                polled.waiting += 1;
                continue;
            }
            Step::Read => {
                let read = read_file(
                    (state, turns),
                    connection,
                    (source, directory, blueprint),
                    &file,
                    &row,
                );
                if let Some(problem) = read.await? {
                    polled.problems.push(problem);
                    continue;
                }
                polled.read += 1;
            }
            Step::Move => {}
        }
        match connection
            .move_to_processed(directory, &file.name, &row.uuid)
            .await
        {
            Ok(()) => polled.moved += 1,
            Err(e) => polled.problems.push(format!(
                "{} was read; moving it to {}/ failed and is tried again: {e}",
                file.name,
                domain::PROCESSED
            )),
        }
    }
    Ok(polled)
}

/// Downloads `file` in its turn and reads it under its `row`, writing its report; answers
/// the problem when only this file failed (its row still waits, so the next poll tries it
/// again). A file over the memory budget is not downloaded: its report says so.
async fn read_file(
    (state, turns): (&ReconciliationState, &Turns),
    connection: &Connection,
    (source, directory, blueprint): (&Row, &str, &Blueprint),
    file: &Listed,
    row: &FileRow,
) -> Result<Option<String>, PollError> {
    let size = usize::try_from(file.size).unwrap_or(usize::MAX);
    let turn = match turns.take(&source.organisation_uuid, size).await {
        Ok(turn) => turn,
        Err(over) => {
            let origin = Origin::of(row);
            let refused = refuse(state, blueprint.clone(), origin, None, over.to_string());
            return Ok(refused.await.err().map(|e| {
                format!(
                    "reporting {} failed and is tried again: {}",
                    file.name,
                    e.message()
                )
            }));
        }
    };
    let path = domain::join(directory, &file.name);
    let bytes = match connection
        .download(&path, &file.name, state.limits.max_bytes)
        .await
    {
        Ok(bytes) => bytes,
        Err(e) if only_this_file(&e) => return Ok(Some(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    let arrived = Arrived {
        name: row.name.clone(),
        bytes: Arc::new(bytes),
        source_uuid: Some(source.uuid.clone()),
        file_uuid: Some(row.uuid.clone()),
    };
    Ok(read_in_turn(state, &turn, blueprint.clone(), arrived)
        .await
        .err()
        .map(|e| {
            format!(
                "reading {} failed and is tried again: {}",
                file.name,
                e.message()
            )
        }))
}

/// A failure that concerns one file (too large, or refused by the server) lets the poll
/// go on with the next; one of the session (a timeout, a dropped connection) ends it.
fn only_this_file(e: &ClientError) -> bool {
    matches!(
        e,
        ClientError::TooLarge { .. }
            | ClientError::Sftp {
                reason: russh_sftp::client::error::Error::Status(_),
                ..
            }
    )
}

/// Forgets the source's waiting rows whose file `listed` no longer shows as it was
/// recorded; answers how many went. Rows of files read stay, whatever the listing.
async fn forget_vanished(
    state: &ReconciliationState,
    source: &Row,
    listed: &[Listed],
) -> Result<usize, StoreError> {
    let key = source.uuid.clone();
    let waiting = state
        .store
        .query(move |db| files::waiting_of_source(db, &key))
        .await?;
    let gone = domain::vanished(&source.uuid, listed, waiting);
    if gone.is_empty() {
        return Ok(0);
    }
    state
        .store
        .write(move |tx| files::forget_waiting(tx, &gone).map_err(StoreError::from))
        .await
}

/// The file's row, and whether this poll recorded it: a file listed again finds its row
/// (done, or waiting since an earlier poll), never a second one.
async fn record(
    state: &ReconciliationState,
    source: &Row,
    file: &Listed,
) -> Result<(FileRow, bool), StoreError> {
    let (place, version) = (
        domain::file_place(&source.uuid, file),
        domain::file_version(file),
    );
    let row = FileRow {
        uuid: domain::file_uuid(&place, &version),
        source_uuid: Some(source.uuid.clone()),
        blueprint_uuid: source.blueprint_uuid.clone(),
        object_key: place,
        object_version: version,
        name: shown_name(&file.name),
        size: i64::try_from(file.size).unwrap_or(i64::MAX),
        status: FileStatus::Waiting,
        report_uuid: None,
        received: state.clock.unix(),
        attempts: 0,
        // Read by this poller only: never due for the uploads pass, which reads waiting
        // rows by their time from the object store.
        next_attempt: i64::MAX,
    };
    let (found, recorded) = state
        .store
        .write(move |tx| {
            let recorded = files::receive(tx, &row)?;
            Ok::<_, StoreError>((files::find(tx, &row.uuid)?, recorded))
        })
        .await?;
    let found = found.ok_or(StoreError::Query(diesel::result::Error::NotFound))?;
    Ok((found, recorded))
}
