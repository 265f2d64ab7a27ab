//! Running written SQL with its bound values on either backend, for the runner and the
//! roll-ups alike.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Text};

use crate::sql::Bind;

/// Runs `sql` with `binds` on either backend.
pub(crate) fn load<R>(db: &mut Db<'_>, sql: &str, binds: &[Bind]) -> QueryResult<Vec<R>>
where
    R: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
{
    db_run!(db: {
        let mut q = diesel::sql_query(sql).into_boxed();
        for bind in binds {
            q = match bind.clone() {
                Bind::Text(s) => q.bind::<Text, _>(s),
                Bind::Int(i) => q.bind::<BigInt, _>(i),
                Bind::Bool(b) => q.bind::<Bool, _>(b),
            };
        }
        q.load::<R>(db)
    })
}
