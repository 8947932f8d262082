import Foundation
import Hummingbird
import NIOCore

/// One person's own data in open formats, decrypted for its owner, as one ZIP streamed member by member:
/// the profile, then what each feature adds (`TakeoutOffer`, in the assembly's order): the diary as its export
/// has it (`diary.json` and `photos/` at the top, so the diary import reads the takeout as it is), health records
/// as CSV and JSON, visits as GeoJSON and GPX with the signed chain and its public key, videos, and the settings.
/// Importing a takeout into another account asks the same features to read their parts back.
public struct TakeoutService: Sendable {
    let offers: [any TakeoutOffer]
    /// The upload's spool and the archive's checks (the diary's, whose export the takeout contains).
    let uploads: any ArchiveUploads
    /// How many uploaded video files a takeout carries and their bytes, shown before the download starts.
    let videoFiles: @Sendable (String) async throws -> (count: Int, bytes: Int64)
    let spoolDirectory: String

    init(offers: [any TakeoutOffer], uploads: any ArchiveUploads, videoFiles: @escaping @Sendable (String) async throws -> (count: Int, bytes: Int64)) {
        self.offers = offers
        self.uploads = uploads
        self.videoFiles = videoFiles
        spoolDirectory = FileManager.default.temporaryDirectory.path
    }

    public static let formatName = "hibi-takeout"

    /// What the import reads of profile.json: that it is a takeout at all.
    struct Profile: Decodable {
        let format: String
    }

    public func write(user: User, now: Date, to write: (Data) async throws -> Void) async throws {
        try await withoutActuallyEscaping(write) { write in
            let archive = TakeoutArchive(now: now, spoolDirectory: spoolDirectory, write: write)
            try await archive.add("README.txt", Data(Self.readme.utf8))
            var profile: [String: any Encodable & Sendable] = [
                "format": Self.formatName, "version": 1, "exportedAt": now, "username": user.username, "displayName": user.displayName,
                "timeZone": user.timeZone, "createdAt": user.createdAt]
            if let language = user.language { profile["language"] = language.rawValue }
            for offer in offers { profile.merge(try await offer.takeoutProfile(user: user)) { first, _ in first } }
            try await archive.addJSON("profile.json", TakeoutFields(profile))
            for offer in offers { try await offer.writeTakeout(user: user, into: archive) }
            var settings: [String: any Encodable & Sendable] = [:]
            for offer in offers { settings.merge(try await offer.takeoutSettings(user: user)) { first, _ in first } }
            try await archive.addJSON("settings.json", TakeoutFields(settings))
            try await write(archive.zip.finish())
        }
    }

    /// How many uploaded video files a takeout carries and their bytes, shown before the download starts.
    public func videoFiles(userID: String) async throws -> (count: Int, bytes: Int64) {
        try await videoFiles(userID)
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
        try await importTakeout(try uploads.openArchive(data: data), user: user, now: now)
    }

    /// The same from a file on disk (an upload the route spooled, the command line's argument).
    public func importTakeout(path: String, user: User, now: Date) async throws -> ImportResult {
        try await importTakeout(try uploads.openArchive(path: path), user: user, now: now)
    }

    func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> ImportResult {
        guard let profileData = try? reader.contents(of: "profile.json"),
              let profile = try? JSONCoding.decoder.decode(Profile.self, from: profileData), profile.format == Self.formatName else {
            throw uploads.refusal(Text(en: "not a Hibi takeout (no profile.json)", ja: "Hibi のデータ書き出しではありません(profile.json がありません)"))
        }
        var counts: [String: Int] = [:]
        for offer in offers { counts.merge(try await offer.importTakeout(reader, user: user, now: now)) { $0 + $1 } }
        return ImportResult(diaryEntries: counts["diaryEntries"] ?? 0, healthRecords: counts["healthRecords"] ?? 0, visits: counts["visits"] ?? 0,
                            locationPoints: counts["locationPoints"] ?? 0, savedPlaces: counts["savedPlaces"] ?? 0)
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

    /// Both groups are behind the diary's lock: the takeout holds the diary, so it needs it open (or a `diary` token).
    func register(web: some RouterMethods<SignedInContext>, api: some RouterMethods<SignedInContext>) {
        api.get(RouterPath(AccountAPIPaths.export), use: download)
        web.get(RouterPath(AccountPaths.takeout), use: download)
        web.get(RouterPath(AccountPaths.takeoutImport), use: importPage)
        api.post(RouterPath(AccountAPIPaths.importTakeout), use: importArchive)
    }

    @Sendable func download(_ request: Request, context: SignedInContext) async throws -> Response {
        response(context.user, now: context.now)
    }

    @Sendable func importPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        HTMLPage(AccountViews.takeoutImport(context: context.base, maxBytes: takeout.uploads.maxUploadBytes))
    }

    /// One import per person, as the diary's: two at once raced on the same entry ids (a 500). The second is
    /// refused (409) before a byte of its upload is stored; the body goes to disk, not memory.
    @Sendable func importArchive(_ request: Request, context: SignedInContext) async throws -> JSONBody<TakeoutService.ImportResult> {
        let user = context.user
        return JSONBody(try await heavyWork.exclusive(userID: user.id) {
            try await takeout.uploads.withUploadFile(request.body) { path in try await takeout.importTakeout(path: path, user: user, now: context.now) }
        })
    }

    func response(_ user: User, now: Date) -> Response {
        FileResponse.streamedAttachment(contentType: "application/zip",
                                        filename: "hibi-takeout-\(DayKey(now, timeZone: .gmt)).zip") { [takeout] emit in
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
