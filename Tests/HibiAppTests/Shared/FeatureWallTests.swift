import Foundation
import Testing
@testable import HibiApp

/// The walls between features: a file under Features/<A>/ names no type declared at the top level of another
/// feature's folder. What one feature needs of another it asks through a protocol declared for that purpose in
/// Shared/Offers (listed in docs/architecture.md), built in the one assembly (`Features.init`). Names are matched
/// in code only (not in comments or string literals), and a name the feature itself declares (a nested `Result`,
/// `Source`) is its own.
@Suite struct FeatureWallTests {
    /// Names a feature's file may still use from another feature, file by file (path under Features/). Empty
    /// since Session 13: every cross-feature use goes through Shared/Offers. Kept as the one place an exception
    /// would have to be written down (and argued for); a listed name the file no longer uses fails the test too.
    static let remaining: [String: Set<String>] = [:]

    @Test func featuresNameNoOtherFeatureType() throws {
        let files = try WallTests.swiftFiles(under: "Features")
        var declared: [String: Set<String>] = [:], owned: [String: Set<String>] = [:]
        let topLevel = /^(?:(?:public|internal|private|fileprivate|final|open|indirect)\s+)*(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)/
            .anchorsMatchLineEndings()
        let anyLevel = /^\s*(?:(?:public|internal|private|fileprivate|final|open|indirect)\s+)*(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)/
            .anchorsMatchLineEndings()
        var texts: [String: String] = [:]
        for file in files {
            let text = try String(contentsOfFile: WallTests.sources.appendingPathComponent(file).path, encoding: .utf8)
            texts[file] = text
            let feature = Self.feature(of: file)
            for match in text.matches(of: topLevel) { declared[feature, default: []].insert(String(match.1)) }
            for match in text.matches(of: anyLevel) { owned[feature, default: []].insert(String(match.1)) }
        }
        // Every feature folder was read: an empty scan (a moved folder) cannot pass.
        #expect(declared.keys.count >= 7, "found features \(declared.keys.sorted())")
        var found: [String: Set<String>] = [:]
        for (file, text) in texts {
            let feature = Self.feature(of: file)
            let others = declared.filter { $0.key != feature }.values.reduce(into: Set<String>()) { $0.formUnion($1) }
                .subtracting(owned[feature] ?? [])
            let bare = WallTests.withoutComments(text).replacing(/"(?:[^"\\\n]|\\.)*"/, with: "\"\"")
            let identifiers = Set(bare.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            let names = identifiers.intersection(others)
            if !names.isEmpty { found[String(file.dropFirst("Features/".count))] = names }
        }
        for (file, names) in found.sorted(by: { $0.key < $1.key }) {
            let allowed = Self.remaining[file] ?? []
            #expect(names.subtracting(allowed).isEmpty,
                    "Features/\(file) names \(names.subtracting(allowed).sorted()) of another feature: ask through a protocol in Shared/Offers")
        }
        for (file, names) in Self.remaining {
            let stale = names.subtracting(found[file] ?? [])
            #expect(stale.isEmpty, "Features/\(file) no longer names \(stale.sorted()): take them off `remaining`")
        }
    }

    static func feature(of file: String) -> String {
        String(file.dropFirst("Features/".count).prefix { $0 != "/" })
    }
}
