// SQLite (Debian's libsqlite3-dev, FTS5 built in): mailstore's database. Only the SQLite module
// imports this.
#ifndef MAILPIPE_CSQLITE_SHIM_H
#define MAILPIPE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type mp_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
