import Foundation
import Hummingbird
import NIOCore

/// One person's own data in open formats, decrypted for its owner, as one ZIP streamed member by member:
/// the diary as its export has it (`diary.json` and `photos/` at the top, so the diary import reads the
/// takeout as it is), health records as CSV and JSON, visits as GeoJSON and GPX with the signed chain and
/// its public key, and the profile. Importing a takeout into another account restores diary, health and visits.
public struct TakeoutService: Sendable {
    let transfer: DiaryTransfer
    let health: HealthService
    let visits: VisitService
    let signer: VisitSigner
    let videos: VideoService
    let lock: DiaryLock
    let locations: LocationService
    let spoolDirectory: String

    init(transfer: DiaryTransfer, health: HealthService, visits: VisitService, signer: VisitSigner, videos: VideoService, lock: DiaryLock,
         locations: LocationService) {
        self.locations = locations
        self.transfer = transfer
        self.health = health
        self.visits = visits
        self.signer = signer
        self.videos = videos
        self.lock = lock
        spoolDirectory = FileManager.default.temporaryDirectory.path
    }

    public static let formatName = "hibi-takeout"

    struct Profile: Codable {
        let format: String
        let version: Int
        let exportedAt: Date
        let username: String
        let displayName: String
        let language: String?
        let timeZone: String
        let createdAt: Date
        let healthProfile: HealthProfileExport?
    }

    struct HealthProfileExport: Codable {
        let birthDate: String?
        let heightCm: Double?
        let targetWeightKg: Double?
        let weightUnit: String
        let distanceUnit: String
        let energyUnit: String
    }

    /// One video of the library as this person sees it: the file's facts and their own title, rating,
    /// tags, favourite and viewing history.
    struct VideoExport: Codable {
        let id: String
        let fileName: String
        let source: String
        let sizeBytes: Int64
        let durationSeconds: Double?
        let title: String
        let favorite: Bool
        let rating: Int?
        let tags: [String]
        let lastPlayedAt: Date?
        let positionSeconds: Double
        let playCount: Int
        let played: Bool
        /// The uploaded file inside the takeout (`videos/files/…`); nil for a file of the shared library.
        var file: String?

        init(_ item: VideoItem) {
            id = item.video.id
            fileName = item.video.originalName
            source = item.video.source.rawValue
            sizeBytes = item.video.sizeBytes
            durationSeconds = item.video.media.durationSeconds
            title = item.title
            favorite = item.data.favorite
            rating = item.data.rating
            tags = item.data.tags
            lastPlayedAt = item.data.lastPlayedAt
            positionSeconds = item.data.positionSeconds
            playCount = item.data.playCount
            played = item.data.played
        }
    }

    struct PlaylistExport: Codable {
        let name: String
        /// Ids as in videos/library.json, in play order.
        let videoIDs: [String]
        let createdAt: Date
        let updatedAt: Date
    }

    struct ReminderExport: Codable {
        /// Local time, HH:mm.
        let time: String
        /// 1 (Sunday) … 7 (Saturday).
        let weekdays: [Int]
        let message: String
        let webhookURL: String?
    }

    struct SettingsExport: Codable {
        let diaryLockMinutes: Int
        let reminders: [ReminderExport]
    }

    struct GoalExport: Codable {
        let type: String
        let targetValue: Double
        let deadline: Date?
        let createdAt: Date
        let startValue: Double?
        let achievedAt: Date?
    }

    /// `time,latitude,longitude` (ISO 8601 UTC, degrees), one point a line, in time order.
    func spoolLocations(userID: String, to path: String) async throws {
        guard FileManager.default.createFile(atPath: path, contents: Data("time,latitude,longitude\n".utf8), attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? handle.close() }
        try handle.seekToEnd()
        let format = ISO8601DateFormatter()
        try await locations.forEachPointPage(userID: userID) { page in
            var text = ""
            for point in page {
                text += format.string(from: Date(timeIntervalSince1970: Double(point.time))) + ",\(point.latitude),\(point.longitude)\n"
            }
            try handle.write(contentsOf: Data(text.utf8))
        }
    }

    public func write(user: User, now: Date, to write: (Data) async throws -> Void) async throws {
        var zip = StoredZipWriter()
        func add(_ name: String, _ data: Data) async throws {
            for chunk in try zip.add(name: name, data: data, modified: now) { try await write(chunk) }
        }
        let encoder = JSONCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try await add("README.txt", Data(Self.readme.utf8))
        let profile = try? await health.profiles.get(userID: user.id)
        try await add("profile.json", try encoder.encode(Profile(
            format: Self.formatName, version: 1, exportedAt: now, username: user.username, displayName: user.displayName,
            language: user.language?.rawValue, timeZone: user.timeZone, createdAt: user.createdAt,
            healthProfile: profile.map { HealthProfileExport(birthDate: $0.birthDate, heightCm: $0.heightCm, targetWeightKg: $0.targetWeightKg,
                                                              weightUnit: $0.units.weight.rawValue, distanceUnit: $0.units.distance.rawValue,
                                                              energyUnit: $0.units.energy.rawValue) })))

        try await transfer.addMembers(try await transfer.planExport(userID: user.id), now: now, to: &zip, write: write)

        // Health records go through spool files a page at a time, then in mapped from disk: a long history
        // never sits in memory as rows and text at once.
        let csvPath = (spoolDirectory as NSString).appendingPathComponent("hibi-takeout-\(UUID().uuidString).csv")
        let jsonPath = (spoolDirectory as NSString).appendingPathComponent("hibi-takeout-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(atPath: csvPath); try? FileManager.default.removeItem(atPath: jsonPath) }
        try await spoolHealth(userID: user.id, csv: csvPath, json: jsonPath)
        try await add("health/records.csv", try Data(contentsOf: URL(fileURLWithPath: csvPath), options: .alwaysMapped))
        try await add("health/records.json", try Data(contentsOf: URL(fileURLWithPath: jsonPath), options: .alwaysMapped))
        try await add("health/goals.json", try encoder.encode(try await health.goals.list(userID: user.id).map {
            GoalExport(type: $0.type.rawValue, targetValue: $0.targetValue, deadline: $0.deadline, createdAt: $0.createdAt,
                       startValue: $0.startValue, achievedAt: $0.achievedAt)
        }))
        // Workouts with their statistics, each route as GPX (read back by Hibi's and other tools' GPX readers),
        // and the electrocardiograms as Apple wrote them; one route and one file in memory at a time.
        var workouts: [HealthService.WorkoutExport] = []
        try await health.forEachWorkout(userID: user.id) { workout, route in
            let file = route.isEmpty ? nil : "health/workout-routes/\(workout.id).gpx"
            if let file { try await add(file, WorkoutRouteGPX.write(workout, points: route)) }
            workouts.append(HealthService.WorkoutExport(
                id: workout.id, activity: workout.activity, start: workout.start, end: workout.end,
                durationMinutes: WorkoutTracks.finite(workout.durationMinutes), distanceKm: workout.distanceKm.flatMap(WorkoutTracks.finite),
                energyKcal: workout.energyKcal.flatMap(WorkoutTracks.finite), device: workout.device, details: workout.details,
                routePoints: route.count, routeFile: file))
        }
        try await add("health/workouts.json", try encoder.encode(workouts))
        for file in health.electrocardiograms.list(userID: user.id) {
            guard let path = health.electrocardiograms.path(name: file.name, userID: user.id) else { continue }
            try await add("health/electrocardiograms/\(file.name)", try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
        }

        let list = try await visits.list(userID: user.id, filter: VisitFilter())
        let chain = try await visits.chainExport(userID: user.id)
        try await add("visits/visits.geojson", VisitFormats.geoJSON(list, chain: chain))
        try await add("visits/visits.gpx", VisitFormats.gpx(list))
        try await add("visits/chain.json", try encoder.encode(chain))
        try await add("visits/signing-public-key.txt", Data((chain.publicKey + "\n").utf8))
        // Location history: every stored point (spooled like the health records) and the stays found in it.
        let pointsPath = (spoolDirectory as NSString).appendingPathComponent("hibi-takeout-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(atPath: pointsPath) }
        try await spoolLocations(userID: user.id, to: pointsPath)
        try await add("visits/location-points.csv", try Data(contentsOf: URL(fileURLWithPath: pointsPath), options: .alwaysMapped))
        try await add("visits/stays.json", try encoder.encode(try await locations.stays(userID: user.id, status: nil, limit: 100_000)))
        try await add("visits/saved-places.geojson", GoogleSavedPlaces.geoJSON(try await visits.allSavedPlaces(userID: user.id)))

        // Videos: what this person sees and what they made of it, and the files they uploaded (the shared
        // library's files are the administrator's, not theirs). A file goes out in slices of its mapping,
        // so a long video never sits in memory.
        let library = try await videos.store.list(userID: user.id)
        var exports: [VideoExport] = []
        for item in library {
            var export = VideoExport(item)
            if let (member, path) = videoFile(item.video) {
                let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
                let parts = try zip.add(name: member, data: data, modified: now)
                for part in parts {
                    var start = part.startIndex
                    while start < part.endIndex {
                        let end = part.index(start, offsetBy: Self.sliceBytes, limitedBy: part.endIndex) ?? part.endIndex
                        try await write(part[start..<end])
                        start = end
                    }
                }
                export.file = member
            }
            exports.append(export)
        }
        try await add("videos/library.json", try encoder.encode(exports))
        try await add("videos/playlists.json", try encoder.encode(try await videos.store.playlists(userID: user.id).map {
            PlaylistExport(name: $0.name, videoIDs: $0.videoIDs, createdAt: $0.createdAt, updatedAt: $0.updatedAt)
        }))
        try await add("settings.json", try encoder.encode(SettingsExport(
            diaryLockMinutes: try await lock.lockMinutes(userID: user.id),
            reminders: try await health.reminders.list(userID: user.id).map {
                ReminderExport(time: String(format: "%02d:%02d", $0.minuteOfDay / 60, $0.minuteOfDay % 60), weekdays: $0.weekdays.sorted(),
                               message: $0.message, webhookURL: $0.webhookURL)
            })))
        try await write(zip.finish())
    }

    static let sliceBytes = 1 << 20

    /// An uploaded video's member name and file on disk; nil for the shared library's files or a missing file.
    func videoFile(_ video: Video) -> (member: String, path: String)? {
        guard video.source == .upload, let path = videos.files.resolve(video) else { return nil }
        let ext = (video.originalName as NSString).pathExtension.lowercased()
        let safe = ext.count <= 8 && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? ext : ""
        return ("videos/files/\(video.id)" + (safe.isEmpty ? "" : ".\(safe)"), path)
    }

    /// How many uploaded video files a takeout carries and their bytes, shown before the download starts.
    public func videoFiles(userID: String) async throws -> (count: Int, bytes: Int64) {
        var count = 0, bytes: Int64 = 0
        for item in try await videos.store.list(userID: userID) where videoFile(item.video) != nil {
            count += 1
            bytes = bytes.addingReportingOverflow(max(0, item.video.sizeBytes)).partialValue
        }
        return (count, bytes)
    }

    private func spoolHealth(userID: String, csv: String, json: String) async throws {
        guard FileManager.default.createFile(atPath: csv, contents: nil, attributes: [.posixPermissions: 0o600]),
              FileManager.default.createFile(atPath: json, contents: nil, attributes: [.posixPermissions: 0o600]),
              let csvHandle = FileHandle(forWritingAtPath: csv), let jsonHandle = FileHandle(forWritingAtPath: json) else {
            throw BackupError.io("cannot write a spool file for the takeout")
        }
        defer { try? csvHandle.close(); try? jsonHandle.close() }
        try csvHandle.write(contentsOf: Data((HealthCSV.header + "\n").utf8))
        try jsonHandle.write(contentsOf: Data("[".utf8))
        let encoder = JSONCoding.encoder
        var offset = 0, first = true
        while true {
            let page = try await health.records.list(userID: userID, filter: .init(limit: 5000, offset: offset))
            var text = ""
            var objects = Data()
            for record in page {
                text += HealthCSV.line(record) + "\n"
                objects.append(contentsOf: Array((first ? "\n" : ",\n").utf8))
                objects.append(try encoder.encode(record))
                first = false
            }
            try csvHandle.write(contentsOf: Data(text.utf8))
            try jsonHandle.write(contentsOf: objects)
            if page.count < 5000 { break }
            offset += page.count
        }
        try jsonHandle.write(contentsOf: Data("\n]\n".utf8))
    }

    public struct ImportResult: Codable, Sendable, Equatable {
        public let diaryEntries: Int
        public let healthRecords: Int
        public let visits: Int
        /// Points of visits/location-points.csv newly stored in the location history.
        public var locationPoints: Int = 0
        /// Saved places of visits/saved-places.geojson newly stored.
        public var savedPlaces: Int = 0
    }

    /// Reads a takeout into this account: diary entries (ids already there skipped), health records
    /// (duplicates skipped), visits (added to this account's own signed chain) and the location history
    /// (points already there skipped; stays found in it offered again).
    public func importTakeout(_ data: Data, user: User, now: Date) async throws -> ImportResult {
        try await importTakeout(try DiaryTransfer.open { try ZipReader(data: data, maxTotalBytes: DiaryTransfer.maxInflatedBytes) }, user: user, now: now)
    }

    /// The same from a file on disk (an upload the route spooled, the command line's argument).
    public func importTakeout(path: String, user: User, now: Date) async throws -> ImportResult {
        try await importTakeout(try DiaryTransfer.open { try ZipReader(path: path, maxTotalBytes: DiaryTransfer.maxInflatedBytes) }, user: user, now: now)
    }

    func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> ImportResult {
        guard let profileData = try? reader.contents(of: "profile.json"),
              let profile = try? JSONCoding.decoder.decode(Profile.self, from: profileData), profile.format == Self.formatName else {
            throw DiaryError.importInvalid(Text(en: "not a Hibi takeout (no profile.json)", ja: "Hibi のデータ書き出しではありません(profile.json がありません)"))
        }
        let diary = reader.entries[DiaryExport.fileName] == nil ? 0 : try await transfer.importArchive(reader, userID: user.id, now: now)
        var healthRecords = 0
        if let csv = try reader.contents(of: "health/records.csv") {
            healthRecords = try await health.importCSV(String(decoding: csv, as: UTF8.self), user: user, now: now).inserted
        }
        var visitCount = 0
        if let geoJSON = try reader.contents(of: "visits/visits.geojson") {
            // importAll finds a visit already there by its content key, so the same takeout twice adds nothing.
            let parsed = try VisitFormats.parseGeoJSON(geoJSON)
            if !parsed.isEmpty { visitCount = try await visits.importAll(userID: user.id, visits: parsed, now: now).added }
        }
        var locationPoints = 0
        if let csv = try reader.contents(of: "visits/location-points.csv") {
            locationPoints = try await locations.importFile(userID: user.id, stream: MemoryByteStream(Array(csv)), now: now).pointsStored
        }
        var savedPlaces = 0
        if let geoJSON = try reader.contents(of: "visits/saved-places.geojson") {
            let parsed = try GoogleSavedPlaces.parse(geoJSON)
            savedPlaces = try await visits.importSavedPlaces(userID: user.id, places: parsed.places, report: parsed.report, now: now).added
        }
        return ImportResult(diaryEntries: diary, healthRecords: healthRecords, visits: visitCount, locationPoints: locationPoints,
                            savedPlaces: savedPlaces)
    }

    static let readme = """
        Hibi takeout / 日々のデータ書き出し

        Everything here is yours, decrypted, in open formats. Import it into an account on any Hibi
        (Settings → Import, the page /settings/import; POST /api/v1/me/import; or `hibi import all --user NAME FILE`)
        to carry on there.

        profile.json               your account (user name, display name, language, time zone) and health profile
        diary.json                 every diary entry: date, text, tags, mood scores, confirmed mood (Hibi diary export, version 3)
        photos/PHOTO-ID.jpg|png    each diary photo (an entry may have several; diary.json lists them per entry)
        health/records.csv         every health record: type, value, unit, start, end, source, device (the CSV Hibi imports)
        health/records.json        the same records as JSON objects
        health/goals.json          your health goals
        health/workouts.json       your workouts (Apple Health): activity, start, end, duration, distance, energy, device, and
                                   the number of route points with the route's file
        health/workout-routes/WORKOUT-ID.gpx  each workout's route as GPX 1.1 (time in UTC, latitude, longitude, elevation)
        health/electrocardiograms/NAME.csv    each electrocardiogram as Apple Health wrote it
        visits/visits.geojson      every visit as a GeoJSON Feature (RFC 7946), with the signed chain under "hibiChain"
        visits/visits.gpx          the same visits as GPX 1.1 waypoints
        visits/chain.json          the tamper-evident chain: each record's body, SHA-256 hash and Ed25519 signature
        visits/signing-public-key.txt  the public key (base64, 32 bytes) that verifies those signatures
        visits/location-points.csv  your location history as stored (time in UTC, latitude, longitude), oldest first;
                                   Visits → Import & export on any Hibi reads it back
        visits/stays.json          the stays found in it: arrival, departure, place, and whether you confirmed or dismissed each
        visits/saved-places.geojson  your saved places (no visit time), in the shape of Google Takeout's "Saved Places.json"
        videos/library.json        the videos you see, with your titles, ratings, tags, favourites and viewing history;
                                   "file" names the file of each video you uploaded (shared library videos have none)
        videos/files/VIDEO-ID.EXT  each video you uploaded, as you uploaded it
        videos/playlists.json      your playlists, each a list of ids from library.json in play order
        settings.json              your diary lock time and health reminders

        日記・健康記録・訪問記録を復号済みのオープンな形式で収めています。別の Hibi のアカウントで
        読み込むと(設定 → 読み込み(ページ /settings/import)、POST /api/v1/me/import、`hibi import all --user NAME FILE`)
        そのまま続きを使えます。
        """
}

/// `GET /api/v1/me/export` and `/settings/export.zip` (the settings page's "Download all my data"),
/// `POST /api/v1/me/import`. The diary is behind its lock, so both need an unlocked diary on the web.
struct TakeoutRoutes: Sendable {
    let takeout: TakeoutService
    let heavyWork: HeavyWork

    /// Both groups are diary groups: the takeout holds the diary, so it needs it open (or a `diary` token).
    func register(web: some RouterMethods<DiaryContext>, api: some RouterMethods<DiaryContext>) {
        api.get("me/export") { _, context in response(context.user, now: context.now) }
        web.get(RouterPath(AccountPaths.takeout)) { _, context in response(context.user, now: context.now) }
        web.get(RouterPath(AccountPaths.takeoutImport)) { _, context in
            HTMLPage(AccountViews.takeoutImport(context: context.base, maxBytes: DiaryTransfer.maxImportBytes))
        }
        api.post("me/import") { request, context in
            // One import per person, as the diary's: two at once raced on the same entry ids (a 500). The second
            // is refused (409) before a byte of its upload is stored; the body goes to disk, not memory.
            let user = context.user
            return JSONBody(try await heavyWork.exclusive(userID: user.id) {
                try await takeout.transfer.withUpload(request.body) { path in try await takeout.importTakeout(path: path, user: user, now: context.now) }
            })
        }
    }

    func response(_ user: User, now: Date) -> Response {
        FileResponse.streamedAttachment(contentType: "application/zip",
                                        filename: "hibi-takeout-\(MoodAnalytics.dayKey(now, timeZone: .gmt)).zip") { [takeout] emit in
            try await takeout.write(user: user, now: now, to: emit)
        }
    }
}

enum TakeoutStrings {
    static let title = Text(en: "Your data", ja: "あなたのデータ")
    static let intro = Text(en: "One ZIP file with your diary (text and photos), health records, visits with their signed chain, and your profile, decrypted, in open formats. Another Hibi can import it.",
                            ja: "日記(本文と写真)・健康記録・署名付きの訪問記録・プロフィールを、復号済みのオープンな形式で 1 つの ZIP にまとめます。別の Hibi で読み込めます。")
    static let download = Text(en: "Download all my data", ja: "すべてのデータをダウンロード")
    static func videos(_ l: Language, count: Int, bytes: Int64) -> String {
        let size = ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
        if count == 0 { return Text(en: "No uploaded videos to include.", ja: "含める動画のアップロードはありません。")(l) }
        return Text(en: "Includes %@ (\(size)): the download is at least that large.",
                    ja: "%@(\(size))を含みます。ダウンロードはそれ以上の大きさになります。")(l, videoFiles(l, count))
    }
    static let videoFiles = CountText(one: Text(en: "%@ uploaded video file", ja: "アップロードした動画 %@ 本"),
                                      other: Text(en: "%@ uploaded video files", ja: "アップロードした動画 %@ 本"))
    static let importLink = Text(en: "Import a takeout", ja: "データ書き出しを読み込む")
}
