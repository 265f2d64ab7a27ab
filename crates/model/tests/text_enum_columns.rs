//! A `text_enum!` in a text column: written as its text, read back as its variant, on
//! SQLite and PostgreSQL alike; a text Coffer did not write fails the read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use coffer_testkit::{Backend, TestDb, backend_tests};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;

coffer_model::text_enum! {
    pub enum Door {
        Open => "open",
        Shut => "shut",
    }
}

diesel::table! {
    doors (id) {
        id -> Integer,
        state -> Text,
        was -> Nullable<Text>,
    }
}

#[derive(Debug, PartialEq, Queryable, Insertable)]
#[diesel(table_name = doors)]
struct DoorRow {
    id: i32,
    state: Door,
    was: Option<Door>,
}

#[derive(QueryableByName)]
struct Raw {
    #[diesel(sql_type = Text)]
    state: String,
}

const CREATE: &str = "CREATE TABLE doors (id INTEGER PRIMARY KEY, state TEXT NOT NULL, was TEXT)";

/// Writes two rows, reads them back whole and by their state, reads the stored text, and
/// fails on a text no variant has. One body for both connections, as `db_run!` does it.
trait RoundTrip {
    fn run(&mut self);
}

macro_rules! round_trip_on {
    ($conn:ty) => {
        impl RoundTrip for $conn {
            fn run(&mut self) {
                self.batch_execute(CREATE).expect("table");
                let rows = [
                    DoorRow {
                        id: 1,
                        state: Door::Open,
                        was: None,
                    },
                    DoorRow {
                        id: 2,
                        state: Door::Shut,
                        was: Some(Door::Open),
                    },
                ];
                diesel::insert_into(doors::table)
                    .values(&rows[..])
                    .execute(self)
                    .expect("insert");
                let read: Vec<DoorRow> = doors::table.order(doors::id).load(self).expect("load");
                assert_eq!(read, rows);
                let shut: Vec<i32> = doors::table
                    .filter(doors::state.eq(Door::Shut))
                    .select(doors::id)
                    .load(self)
                    .expect("filter");
                assert_eq!(shut, [2]);
                let was: Option<Door> = doors::table
                    .find(2)
                    .select(doors::was)
                    .first(self)
                    .expect("nullable");
                assert_eq!(was, Some(Door::Open));

                let stored: Vec<String> = diesel::sql_query("SELECT state FROM doors ORDER BY id")
                    .load::<Raw>(self)
                    .expect("raw")
                    .into_iter()
                    .map(|r| r.state)
                    .collect();
                assert_eq!(stored, ["open", "shut"]);

                self.batch_execute("UPDATE doors SET state = 'Open' WHERE id = 1")
                    .expect("update");
                let broken = doors::table
                    .find(1)
                    .select(doors::state)
                    .first::<Door>(self);
                assert!(broken.is_err(), "{broken:?}");
            }
        }
    };
}

round_trip_on!(diesel::SqliteConnection);
round_trip_on!(diesel::PgConnection);

backend_tests! {
    async fn a_text_enum_is_kept_as_its_text(backend) {
        let db = TestDb::create(backend);
        match backend {
            Backend::Sqlite => {
                let path = db.url.strip_prefix("sqlite://").expect("sqlite url");
                diesel::SqliteConnection::establish(path).expect("sqlite").run();
            }
            Backend::Postgres => {
                diesel::PgConnection::establish(&db.url).expect("postgres").run();
            }
        }
    }
}
