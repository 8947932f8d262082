import Foundation
import NIOCore
import PostgresKit
import SQLKit
import SQLiteNIO
import Synchronization

/// Format 2: every table from the backup's `tables.sqlite`, already extracted and checked against the manifest.
extension RestoreService {
    /// Into SQLite. When the database is a file nobody else has open, the backup's tables file, checked and
    /// brought up to this Hibi's schema, takes the database's place with one rename: a restore then costs about
    /// what copying the file does. Otherwise (an in-memory database, or a running server has the file open) the
    /// tables go in through one transaction beside it. Either way all or nothing. Closes `database`.
    func restoreSQLite(from snapshot: String, manifest: BackupManifest, replace: Bool, before: [Migration], after: [Migration],
                       progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        guard let path = database.sqlitePath else {
            try await database.sql.withSession { sql in
                try await Self.attachAndTransfer(sql, snapshot: snapshot, manifest: manifest, replace: replace, before: before, after: after, progress: progress)
            }
            return
        }
        if !replace { try await Self.requireEmpty(try await TableCatalog.read(database.sql, engine: .sqlite), sql: database.sql) }
        // This process's own connections close first, so that the test below sees only other processes'.
        await database.shutdown()
        let logger = logger
        let swapped = try await BackupSnapshot.withFile(path, logger: logger) { target in
            // Leaving WAL mode succeeds only for the one connection that has the file open: the proof that nobody
            // else would go on writing to the file about to be replaced. It also folds the WAL into the file.
            try await target.raw("PRAGMA busy_timeout = 0").run()
            var alone = try await Self.journalMode(target, set: nil) == "delete"
            if !alone { alone = (try? await Self.journalMode(target, set: "DELETE")) == "delete" }
            if alone {
                // What this Hibi's migrations make, in a scratch file beside it: the backup's file may hold nothing else.
                let layout = snapshot + ".layout"
                defer { try? FileManager.default.removeItem(atPath: layout) }
                let expected = try await BackupSnapshot.withFile(layout, logger: logger) { scratch in
                    // A scratch file read once and deleted: no fsync and no journal file per migration step. With
                    // SQLite's defaults each of the ~200 statements synced the file, its journal and the folder
                    // (820 fsyncs), most of a 3.8 s restore of the quick benchmark instance (docs/backup.md).
                    try await scratch.raw("PRAGMA synchronous = OFF").run()
                    try await scratch.raw("PRAGMA journal_mode = MEMORY").run()
                    try await Migrator.createTable(scratch)
                    for migration in before { try await Migrator.apply(migration, sql: scratch, engine: .sqlite, now: 0) }
                    return try await Self.schemaObjects(scratch)
                }
                try await BackupSnapshot.withFile(snapshot, logger: logger) { file in
                    let present = try await Self.schemaObjects(file)
                    // A trigger, view, table or index the migrations do not make would run or stay in the restored database.
                    guard present == expected else {
                        let extra = present.subtracting(expected).sorted().joined(separator: ", ")
                        throw BackupError.damaged(member: BackupSnapshot.memberName,
                                                  reason: "its schema is not this Hibi's (unexpected: \(extra.isEmpty ? "none" : extra); missing: \(expected.subtracting(present).sorted().joined(separator: ", ")))")
                    }
                    try await Self.prepare(file, manifest: manifest, after: after)
                }
                return true
            }
            try await target.raw("PRAGMA busy_timeout = 10000").run()
            try await Self.attachAndTransfer(target, snapshot: snapshot, manifest: manifest, replace: replace, before: before, after: after, progress: progress)
            return false
        }
        guard swapped else { return }
        for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        guard rename(snapshot, path) == 0 else { throw BackupError.io("cannot move the restored database into place at \(path) (errno \(errno))") }
        try progress(BackupProgress(phase: "tables", done: 1, total: 1))
    }

    /// The backup's tables file made ready to be the database: checked against the manifest, emptied of what is
    /// never carried over, and brought up to this Hibi's schema.
    private static func prepare(_ file: SQLiteSession, manifest: BackupManifest, after: [Migration]) async throws {
        try await check(file, against: manifest)
        for table in TableCatalog.emptiedTables.sorted() where manifest.tables.contains(where: { $0.name == table }) {
            try await file.raw("DELETE FROM \(unsafeRaw: TableCatalog.quoted(table))").run()
        }
        let now = Int64(saturating: Date().timeIntervalSince1970)
        for migration in after {
            try await naming("hibi_schema") { try await Migrator.apply(migration, sql: file, engine: .sqlite, now: now) }
        }
    }

    /// Every table, index, trigger and view, with what makes it what it is: a table's columns (name, NOT NULL,
    /// place in the primary key; their types are checked against the manifest), its indexes including SQLite's
    /// own for a primary key or UNIQUE (unique or not, partial or not, columns) and its foreign keys (columns,
    /// target, actions); a trigger's or view's whole SQL. Names alone let a table remade without its key, or a trigger under one of our names,
    /// pass. Table and index SQL text (and declared types) are not compared: a database made by older
    /// migrations, ALTER TABLE and other SQLKit versions word them differently.
    private static func schemaObjects(_ sql: any SQLDatabase) async throws -> Set<String> {
        var objects: Set<String> = []
        let rows = try await sql.raw("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
            .all(decoding: SQLiteMasterRow.self)
        for row in rows {
            let name = row.name
            switch row.type {
            case "table":
                let quoted = TableCatalog.quoted(name)
                objects.insert("table \(name)")
                for column in try await sql.raw("SELECT \(unsafeRaw: SQLiteColumnInfoRow.selection) FROM pragma_table_info(\(bind: name))")
                    .all(decoding: SQLiteColumnInfoRow.self) {
                    objects.insert("column \(name).\(column.name) notnull=\(column.notNull) pk=\(column.pk)")
                }
                for index in try await sql.raw("SELECT \(unsafeRaw: SQLiteIndexListRow.selection) FROM pragma_index_list(\(bind: name))")
                    .all(decoding: SQLiteIndexListRow.self) {
                    // One column of names; an expression's is NULL.
                    let columns = try await sql.raw("SELECT name FROM pragma_index_info(\(bind: index.name)) ORDER BY seqno").all()
                        .map { (try? $0.decode(column: "name", as: String.self)) ?? "(expression)" }
                    objects.insert("index \(index.name) on \(name)(\(columns.joined(separator: ","))) unique=\(index.unique)"
                                   + " origin=\(index.origin) partial=\(index.partial)")
                }
                for key in try await sql.raw(SQLQueryString("PRAGMA foreign_key_list(\(unsafeRaw: quoted))")).all(decoding: SQLiteForeignKeyRow.self) {
                    objects.insert("foreign key \(name)(\(key.from)) -> \(key.table)(\(key.to ?? "")) on delete \(key.onDelete) on update \(key.onUpdate)")
                }
            case "index":
                // Listed with its table above (with what it indexes); here only that it exists.
                objects.insert("index \(name)")
            default:
                objects.insert("\(row.type) \(name): \(row.sql ?? "")")
            }
        }
        return objects
    }

    /// The backup's tables file holds what its manifest says: the migrations, every table with its columns and
    /// row count, and no row pointing to a row that is not there.
    private static func check(_ file: SQLiteSession, against manifest: BackupManifest) async throws {
        let applied = try await file.raw("SELECT version FROM hibi_schema ORDER BY version").all().map { try $0.decode(column: "version", as: Int.self) }
        guard applied == manifest.migrations.sorted() else {
            throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "its migrations \(applied) are not the manifest's \(manifest.migrations.sorted())")
        }
        let tables = Dictionary(try await TableCatalog.read(file, engine: .sqlite).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var counter = RowCounter(manifest: manifest, progress: { _ in })
        for entry in manifest.tables {
            guard let table = tables[entry.name] else {
                throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "it has no table \(entry.name)")
            }
            try checkColumns(of: entry, against: table)
            let count = try await file.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: TableCatalog.quoted(entry.name))").first()?.decode(column: "n", as: Int.self) ?? 0
            try counter.add(count, of: entry)
        }
        try await requireForeignKeys(file, schema: "main")
    }

    /// What foreign keys would have refused row by row, refused here for the whole restore.
    private static func requireForeignKeys(_ sql: any SQLDatabase, schema: String) async throws {
        if let broken = try await sql.raw(SQLQueryString("PRAGMA \(unsafeRaw: schema).foreign_key_check")).first(decoding: SQLiteForeignKeyCheckRow.self) {
            let child = broken.table ?? "?", parent = broken.parent ?? "?"
            throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "rows of \(child) point to rows of \(parent) that are not there")
        }
    }

    /// The snapshot attached to the target's connection and each table copied with `INSERT INTO … SELECT *`, which
    /// SQLite runs as a record transfer (records and index entries copied in order, never decoded) when the two
    /// tables have the same layout, as they do when both were made by the same migrations. One transaction.
    private static func attachAndTransfer(_ sql: any SQLDatabase, snapshot: String, manifest: BackupManifest, replace: Bool, before: [Migration],
                                          after: [Migration], progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        // Both settings are per connection and cannot change inside a transaction: set here, put back below.
        // SQLite does the record transfer only with foreign keys off; they are checked before the commit.
        try await sql.raw("PRAGMA foreign_keys = OFF").run()
        try await sql.raw("ATTACH DATABASE \(bind: snapshot) AS hibi_backup").run()
        do {
            try await sql.raw("BEGIN IMMEDIATE").run()
            do {
                try await transferTables(sql, manifest: manifest, replace: replace, before: before, after: after, progress: progress)
                try await sql.raw("COMMIT").run()
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
        } catch {
            await detach(sql)
            throw error
        }
        await detach(sql)
    }

    /// What the target database refused while a table went in (a duplicate key, a row pointing nowhere), as a
    /// refusal of the backup that names the table and the database's own reason.
    private static func naming(_ table: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as BackupError {
            throw error
        } catch {
            let reason = switch error {
            case let error as PSQLError: error.serverInfo?[.message] ?? "refused by PostgreSQL"
            case let error as SQLiteError: error.message
            default: String(String(describing: error).prefix(200))
            }
            throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "table \(table) could not be restored: \(reason)")
        }
    }

    /// The target's tables that take rows from the backup, parents first, each checked against the backup's columns.
    private static func tablesToFill(_ target: [String: TableCatalog.Table], _ listed: [String: BackupManifest.Table]) throws
        -> [(TableCatalog.Table, BackupManifest.Table)] {
        try TableCatalog.insertionOrder(Array(target.values)).compactMap { table in
            guard let entry = listed[table.name] else { return nil }
            try checkColumns(of: entry, against: table)
            return TableCatalog.emptiedTables.contains(table.name) ? nil : (table, entry)
        }
    }

    /// Rows restored so far, each table's count checked against the manifest, for the progress bar.
    private struct RowCounter {
        let total: Int64
        let progress: @Sendable (BackupProgress) throws -> Void
        var done: Int64 = 0

        init(manifest: BackupManifest, progress: @escaping @Sendable (BackupProgress) throws -> Void) {
            // The manifest's numbers may be anything: they wrap rather than trap.
            total = manifest.tables.reduce(Int64(0)) { $0 &+ Int64($1.rows) }
            self.progress = progress
        }

        mutating func add(_ count: Int, of entry: BackupManifest.Table) throws {
            guard count == entry.rows else {
                throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "table \(entry.name) holds \(count) rows, the manifest says \(entry.rows)")
            }
            done &+= Int64(count)
            try progress(BackupProgress(phase: "tables", done: done, total: total))
        }
    }

    private static func journalMode(_ sql: any SQLDatabase, set mode: String?) async throws -> String? {
        let statement = mode.map { "PRAGMA journal_mode = \($0)" } ?? "PRAGMA journal_mode"
        return try await sql.raw(SQLQueryString(statement)).first()?.decode(column: "journal_mode", as: String.self).lowercased()
    }

    private static func detach(_ sql: any SQLDatabase) async {
        try? await sql.raw("DETACH DATABASE hibi_backup").run()
        try? await sql.raw("PRAGMA foreign_keys = ON").run()
    }

    private static func transferTables(_ sql: any SQLDatabase, manifest: BackupManifest, replace: Bool, before: [Migration], after: [Migration],
                                       progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        let (target, listed, now) = try await recreateSchema(sql, engine: .sqlite, replace: replace, before: before, manifest: manifest)
        var counter = RowCounter(manifest: manifest, progress: progress)
        for (table, entry) in try tablesToFill(target, listed) {
            let name = TableCatalog.quoted(table.name)
            let inBackup = try await sql.raw("SELECT name FROM pragma_table_info(\(bind: table.name), 'hibi_backup') ORDER BY cid").all()
                .map { try $0.decode(column: "name", as: String.self) }
            let columns = table.columns.map(\.name)
            guard Set(inBackup) == Set(columns) else {
                throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "table \(table.name) has columns \(inBackup), the manifest says \(entry.columns.map(\.name))")
            }
            try await naming(table.name) {
                if inBackup == columns {
                    try await sql.raw("INSERT INTO main.\(unsafeRaw: name) SELECT * FROM hibi_backup.\(unsafeRaw: name)").run()
                } else {
                    // Columns in another order (a schema grown differently): still right, only without the transfer.
                    let list = columns.map(TableCatalog.quoted).joined(separator: ", ")
                    try await sql.raw("INSERT INTO main.\(unsafeRaw: name) (\(unsafeRaw: list)) SELECT \(unsafeRaw: list) FROM hibi_backup.\(unsafeRaw: name)").run()
                }
            }
            let count = try await sql.raw("SELECT COUNT(*) AS n FROM main.\(unsafeRaw: name)").first()?.decode(column: "n", as: Int.self) ?? 0
            try counter.add(count, of: entry)
        }
        try await requireForeignKeys(sql, schema: "main")
        for migration in after { try await Migrator.apply(migration, sql: sql, engine: .sqlite, now: now) }
    }

    /// Into PostgreSQL: each table's rows read from the snapshot in storage order and sent in one COPY, typed
    /// by the target's columns; large tables get their secondary indexes built after their rows. One transaction.
    func restorePostgres(from snapshot: String, manifest: BackupManifest, replace: Bool, before: [Migration], after: [Migration],
                         progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        let database = database
        try await BackupSnapshot.withFile(snapshot, logger: logger) { file in
            try await database.withPostgresConnection { connection, sql in
                try await sql.raw("BEGIN").run()
                do {
                    try await Self.copyTables(from: file, into: connection, sql: sql, manifest: manifest, replace: replace,
                                              before: before, after: after, progress: progress)
                    try await sql.raw("COMMIT").run()
                } catch {
                    try? await sql.raw("ROLLBACK").run()
                    throw error
                }
            }
        }
    }

    private static func copyTables(from file: SQLiteSession, into connection: PostgresConnection, sql: any SQLDatabase, manifest: BackupManifest,
                                   replace: Bool, before: [Migration], after: [Migration],
                                   progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        let (target, listed, now) = try await recreateSchema(sql, engine: .postgres, replace: replace, before: before, manifest: manifest)
        var counter = RowCounter(manifest: manifest, progress: progress)
        for (table, entry) in try tablesToFill(target, listed) {
            let large = entry.rows >= rebuildIndexesFrom
            let indexes = large ? try await secondaryIndexes(of: table.name, sql: sql, engine: .postgres) : []
            let constraints = large ? try await keyConstraints(of: table.name, sql: sql) : []
            // Foreign keys first: one may rest on a key dropped after it.
            for constraint in constraints.reversed() {
                try await sql.raw("ALTER TABLE \(unsafeRaw: TableCatalog.quoted(constraint.table)) DROP CONSTRAINT \(unsafeRaw: TableCatalog.quoted(constraint.name))").run()
            }
            for index in indexes { try await sql.raw("DROP INDEX \(unsafeRaw: TableCatalog.quoted(index.name))").run() }
            var count = 0
            try await naming(table.name) {
                count = try await copyRows(of: table, from: file, into: connection)
                // Keys built in one sort and foreign keys checked in one join, as pg_restore does, instead of an
                // index insert and a trigger per row. A duplicate or a row pointing nowhere fails here, inside the
                // one transaction, so the whole restore is refused.
                for constraint in constraints {
                    try await sql.raw("ALTER TABLE \(unsafeRaw: TableCatalog.quoted(constraint.table)) ADD CONSTRAINT \(unsafeRaw: TableCatalog.quoted(constraint.name)) \(unsafeRaw: constraint.definition)").run()
                }
                for index in indexes { try await sql.raw(SQLQueryString(index.definition)).run() }
            }
            try counter.add(count, of: entry)
        }
        for migration in after { try await Migrator.apply(migration, sql: sql, engine: .postgres, now: now) }
    }

    /// A table's primary key and unique constraints, then the foreign keys that use them or leave from it (its own
    /// and other tables' pointing to it), in the order they are added back. All tables are empty when it is asked:
    /// the schema was just laid out, and the tables pointing here are filled later (parents first).
    static func keyConstraints(of table: String, sql: any SQLDatabase) async throws -> [(table: String, name: String, definition: String)] {
        try await sql.raw("""
            SELECT t.relname::text AS table_name, c.conname::text AS name, pg_get_constraintdef(c.oid) AS definition
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
            WHERE t.relnamespace = current_schema()::regnamespace
            AND ((c.conrelid = (quote_ident(current_schema()) || '.' || quote_ident(\(bind: table)))::regclass AND c.contype IN ('p', 'u', 'f'))
                 OR (c.confrelid = (quote_ident(current_schema()) || '.' || quote_ident(\(bind: table)))::regclass AND c.contype = 'f'))
            ORDER BY c.contype = 'f', t.relname, c.conname
            """).all(decoding: PostgresConstraintRow.self).map { ($0.tableName, $0.name, $0.definition) }
    }

    /// Rows read from the snapshot a page at a time by rowid (an index walk, no sort) into one COPY.
    private static func copyRows(of table: TableCatalog.Table, from file: SQLiteSession, into connection: PostgresConnection) async throws -> Int {
        let name = TableCatalog.quoted(table.name)
        let list = table.columns.map { TableCatalog.quoted($0.name) }.joined(separator: ", ")
        let query = "SELECT rowid, \(list) FROM \(name) WHERE rowid > ? ORDER BY rowid LIMIT 5000"
        let copied = Mutex(0)
        try await connection.copyFrom(table: table.name, columns: table.columns.map(\.name), logger: connection.logger) { writer in
            var buffer = ByteBuffer()
            var count = 0
            var rows = try await file.connection.query(query, [.integer(.min)])
            while let last = rows.last?.columns.first?.data {
                // The next page is read on the snapshot's thread while this one is encoded and sent.
                async let following = file.connection.query(query, [last])
                buffer.clear()
                for row in rows {
                    let cells = row.columns
                    guard cells.count == table.columns.count + 1 else { throw BackupError.damaged(member: BackupSnapshot.memberName, reason: "table \(table.name): a row of the wrong width") }
                    var values: [BackupValue] = []
                    values.reserveCapacity(table.columns.count)
                    for (index, column) in table.columns.enumerated() {
                        guard let value = BackupValue(cells[index + 1].data, type: column.type) else {
                            throw BackupError.damaged(member: BackupSnapshot.memberName,
                                                      reason: "table \(table.name), column \(column.name): a value that is not \(column.type.rawValue)")
                        }
                        values.append(value)
                    }
                    PostgresCopyText.append(values, to: &buffer)
                }
                count += rows.count
                try await writer.write(buffer)
                rows = try await following
            }
            copied.withLock { $0 = count }
        }
        return copied.withLock { $0 }
    }
}
