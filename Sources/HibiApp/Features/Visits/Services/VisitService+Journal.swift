import Foundation
import SQLKit

// MARK: more read methods for the journal (search everywhere)

extension VisitService {
    /// Live visits matching `matches`, newest first, at most `limit`, read in bounded batches of candidates the
    /// database picks: a row is a candidate when each of `words` (lower-case, as the search normalises them) occurs in
    /// its name, notes, group, labels, companions or address, or when the database cannot tell (the row holds text
    /// beyond ASCII, whose case and width folding only `matches` does, or an escaped character in its JSON columns).
    /// So the database answers most rows of a large history, and `matches` stays the one rule of what is found.
    /// `%`, `_` and `\` in a word are matched literally. `batch` is the candidates read at a time (tests make it small).
    public func search(userID: String, words: [String], limit: Int, batch: Int = 500, matches: (Visit) -> Bool) async throws -> [Visit] {
        let batchSize = max(1, min(batch, 1000))
        let words = Array(words.filter { !$0.isEmpty }.prefix(8))
        guard !words.isEmpty, limit > 0 else { return [] }
        let postgres = database.engine == .postgres
        let columns = ["name", "notes", "group_name", "labels", "companions", "address"]
        // Column by column (a word holds no space, so it cannot run from one field into the next), which is several times
        // cheaper than one joined text. SQLite's LIKE ignores ASCII case by itself; PostgreSQL's needs LOWER.
        func like(_ column: String) -> String { postgres ? "LOWER(\(column)) LIKE " : "\(column) LIKE " }
        // Text beyond ASCII has more bytes than characters on both engines.
        let beyondASCII = columns.map { postgres ? "OCTET_LENGTH(\($0)) <> LENGTH(\($0))" : "LENGTH(CAST(\($0) AS BLOB)) <> LENGTH(\($0))" }
            .joined(separator: " OR ")
        let escapedJSON = ["labels", "companions", "address"].map { "\($0) LIKE '%\\\\%' ESCAPE '\\'" }.joined(separator: " OR ")
        // SQLite reads a small table faster whole than through the (user, time) index a row at a time: `+` keeps it off the index.
        let owner = postgres ? "user_id" : "+user_id"
        var found: [Visit] = []
        var cursor: (at: Int64, id: String)?
        // At most 100,000 candidates in all (200 batches of 500), far beyond anyone's visits a search cannot tell apart.
        for _ in 0..<max(1, 100_000 / batchSize) {
            var sql: SQLQueryString = """
                SELECT \(unsafeRaw: VisitRow.qualifiedColumns("visits")) FROM visits WHERE \(unsafeRaw: owner) = \(bind: userID) \
                AND deleted_at IS NULL AND (\(unsafeRaw: beyondASCII) OR \(unsafeRaw: escapedJSON) OR (
                """
            for (index, word) in words.enumerated() {
                let pattern = "%" + Self.escapeLike(word) + "%"
                sql.appendInterpolation(unsafeRaw: index == 0 ? "(" : " AND (")
                for (position, column) in columns.enumerated() {
                    sql.appendInterpolation(unsafeRaw: (position == 0 ? "" : " OR ") + like(column))
                    sql.appendInterpolation(bind: pattern)
                    sql.appendInterpolation(unsafeRaw: " ESCAPE '\\'")
                }
                sql.appendInterpolation(unsafeRaw: ")")
            }
            sql.appendInterpolation(unsafeRaw: "))")
            if let cursor {
                sql.appendInterpolation(unsafeRaw: " AND (visited_at < ")
                sql.appendInterpolation(bind: cursor.at)
                sql.appendInterpolation(unsafeRaw: " OR (visited_at = ")
                sql.appendInterpolation(bind: cursor.at)
                sql.appendInterpolation(unsafeRaw: " AND id > ")
                sql.appendInterpolation(bind: cursor.id)
                sql.appendInterpolation(unsafeRaw: "))")
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY visited_at DESC, id LIMIT \(batchSize)")
            let rows = try await database.sql.raw(sql).all(decoding: VisitRow.self).map { try $0.visit }
            for visit in rows where matches(visit) {
                found.append(visit)
                if found.count >= limit { return found }
            }
            guard rows.count == batchSize, let last = rows.last else { break }
            cursor = (Int64(saturating: last.fields.visitedAt.timeIntervalSince1970), last.id)
        }
        return found
    }

    /// A LIKE pattern's wildcards and its escape character, taken literally (with `ESCAPE '\'`).
    static func escapeLike(_ word: String) -> String {
        word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    /// The same points as `mapPoints`, in no particular order, for reading every visit at once (the journal's first
    /// visits to a place over years): SQLite reads the small table whole, faster than through the (user, time) index a
    /// row at a time; PostgreSQL plans it as it sees fit.
    public func allMapPoints(userID: String) async throws -> [MapPoint] {
        let owner = database.engine == .postgres ? "user_id" : "+user_id"
        return try await database.sql.raw("""
            SELECT \(unsafeRaw: VisitRow.Marker.columnList) FROM visits WHERE \(unsafeRaw: owner) = \(bind: userID) AND deleted_at IS NULL
            """).all(decoding: VisitRow.Marker.self).map(\.mapPoint)
    }
}
