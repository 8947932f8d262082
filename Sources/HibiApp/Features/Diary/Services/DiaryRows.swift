import Foundation
import SQLKit

// The Diary tables' rows as they are stored (`TableRow`). Sealed columns stay sealed here: a row holds the
// sealed bytes, and the store opens them with the context that binds them to their owner and row.

/// A row of `diary_entries`.
struct DiaryEntryRow: TableRow {
    static let table = "diary_entries"
    var id: String
    var userID: String
    var entryAt: Int64
    var textSealed: Data
    /// `MoodScores` as JSON text.
    var moodScores: String?
    var confirmedMood: String?
    var hasPhoto: Bool
    var createdAt: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", entryAt = "entry_at", textSealed = "text_sealed", moodScores = "mood_scores",
             confirmedMood = "confirmed_mood", hasPhoto = "has_photo", createdAt = "created_at", updatedAt = "updated_at"
    }
}

extension DiaryEntryRow {
    /// The names of some of the columns, for a SELECT of part of the row.
    static func columns(_ keys: [CodingKeys]) -> [SQLIdentifier] { keys.map { SQLIdentifier($0.stringValue) } }

    /// An entry's id and owner (the owners of a set of ids, no text read).
    struct Owner: Decodable, Sendable {
        static let columns = DiaryEntryRow.columns([.id, .userID])
        var id: String
        var userID: String

        init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: DiaryEntryRow.CodingKeys.self)
            id = try row.decode(String.self, forKey: .id)
            userID = try row.decode(String.self, forKey: .userID)
        }
    }

    /// Date and confirmed mood: what statistics, trends and the calendar read, years of entries at a time, without
    /// bringing each sealed text along. A stored mood no longer known reads as none.
    struct MoodColumns: Decodable, Sendable {
        static let keys: [DiaryEntryRow.CodingKeys] = [.entryAt, .confirmedMood]
        static let columns = DiaryEntryRow.columns(keys)
        /// The columns as a raw SELECT list names them.
        static var columnList: String { keys.map(\.stringValue).joined(separator: ", ") }
        var point: MoodPoint

        init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: DiaryEntryRow.CodingKeys.self)
            point = MoodPoint(date: UnixTime(seconds: try row.decode(Int64.self, forKey: .entryAt)).date,
                              mood: try row.decodeIfPresent(String.self, forKey: .confirmedMood).flatMap(Mood.init(rawValue:)))
        }
    }

    /// What the search index needs of an entry: the text still sealed, opened by the store.
    struct SearchColumns: Decodable, Sendable {
        static let columns = DiaryEntryRow.columns([.id, .entryAt, .textSealed, .updatedAt])
        var id: String
        var entryAt: Int64
        var textSealed: Data
        var updatedAt: Int64

        init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: DiaryEntryRow.CodingKeys.self)
            id = try row.decode(String.self, forKey: .id)
            entryAt = try row.decode(Int64.self, forKey: .entryAt)
            textSealed = try row.decode(Data.self, forKey: .textSealed)
            updatedAt = try row.decode(Int64.self, forKey: .updatedAt)
        }
    }
}

/// A row of `diary_tags`: a tag as written, and the key tags are matched by.
struct DiaryTagRow: TableRow {
    static let table = "diary_tags"
    var entryID: String
    var userID: String
    var tag: String
    var tagKey: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case entryID = "entry_id", userID = "user_id", tag, tagKey = "tag_key"
    }
}

/// A row of `diary_photos`: a photo's place in its entry (the photo itself is a sealed file named by the id).
struct DiaryPhotoRow: TableRow {
    static let table = "diary_photos"
    var id: String
    var entryID: String
    var userID: String
    var position: Int64
    var hasFace: Bool
    var moodSource: Bool
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, entryID = "entry_id", userID = "user_id", position, hasFace = "has_face", moodSource = "mood_source", createdAt = "created_at"
    }

    var photo: DiaryPhoto { DiaryPhoto(id: id, hasFace: hasFace, moodSource: moodSource) }
}

/// A row of `face_templates`: one enrolled face embedding, sealed.
struct FaceTemplateRow: TableRow {
    static let table = "face_templates"
    var id: String
    var userID: String
    var embeddingSealed: Data
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", embeddingSealed = "embedding_sealed", createdAt = "created_at"
    }
}

/// A row of `diary_settings`: how long the person's diary stays unlocked while idle.
struct DiarySettingsRow: TableRow {
    static let table = "diary_settings"
    var userID: String
    var lockMinutes: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", lockMinutes = "lock_minutes"
    }
}

/// A row of `diary_entry_details`: what an imported entry brought beyond its text, sealed.
struct DiaryEntryDetailsRow: TableRow {
    static let table = "diary_entry_details"
    var entryID: String
    var userID: String
    var detailsSealed: Data
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case entryID = "entry_id", userID = "user_id", detailsSealed = "details_sealed", createdAt = "created_at"
    }
}

/// A row of `face_mood_baselines`: the person's resting-face mood scores (sealed) and whether moods are read against them.
struct FaceMoodBaselineRow: TableRow {
    static let table = "face_mood_baselines"
    var userID: String
    var scoresSealed: Data
    var enabled: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", scoresSealed = "scores_sealed", enabled
    }
}

/// A row of `face_liveness_challenges`: a face unlock in progress, its state sealed; `revision` and
/// `in_flight_since` let one frame at a time be analysed.
struct FaceLivenessChallengeRow: TableRow {
    static let table = "face_liveness_challenges"
    var id: String
    var userID: String
    var stateSealed: Data
    var revision: Int64
    /// Milliseconds.
    var inFlightSince: Int64?
    var expiresAt: Int64
    var finishedAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", stateSealed = "state_sealed", revision, inFlightSince = "in_flight_since", expiresAt = "expires_at",
             finishedAt = "finished_at"
    }
}

/// A row of `face_frame_digests`: a frame already seen, so a recording of an earlier attempt is refused.
struct FaceFrameDigestRow: TableRow {
    static let table = "face_frame_digests"
    var userID: String
    var digest: String
    var seenAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", digest, seenAt = "seen_at"
    }
}

/// A row of `diary_import_jobs`.
struct DiaryImportJobRow: TableRow {
    static let table = "diary_import_jobs"
    var id: String
    var userID: String
    var state: String
    var fileName: String
    var uploadPath: String?
    var total: Int64
    var done: Int64
    var checkpointSealed: Data?
    var errorEn: String?
    var errorJa: String?
    var attempts: Int64
    var createdAt: Int64
    var finishedAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", state, fileName = "file_name", uploadPath = "upload_path", total, done, checkpointSealed = "checkpoint_sealed",
             errorEn = "error_en", errorJa = "error_ja", attempts, createdAt = "created_at", finishedAt = "finished_at"
    }
}
