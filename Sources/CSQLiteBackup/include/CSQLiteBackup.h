#ifndef HIBI_CSQLITE_BACKUP_H
#define HIBI_CSQLITE_BACKUP_H

#include <stddef.h>

/// Copies the SQLite database at `source` into a new file at `destination` with SQLite's online backup
/// API, in one step: the copy is the source as of one read transaction, while other connections keep
/// writing (WAL). Returns an SQLite result code (0 = done); on failure `message` holds SQLite's words.
int hibi_sqlite_backup(const char *source, const char *destination, int busy_timeout_ms, char *message, size_t message_size);

#endif
