import Foundation
import Logging
import SQLKit

/// Sealed values are bound to their owner: each context names the person as well as the row, so a row
/// or file moved to another person in the database or on disk, without the key, does not open for them.
/// Values sealed before that (contexts naming only the row) are re-sealed once, at start-up, by this
/// step: files first (each written to a new name and renamed, so a crash leaves the old or the new),
/// then the rows in one transaction that also records that the step is done. Running it twice, or on
/// two instances at once, changes nothing: a value that already opens under its owner is left alone.
struct OwnerSealing {
    let database: Database
    let box: SealedBoxService
    let photos: PhotoStore
    let logger: Logger

    static let settingKey = "sealing"
    static let ownerBound = "owner-bound"

    func upgradeIfNeeded() async throws {
        let state = try await database.sql.raw("SELECT value FROM settings WHERE key = \(bind: Self.settingKey)").first()?
            .decode(column: "value", as: String.self)
        guard state != Self.ownerBound else { return }
        let files = try resealPhotoFiles()
        let rows = try await database.transaction { sql in
            var rows = try await reseal(sql, table: "diary_entries", column: "text_sealed",
                                     new: { DiaryStore.textContext(userID: $0, $1) }, legacy: DiaryStore.legacyTextContext)
            rows += try await reseal(sql, table: "face_templates", column: "embedding_sealed",
                                     new: { FaceTemplateStore.context(userID: $0, $1) }, legacy: FaceTemplateStore.legacyContext)
            rows += try await reseal(sql, table: "visit_photos", column: "data",
                                     new: { VisitService.photoContext(userID: $0, $1) }, legacy: VisitService.legacyPhotoContext)
            // Liveness challenges live for minutes; ones sealed the old way are simply ended.
            try await sql.delete(from: "face_liveness_challenges").run()
            try await sql.insert(into: "settings").columns("key", "value").values(SQLBind(Self.settingKey), SQLBind(Self.ownerBound))
                .onConflict(with: ["key"]) { $0.set(excludedValueOf: "value") }.run()
            return rows
        }
        if files + rows > 0 {
            logger.notice("re-sealed stored values to their owners", metadata: ["rows": "\(rows)", "files": "\(files)"])
        }
    }

    /// Re-seals one sealed column of a table whose rows have `id` and `user_id`; returns how many changed.
    /// A value that opens under neither context is left as it is (it will not open, as before) and counted in the log.
    private func reseal(_ sql: any SQLDatabase, table: String, column: String,
                        new: (_ userID: String, _ id: String) -> String, legacy: (_ id: String) -> String) async throws -> Int {
        var changed = 0
        for row in try await sql.select().columns("id", "user_id", column).from(table).all() {
            let id = try row.decode(column: "id", as: String.self)
            let owner = try row.decode(column: "user_id", as: String.self)
            let sealed = try row.decode(column: column, as: Data.self)
            if (try? box.open(sealed, context: new(owner, id))) != nil { continue }
            guard let plain = try? box.open(sealed, context: legacy(id)) else {
                logger.error("a sealed value opens under no context", metadata: ["table": "\(table)"])
                continue
            }
            try await sql.update(table).set(column, to: SQLBind(try box.seal(plain, context: new(owner, id)))).where("id", .equal, id).run()
            changed += 1
        }
        return changed
    }

    /// Diary photos live as `<user>/<entry>.sealed` under the photo folder.
    private func resealPhotoFiles() throws -> Int {
        let manager = FileManager.default
        var changed = 0
        for user in (try? manager.contentsOfDirectory(atPath: photos.directory)) ?? [] where PhotoStore.isPlainName(user) {
            let folder = (photos.directory as NSString).appendingPathComponent(user)
            for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".sealed") {
                let entry = String(name.dropLast(".sealed".count))
                let path = (folder as NSString).appendingPathComponent(name)
                guard PhotoStore.isPlainName(entry), let sealed = manager.contents(atPath: path),
                      (try? box.open(sealed, context: PhotoStore.context(userID: user, entry))) == nil,
                      let plain = try? box.open(sealed, context: PhotoStore.legacyContext(entry)) else { continue }
                try photos.save(plain, userID: user, photoID: entry)
                changed += 1
            }
        }
        return changed
    }
}
