import Crypto
import Foundation
import Logging
import NIOCore
import PostgresKit
import SQLKit
import SQLiteNIO
import Synchronization
import ZIPFoundation

/// A backup archive opened for reading through ZIPFoundation, with every member checked against the
/// manifest (size and SHA-256) as it is read.
final class BackupArchive: @unchecked Sendable {
    let archive: Archive
    let entries: [String: ZIPFoundation.Entry]
    let manifest: BackupManifest
    /// The manifest exactly as stored: its MAC is over these bytes.
    let manifestBytes: Data
    /// `manifest.mac`, when the archive has one.
    let mac: Data?
    static let bufferSize = 256 * 1024
    /// The manifest is read whole; nothing honest comes near this.
    static let maxManifestBytes: UInt64 = 256 * 1024 * 1024

    init(path: String) throws(BackupError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .io("\(path) does not exist") }
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .notABackup("the file is not a complete ZIP archive (damaged or cut short: \(error))")
        }
        var entries: [String: ZIPFoundation.Entry] = [:]
        for entry in archive {
            // Two entries of one name: which one a reader takes is the reader's choice, so neither is trusted.
            guard entries[entry.path] == nil else { throw .outsideLayout(member: entry.path, reason: "the name appears twice") }
            entries[entry.path] = entry
        }
        guard let manifestEntry = entries[BackupManifest.memberName] else { throw .notABackup("it has no \(BackupManifest.memberName)") }
        guard manifestEntry.uncompressedSize <= Self.maxManifestBytes else { throw .damaged(member: BackupManifest.memberName, reason: "too large") }
        var bytes = Data()
        do {
            _ = try archive.extract(manifestEntry, bufferSize: Self.bufferSize) { chunk in
                bytes.append(chunk)
                if bytes.count > Self.maxManifestBytes { throw BackupError.damaged(member: BackupManifest.memberName, reason: "too large") }
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .damaged(member: BackupManifest.memberName, reason: Self.describe(error))
        }
        let manifest: BackupManifest
        do {
            manifest = try JSONCoding.decoder.decode(BackupManifest.self, from: bytes)
        } catch {
            throw .damaged(member: BackupManifest.memberName, reason: "not a readable manifest")
        }
        guard manifest.format == BackupManifest.formatName else { throw .notABackup("unknown format \"\(manifest.format)\"") }
        guard manifest.formatVersion <= BackupManifest.currentFormatVersion else { throw .newerFormat(manifest.formatVersion) }
        try BackupLayout.check(entries: entries, manifest: manifest)
        var mac: Data?
        if let macEntry = entries[BackupManifest.macMemberName] {
            var text = Data()
            do {
                guard macEntry.uncompressedSize <= 256 else { throw BackupError.damaged(member: BackupManifest.macMemberName, reason: "too large") }
                _ = try archive.extract(macEntry, bufferSize: 1024) { chunk in
                    text.append(chunk)
                    if text.count > 256 { throw BackupError.damaged(member: BackupManifest.macMemberName, reason: "too large") }
                }
            } catch let error as BackupError {
                throw error
            } catch {
                throw .damaged(member: BackupManifest.macMemberName, reason: Self.describe(error))
            }
            guard let hex = String(data: text, encoding: .utf8), let code = Hex.data(hex.trimmingCharacters(in: .whitespacesAndNewlines)), code.count == 32 else {
                throw .damaged(member: BackupManifest.macMemberName, reason: "not a hex HMAC-SHA256")
            }
            mac = code
        }
        self.archive = archive
        self.entries = entries
        self.manifest = manifest
        self.manifestBytes = bytes
        self.mac = mac
    }

    /// Whether the holder of `box`'s key wrote this manifest (and so, through its SHA-256 sums, every member).
    /// A MAC that fails although the manifest's key check opens under this key means the archive came from
    /// this key's instance and was changed afterwards: that is refused outright, never merely warned about.
    func authenticity(box: SealedBoxService?) throws(BackupError) -> BackupError.UnverifiedReason? {
        guard let mac else { return .unsigned }
        guard let box else { return .noKey }
        if box.isValidAuthenticationCode(mac, for: manifestBytes, purpose: BackupManifest.macPurpose) { return nil }
        if let check = manifest.dataKeyCheck, let sealed = Data(base64Encoded: check), (try? box.open(sealed, context: KeyCheck.context)) != nil {
            throw .tampered
        }
        return .otherKey
    }

    /// Streams one member to `consumer`, refusing it as soon as it grows past the size the manifest gives
    /// (an inflated member can never be larger than recorded) and at the end if its digest differs.
    func read(member: String, bytes expected: Int64, sha256: String, consumer: (Data) throws -> Void) throws(BackupError) {
        guard let entry = entries[member] else { throw .damaged(member: member, reason: "missing from the archive") }
        guard entry.uncompressedSize == UInt64(max(0, expected)) else {
            throw .damaged(member: member, reason: "its size (\(entry.uncompressedSize) bytes) differs from the manifest (\(expected))")
        }
        var hasher = SHA256()
        var seen: Int64 = 0
        var crc: UInt32 = 0
        do {
            // The CRC is zlib's, computed here: ZIPFoundation's own on Linux goes a byte at a time in Swift.
            _ = try archive.extract(entry, bufferSize: Self.bufferSize, skipCRC32: true) { chunk in
                seen += Int64(chunk.count)
                if seen > expected { throw BackupError.damaged(member: member, reason: "longer than the manifest says") }
                hasher.update(data: chunk)
                crc = chunk.withUnsafeBytes { CRC32.update(crc, with: $0) }
                try consumer(chunk)
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .damaged(member: member, reason: Self.describe(error))
        }
        guard seen == expected else { throw .damaged(member: member, reason: "shorter than the manifest says") }
        guard crc == entry.checksum else { throw .damaged(member: member, reason: "its checksum does not match (the data was changed)") }
        guard Hex.string(hasher.finalize()) == sha256 else { throw .damaged(member: member, reason: "its SHA-256 does not match the manifest") }
    }

    /// Copies a member to a file, checked as `read` checks it.
    func extract(member: String, bytes: Int64, sha256: String, to path: String) throws(BackupError) {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else { throw .io("cannot create \(path)") }
        defer { try? handle.close() }
        try read(member: member, bytes: bytes, sha256: sha256) { chunk in try handle.write(contentsOf: chunk) }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case Archive.ArchiveError.invalidCRC32: "its checksum does not match (the data was changed)"
        case let error as BackupError: error.description
        default: "unreadable (\(error))"
        }
    }

    /// Checks every member the manifest lists: size, CRC and SHA-256.
    func verify(progress: (BackupProgress) throws -> Void = { _ in }) throws -> (tables: Int, files: Int, bytes: Int64) {
        // Format 1 lists a member per table; format 2 one database member for them all.
        let tableMembers = manifest.tables.compactMap { table in table.bytes.flatMap { bytes in table.sha256.map { (table.member, bytes, $0) } } }
        guard manifest.formatVersion >= 2 || tableMembers.count == manifest.tables.count else {
            throw BackupError.damaged(member: BackupManifest.memberName, reason: "a table without its size or SHA-256")
        }
        guard manifest.formatVersion < 2 || manifest.database != nil else { throw BackupError.notABackup("its manifest names no \(BackupSnapshot.memberName)") }
        let members = tableMembers + (manifest.database.map { [($0.member, $0.bytes, $0.sha256)] } ?? [])
            + manifest.files.map { ($0.member, $0.bytes, $0.sha256) }
        // Sums of numbers the manifest supplies only drive the progress bar: wrapping beats trapping.
        let total = members.reduce(Int64(0)) { $0 &+ $1.1 }
        var done: Int64 = 0
        for (member, bytes, sha256) in members {
            try progress(BackupProgress(phase: "verify", done: done, total: total))
            try read(member: member, bytes: bytes, sha256: sha256) { done &+= Int64($0.count) }
        }
        try progress(BackupProgress(phase: "verify", done: total, total: total))
        return (manifest.tables.count, manifest.files.count, total)
    }
}

/// Restores a backup into an empty database (either engine) and data directory, all or nothing: the schema
/// and every row go in one transaction, files are staged and checked first and moved into place only after
/// the commit, so any failure leaves the target as it was.
public struct RestoreService: Sendable {
    let database: Database
    let dataDirectory: String
    /// The target's data key; nil when it has none yet (then a backup with sealed data is refused).
    let box: SealedBoxService?
    /// The visits log's signing key, checked against an older backup's (Shared/Offers).
    let signingKey: any BackupSigningKey
    let logger: Logger
    let migrations: [Migration]

    /// Where uploaded files go back to (`HIBI_MEDIA_DIR`); the data directory unless set.
    let mediaDirectory: String

    /// Tables with at least this many rows get their secondary indexes built after their rows are in.
    static let rebuildIndexesFrom = 5_000

    public init(database: Database, dataDirectory: String, mediaDirectory: String? = nil, box: SealedBoxService?, logger: Logger,
                signingKey: any BackupSigningKey, migrations: [Migration] = Schema.all) {
        self.database = database
        self.signingKey = signingKey
        self.dataDirectory = dataDirectory
        self.mediaDirectory = mediaDirectory ?? dataDirectory
        self.box = box
        self.logger = logger
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Checks a backup can go into this target without touching anything: format, schema, keys.
    static func check(_ manifest: BackupManifest, migrations: [Migration], box: SealedBoxService?, dataDirectory: String,
                      signingKey: any BackupSigningKey) throws(BackupError) {
        let known = Set(migrations.map(\.version))
        let latest = migrations.map(\.version).max() ?? 0
        if manifest.schemaVersion > latest || !Set(manifest.migrations).isSubset(of: known) {
            throw .newerSchema(backup: max(manifest.schemaVersion, manifest.migrations.max() ?? 0), binary: latest)
        }
        if let check = manifest.dataKeyCheck {
            guard let box else { throw .noDataKey }
            guard let sealed = Data(base64Encoded: check), (try? box.open(sealed, context: KeyCheck.context)) != nil else { throw .wrongDataKey }
        }
        let chainRows = manifest.tables.first { $0.name == "visit_chain" }?.rows ?? 0
        // A backup made since the key moved into the database carries it (sealed, opened by the data key
        // checked above); only older backups need the target's key file to match.
        let carriesKey = (manifest.tables.first { $0.name == "instance_secrets" }?.rows ?? 0) > 0
        if let expected = manifest.visitsSigningPublicKey, chainRows > 0, !carriesKey {
            guard (try? signingKey.legacyFilePublicKey(dataDirectory: dataDirectory)) == expected else { throw .signingKeyMismatch }
        }
    }

    /// `allowUnverified`: restore an archive whose signature cannot be checked (an older Hibi's, another
    /// instance's), after `warn` was told what cannot be checked. An archive this key signed that was changed
    /// since is refused whatever the flag says.
    @discardableResult
    public func restore(from path: String, replace: Bool = false, allowUnverified: Bool = false,
                        warn: @Sendable (Text) -> Void = { _ in },
                        progress: @escaping @Sendable (BackupProgress) throws -> Void = { _ in }) async throws -> BackupManifest {
        // Opening the archive checks its layout: every member one the writer makes, before anything is read.
        let archive = try BackupArchive(path: path)
        let manifest = archive.manifest
        try Self.check(manifest, migrations: migrations, box: box, dataDirectory: dataDirectory, signingKey: signingKey)
        if let reason = try archive.authenticity(box: box) {
            guard allowUnverified else { throw BackupError.unverified(reason, hibiVersion: manifest.hibiVersion) }
            warn(BackupError.unverifiedWarning(reason, hibiVersion: manifest.hibiVersion))
        }
        try BackupLayout.checkTargets(manifest.files, mediaDirectory: mediaDirectory, replace: replace)
        let byVersion = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { a, _ in a })
        let before = manifest.migrations.sorted().compactMap { byVersion[$0] }
        let after = migrations.filter { !Set(manifest.migrations).contains($0.version) }

        try FileManager.default.createDirectory(atPath: mediaDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        Self.removeStaleStaging(in: mediaDirectory)
        if let path = database.sqlitePath { Self.removeStaleStaging(in: (path as NSString).deletingLastPathComponent) }
        let staging = (mediaDirectory as NSString).appendingPathComponent(".restore-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: staging) }

        // Files first: each is checked against the manifest before any row is written.
        let media = (staging as NSString).appendingPathComponent("media")
        if manifest.formatVersion >= 2 {
            guard let member = manifest.database, member.member == BackupSnapshot.memberName else {
                throw BackupError.notABackup("its manifest names no \(BackupSnapshot.memberName)")
            }
            // The tables' file is extracted (through a handle of its own on the archive) while the files are staged.
            async let staged: Void = Self.stage(manifest.files, from: archive, into: media, progress: progress)
            // Beside the database when it is a file, so it can take the database's place with one rename.
            let directory = database.sqlitePath.map { ($0 as NSString).deletingLastPathComponent } ?? staging
            let snapshot = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(".hibi-restore-\(UUID().uuidString.lowercased()).sqlite")
            defer { try? FileManager.default.removeItem(atPath: snapshot) }
            do {
                try BackupArchive(path: path).extract(member: member.member, bytes: member.bytes, sha256: member.sha256, to: snapshot)
            } catch {
                try? await staged
                throw error
            }
            try await staged
            switch database.engine {
            case .sqlite:
                try await restoreSQLite(from: snapshot, manifest: manifest, replace: replace, before: before, after: after, progress: progress)
            case .postgres:
                try await restorePostgres(from: snapshot, manifest: manifest, replace: replace, before: before, after: after, progress: progress)
            }
        } else {
            try await Self.stage(manifest.files, from: archive, into: media, progress: progress)
            try await restoreJSONLines(archive, staging: staging, replace: replace, before: before, after: after, progress: progress)
        }
        try moveIntoPlace(media: media, replace: replace)
        return manifest
    }

    /// Copies every file into the staging folder, each checked against the manifest.
    static func stage(_ files: [BackupManifest.File], from archive: BackupArchive, into media: String,
                      progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        // Progress only: the manifest's numbers may be anything, so they wrap rather than trap.
        let fileBytes = files.reduce(Int64(0)) { $0 &+ $1.bytes }
        var doneBytes: Int64 = 0
        for file in files {
            try progress(BackupProgress(phase: "files", done: doneBytes, total: fileBytes))
            let target = (media as NSString).appendingPathComponent(try BackupLayout.mediaPath(file.member))
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try archive.extract(member: file.member, bytes: file.bytes, sha256: file.sha256, to: target)
            doneBytes &+= file.bytes
        }
        try progress(BackupProgress(phase: "files", done: fileBytes, total: fileBytes))
    }

    /// Format 1: a JSON-lines member per table, parsed and inserted inside one transaction.
    private func restoreJSONLines(_ archive: BackupArchive, staging: String, replace: Bool, before: [Migration], after: [Migration],
                                  progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws {
        let engine = database.engine
        let manifest = archive.manifest
        let totalRows = manifest.tables.reduce(Int64(0)) { $0 &+ Int64($1.rows) }
        let spool = (staging as NSString).appendingPathComponent("table.jsonl")
        // A step that rebuilds a parent table needs foreign keys off for the whole transaction; they are then
        // checked before the commit, as deferring them does otherwise.
        try await database.transaction(foreignKeysOff: (before + after).contains(where: \.foreignKeysOff)) { sql in
            if engine == .sqlite { try await sql.raw("PRAGMA defer_foreign_keys = ON").run() }
            let (target, listed, now) = try await Self.recreateSchema(sql, engine: engine, replace: replace, before: before, manifest: manifest)
            var doneRows: Int64 = 0
            for table in TableCatalog.insertionOrder(Array(target.values)) {
                guard let entry = listed[table.name] else { continue }
                try Self.checkColumns(of: entry, against: table)
                guard let bytes = entry.bytes, let sha256 = entry.sha256 else {
                    throw BackupError.damaged(member: entry.member, reason: "the manifest gives no size or SHA-256 for it")
                }
                try archive.extract(member: entry.member, bytes: bytes, sha256: sha256, to: spool)
                let indexes = entry.rows >= Self.rebuildIndexesFrom ? try await Self.secondaryIndexes(of: table.name, sql: sql, engine: engine) : []
                for index in indexes { try await sql.raw("DROP INDEX \(unsafeRaw: TableCatalog.quoted(index.name))").run() }
                let inserted = try await Self.insertRows(from: spool, entry: entry, sql: sql) { count in
                    doneRows += Int64(count)
                    try progress(BackupProgress(phase: "tables", done: doneRows, total: totalRows))
                }
                for index in indexes { try await sql.raw(SQLQueryString(index.definition)).run() }
                guard inserted == entry.rows else {
                    throw BackupError.damaged(member: entry.member, reason: "holds \(inserted) rows, the manifest says \(entry.rows)")
                }
            }
            for migration in after { try await Migrator.apply(migration, sql: sql, engine: engine, now: now) }
        }
    }

    /// Drops whatever the target holds (after checking it is empty unless replacing), lays out the backup's
    /// schema with this Hibi's migrations, and checks every table the backup lists exists in it.
    static func recreateSchema(_ sql: any SQLDatabase, engine: DatabaseEngine, replace: Bool, before: [Migration], manifest: BackupManifest) async throws
        -> (target: [String: TableCatalog.Table], listed: [String: BackupManifest.Table], now: Int64) {
        let existing = try await TableCatalog.read(sql, engine: engine)
        if !replace { try await requireEmpty(existing, sql: sql) }
        for table in TableCatalog.insertionOrder(existing).reversed() {
            try await sql.raw("DROP TABLE IF EXISTS \(unsafeRaw: TableCatalog.quoted(table.name))\(unsafeRaw: engine == .postgres ? " CASCADE" : "")").run()
        }
        try await Migrator.createTable(sql)
        let now = Int64(saturating: Date().timeIntervalSince1970)
        for migration in before { try await Migrator.apply(migration, sql: sql, engine: engine, now: now) }
        let target = Dictionary(try await TableCatalog.read(sql, engine: engine).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let listed = Dictionary(manifest.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for name in listed.keys.sorted() where target[name] == nil {
            throw BackupError.tableMismatch(table: name, reason: "this Hibi has no such table")
        }
        return (target, listed, now)
    }

    /// The backup's columns for a table must be the target's, name for name and type for type.
    static func checkColumns(of entry: BackupManifest.Table, against table: TableCatalog.Table) throws(BackupError) {
        let expected = table.columns.map { BackupManifest.Column(name: $0.name, type: $0.type) }
        guard Set(entry.columns.map(\.name)) == Set(expected.map(\.name)) else {
            throw .tableMismatch(table: table.name, reason: "columns \(entry.columns.map(\.name)) against \(expected.map(\.name))")
        }
        for column in entry.columns where expected.first(where: { $0.name == column.name })?.type != column.type {
            throw .tableMismatch(table: table.name, reason: "column \(column.name) is \(column.type.rawValue) in the backup")
        }
    }

    /// Empty means no rows but migration bookkeeping and the settings a start-up records.
    static func requireEmpty(_ tables: [TableCatalog.Table], sql: any SQLDatabase) async throws {
        for table in tables where table.name != "hibi_schema" {
            var query: SQLQueryString = "SELECT COUNT(*) AS n FROM \(unsafeRaw: TableCatalog.quoted(table.name))"
            if table.name == "settings" {
                // What every start records: the key check and that sealed values are bound to their owners.
                query.appendLiteral(" WHERE key <> "); query.appendInterpolation(bind: KeyCheck.settingKey)
                query.appendLiteral(" AND key <> "); query.appendInterpolation(bind: OwnerSealing.settingKey)
            }
            let count = try await sql.raw(query).first()?.decode(column: "n", as: Int64.self) ?? 0
            if count > 0 { throw BackupError.targetNotEmpty(table: table.name) }
        }
    }

    /// Format 1: reads JSON lines from the spool file a megabyte at a time and inserts them in multi-row
    /// statements (on SQLite with values bound directly). Old backups only, so not tuned further.
    static func insertRows(from path: String, entry: BackupManifest.Table, sql: any SQLDatabase,
                           onBatch: (Int) throws -> Void) async throws -> Int {
        // Both engines cap bound parameters per statement (SQLite at 32,766); stay well under.
        let perBatch = max(1, min(500, 30_000 / max(1, entry.columns.count)))
        let session = sql as? SQLiteSession
        let bulk = SQLiteBulkInsert(table: entry.name, columns: entry.columns.map(\.name))
        return try await forEachBatch(path: path, entry: entry, perBatch: perBatch) { rows in
            if let session {
                try await bulk.run(rows, on: session.connection)
            } else {
                let insert = sql.insert(into: entry.name).columns(entry.columns.map(\.name))
                for values in rows { insert.values(values.map(\.sqlExpression)) }
                try await insert.run()
            }
            try onBatch(rows.count)
        }
    }

    /// Parses the spool file's lines and hands them out `perBatch` rows at a time; returns the number of lines.
    static func forEachBatch(path: String, entry: BackupManifest.Table, perBatch: Int,
                             _ body: (ArraySlice<[BackupValue]>) async throws -> Void) async throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BackupError.io("cannot read \(path)") }
        defer { try? handle.close() }
        var batch: [[BackupValue]] = []
        var pending: [UInt8] = []
        var values: [BackupValue] = []
        values.reserveCapacity(entry.columns.count)
        var line = 0
        var failed = false
        func parse(_ bytes: UnsafeBufferPointer<UInt8>) {
            line += 1
            if BackupRowParser.parse(bytes, columns: entry.columns, into: &values) { batch.append(values) } else { failed = true }
        }
        while true {
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var start = 0
            pending.withUnsafeBufferPointer { bytes in
                while !failed, let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    parse(UnsafeBufferPointer(rebasing: bytes[start..<newline]))
                    start = newline + 1
                }
            }
            if failed { throw BackupError.damaged(member: entry.member, reason: "line \(line) does not match the table's columns") }
            pending.removeFirst(start)
            var done = 0
            while batch.count - done >= perBatch {
                try await body(batch[done..<(done + perBatch)])
                done += perBatch
            }
            batch.removeFirst(done)
        }
        if !pending.isEmpty {
            pending.withUnsafeBufferPointer { parse($0) }
            if failed { throw BackupError.damaged(member: entry.member, reason: "line \(line) does not match the table's columns") }
        }
        if !batch.isEmpty { try await body(batch[...]) }
        return line
    }

    /// A table's indexes other than its key and constraints (those the migrations made with CREATE INDEX), with
    /// the statements that make them again. A large table is filled without them and they are built once at the
    /// end: keeping every index up to date row by row made a restore several times slower than the copy.
    static func secondaryIndexes(of table: String, sql: any SQLDatabase, engine: DatabaseEngine) async throws -> [(name: String, definition: String)] {
        let rows: [IndexDefinitionRow]
        switch engine {
        case .sqlite:
            rows = try await sql.raw("""
                SELECT name, sql AS definition FROM sqlite_master WHERE type = 'index' AND tbl_name = \(bind: table) AND sql IS NOT NULL ORDER BY name
                """).all(decoding: IndexDefinitionRow.self)
        case .postgres:
            rows = try await sql.raw("""
                SELECT i.indexname::text AS name, i.indexdef::text AS definition FROM pg_indexes i
                WHERE i.schemaname = current_schema() AND i.tablename = \(bind: table)
                AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
                ORDER BY i.indexname
                """).all(decoding: IndexDefinitionRow.self)
        }
        return rows.map { ($0.name, $0.definition) }
    }

    /// Moves the staged files into the data directory. With `replace`, the folders they go into are
    /// emptied first (moved aside, then removed), so no file of the old instance lingers.
    func moveIntoPlace(media: String, replace: Bool) throws {
        let manager = FileManager.default
        guard let top = try? manager.contentsOfDirectory(atPath: media) else { return }
        let aside = (mediaDirectory as NSString).appendingPathComponent(".replaced-\(UUID().uuidString.lowercased())")
        if replace {
            try manager.createDirectory(atPath: aside, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for name in top where manager.fileExists(atPath: (mediaDirectory as NSString).appendingPathComponent(name)) {
                try manager.moveItem(atPath: (mediaDirectory as NSString).appendingPathComponent(name), toPath: (aside as NSString).appendingPathComponent(name))
            }
        }
        defer { if replace { try? manager.removeItem(atPath: aside) } }
        guard let walker = manager.enumerator(atPath: media) else { return }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: (media as NSString).appendingPathComponent(relative), isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(relative)
            }
        }
        for relative in files {
            let target = (mediaDirectory as NSString).appendingPathComponent(relative)
            try manager.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
            let source = (media as NSString).appendingPathComponent(relative)
            guard rename(source, target) == 0 else { throw BackupError.io("cannot move \(relative) into place (errno \(errno))") }
        }
    }

    /// Staging folders (and tables' files) a killed restore left behind hold only copies; nothing points to them.
    static func removeStaleStaging(in directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasPrefix(".restore-") || (name.hasPrefix(".hibi-restore-") && name.hasSuffix(".sqlite")) {
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
        }
    }
}

/// The data key as the target has it, without creating one: a restore must not invent a key.
public enum RestoreKey {
    public static func load(masterKey: String?, dataDirectory: String) throws -> SealedBoxService? {
        let path = (dataDirectory as NSString).appendingPathComponent(DataKeyStore.fileName)
        guard masterKey != nil || FileManager.default.fileExists(atPath: path) else { return nil }
        return SealedBoxService(key: try DataKeyStore.loadOrCreate(masterKey: masterKey, dataDirectory: dataDirectory))
    }
}

/// `hibi backup --verify`: the manifest's signature checked with this instance's data key (`box`), then every
/// member against the manifest, nothing written. An archive this key signed that was changed since fails whatever
/// `allowUnverified` says; one whose signature cannot be checked (unsigned, another key, no key here) fails
/// unless `allowUnverified`, as a restore does: checksums alone are what anyone editing the file can fix up.
public enum BackupVerifier {
    public static func verify(path: String, box: SealedBoxService?, allowUnverified: Bool = false,
                              progress: (BackupProgress) throws -> Void = { _ in }) throws -> (tables: Int, files: Int, bytes: Int64) {
        let archive = try BackupArchive(path: path)
        if let reason = try archive.authenticity(box: box), !allowUnverified {
            throw BackupError.unverified(reason, hibiVersion: archive.manifest.hibiVersion)
        }
        return try archive.verify(progress: progress)
    }
}

extension BackupValue {
    /// A value SQLite stored, typed by its column; nil when its storage class does not fit the column (SQLite's
    /// types are per value) or it is not a finite number.
    init?(_ data: SQLiteData, type: BackupColumnType) {
        switch (data, type) {
        case (.null, _): self = .null
        case let (.text(string), .text): self = .text(string)
        case let (.integer(number), .integer): self = .integer(Int64(number))
        case let (.float(number), .real) where number.isFinite: self = .real(number)
        case let (.integer(number), .real): self = .real(Double(number))
        case let (.integer(number), .boolean) where number == 0 || number == 1: self = .boolean(number == 1)
        case let (.blob(buffer), .blob): self = .blob(Data(buffer.readableBytesView))
        default: return nil
        }
    }

    /// As SQLite stores it (booleans as 0 and 1, as SQLKit binds them).
    var sqliteData: SQLiteData {
        switch self {
        case .null: .null
        case let .integer(number): .integer(SQLiteInt64(number))
        case let .real(number): .float(number)
        case let .boolean(flag): .integer(flag ? 1 : 0)
        case let .text(string): .text(string)
        case let .blob(data): .blob(ByteBuffer(bytes: data))
        }
    }
}

/// Rows in PostgreSQL's COPY text format: tab between values, `\N` for NULL, backslash escapes in text,
/// `t`/`f` for booleans and `\\x…` hex for bytea.
enum PostgresCopyText {
    static func append(_ row: [BackupValue], to buffer: inout ByteBuffer) {
        for (index, value) in row.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            switch value {
            case .null: buffer.writeStaticString("\\N")
            case let .integer(number): buffer.writeString(String(number))
            case let .real(number): buffer.writeString(number.description)
            case let .boolean(flag): buffer.writeInteger(flag ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            case let .text(string): appendText(string, to: &buffer)
            case let .blob(data):
                buffer.writeStaticString("\\\\x")
                let hex: StaticString = "0123456789abcdef"
                buffer.reserveCapacity(minimumWritableBytes: data.count * 2)
                for byte in data {
                    buffer.writeInteger(hex.utf8Start[Int(byte >> 4)])
                    buffer.writeInteger(hex.utf8Start[Int(byte & 0xF)])
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    static func appendText(_ string: String, to buffer: inout ByteBuffer) {
        var string = string
        string.withUTF8 { bytes in
            var run = 0
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\\") || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[run..<index]))
                run = index + 1
                buffer.writeInteger(UInt8(ascii: "\\"))
                switch byte {
                case 0x09: buffer.writeInteger(UInt8(ascii: "t"))
                case 0x0A: buffer.writeInteger(UInt8(ascii: "n"))
                case 0x0D: buffer.writeInteger(UInt8(ascii: "r"))
                default: buffer.writeInteger(UInt8(ascii: "\\"))
                }
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[run...]))
        }
    }
}
