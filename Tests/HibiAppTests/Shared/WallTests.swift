import Foundation
import Testing
@testable import HibiApp

/// The wall between `Shared/` and the features: no file under Sources/HibiApp/Shared names a type declared
/// under Features/ or a table a feature's migration creates. What Shared needs of a feature it asks through a
/// protocol or a declaration the feature fills in (`Feature` in App/Feature.swift), iterated by the assembly.
@Suite struct WallTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/HibiApp")

    /// Names Shared still uses, file by file, each with why it is not yet behind a seam: none since issue 30 put the
    /// last five behind seams. The list may only shrink (never add to it); a name listed here that a file no longer
    /// uses fails the test too, so the list stays true.
    static let remaining: [String: (names: Set<String>, why: String)] = [:]

    @Test func sharedNamesNoFeatureTypeOrTable() throws {
        let (types, tables) = try Self.featureNames()
        // Enough found that an empty scan (a moved folder) cannot pass.
        #expect(types.count > 100 && tables.count > 20, "found \(types.count) feature types and \(tables.count) tables")
        var found: [String: Set<String>] = [:]
        for file in try Self.swiftFiles(under: "Shared") {
            let code = Self.withoutComments(try String(contentsOfFile: Self.sources.appendingPathComponent(file).path, encoding: .utf8))
            // Types are matched in code only: a string literal that happens to spell one (Apple's "Correlation"
            // element in the import report's words) names no feature type.
            let bare = code.replacing(/"(?:[^"\\\n]|\\.)*"/, with: "\"\"")
            let identifiers = Set(bare.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            var names = identifiers.intersection(types)
            for table in tables where code.contains("\"\(table)\"") || Self.sqlNames(table, in: code) { names.insert(table) }
            if !names.isEmpty { found[String(file.dropFirst("Shared/".count))] = names }
        }
        for (file, names) in found.sorted(by: { $0.key < $1.key }) {
            let allowed = Self.remaining[file]?.names ?? []
            #expect(names.subtracting(allowed).isEmpty, "Shared/\(file) names \(names.subtracting(allowed).sorted()): declare a seam in Feature instead")
        }
        for (file, entry) in Self.remaining {
            let stale = entry.names.subtracting(found[file] ?? [])
            #expect(stale.isEmpty, "Shared/\(file) no longer names \(stale.sorted()): take them off `remaining`")
        }
    }

    /// Each feature declares its own migrations (`Feature.migrations`) and the assembly merges them with the
    /// platform's by version: every step ever shipped is still there exactly once (a feature that forgot to declare
    /// one would leave databases behind), and no two share a version.
    @Test func everyMigrationIsDeclaredOnceByItsOwner() {
        let versions = Schema.all.map(\.version)
        #expect(versions == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 19, 20, 21, 22, 23, 25, 26, 27, 28, 32, 33, 38],
                "a new step is added here too, with its version")
        let declared = Schema.platform.map(\.version) + Features.types.flatMap { $0.migrations.map(\.version) }
        #expect(declared.count == Set(declared).count, "two steps share a version: \(declared.sorted())")
        #expect(Set(Schema.all.map(\.name)).count == versions.count)
    }

    /// Every page the frame links to is declared by exactly one feature: none falls back to `/`.
    @Test func everySitePageIsDeclaredOnce() {
        let declared = SitePage.declared.map(\.page)
        #expect(declared.count == SitePage.allCases.count)
        #expect(Set(SitePage.allCases).isSubset(of: Set(declared)))
    }

    /// Top-level type names declared under Features/, and the tables their migrations create.
    static func featureNames() throws -> (types: Set<String>, tables: Set<String>) {
        let declaration = /^(?:(?:public|internal|private|fileprivate|final|open|indirect)\s+)*(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)/
            .anchorsMatchLineEndings()
        var types: Set<String> = [], tables: Set<String> = []
        for file in try swiftFiles(under: "Features") {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            for match in text.matches(of: declaration) { types.insert(String(match.1)) }
            for match in text.matches(of: /create\(table:\s*"([a-z_]+)"/) { tables.insert(String(match.1)) }
        }
        return (types, tables)
    }

    static func sqlNames(_ table: String, in code: String) -> Bool {
        ["FROM ", "JOIN ", "INTO ", "UPDATE ", "TABLE "].contains { keyword in
            code.ranges(of: keyword + table).contains { range in
                range.upperBound == code.endIndex || !(code[range.upperBound].isLetter || code[range.upperBound] == "_")
            }
        }
    }

    static func swiftFiles(under folder: String) throws -> [String] {
        let root = sources.appendingPathComponent(folder).path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }
    }

    /// Code without `//` comments (outside string literals): a comment may name what it explains.
    static func withoutComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            var inString = false
            var previous: Character = " "
            for index in line.indices {
                let character = line[index]
                if character == "\"" && previous != "\\" { inString.toggle() }
                if !inString && character == "/" && previous == "/" { return line[..<line.index(before: index)] }
                previous = character
            }
            return line
        }.joined(separator: "\n")
    }
}
