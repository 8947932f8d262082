@preconcurrency import AsyncKit
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit
import SQLiteNIO
import Synchronization

public enum DatabaseEngine: String, Sendable {
    case sqlite
    case postgres
}

public enum DatabaseError: Error, CustomStringConvertible {
    case schemaNewerThanBinary(database: Int, binary: Int)
    case cannotOpen(String)

    public var description: String {
        switch self {
        case let .schemaNewerThanBinary(database, binary):
            "The database schema is version \(database) but this Hibi knows only up to \(binary). Upgrade Hibi or restore a backup made with this version."
        case let .cannotOpen(reason):
            "Cannot open the database: \(reason)"
        }
    }
}

/// One handle over either engine. Stores are written once against `sql` (SQLKit) and
/// only reach for `engine` where the dialects really differ (upserts, text search).
public final class Database: Sendable {
    public let engine: DatabaseEngine
    public let sql: any SQLDatabase
    private let shutdownPool: @Sendable () async throws -> Void
    /// PostgreSQL's pool, for the bulk paths that need a connection as itself (COPY, cursors): SQLKit's
    /// session wraps it in a type that offers neither.
    private let postgresPool: EventLoopGroupConnectionPool<PostgresConnectionSource>?
    /// The SQLite database's file, when it has one (a restore may put a whole new file in its place).
    let sqlitePath: String?
    /// The file behind an in-memory SQLite database (see `scratchFile`), removed at shutdown.
    let scratchPath: String?
    private let isShutDown = Atomic<Bool>(false)

    init(engine: DatabaseEngine, sql: any SQLDatabase, postgresPool: EventLoopGroupConnectionPool<PostgresConnectionSource>? = nil,
         sqlitePath: String? = nil, scratchPath: String? = nil, shutdown: @escaping @Sendable () async throws -> Void) {
        self.engine = engine
        self.sql = sql
        self.postgresPool = postgresPool
        self.sqlitePath = sqlitePath
        self.scratchPath = scratchPath
        self.shutdownPool = shutdown
    }

    /// One PostgreSQL connection held for `body`, as itself and as SQLKit sees it (for the transaction around it).
    func withPostgresConnection<R>(_ body: @escaping @Sendable (PostgresConnection, any SQLDatabase) async throws -> R) async throws -> R {
        guard let pool = postgresPool else { throw DatabaseError.cannotOpen("not a PostgreSQL database") }
        let connection = try await pool.requestConnection(logger: sql.logger).get()
        defer { pool.releaseConnection(connection, logger: sql.logger) }
        return try await body(connection, connection.sql())
    }

    public static func open(_ location: DatabaseLocation, logger: Logger) async throws -> Database {
        let group = MultiThreadedEventLoopGroup.singleton
        switch location {
        case .sqliteFile, .sqliteMemory:
            let storage: SQLiteConfiguration.Storage
            let scratch: String?
            if case let .sqliteFile(path) = location {
                let directory = (path as NSString).deletingLastPathComponent
                if !directory.isEmpty {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                }
                storage = .file(path: path)
                scratch = nil
            } else {
                let path = scratchFile()
                storage = .file(path: path)
                scratch = path
            }
            // SQLite calls block a thread, and a writer waiting for the lock (busy_timeout) sleeps on its thread.
            // On NIO's shared pool (one thread per core) two waiting writers left no thread for the transaction
            // they waited for, which then could not finish: every racing PUT/DELETE failed after the 10 s timeout.
            // A pool of its own with a thread per connection (and one spare) lets the lock holder always run.
            let connectionsPerLoop = 2
            let threads = NIOThreadPool(numberOfThreads: connectionsPerLoop * System.coreCount + 1)
            threads.start()
            let ledger = SQLiteConnectionLedger()
            let source = TunedSQLiteSource(base: SQLiteConnectionSource(configuration: .init(storage: storage, enableForeignKeys: true),
                                                                        threadPool: threads), ledger: ledger)
            // A few connections let readers run beside the writer under WAL; more only add lock contention.
            let pool = EventLoopGroupConnectionPool(source: source, maxConnectionsPerEventLoop: connectionsPerLoop, pruneInterval: nil,
                                                    logger: logger, on: group)
            let database = PooledSQLiteDatabase(pool: pool, logger: logger)
            // Fail now, with the reason, rather than on the first request.
            do {
                try await database.raw("SELECT 1").run()
            } catch {
                try? await pool.shutdownAsync()
                await ledger.waitUntilAllClosed()
                try? await threads.shutdownGracefully()
                removeScratch(scratch)
                throw DatabaseError.cannotOpen(String(describing: error))
            }
            let path: String? = if case let .sqliteFile(path) = location { path } else { nil }
            return Database(engine: .sqlite, sql: database, sqlitePath: path, scratchPath: scratch, shutdown: {
                defer { removeScratch(scratch) }
                try await pool.shutdownAsync()
                await ledger.waitUntilAllClosed()
                try await threads.shutdownGracefully()
            })
        case let .postgres(url):
            let configuration: SQLPostgresConfiguration
            do {
                configuration = try SQLPostgresConfiguration(url: url)
            } catch {
                throw DatabaseError.cannotOpen("the PostgreSQL URL is not valid")
            }
            let pool = EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration),
                maxConnectionsPerEventLoop: 4, pruneInterval: nil, logger: logger, on: group
            )
            let database = pool.database(logger: logger).sql()
            do {
                try await database.raw("SELECT 1").run()
            } catch {
                try? await pool.shutdownAsync()
                throw DatabaseError.cannotOpen("PostgreSQL is not reachable (\(String(reflecting: error).prefix(200)))")
            }
            return Database(engine: .postgres, sql: database, postgresPool: pool, shutdown: { try await pool.shutdownAsync() })
        }
    }

    /// Runs `body` on one connection inside a transaction; any throw rolls everything back.
    /// `foreignKeysOff` (SQLite; ignored on PostgreSQL): the connection's foreign keys are off for the
    /// transaction, every row is checked against them before the commit (a row pointing nowhere rolls it
    /// back), and they are on again afterwards. For rebuilding a table others point at (`Migration.foreignKeysOff`).
    public func transaction<T: Sendable>(foreignKeysOff: Bool = false,
                                         _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let begin = engine == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN"
        let keysOff = foreignKeysOff && engine == .sqlite
        return try await sql.withSession { connection in
            // Per connection, and a no-op inside a transaction: set before BEGIN, put back whatever happens.
            if keysOff { try await connection.raw("PRAGMA foreign_keys = OFF").run() }
            do {
                try await connection.raw(SQLQueryString(begin)).run()
                let result: T
                do {
                    result = try await body(connection)
                    if keysOff { try await Self.checkForeignKeys(connection) }
                    try await connection.raw("COMMIT").run()
                } catch {
                    try? await connection.raw("ROLLBACK").run()
                    throw error
                }
                if keysOff { try await connection.raw("PRAGMA foreign_keys = ON").run() }
                return result
            } catch {
                if keysOff { try? await connection.raw("PRAGMA foreign_keys = ON").run() }
                throw error
            }
        }
    }

    /// SQLite: throws when any row points at a row that does not exist (what the foreign keys, had they been
    /// on, would have refused).
    static func checkForeignKeys(_ sql: any SQLDatabase) async throws {
        if let row = try await sql.raw("PRAGMA foreign_key_check").first() {
            let table = (try? row.decode(column: "table", as: String.self)) ?? "?"
            throw MigrationError.unexpectedSchema("a row of \(table) points at a row that does not exist")
        }
    }

    /// `transaction` for a bulk import's batches. On SQLite the connection's temporary storage is memory
    /// for the transaction, then put back: each multi-row INSERT keeps a statement journal (the pages it
    /// changed, to undo that statement alone), which spills to a temporary file past 64 KB unless temporary
    /// storage is memory, and SQLite decides that when the write begins, so it is set before BEGIN. Those
    /// spills were 7% of a health import's writer thread (perf, 1 GB export); one statement's journal is a
    /// few hundred KB. Durability is untouched (WAL and `synchronous` as before). PostgreSQL: `transaction`.
    /// `autoCheckpoint: false` keeps SQLite's WAL checkpoint out of this COMMIT (14% of an import's writer
    /// thread): the caller checkpoints from another connection instead (`checkpointWAL`) and keeps the WAL bounded.
    public func bulkTransaction<T: Sendable>(autoCheckpoint: Bool = true,
                                             _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard engine == .sqlite else { return try await transaction(body) }
        let (before, after) = autoCheckpoint
            ? ("PRAGMA temp_store = MEMORY", "PRAGMA temp_store = DEFAULT")
            : ("PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 0", "PRAGMA temp_store = DEFAULT; PRAGMA wal_autocheckpoint = 1000")
        return try await sql.withSession { connection in
            for statement in before.split(separator: ";") { try await connection.raw(SQLQueryString(String(statement))).run() }
            do {
                try await connection.raw("BEGIN IMMEDIATE").run()
                let result: T
                do {
                    result = try await body(connection)
                    try await connection.raw("COMMIT").run()
                } catch {
                    try? await connection.raw("ROLLBACK").run()
                    throw error
                }
                for statement in after.split(separator: ";") { try await connection.raw(SQLQueryString(String(statement))).run() }
                return result
            } catch {
                for statement in after.split(separator: ";") { try? await connection.raw(SQLQueryString(String(statement))).run() }
                throw error
            }
        }
    }

    /// A passive WAL checkpoint on a pooled connection (SQLite; nil on PostgreSQL): copies committed pages into
    /// the database file without blocking the writer. Returns the WAL's frames and how many are in the file now.
    public func checkpointWAL() async throws -> (frames: Int, checkpointed: Int)? {
        guard engine == .sqlite else { return nil }
        let row = try await sql.raw("PRAGMA wal_checkpoint(PASSIVE)").first()
        guard let row else { return nil }
        return (try row.decode(column: "log", as: Int.self), try row.decode(column: "checkpointed", as: Int.self))
    }

    public func isReachable() async -> Bool {
        (try? await sql.raw("SELECT 1").run()) != nil
    }

    /// Closes every connection; a second call does nothing (a restore that replaced the file has closed it already).
    public func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? await shutdownPool()
    }
}

/// sqlite-kit's source enables foreign keys only; Hibi also wants WAL and a busy timeout on every connection.
struct TunedSQLiteSource: ConnectionPoolSource {
    let base: SQLiteConnectionSource
    let ledger: SQLiteConnectionLedger

    // Built on futures, not a Task: a Task waits for the test run's two cooperative threads, which hundreds of
    // parallel tests keep busy, and connections then timed out before they were made (connectionRequestTimeout).
    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        ledger.opening()
        return base.makeConnection(logger: logger, on: eventLoop).flatMapError { error in
            ledger.opened(nil)  // the file did not open: there is no handle to close
            return eventLoop.makeFailedFuture(error)
        }.flatMap { connection in
            // The busy timeout first: switching a new file to WAL takes the database's lock, and without a timeout
            // it fails at once while another instance (started at the same moment) is migrating it.
            connection.query("PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)").flatMap { _ in
                Self.switchToWAL(connection, on: eventLoop, waited: 0)
            }.flatMap { _ in
                connection.query("PRAGMA synchronous = NORMAL")
            }.flatMap { _ in
                // 16 MB of page cache (the default is 2 MB): a bulk import keeps its indexes' hot pages
                // in memory instead of spilling and re-reading them mid-transaction.
                connection.query("PRAGMA cache_size = -16384")
            }.map { _ in
                ledger.opened(connection)
                return connection
            }.flatMapError { error in
                // A connection whose set-up failed (the database busy or gone) is closed before the error goes
                // on: dropped open, its handle leaks and sqlite-nio's assertion stops a debug build (the full
                // test run hit it with both engines' suites side by side).
                connection.close().always { _ in ledger.opened(nil) }.flatMapThrowing { _ -> SQLiteConnection in throw error }
            }
        }
    }

    /// How long a connection waits for another one's lock, in its busy handler and in the WAL switch below.
    static let busyTimeoutMilliseconds = 10_000

    /// SQLite answers BUSY to a WAL switch that races another connection's switch on a fresh file without calling
    /// the busy handler (two instances opening one new file failed "database is locked" at once, 41 times in
    /// 300 races of four connections; retried, none did). So the switch is retried here, within the busy timeout.
    static func switchToWAL(_ connection: SQLiteConnection, on eventLoop: any EventLoop, waited: Int) -> EventLoopFuture<Void> {
        let pause = 20
        return connection.query("PRAGMA journal_mode = WAL").map { _ in }.flatMapError { error in
            guard (error as? SQLiteError)?.reason == .busy, waited < busyTimeoutMilliseconds else {
                return eventLoop.makeFailedFuture(error)
            }
            return eventLoop.scheduleTask(in: .milliseconds(Int64(pause))) {}.futureResult.flatMap {
                switchToWAL(connection, on: eventLoop, waited: waited + pause)
            }
        }
    }
}

/// The connections a database's pool has made and not yet closed, and those still being made. A connection is
/// closed on the database's own thread pool, so that pool is shut down only after every one is closed: a connection
/// still being made when a test shut its app down came back to a stopped thread pool, could not be closed, and
/// sqlite-nio's check for an open handle stopped the debug test run (SIGILL in `SQLiteConnection.deinit`, twice in
/// one run while the set-up ran as a Task, which widened the window; a release build would leak the handle instead).
final class SQLiteConnectionLedger: Sendable {
    private let state = Mutex<(opening: Int, open: [ObjectIdentifier: SQLiteConnection])>((0, [:]))

    func opening() {
        state.withLock { $0.opening += 1 }
    }

    /// The end of one `opening()`: with the connection when it opened, nil when it did not (or was closed at once).
    func opened(_ connection: SQLiteConnection?) {
        state.withLock { state in
            state.opening -= 1
            state.open = state.open.filter { !$0.value.isClosed }
            if let connection { state.open[ObjectIdentifier(connection)] = connection }
        }
    }

    private var allClosed: Bool {
        state.withLock { $0.opening == 0 && $0.open.values.allSatisfy(\.isClosed) }
    }

    /// Waits (after the pool was shut down) for the connections being made to arrive and for the pool to close every
    /// connection, the ones handed back late included. Bounded by the busy timeout and a margin: a connection a caller
    /// never hands back must not stop the shutdown.
    func waitUntilAllClosed() async {
        let deadline = ContinuousClock.now + .milliseconds(TunedSQLiteSource.busyTimeoutMilliseconds + 2_000)
        while !allClosed, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// sqlite-kit offers no pooled `SQLDatabase`; this one borrows a connection per query,
/// and holds one for a whole session (transactions).
struct PooledSQLiteDatabase: SQLDatabase {
    let pool: EventLoopGroupConnectionPool<TunedSQLiteSource>
    let logger: Logger

    var eventLoop: any EventLoop { pool.eventLoopGroup.any() }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { .trace }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        pool.withConnection(logger: logger) { connection in
            connection.sql(queryLogLevel: .trace).execute(sql: query, onRow)
        }
    }

    /// Through the connection's async path: the future-based one above hands every row to the event loop
    /// one by one (a hop and a future per row), which made reading 100 000 rows several times slower.
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        let connection = try await pool.requestConnection(logger: logger).get()
        defer { pool.releaseConnection(connection, logger: logger) }
        try await connection.sql(queryLogLevel: .trace).execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let connection = try await pool.requestConnection(logger: logger).get()
        defer { pool.releaseConnection(connection, logger: logger) }
        return try await closure(SQLiteSession(connection: connection, base: connection.sql(queryLogLevel: .trace)))
    }
}

/// One SQLite connection held for a session (a transaction), as SQLKit sees it, with the connection
/// itself reachable for the one bulk path that needs it: serialising a health import's inserts through
/// SQLKit (an expression tree and a type cast per bound value) was a fifth of the import's CPU time.
struct SQLiteSession: SQLDatabase {
    let connection: SQLiteConnection
    let base: any SQLDatabase

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        try await base.execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    /// The connection's `sqlite3` handle, for a bulk insert that prepares its statement once and steps it per
    /// row (SQLiteNIO prepares every query anew and keeps its handle internal, so it is read by reflection).
    /// Nil if a SQLiteNIO release renames it: callers then take the portable path. Only for the session's
    /// holder, on one thread at a time, while the session lasts.
    var rawHandle: SQLiteRawHandle? {
        (Mirror(reflecting: connection).descendant("handle", "raw") as? OpaquePointer).map(SQLiteRawHandle.init)
    }
}

/// A session's `sqlite3*`, passed to the thread pool that runs the blocking calls on it.
struct SQLiteRawHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The file behind `sqlite::memory:`. SQLiteNIO is built without shared cache, so several connections cannot share
/// one real in-memory database; SQLiteKit's `.memory` falls back to a file in the temp directory that it never
/// deletes (half a megabyte or more per open, a thousand per test run). Ours is named here and removed at shutdown.
private func scratchFile() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("hibi-memory-\(UUID().uuidString).sqlite3").path
}

/// Removes a scratch database with its WAL and shared-memory files (nothing when `path` is nil).
private func removeScratch(_ path: String?) {
    guard let path else { return }
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
