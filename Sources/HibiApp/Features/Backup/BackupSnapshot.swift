import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit
import SQLiteNIO
import VaporCSQLite

/// The table data of a format-2 backup: one SQLite database file (`tables.sqlite`) holding this Hibi's
/// tables at the source's schema version, made from one consistent snapshot of either engine.
enum BackupSnapshot {
    static let memberName = "tables.sqlite"

    /// What the snapshot holds, read back from the file itself so the manifest describes exactly it.
    struct Contents: Sendable {
        let tables: [BackupManifest.Table]
        let migrations: [Int]
        let keyCheck: String?
        /// The visits signing key the snapshot holds, from the same moment as the chains it signed.
        let signingPublicKey: String?
        /// The file's length once complete: its pages times their size.
        let bytes: Int64
    }

    /// Opens an SQLite file on a connection of its own (with its own thread, outside the instance's pool)
    /// for the length of `body`.
    static func withFile<R: Sendable>(_ path: String, logger: Logger,
                                      _ body: @escaping @Sendable (SQLiteSession) async throws -> R) async throws -> R {
        let threads = NIOThreadPool(numberOfThreads: 1)
        threads.start()
        do {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threads, logger: logger,
                                                             on: MultiThreadedEventLoopGroup.singleton.any())
            let session = SQLiteSession(connection: connection, base: connection.sql(queryLogLevel: .trace))
            // Closed through the future-based call: the async one does not run in a cancelled task (a backup whose
            // other half failed), and a connection that is never closed stops the process.
            let close: @Sendable () async throws -> Void = { try await (connection.close() as EventLoopFuture<Void>).get() }
            let result: R
            do {
                result = try await body(session)
            } catch {
                try? await close()
                throw error
            }
            try await close()
            try? await threads.shutdownGracefully()
            return result
        } catch {
            try? await threads.shutdownGracefully()
            throw error
        }
    }

    /// Writes the snapshot of `database` to `path` (a file that must not exist) and describes it.
    static func make(from database: Database, into path: String, box: SealedBoxService, signingKey: any BackupSigningKey,
                     migrations: [Migration], logger: Logger) async throws -> Contents {
        switch database.engine {
        case .sqlite:
            if let source = database.sqlitePath {
                try await copyPages(of: source, into: path)
            } else {
                try await vacuumInto(path, from: database)
            }
        case .postgres:
            try await copyPostgres(database, into: path, migrations: migrations, logger: logger)
        }
        return try await withFile(path, logger: logger) { file in
            // One self-contained file (no WAL beside it), and what is deleted below is overwritten, not left in free pages.
            // (synchronous off first: leaving WAL mode otherwise syncs the file.)
            try await file.raw("PRAGMA synchronous = OFF").run()
            try await file.raw("PRAGMA journal_mode = DELETE").run()
            try await file.raw("PRAGMA secure_delete = ON").run()
            let catalog = try await TableCatalog.read(file, engine: .sqlite).filter { !TableCatalog.skippedTables.contains($0.name) }
            // Sessions and job leases are the running instances' state: never carried over.
            for table in catalog where TableCatalog.emptiedTables.contains(table.name) {
                try await file.raw("DELETE FROM \(unsafeRaw: TableCatalog.quoted(table.name))").run()
            }
            var tables: [BackupManifest.Table] = []
            for table in catalog {
                let rows = try await file.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: TableCatalog.quoted(table.name))").first()?
                    .decode(column: "n", as: Int.self) ?? 0
                tables.append(.init(name: table.name, member: memberName, columns: table.columns.map { .init(name: $0.name, type: $0.type) },
                                    rows: rows, bytes: nil, sha256: nil))
            }
            let applied = try await file.raw("SELECT version FROM hibi_schema ORDER BY version").all()
                .map { try $0.decode(column: "version", as: Int.self) }
            let keyCheck = try await file.raw("SELECT value FROM settings WHERE key = \(bind: KeyCheck.settingKey)").first()?
                .decode(column: "value", as: String.self)
            let signingPublicKey = try await signingKey.storedPublicKey(file, box: box)
            let pages = try await file.raw("PRAGMA page_count").first()?.decode(column: "page_count", as: Int64.self) ?? 0
            let pageSize = try await file.raw("PRAGMA page_size").first()?.decode(column: "page_size", as: Int64.self) ?? 0
            let (bytes, overflow) = pages.multipliedReportingOverflow(by: pageSize)
            guard !overflow, bytes > 0 else { throw BackupError.io("the tables snapshot reports \(pages) pages of \(pageSize) bytes") }
            return Contents(tables: tables, migrations: applied, keyCheck: keyCheck, signingPublicKey: signingPublicKey, bytes: bytes)
        }
    }

    /// A copy of the live database file as of one read transaction, page by page with SQLite's online backup
    /// API (as `sqlite3 .backup` does), on a thread of its own while the server keeps writing. Free pages come
    /// along; this SQLite is built with SQLITE_SECURE_DELETE, so they hold zeros, not deleted rows.
    ///
    /// Why not SQL: `VACUUM INTO` rebuilds every table and index record by record, which made a backup of a
    /// 1 GB database 2.1x `sqlite3 .backup` + tar (Benchmarks/backup.sh). SQLiteNIO does not wrap the backup
    /// API; its vendored SQLite module (`sqlite_nio_`-prefixed functions) is called directly, so there is
    /// exactly one SQLite library in the process: a second copy would keep POSIX locks of its own and could
    /// corrupt a database both open (sqlite.org/howtocorrupt.html, 2.2.1).
    static func copyPages(of source: String, into path: String) async throws {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        defer { thread.shutdownGracefully { _ in } }
        try await thread.runIfActive { try copyPagesBlocking(of: source, into: path) }
    }

    private static func copyPagesBlocking(of source: String, into path: String) throws {
        var from: OpaquePointer?, to: OpaquePointer?
        defer {
            sqlite_nio_sqlite3_close(to)
            sqlite_nio_sqlite3_close(from)
        }
        func failure(_ what: String, _ db: OpaquePointer?, _ code: Int32) -> BackupError {
            .io("SQLite backup: \(what) (code \(code)): \(db.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "out of memory")")
        }
        var code = sqlite_nio_sqlite3_open_v2(source, &from, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else { throw failure("opening the database", from, code) }
        // Readers of a WAL database wait only while another connection recovers it; 30 s is generous.
        sqlite_nio_sqlite3_busy_timeout(from, 30_000)
        code = sqlite_nio_sqlite3_open_v2(path, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else { throw failure("creating the copy", to, code) }
        // The copy is a scratch file streamed into the archive, which is synced once complete: no journal and no
        // fsync for it (a crash leaves only a `.partial` archive that the next backup replaces).
        code = sqlite_nio_sqlite3_exec(to, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", nil, nil, nil)
        guard code == SQLITE_OK else { throw failure("preparing the copy", to, code) }
        guard let backup = sqlite_nio_sqlite3_backup_init(to, "main", from, "main") else {
            throw failure("starting the copy", to, sqlite_nio_sqlite3_errcode(to))
        }
        // -1: every page in one step, so the whole copy is read inside one read transaction.
        let stepped = sqlite_nio_sqlite3_backup_step(backup, -1)
        code = sqlite_nio_sqlite3_backup_finish(backup)
        if stepped != SQLITE_DONE { code = stepped }
        guard code == SQLITE_OK || code == SQLITE_DONE else { throw failure("copying the database", to, code) }
    }

    /// An in-memory database has no file to copy pages from: `VACUUM INTO` writes it out record by record.
    static func vacuumInto(_ path: String, from database: Database) async throws {
        try await database.sql.withSession { connection in
            // VACUUM INTO syncs its output as the source database is synced. The copy is a scratch file read
            // straight back into the archive, which is synced once complete. Put back before the connection
            // returns to the pool.
            try await connection.raw("PRAGMA synchronous = OFF").run()
            do {
                try await connection.raw("VACUUM INTO \(bind: path)").run()
            } catch {
                try? await connection.raw("PRAGMA synchronous = NORMAL").run()
                throw error
            }
            try await connection.raw("PRAGMA synchronous = NORMAL").run()
        }
    }
}

/// Rows into an SQLite table in multi-row statements with values bound directly (an SQLKit expression per
/// value cost more than the insert itself).
struct SQLiteBulkInsert: Sendable {
    let table: String
    let columnList: String
    let rowMarks: String
    let perStatement: Int
    let fullStatement: String

    init(table: String, columns: [String]) {
        self.table = table
        columnList = columns.map(TableCatalog.quoted).joined(separator: ", ")
        rowMarks = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        // SQLite caps bound parameters per statement at 32,766; stay well under.
        perStatement = max(1, min(500, 30_000 / max(1, columns.count)))
        fullStatement = Self.statement(table: table, columnList: columnList, rowMarks: rowMarks, rows: perStatement)
    }

    static func statement(table: String, columnList: String, rowMarks: String, rows: Int) -> String {
        "INSERT INTO \(TableCatalog.quoted(table)) (\(columnList)) VALUES " + Array(repeating: rowMarks, count: rows).joined(separator: ", ")
    }

    func run(_ rows: ArraySlice<[BackupValue]>, on connection: SQLiteConnection) async throws {
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(rows.endIndex, start + perStatement)
            var binds: [SQLiteData] = []
            binds.reserveCapacity((end - start) * (rows.first?.count ?? 0))
            for row in rows[start..<end] { for value in row { binds.append(value.sqliteData) } }
            let text = end - start == perStatement ? fullStatement
                : Self.statement(table: table, columnList: columnList, rowMarks: rowMarks, rows: end - start)
            try await connection.query(text, binds) { _ in }
            start = end
        }
    }
}
