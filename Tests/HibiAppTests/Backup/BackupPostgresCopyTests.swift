import Crypto
import Foundation
import NIOCore
import PostgresKit
import SQLKit
import Testing
@testable import HibiApp

/// The PostgreSQL side of a backup binds each value straight from the bytes PostgreSQL sent. These tables hold
/// every column type with NULLs and edge values; what lands in the tables file must be what PostgreSQL holds.
@Suite(.serialized) struct BackupPostgresCopyTests {
    /// Every plain type the copy binds directly; in SQLite the types Hibi's migrations use for them.
    static let everyType = Migration(version: 1, name: "every type") { sql, engine in
        switch engine {
        case .postgres:
            try await sql.raw("""
                CREATE TABLE every_type (id BIGINT PRIMARY KEY, i8 BIGINT, i4 INTEGER, i2 SMALLINT, f8 DOUBLE PRECISION, f4 REAL,
                flag BOOLEAN, data BYTEA, t TEXT, vc VARCHAR(40), ch CHAR(4))
                """).run()
        case .sqlite:
            try await sql.raw("""
                CREATE TABLE every_type (id INTEGER PRIMARY KEY, i8 INTEGER, i4 INTEGER, i2 INTEGER, f8 DOUBLE PRECISION, f4 REAL,
                flag BOOLEAN, data BLOB, t TEXT, vc TEXT, ch TEXT)
                """).run()
        }
    }

    /// Types the copy does not bind itself: numeric into a real column, jsonb and uuid into text.
    static let oddTypes = Migration(version: 2, name: "odd types") { sql, engine in
        switch engine {
        case .postgres:
            try await sql.raw("CREATE TABLE odd_types (id BIGINT PRIMARY KEY, amount NUMERIC, doc JSONB, uid UUID, n INTEGER)").run()
        case .sqlite:
            try await sql.raw("CREATE TABLE odd_types (id INTEGER PRIMARY KEY, amount REAL, doc TEXT, uid TEXT, n INTEGER)").run()
        }
    }

    static let notFinite = Migration(version: 3, name: "not finite") { sql, engine in
        switch engine {
        case .postgres: try await sql.raw("CREATE TABLE not_finite (id BIGINT PRIMARY KEY, x DOUBLE PRECISION, y REAL)").run()
        case .sqlite: try await sql.raw("CREATE TABLE not_finite (id INTEGER PRIMARY KEY, x DOUBLE PRECISION, y REAL)").run()
        }
    }

    /// A fresh PostgreSQL database with `migrations` applied, for the length of `body`.
    static func withPostgres(_ migrations: [Migration], _ body: (Database) async throws -> Void) async throws {
        guard let server = TestApp.postgresURL else { return }
        let database = try await Database.open(.postgres(url: try await TestApp.freshPostgresDatabase(serverURL: server)), logger: TestApp.quietLogger)
        do {
            try await Migrator(database: database, migrations: migrations, logger: TestApp.quietLogger).migrate()
            try await body(database)
            await database.shutdown()
        } catch {
            await database.shutdown()
            throw error
        }
    }

    static func scratchPath() throws -> String {
        (try BackupFixture.directory("pgcopy") as NSString).appendingPathComponent("tables.sqlite")
    }

    /// A table's rows as the general decode reads them from PostgreSQL (the meaning a backup must keep), in the form
    /// SQLite stores them (booleans as 0 and 1), ordered by id.
    static func postgresRows(_ database: Database, table name: String) async throws -> [[BackupValue]] {
        try await database.withPostgresConnection { connection, source in
            guard let table = try await TableCatalog.read(source, engine: .postgres).first(where: { $0.name == name }) else {
                throw TestFailure("no table \(name)")
            }
            let columns = table.columns.map { TableCatalog.quoted($0.name) }.joined(separator: ", ")
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(columns) FROM \(name) ORDER BY id"), logger: connection.logger).collect()
            return try rows.map { row in
                try BackupSnapshot.values(of: row, table: table).map { value in
                    if case let .boolean(flag) = value { return .integer(flag ? 1 : 0) }
                    return value
                }
            }
        }
    }

    /// A table's rows in the tables file, each value with the storage class SQLite gave it, ordered by id.
    static func sqliteRows(_ path: String, table name: String, columns: [String]) async throws -> [[BackupValue]] {
        let file = try await Database.open(.sqliteFile(path: path), logger: TestApp.quietLogger)
        do {
            let list = columns.enumerated().map { "typeof(\(TableCatalog.quoted($1))) AS t\($0), \(TableCatalog.quoted($1)) AS v\($0)" }
                .joined(separator: ", ")
            let rows = try await file.sql.raw("SELECT \(unsafeRaw: list) FROM \(unsafeRaw: name) ORDER BY id").all()
            let values = try rows.map { row -> [BackupValue] in
                try columns.indices.map { index in
                    switch try row.decode(column: "t\(index)", as: String.self) {
                    case "integer": .integer(try row.decode(column: "v\(index)", as: Int64.self))
                    case "real": .real(try row.decode(column: "v\(index)", as: Double.self))
                    case "text": .text(try row.decode(column: "v\(index)", as: String.self))
                    case "blob": .blob(try row.decode(column: "v\(index)", as: Data.self))
                    default: .null
                    }
                }
            }
            await file.shutdown()
            return values
        } catch {
            await file.shutdown()
            throw error
        }
    }

    static let everyColumn = ["id", "i8", "i4", "i2", "f8", "f4", "flag", "data", "t", "vc", "ch"]

    @Test(.enabled(if: TestApp.postgresURL != nil)) func everyTypeWithNullsAndEdgeValuesIsCopiedExactlyAndBoundDirectly() async throws {
        try await Self.withPostgres([Self.everyType]) { database in
            let long = String(repeating: "長い文章 long text ", count: 20_000)
            try await database.sql.raw("""
                INSERT INTO every_type VALUES
                (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                (2, 9223372036854775807, 2147483647, 32767, 1.7976931348623157e308, 3.4028235e38, true, '\\x00ff00'::bytea, '', 'Unicode 日本語 😀 é', 'ab'),
                (3, -9223372036854775808, -2147483648, -32768, '-0'::float8, 1.17549435e-38, false, ''::bytea, E'tab\\tnewline\\nquote"''\\\\', '', NULL),
                (4, 0, 0, 0, 5e-324, 0.1, NULL, decode(repeat('ab', 100000), 'hex'), \(bind: long), NULL, 'wxyz')
                """).run()
            // Two full pages exactly: the last fetch comes back empty.
            try await database.sql.raw("""
                INSERT INTO every_type SELECT g, g::bigint * 1000003, g % 70000 - 35000, g % 30000 - 15000, g::float8 / 7, (g::float8 / 3)::real, g % 2 = 0,
                decode(md5(g::text), 'hex'), 'row ' || g, 'v' || g, 'c' || (g % 100) FROM generate_series(10, \(unsafeRaw: String(BackupService.pageSize * 2 + 5))) g
                """).run()
            let path = try Self.scratchPath()
            let counts = try await BackupSnapshot.copyPostgresCounting(database, into: path, migrations: [Self.everyType], logger: TestApp.quietLogger)
            let rows = BackupService.pageSize * 2
            #expect(counts == .init(direct: rows, decoded: 0))

            let copied = try await Self.sqliteRows(path, table: "every_type", columns: Self.everyColumn)
            #expect(copied.count == rows)
            #expect(copied == (try await Self.postgresRows(database, table: "every_type")))
            // The edge values themselves, not only agreement between the two reads.
            let nulls: [BackupValue] = [.integer(1)] + Array(repeating: BackupValue.null, count: 10)
            #expect(copied[0] == nulls)
            let largest: [BackupValue] = [.integer(2), .integer(Int64.max), .integer(Int64(Int32.max)), .integer(Int64(Int16.max)),
                                          .real(.greatestFiniteMagnitude), .real(Double(Float.greatestFiniteMagnitude)), .integer(1),
                                          .blob(Data([0, 255, 0])), .text(""), .text("Unicode 日本語 😀 é"), .text("ab  ")]
            #expect(copied[1] == largest)
            let smallest: [BackupValue] = [.integer(3), .integer(Int64.min), .integer(Int64(Int32.min)), .integer(Int64(Int16.min)), .real(-0.0),
                                           .real(Double(Float.leastNormalMagnitude)), .integer(0), .blob(Data()),
                                           .text("tab\tnewline\nquote\"'\\"), .text(""), .null]
            #expect(copied[2] == smallest)
            #expect(copied[3][4] == .real(5e-324))
            #expect(copied[3][5] == .real(Double(Float(0.1))))
            #expect(copied[3][7] == .blob(Data(repeating: 0xAB, count: 100_000)))
            #expect(copied[3][8] == .text(long))
            let digest = Data(Insecure.MD5.hash(data: Data("10".utf8)))
            let generated: [BackupValue] = [.integer(10), .integer(10_000_030), .integer(-34990), .integer(-14990), .real(10 / 7.0),
                                            .real(Double(Float(10.0 / 3.0))), .integer(1), .blob(digest), .text("row 10"), .text("v10"), .text("c10 ")]
            #expect(copied[4] == generated)
        }
    }

    @Test(.enabled(if: TestApp.postgresURL != nil)) func aTypeNotBoundDirectlyGoesThroughTheGeneralDecode() async throws {
        try await Self.withPostgres([Self.oddTypes]) { database in
            try await database.sql.raw("""
                INSERT INTO odd_types VALUES (1, 12.5, '{"a": [1, "é"]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 7), (2, NULL, NULL, NULL, 8),
                (3, 0.1, NULL, NULL, NULL)
                """).run()
            let path = try Self.scratchPath()
            let counts = try await BackupSnapshot.copyPostgresCounting(database, into: path, migrations: [Self.oddTypes], logger: TestApp.quietLogger)
            // Row 2's odd columns are all NULL: nothing to decode.
            #expect(counts == .init(direct: 1, decoded: 2))
            let copied = try await Self.sqliteRows(path, table: "odd_types", columns: ["id", "amount", "doc", "uid", "n"])
            #expect(copied == (try await Self.postgresRows(database, table: "odd_types")))
            #expect(copied[0][1] == .real(12.5) && copied[2][1] == .real(0.1))
            #expect(copied[0][2] == .text(#"{"a": [1, "é"]}"#))
            #expect(copied[1] == [.integer(2), .null, .null, .null, .integer(8)])
        }
    }

    @Test(.enabled(if: TestApp.postgresURL != nil)) func aValueTheFormatCannotHoldIsRefusedNamingTableAndColumn() async throws {
        try await Self.withPostgres([Self.notFinite]) { database in
            try await database.sql.raw("INSERT INTO not_finite VALUES (1, 1.5, 2.5), (2, 'Infinity', 1)").run()
            await #expect(throws: BackupError.unsupportedValue(table: "not_finite", column: "x")) {
                try await BackupSnapshot.copyPostgres(database, into: try Self.scratchPath(), migrations: [Self.notFinite], logger: TestApp.quietLogger)
            }
            try await database.sql.raw("UPDATE not_finite SET x = 3, y = 'NaN' WHERE id = 2").run()
            await #expect(throws: BackupError.unsupportedValue(table: "not_finite", column: "y")) {
                try await BackupSnapshot.copyPostgres(database, into: try Self.scratchPath(), migrations: [Self.notFinite], logger: TestApp.quietLogger)
            }
        }
    }

    /// Text is bound as its bytes only when they are UTF-8 (the general decode repairs what is not): the check on
    /// raw bytes agrees with making a String on edge cases and on random bytes.
    @Test func utf8CheckAgreesWithTheStandardLibrary() {
        func standard(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }
        func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { UTF8Check.isValid($0) } }
        let cases: [[UInt8]] = [
            [], Array("plain ASCII that runs past eight bytes".utf8), Array("日本語 😀 é".utf8),
            [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xBF], [0xFF], [0xE3, 0x81], Array("12345678".utf8) + [0xE3, 0x81], Array("1234567".utf8) + [0xE3, 0x81, 0x82],
            [0x00, 0x41], [0xEF, 0xBF, 0xBF], [0xEE, 0x80, 0x80, 0x80],
        ]
        for bytes in cases { #expect(check(bytes) == standard(bytes), "\(bytes)") }
        var generator = SplitMix(seed: 16)
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        var disagreements = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0...255, using: &generator)
            }
            if check(bytes) != standard(bytes) { disagreements += 1 }
        }
        #expect(disagreements == 0)
    }
}
