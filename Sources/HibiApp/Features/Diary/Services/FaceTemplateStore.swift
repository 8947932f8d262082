import Foundation
import SQLKit

/// Enrolled face embeddings, sealed one by one ("face-template:<id>"); the photos they came from are not kept.
public struct FaceTemplateStore: Sendable {
    let database: Database
    let box: SealedBoxService

    public init(database: Database, box: SealedBoxService) {
        self.database = database
        self.box = box
    }

    /// Bound to the owner: a template moved to another person's row does not open as their face.
    static func context(userID: String, _ id: String) -> String { "face-template:\(userID):\(id)" }
    static func legacyContext(_ id: String) -> String { "face-template:\(id)" }

    public func count(userID: String) async throws -> Int {
        let row = try await database.sql.raw("SELECT COUNT(*) AS n FROM face_templates WHERE user_id = \(bind: userID)").first()
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Replaces the user's templates in one transaction: a failed re-enrollment keeps the old face.
    public func replace(userID: String, embeddings: [[Float]], now: Date) async throws {
        let rows = try embeddings.map { embedding -> FaceTemplateRow in
            let id = UUID().uuidString.lowercased()
            return FaceTemplateRow(id: id, userID: userID, embeddingSealed: try box.seal(Self.encode(embedding), context: Self.context(userID: userID, id)),
                                   createdAt: Int64(saturating: now.timeIntervalSince1970))
        }
        try await database.transaction { sql in
            try await sql.delete(from: "face_templates").where("user_id", .equal, userID).run()
            for row in rows { try await FaceTemplateRow.insert([row], into: sql).run() }
        }
    }

    public func embeddings(userID: String) async throws -> [[Float]] {
        try await FaceTemplateRow.select(database.sql).where("user_id", .equal, userID).all(decoding: FaceTemplateRow.self).map { row in
            Self.decode(try box.open(row.embeddingSealed, context: Self.context(userID: userID, row.id)))
        }
    }

    public func delete(userID: String) async throws {
        try await database.sql.delete(from: "face_templates").where("user_id", .equal, userID).run()
    }

    static func encode(_ embedding: [Float]) -> Data {
        embedding.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    static func decode(_ data: Data) -> [Float] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
