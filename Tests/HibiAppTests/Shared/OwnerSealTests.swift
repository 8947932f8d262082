import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Issue 13, item 5: sealed values are bound to their owner. Each attack moves a value to another person
/// with a plain database write (or a file copy), without the key, and expects it not to open for them.
@Suite(.serialized) struct OwnerSealTests {
    struct People {
        let core: AppCore
        let aiko: User
        let ben: User
    }

    func withTwoPeople(_ config: AppConfig? = nil, _ body: (People) async throws -> Void) async throws {
        let config = if let config { config } else { try await TestApp.config() }
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        do {
            let aiko = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                          language: nil, now: Date())
            let ben = try await core.accounts.createUser(username: "ben", displayName: "Ben", password: Browser.password, isAdmin: false,
                                                         language: nil, now: Date())
            try await body(People(core: core, aiko: aiko, ben: ben))
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }

    @Test func aDiaryRowMovedToAnotherPersonDoesNotOpenForThem() async throws {
        try await withTwoPeople { p in
            let diary = p.core.features.diary.service
            let entry = try await diary.create(userID: p.aiko.id, draft: .init(date: Date(), text: "Aiko's secret", tags: [], confirmedMood: nil,
                                                                             photo: TestImages.png), now: Date())
            try await p.core.database.sql.raw("UPDATE diary_entries SET user_id = \(bind: p.ben.id) WHERE id = \(bind: entry.id)").run()
            await #expect(throws: EncryptionError.self) { _ = try await diary.entry(userID: p.ben.id, id: entry.id) }
            // The photo file copied into Ben's folder does not open for him either.
            let photos = p.core.config.dataDirectory + "/diary-photos/"
            try FileManager.default.createDirectory(atPath: photos + p.ben.id, withIntermediateDirectories: true)
            let photoID = try #require(entry.photos.first).id
            try FileManager.default.copyItem(atPath: photos + p.aiko.id + "/\(photoID).sealed", toPath: photos + p.ben.id + "/\(photoID).sealed")
            await #expect(throws: EncryptionError.self) { _ = try await diary.photo(userID: p.ben.id, id: entry.id) }
        }
    }

    @Test func aFaceTemplateOrVisitPhotoMovedToAnotherPersonDoesNotOpenForThem() async throws {
        try await withTwoPeople { p in
            let faces = p.core.features.diary.faces.templates
            try await faces.replace(userID: p.aiko.id, embeddings: [[Float](repeating: 0.25, count: 128)], now: Date())
            try await p.core.database.sql.raw("UPDATE face_templates SET user_id = \(bind: p.ben.id)").run()
            await #expect(throws: EncryptionError.self) { _ = try await faces.embeddings(userID: p.ben.id) }

            let visits = p.core.features.visits.service
            let aikoVisit = try await visits.create(userID: p.aiko.id, fields: VisitFields(visitedAt: Date(), latitude: 35, longitude: 139, name: "Cafe"),
                                                    now: Date())
            let photo = try await visits.addPhoto(userID: p.aiko.id, visitID: aikoVisit.id, data: TestImages.png, contentType: "image/png", now: Date())
            let benVisit = try await visits.create(userID: p.ben.id, fields: VisitFields(visitedAt: Date(), latitude: 35, longitude: 139, name: "Park"),
                                                   now: Date())
            try await p.core.database.sql.raw("UPDATE visit_photos SET user_id = \(bind: p.ben.id), visit_id = \(bind: benVisit.id)").run()
            await #expect(throws: EncryptionError.self) { _ = try await visits.photo(userID: p.ben.id, visitID: benVisit.id, photoID: photo.id) }
        }
    }

    /// Values sealed before owner binding open after the next start, which re-seals them once.
    @Test func valuesSealedTheOldWayAreResealedOnceAtStart() async throws {
        // Kept between two starts: a database file (or the run's PostgreSQL database).
        let config = try await TestApp.config(database: TestApp.postgresURL == nil
            ? .sqliteFile(path: FileManager.default.temporaryDirectory.path + "/owner-\(UUID().uuidString).sqlite") : nil)
        var entryID = ""
        var aikoID = ""
        try await withTwoPeople(config) { p in
            aikoID = p.aiko.id
            let entry = try await p.core.features.diary.service.create(
                userID: p.aiko.id, draft: .init(date: Date(), text: "written last year", tags: [], confirmedMood: nil, photo: TestImages.png), now: Date())
            entryID = entry.id
            // Rewrite the entry, its photo and a face template as an older Hibi sealed them.
            let box = p.core.box
            try await p.core.database.sql.raw("""
                UPDATE diary_entries SET text_sealed = \(bind: try box.sealString("written last year", context: DiaryStore.legacyTextContext(entry.id)))
                WHERE id = \(bind: entry.id)
                """).run()
            let file = p.core.config.dataDirectory + "/diary-photos/\(p.aiko.id)/\(entry.id).sealed"
            try box.seal(TestImages.png, context: PhotoStore.legacyContext(entry.id)).write(to: URL(fileURLWithPath: file))
            try await p.core.database.sql.raw("DELETE FROM settings WHERE key = \(bind: OwnerSealing.settingKey)").run()
            await #expect(throws: EncryptionError.self) { _ = try await p.core.features.diary.service.entry(userID: p.aiko.id, id: entry.id) }
        }
        // The next start re-seals; the one after finds nothing to do.
        for _ in 0..<2 {
            let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
            let entry = try? await core.features.diary.service.entry(userID: aikoID, id: entryID)
            let photo = try? await core.features.diary.service.photo(userID: aikoID, id: entryID)
            await core.database.shutdown()
            #expect(entry?.text == "written last year")
            #expect(photo == TestImages.png)
        }
    }
}
