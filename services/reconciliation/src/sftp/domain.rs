//! An SFTP poll's rules, pure: when a source is due, which listed entries are bank files,
//! what a file is recorded under, when it is read, which records are forgotten, and where
//! a read file goes.

use std::collections::HashSet;

use uuid::Uuid;

/// Where read files are moved, under the source's directory.
pub const PROCESSED: &str = "processed";
/// Files handled in one poll of a source (read, or moved after an earlier read); the rest
/// wait for the next poll, so one full directory cannot hold the worker.
pub const FILES_PER_POLL: usize = 50;

/// Files' rows are named after their place and version, so the row of a file seen again
/// is found without a query by place.
const FILE_ROWS: Uuid = Uuid::from_u128(0x0f3c_5a8e_2b71_4d19_9e64_7c2a_b5d0_1e83);

/// A regular file found in a source's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub size: u64,
    /// Seconds since the epoch, as the server reports them (0 when it does not).
    pub mtime: u32,
}

/// Whether a source is due a poll at `now`: never polled, or `poll_seconds` since.
pub fn is_due(polled: Option<i64>, poll_seconds: i32, now: i64) -> bool {
    polled.is_none_or(|at| at.saturating_add(i64::from(poll_seconds)) <= now)
}

/// Whether a directory entry is a bank file to read: a regular file (not a directory such
/// as `processed/`, nor a link or a device), and not hidden (a client that uploads under a
/// dot-name and renames when done is never read half-written). A name with a NUL, which a
/// hostile server could list, is no text the database keeps and is left alone.
pub fn is_bank_file(name: &str, mode: Option<u32>) -> bool {
    const TYPE: u32 = 0o170_000;
    const REGULAR: u32 = 0o100_000;
    let regular = mode.is_some_and(|m| m & TYPE == REGULAR);
    regular
        && !name.starts_with('.')
        && !name.contains('/')
        && !name.contains('\0')
        && !name.is_empty()
}

/// The place a file is recorded under: its source and name.
pub fn file_place(source: &str, file: &Listed) -> String {
    format!("sftp:{source}/{}", file.name)
}

/// Which file at that place: a file that keeps its name but is written again (another time
/// or size) is a new file; the same file listed again is not.
pub fn file_version(file: &Listed) -> String {
    format!("{}:{}", file.mtime, file.size)
}

/// The uuid of the files row recorded at `place` in `version`.
pub fn file_uuid(place: &str, version: &str) -> String {
    Uuid::new_v5(&FILE_ROWS, format!("{place}@{version}").as_bytes()).to_string()
}

/// What a poll does with a listed file, by its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Seen in this version (size and time) for the first time: it may still be being
    /// written, so it is only recorded. A poll that lists it unchanged reads it; one that
    /// lists it grown records the new version instead.
    Wait,
    /// Listed unchanged since an earlier poll recorded it, and not read yet.
    Read,
    /// Read before, but still in the directory (its move failed): moved only.
    Move,
}

/// The step for a file whose row this poll `recorded` (or found, recorded before), and
/// which was `read` already or not.
pub fn step(recorded: bool, read: bool) -> Step {
    match (recorded, read) {
        (_, true) => Step::Move,
        (true, false) => Step::Wait,
        (false, false) => Step::Read,
    }
}

/// The rows among a source's `waiting` ones, as `(uuid, place, version)`, whose file the
/// listing no longer shows in that version: it was removed, renamed, or written on since.
/// They are forgotten, or they would wait forever. Rows of files read are never among the
/// waiting: they say a file was read, which is what keeps it from being read twice.
pub fn vanished(
    source: &str,
    listed: &[Listed],
    waiting: Vec<(String, String, String)>,
) -> Vec<String> {
    let shown: HashSet<(String, String)> = listed
        .iter()
        .map(|file| (file_place(source, file), file_version(file)))
        .collect();
    waiting
        .into_iter()
        .filter(|(_, place, version)| !shown.contains(&(place.clone(), version.clone())))
        .map(|(uuid, _, _)| uuid)
        .collect()
}

/// `name` in `directory`, as the server's paths are written.
pub fn join(directory: &str, name: &str) -> String {
    if directory.is_empty() {
        name.to_owned()
    } else if directory.ends_with('/') {
        format!("{directory}{name}")
    } else {
        format!("{directory}/{name}")
    }
}

/// The directory read files are moved to.
pub fn processed_directory(directory: &str) -> String {
    join(directory, PROCESSED)
}

/// Where a read file goes: `processed/<name>`, or, when a file of that name is there
/// already (banks reuse names such as `camt054.xml`), `processed/<name>.<row uuid>`.
pub fn processed_path(directory: &str, name: &str, taken_by: Option<&str>) -> String {
    let processed = processed_directory(directory);
    match taken_by {
        None => join(&processed, name),
        Some(row) => join(&processed, &format!("{name}.{row}")),
    }
}

/// The oldest files first (by time, then name), at most [`FILES_PER_POLL`].
pub fn oldest_first(mut files: Vec<Listed>) -> Vec<Listed> {
    files.sort_by(|a, b| (a.mtime, &a.name).cmp(&(b.mtime, &b.name)));
    files.truncate(FILES_PER_POLL);
    files
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn listed(name: &str, mtime: u32) -> Listed {
        Listed {
            name: name.into(),
            size: 10,
            mtime,
        }
    }

    #[test]
    fn a_source_is_due_once_its_interval_has_passed() {
        assert!(is_due(None, 300, 0));
        assert!(!is_due(Some(1_000), 300, 1_299));
        assert!(is_due(Some(1_000), 300, 1_300));
        assert!(!is_due(Some(i64::MAX), 300, 0));
    }

    #[test]
    fn only_visible_regular_files_are_read() {
        assert!(is_bank_file("camt054.xml", Some(0o100_644)));
        assert!(!is_bank_file("processed", Some(0o040_755)));
        assert!(!is_bank_file("link.xml", Some(0o120_777)));
        assert!(!is_bank_file("socket", Some(0o140_755)));
        assert!(!is_bank_file(".camt054.xml.part", Some(0o100_644)));
        assert!(!is_bank_file("unknown.xml", None));
        assert!(!is_bank_file("camt\u{0}.xml", Some(0o100_644)));
    }

    #[test]
    fn a_file_written_again_under_its_name_is_a_new_file() {
        let source = "5a0e9d0c-6f0b-4f0c-9c55-0b9f1d8e3a21";
        let first = listed("camt054.xml", 1_767_225_600);
        let again = listed("camt054.xml", 1_767_312_000);
        let place = file_place(source, &first);
        assert_eq!(
            place,
            "sftp:5a0e9d0c-6f0b-4f0c-9c55-0b9f1d8e3a21/camt054.xml"
        );
        assert_eq!(place, file_place(source, &again));
        assert_eq!(file_version(&first), "1767225600:10");
        assert_ne!(file_version(&first), file_version(&again));
        let row = file_uuid(&place, &file_version(&first));
        assert_eq!(row, file_uuid(&place, &file_version(&first.clone())));
        assert_ne!(row, file_uuid(&place, &file_version(&again)));
    }

    #[test]
    fn a_file_is_read_only_once_a_poll_finds_it_as_an_earlier_one_recorded_it() {
        assert_eq!(step(true, false), Step::Wait);
        assert_eq!(step(false, false), Step::Read);
        assert_eq!(step(false, true), Step::Move);
    }

    #[test]
    fn waiting_rows_of_files_no_longer_listed_as_they_were_are_forgotten() {
        let source = "s";
        let kept = listed("kept.xml", 100);
        let mut grown = listed("grown.xml", 100);
        let row = |uuid: &str, file: &Listed| {
            (
                uuid.to_owned(),
                file_place(source, file),
                file_version(file),
            )
        };
        let waiting = vec![
            row("r-kept", &kept),
            row("r-grown", &grown),
            row("r-gone", &listed("gone.xml", 100)),
        ];
        grown.size += 1;
        let forgotten = vanished(source, &[kept, grown], waiting);
        assert_eq!(forgotten, ["r-grown", "r-gone"]);
        assert!(vanished(source, &[], Vec::new()).is_empty());
    }

    #[test]
    fn read_files_go_to_processed_under_the_directory() {
        assert_eq!(processed_path("/", "a.xml", None), "/processed/a.xml");
        assert_eq!(
            processed_path("/out", "a.xml", None),
            "/out/processed/a.xml"
        );
        assert_eq!(processed_path("out/", "a.xml", None), "out/processed/a.xml");
        assert_eq!(
            processed_path("/out", "a.xml", Some("r1")),
            "/out/processed/a.xml.r1"
        );
        assert_eq!(join("/out", "a.xml"), "/out/a.xml");
    }

    #[test]
    fn a_poll_takes_the_oldest_files_up_to_its_bound() {
        let mut files: Vec<Listed> = (0..60).map(|i| listed(&format!("f{i}"), 100 - i)).collect();
        files.push(listed("a", 41));
        let taken = oldest_first(files);
        assert_eq!(taken.len(), FILES_PER_POLL);
        // The same time: by name.
        assert_eq!(
            (taken[0].name.as_str(), taken[1].name.as_str()),
            ("a", "f59")
        );
        assert_eq!(taken[49].name, "f11");
    }
}
