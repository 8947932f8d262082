// SQLite's online backup API, which SQLiteNIO does not expose (its SQLite module is not a product).
//
// Why this file exists: `VACUUM INTO` rebuilds every table and index record by record, which made a
// backup of a 900 MB database 2.1x `sqlite3 .backup` + tar (Benchmarks/backup.sh); the backup API copies
// pages. The functions are the ones compiled into the process by SQLiteNIO's vendored SQLite (its symbols
// carry the `sqlite_nio_` prefix), so there is exactly one SQLite library in the process: a second copy
// would keep POSIX locks of its own and could corrupt a database both open (sqlite.org/howtocorrupt.html,
// 2.2.1). Should SQLiteNIO rename them, the build fails at link time rather than at a user's backup.
#include "CSQLiteBackup.h"

#include <stdio.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_backup sqlite3_backup;

// From sqlite3.h (SQLite 3.x, stable since 3.6.11); only what this file calls.
#define HIBI_SQLITE_OK 0
#define HIBI_SQLITE_DONE 101
#define HIBI_SQLITE_OPEN_READWRITE 0x00000002
#define HIBI_SQLITE_OPEN_CREATE 0x00000004
#define HIBI_SQLITE_OPEN_NOMUTEX 0x00008000
extern int sqlite_nio_sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
extern int sqlite_nio_sqlite3_close(sqlite3 *db);
extern int sqlite_nio_sqlite3_busy_timeout(sqlite3 *db, int ms);
extern int sqlite_nio_sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *arg, char **errmsg);
extern void sqlite_nio_sqlite3_free(void *memory);
extern const char *sqlite_nio_sqlite3_errmsg(sqlite3 *db);
extern sqlite3_backup *sqlite_nio_sqlite3_backup_init(sqlite3 *dest, const char *dest_name, sqlite3 *source, const char *source_name);
extern int sqlite_nio_sqlite3_backup_step(sqlite3_backup *backup, int pages);
extern int sqlite_nio_sqlite3_backup_finish(sqlite3_backup *backup);

static void say(char *message, size_t size, const char *what, sqlite3 *db) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s: %s", what, db ? sqlite_nio_sqlite3_errmsg(db) : "out of memory");
}

int hibi_sqlite_backup(const char *source, const char *destination, int busy_timeout_ms, char *message, size_t message_size) {
    sqlite3 *from = NULL, *to = NULL;
    int rc = sqlite_nio_sqlite3_open_v2(source, &from, HIBI_SQLITE_OPEN_READWRITE | HIBI_SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != HIBI_SQLITE_OK) {
        say(message, message_size, "opening the database", from);
        sqlite_nio_sqlite3_close(from);
        return rc;
    }
    sqlite_nio_sqlite3_busy_timeout(from, busy_timeout_ms);
    rc = sqlite_nio_sqlite3_open_v2(destination, &to, HIBI_SQLITE_OPEN_READWRITE | HIBI_SQLITE_OPEN_CREATE | HIBI_SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != HIBI_SQLITE_OK) {
        say(message, message_size, "creating the copy", to);
        sqlite_nio_sqlite3_close(to);
        sqlite_nio_sqlite3_close(from);
        return rc;
    }
    // The copy is a scratch file that the caller reads back into the archive and syncs there once:
    // no journal and no fsync for it (a crash leaves only a scratch file the next backup removes).
    char *error = NULL;
    rc = sqlite_nio_sqlite3_exec(to, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", NULL, NULL, &error);
    if (error != NULL) sqlite_nio_sqlite3_free(error);
    if (rc == HIBI_SQLITE_OK) {
        sqlite3_backup *backup = sqlite_nio_sqlite3_backup_init(to, "main", from, "main");
        if (backup == NULL) {
            rc = -1;
            say(message, message_size, "starting the copy", to);
        } else {
            // -1: every page in one step, so the whole copy is read inside one read transaction.
            int step = sqlite_nio_sqlite3_backup_step(backup, -1);
            rc = sqlite_nio_sqlite3_backup_finish(backup);
            if (step != HIBI_SQLITE_DONE && step != HIBI_SQLITE_OK) rc = step;
            if (rc != HIBI_SQLITE_OK) say(message, message_size, "copying the database", to);
        }
    } else {
        say(message, message_size, "preparing the copy", to);
    }
    sqlite_nio_sqlite3_close(to);
    sqlite_nio_sqlite3_close(from);
    return rc;
}
