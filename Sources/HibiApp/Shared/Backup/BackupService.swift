import Crypto
import Foundation
import Logging
import NIOCore
import PostgresKit
import SQLKit
import SQLiteNIO

/// How far a backup, verification or restore has come, for a progress bar.
public struct BackupProgress: Sendable {
    public var phase: String
    public var done: Int64
    public var total: Int64
}

/// Writes a whole instance to one archive while it keeps serving: every table from one read snapshot,
/// every file under the data directory's media folders, and a manifest with a SHA-256 per member.
public struct BackupService: Sendable {
    let database: Database
    let dataDirectory: String
    /// Where uploaded files live (`HIBI_MEDIA_DIR`); the data directory unless set.
    let mediaDirectory: String
    let box: SealedBoxService
    let logger: Logger

    /// Rows fetched per round trip: bounded memory whatever the table size.
    static let pageSize = 2000

    public init(database: Database, dataDirectory: String, mediaDirectory: String? = nil, box: SealedBoxService, logger: Logger) {
        self.database = database
        self.dataDirectory = dataDirectory
        self.mediaDirectory = mediaDirectory ?? dataDirectory
        self.box = box
        self.logger = logger
    }

    /// Writes the archive to `output + ".partial"` and renames it to `output` only once it is complete,
    /// so a backup that dies half way never leaves a file that looks finished.
    @discardableResult
    public func write(to output: String, now: Date = Date(),
                      progress: @escaping @Sendable (BackupProgress) throws -> Void = { _ in }) async throws -> BackupManifest {
        let partial = output + ".partial"
        let spool = output + ".partial-tables"
        try? FileManager.default.removeItem(atPath: spool)
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let zip = try BackupZipWriter(path: partial)
        do {
            let manifest = try await writeMembers(zip: zip, spool: spool, now: now, progress: progress)
            try zip.finish()
            // rename(2) replaces an older file of the same name in one step.
            guard rename(partial, output) == 0 else { throw BackupError.io("cannot rename \(partial) to \(output) (errno \(errno))") }
            return manifest
        } catch {
            zip.abandon()
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    private func writeMembers(zip: BackupZipWriter, spool: String, now: Date,
                              progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws -> BackupManifest {
        let engine = database.engine
        let snapshot = try await database.sql.withSession { connection -> Snapshot in
            // One read transaction for every table: the rows agree with each other as of one moment.
            try await connection.raw(engine == .postgres ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN").run()
            do {
                let result = try await Self.dumpTables(connection, engine: engine, box: box, zip: zip, spool: spool, now: now, progress: progress)
                try await connection.raw("COMMIT").run()
                return result
            } catch {
                try? await connection.raw("ROLLBACK").run()
                throw error
            }
        }
        let files = try MediaFiles.list(dataDirectory: mediaDirectory)
        let totalBytes = files.reduce(Int64(0)) { $0 + $1.size }
        var doneBytes: Int64 = 0
        var entries: [BackupManifest.File] = []
        for file in files {
            try progress(BackupProgress(phase: "files", done: doneBytes, total: totalBytes))
            let written = try zip.add(name: "media/" + file.relativePath, source: file.path, method: .stored, modified: now) { doneBytes += Int64($0) }
            entries.append(.init(member: "media/" + file.relativePath, bytes: written.bytes, sha256: written.sha256))
        }
        try progress(BackupProgress(phase: "files", done: totalBytes, total: totalBytes))
        let manifest = BackupManifest(
            format: BackupManifest.formatName, formatVersion: BackupManifest.currentFormatVersion, hibiVersion: hibiVersion,
            createdAt: now, schemaVersion: snapshot.migrations.max() ?? 0, migrations: snapshot.migrations,
            dataKeyCheck: snapshot.keyCheck, visitsSigningPublicKey: try snapshot.signingPublicKey ?? VisitsSigningKeyFile.publicKey(dataDirectory: dataDirectory),
            tables: snapshot.tables, files: entries)
        let manifestPath = (spool as NSString).appendingPathComponent(BackupManifest.memberName)
        let encoder = JSONCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try encoder.encode(manifest).write(to: URL(fileURLWithPath: manifestPath))
        try zip.add(name: BackupManifest.memberName, source: manifestPath, method: .deflated, modified: now)
        return manifest
    }

    struct Snapshot: Sendable {
        let tables: [BackupManifest.Table]
        let migrations: [Int]
        let keyCheck: String?
        /// The visits signing key the database holds, read in the same snapshot as the chains it signed.
        let signingPublicKey: String?
    }

    private static func dumpTables(_ sql: any SQLDatabase, engine: DatabaseEngine, box: SealedBoxService, zip: BackupZipWriter, spool: String, now: Date,
                                   progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws -> Snapshot {
        let catalog = try await TableCatalog.read(sql, engine: engine).filter { !TableCatalog.skippedTables.contains($0.name) }
        let migrations = try await sql.raw("SELECT version FROM hibi_schema ORDER BY version").all()
            .map { try $0.decode(column: "version", as: Int.self) }
        let keyCheck = try await sql.raw("SELECT value FROM settings WHERE key = \(bind: KeyCheck.settingKey)").first()?
            .decode(column: "value", as: String.self)
        let signingPublicKey = try await VisitSigner.storedPublicKey(sql, box: box)
        var totalRows: Int64 = 0
        var counts: [String: Int64] = [:]
        for table in catalog where !TableCatalog.emptiedTables.contains(table.name) {
            let count = try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: TableCatalog.quoted(table.name))").first()?
                .decode(column: "n", as: Int64.self) ?? 0
            counts[table.name] = count
            totalRows += count
        }
        var doneRows: Int64 = 0
        var tables: [BackupManifest.Table] = []
        for table in catalog {
            try progress(BackupProgress(phase: "tables", done: doneRows, total: totalRows))
            // Rows go straight into the archive (encoded, hashed and deflated as they come), never to a spool file.
            let member = "tables/\(table.name).jsonl"
            let stream = TableMemberWriter(member: try zip.begin(name: member, method: .deflated, modified: now))
            var rows = 0
            if !TableCatalog.emptiedTables.contains(table.name) {
                try await forEachPage(of: table, sql: sql, engine: engine) { page in
                    for values in page {
                        try stream.append(values, table: table)
                        rows += 1
                    }
                    doneRows += Int64(page.count)
                    try progress(BackupProgress(phase: "tables", done: doneRows, total: totalRows))
                }
            }
            let written = try stream.finish()
            tables.append(.init(name: table.name, member: member, columns: table.columns.map { .init(name: $0.name, type: $0.type) },
                                rows: rows, bytes: written.bytes, sha256: written.sha256))
        }
        return Snapshot(tables: tables, migrations: migrations, keyCheck: keyCheck, signingPublicKey: signingPublicKey)
    }

    /// Reads a table in primary-key order, a page at a time. Text keys compare byte-wise on both engines
    /// (SQLite's default, PostgreSQL's "C" collation), so both write the same rows in the same order.
    static func forEachPage(of table: TableCatalog.Table, sql: any SQLDatabase, engine: DatabaseEngine,
                            _ body: ([[BackupValue]]) async throws -> Void) async throws {
        let columnList = table.columns.map { TableCatalog.quoted($0.name) }.joined(separator: ", ")
        let keyColumns = table.primaryKey.isEmpty ? table.columns.map(\.name) : table.primaryKey
        let name = TableCatalog.quoted(table.name)
        switch engine {
        case .postgres:
            // A cursor sorts once and hands rows out in pages; paging by key would sort again for every page.
            let order = keyColumns.map { column -> String in
                let type = table.columns.first { $0.name == column }?.type
                return TableCatalog.quoted(column) + (type == .text ? " COLLATE \"C\"" : "") + " NULLS FIRST"
            }.joined(separator: ", ")
            try await sql.raw("DECLARE hibi_backup NO SCROLL CURSOR FOR SELECT \(unsafeRaw: columnList) FROM \(unsafeRaw: name) ORDER BY \(unsafeRaw: order)").run()
            // The session's own connection, read through PostgresNIO's rows: SQLKit's rows decode every value
            // through a random-access view and Codable, which was most of a backup's time from PostgreSQL.
            let connection = try await (sql as? any PostgresDatabase)?.withConnection { $0.eventLoop.makeSucceededFuture($0) }.get()
            while true {
                let page: [[BackupValue]]
                if let connection {
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: "FETCH FORWARD \(pageSize) FROM hibi_backup"), logger: sql.logger).collect()
                    page = try rows.map { try values(of: $0, table: table) }
                } else {
                    let rows = try await sql.raw("FETCH FORWARD \(unsafeRaw: String(pageSize)) FROM hibi_backup").all()
                    page = try rows.map { try values(of: $0, table: table) }
                }
                if page.isEmpty { break }
                try await body(page)
                if page.count < pageSize { break }
            }
            try await sql.raw("CLOSE hibi_backup").run()
        case .sqlite:
            // Keyset paging walks the key's index. A table without a key whose columns may be NULL cannot be
            // paged by value (NULL compares as unknown), so it is walked by rowid instead.
            let keyed = !table.primaryKey.isEmpty || !table.columns.contains { $0.nullable }
            let key = keyed ? keyColumns.map(TableCatalog.quoted).joined(separator: ", ") : "rowid"
            var last: [BackupValue]?
            var lastRowID: Int64?
            while true {
                var query: SQLQueryString = "SELECT \(unsafeRaw: columnList)\(unsafeRaw: keyed ? "" : ", rowid AS hibi_rowid") FROM \(unsafeRaw: name)"
                if keyed, let last {
                    let positions = keyColumns.compactMap { column in table.columns.firstIndex { $0.name == column } }
                    query.appendLiteral(" WHERE (\(key)) > (")
                    for (index, position) in positions.enumerated() {
                        if index > 0 { query.appendLiteral(", ") }
                        query.appendInterpolation(last[position].sqlExpression)
                    }
                    query.appendLiteral(")")
                } else if !keyed, let lastRowID {
                    query.appendLiteral(" WHERE rowid > ")
                    query.appendInterpolation(bind: lastRowID)
                }
                query.appendLiteral(" ORDER BY \(key) LIMIT \(pageSize)")
                let page: [[BackupValue]]
                if let session = sql as? SQLiteSession {
                    // SQLite's rows as they come, read by position: decoding each value through SQLKit (a name
                    // lookup and a Codable decode per value) was most of a backup's time on large tables.
                    var serializer = SQLSerializer(database: session)
                    query.serialize(to: &serializer)
                    let rows = try await session.connection.query(serializer.sql, try serializer.binds.map(sqliteBind))
                    page = try rows.map { try values(of: $0, table: table) }
                    if !keyed, let rowid = rows.last?.column("hibi_rowid")?.integer { lastRowID = Int64(rowid) }
                } else {
                    let rows = try await sql.raw(query).all()
                    page = try rows.map { try values(of: $0, table: table) }
                    if !keyed { lastRowID = try rows.last?.decode(column: "hibi_rowid", as: Int64.self) }
                }
                if page.isEmpty { break }
                last = page.last
                try await body(page)
                if page.count < pageSize { break }
            }
        }
    }

    /// A row SQLite handed out, by position; any value whose storage class does not match its column
    /// (SQLite's types are per value) goes through the general path, which converts or refuses it.
    static func values(of row: SQLiteRow, table: TableCatalog.Table) throws -> [BackupValue] {
        let columns = row.columns
        var result: [BackupValue] = []
        result.reserveCapacity(table.columns.count)
        for (index, column) in table.columns.enumerated() {
            guard index < columns.count, let value = value(columns[index].data, type: column.type) else {
                return try values(of: row.sql(), table: table)
            }
            result.append(value)
        }
        return result
    }

    /// A row PostgreSQL sent (binary format), by position; a type PostgresNIO does not decode directly
    /// (numeric, say) sends the row through the general path.
    static func values(of row: PostgresRow, table: TableCatalog.Table) throws -> [BackupValue] {
        var result: [BackupValue] = []
        result.reserveCapacity(table.columns.count)
        var index = 0
        for cell in row {
            guard index < table.columns.count else { break }
            let column = table.columns[index]
            index += 1
            guard cell.bytes != nil else {
                result.append(.null)
                continue
            }
            do {
                switch column.type {
                case .text: result.append(.text(try cell.decode(String.self)))
                case .integer: result.append(.integer(try cell.decode(Int64.self)))
                case .real:
                    let number = try cell.decode(Double.self)
                    guard number.isFinite else { throw BackupError.unsupportedValue(table: table.name, column: column.name) }
                    result.append(.real(number))
                case .boolean: result.append(.boolean(try cell.decode(Bool.self)))
                case .blob: result.append(.blob(Data(try cell.decode(ByteBuffer.self).readableBytesView)))
                }
            } catch let error as BackupError {
                throw error
            } catch {
                return try values(of: row.sql(), table: table)
            }
        }
        guard index == table.columns.count else { return try values(of: row.sql(), table: table) }
        return result
    }

    static func value(_ data: SQLiteData, type: BackupColumnType) -> BackupValue? {
        switch (data, type) {
        case (.null, _): .null
        case let (.text(string), .text): .text(string)
        case let (.integer(number), .integer): .integer(Int64(number))
        case let (.float(number), .real): number.isFinite ? .real(number) : nil
        case let (.integer(number), .real): .real(Double(number))
        case let (.integer(number), .boolean): number == 0 || number == 1 ? .boolean(number == 1) : nil
        case let (.blob(buffer), .blob): .blob(Data(buffer.readableBytesView))
        default: nil
        }
    }

    /// A bound value of a serialized SQLKit query, as SQLite takes it.
    static func sqliteBind(_ bind: any Encodable & Sendable) throws -> SQLiteData {
        switch bind {
        case let string as String: .text(string)
        case let number as Int64: .integer(SQLiteInt64(number))
        case let number as Int: .integer(SQLiteInt64(number))
        case let number as Double: .float(number)
        case let flag as Bool: .integer(flag ? 1 : 0)
        case let data as Data: .blob(ByteBuffer(bytes: data))
        default: throw BackupError.io("a key value of type \(type(of: bind)) cannot be bound")
        }
    }

    static func values(of row: any SQLRow, table: TableCatalog.Table) throws -> [BackupValue] {
        try table.columns.map { column in
            if try row.decodeNil(column: column.name) { return .null }
            switch column.type {
            case .text: return .text(try row.decode(column: column.name, as: String.self))
            case .integer: return .integer(try row.decode(column: column.name, as: Int64.self))
            case .real:
                let number = try row.decode(column: column.name, as: Double.self)
                guard number.isFinite else { throw BackupError.unsupportedValue(table: table.name, column: column.name) }
                return .real(number)
            case .boolean: return .boolean(try row.decode(column: column.name, as: Bool.self))
            case .blob: return .blob(try row.decode(column: column.name, as: Data.self))
            }
        }
    }
}

extension BackupValue {
    /// As a bound parameter; NULL inline, since an untyped NULL bind is not accepted for every column type.
    var sqlExpression: any SQLExpression {
        switch self {
        case .null: SQLLiteral.null
        case let .integer(number): SQLBind(number)
        case let .real(number): SQLBind(number)
        case let .boolean(flag): SQLBind(flag)
        case let .text(string): SQLBind(string)
        case let .blob(data): SQLBind(data)
        }
    }
}

/// A table's JSON lines written into its archive member through a buffer.
final class TableMemberWriter {
    private let member: BackupZipWriter.Member
    private var buffer: [UInt8] = []

    init(member: BackupZipWriter.Member) {
        self.member = member
        buffer.reserveCapacity(1 << 20)
    }

    func append(_ values: [BackupValue], table: TableCatalog.Table) throws {
        guard BackupRowCodec.encode(values, into: &buffer) else {
            let column = zip(values, table.columns).first { if case let .real(n) = $0.0 { !n.isFinite } else { false } }?.1.name ?? "?"
            throw BackupError.unsupportedValue(table: table.name, column: column)
        }
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        try buffer.withUnsafeBytes { try member.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    func finish() throws -> BackupZipWriter.Written {
        try flush()
        return try member.finish()
    }
}

/// Files under the data directory that rows point to: diary photos, video uploads and thumbnails, import
/// spools, and whatever folders features add later. Left out: the database, the keys (secrets never go in
/// a backup), and half-written files (temporary folders and names), which no row points to.
enum MediaFiles {
    struct File {
        let path: String
        let relativePath: String
        let size: Int64
    }

    static func list(dataDirectory: String) throws -> [File] {
        let root = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        var files: [File] = []
        guard let top = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        for name in top.sorted() where !name.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            let path = (root as NSString).appendingPathComponent(name)
            // Top-level files are the database, its WAL and the keys; media lives in folders.
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            guard let walker = FileManager.default.enumerator(atPath: path) else { continue }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                let parts = relative.split(separator: "/")
                if parts.contains(where: { $0 == "tmp" || $0.hasPrefix(".") || $0.hasSuffix(".partial-tables") }) { continue }
                if relative.hasSuffix(".tmp") || relative.hasSuffix(".partial") || relative.hasSuffix(".part") { continue }
                // A backup folder inside the data directory must not swallow the backups before it.
                if relative.hasSuffix(".hibi-backup") { continue }
                found.append(relative)
            }
            for relative in found.sorted() {
                let full = (path as NSString).appendingPathComponent(relative)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: full),
                      attributes[.type] as? FileAttributeType == .typeRegular,
                      let size = (attributes[.size] as? NSNumber)?.int64Value else { continue }
                let member = name + "/" + relative
                guard StoredZip.isSafeName(member) else { continue }
                files.append(File(path: full, relativePath: member, size: size))
            }
        }
        return files
    }
}

/// A visits signing key file an older version left in the data directory, read without creating one.
enum VisitsSigningKeyFile {
    static func publicKey(dataDirectory: String) throws -> String? {
        let path = (dataDirectory as NSString).appendingPathComponent(VisitSigner.fileName)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try VisitSigner.readFile(path: path)?.publicKey.rawRepresentation.base64EncodedString()
    }
}
