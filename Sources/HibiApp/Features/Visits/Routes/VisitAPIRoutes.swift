import Foundation
import Hummingbird
import NIOCore

struct VisitAPIRoutes: Sendable {
    let visits: VisitService
    let locations: LocationService
    let bodyLimit: Int
    let heavyWork: HeavyWork
    static let importLimit = 20 * 1024 * 1024

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get(RouterPath(VisitAPIPaths.visits), use: list)
        api.post(RouterPath(VisitAPIPaths.visits), use: create)
        api.get(RouterPath(VisitAPIPaths.map), use: mapPoints)
        api.get(RouterPath(VisitAPIPaths.stats), use: stats)
        api.get(RouterPath(VisitAPIPaths.verify), use: verify)
        api.get(RouterPath(VisitAPIPaths.chain), use: chain)
        api.get(RouterPath(VisitAPIPaths.export), use: export)
        api.post(RouterPath(VisitAPIPaths.importFile), use: importFile)
        api.get(RouterPath(VisitAPIPaths.webhook), use: webhook)
        api.put(RouterPath(VisitAPIPaths.webhook), use: setWebhook)
        api.post(RouterPath(VisitAPIPaths.webhookSend), use: sendHead)
        api.get(RouterPath(VisitAPIPaths.visit(":id")), use: visit)
        api.put(RouterPath(VisitAPIPaths.visit(":id")), use: update)
        api.delete(RouterPath(VisitAPIPaths.visit(":id")), use: delete)
        api.get(RouterPath(VisitAPIPaths.history(":id")), use: history)
        api.post(RouterPath(VisitAPIPaths.photos(":id")), use: addPhoto)
        api.get(RouterPath(VisitAPIPaths.photo(":id", ":photo")), use: photo)
        api.delete(RouterPath(VisitAPIPaths.photo(":id", ":photo")), use: deletePhoto)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> JSONBody<[VisitResponse]> {
        let user = context.user
        let filter = try VisitQuery.parse(VisitRequestReading.query(request), timeZone: VisitRequestReading.zone(user))
        return JSONBody(try await visits.list(userID: user.id, filter: filter).map { VisitResponse($0, language: context.language) })
    }

    @Sendable func create(_ request: Request, context: SignedInContext) async throws -> JSONBody<VisitResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(VisitRequest.self, limit: bodyLimit)
        let now = context.now
        let visit = try await visits.create(userID: user.id, fields: body.fields(now: now), now: now)
        return JSONBody(VisitResponse(visit, language: context.language), status: .created)
    }

    @Sendable func mapPoints(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        // format=compact: the same points in fixed-width columns, what the map page loads (CompactMap).
        if request.uri.formQuery.get("format") == "compact" {
            return try JSONBody(try await visits.compactMap(userID: user.id)).response(from: request, context: context)
        }
        return try JSONBody(try await visits.mapPoints(userID: user.id)).response(from: request, context: context)
    }

    @Sendable func stats(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        return JSONBody(try await visits.stats(userID: user.id, timeZone: VisitRequestReading.zone(user)))
    }

    @Sendable func verify(_ request: Request, context: SignedInContext) async throws -> JSONBody<VerifyResponse> {
        let user = context.user
        let report = try await visits.verify(userID: user.id)
        return JSONBody(VerifyResponse(intact: report.intact, records: report.records, head: report.head, problem: report.problem,
                                       message: VisitStrings.verifyMessage(report, language: context.language)))
    }

    @Sendable func chain(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        return JSONBody(try await visits.chainExport(userID: user.id))
    }

    @Sendable func export(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let format = request.uri.formQuery.get("format") ?? "geojson"
        let list = try await visits.list(userID: user.id, filter: VisitFilter())
        let stamp = context.now.formatted(.iso8601.year().month().day())
        switch format {
        case "geojson":
            let data = VisitFormats.geoJSON(list, chain: try await visits.chainExport(userID: user.id))
            return FileResponse.attachment(data, contentType: "application/geo+json", filename: "hibi-visits-\(stamp).geojson")
        case "gpx":
            return FileResponse.attachment(VisitFormats.gpx(list), contentType: "application/gpx+xml", filename: "hibi-visits-\(stamp).gpx")
        default:
            throw VisitError.invalidFilter(field: "format")
        }
    }

    @Sendable func importFile(_ request: Request, context: SignedInContext) async throws -> JSONBody<ImportResponse> {
        let user = context.user
        var request = request
        let (data, format) = try await Self.readImport(&request)
        // Parsing a 20 MB file takes a while: on the blocking pool, one import per person at a time.
        let now = context.now
        if format == .locationPoints {
            // A Hibi takeout's location history: points back into the history, stays offered again.
            let result = try await heavyWork.exclusive(userID: user.id) {
                try await locations.importFile(userID: user.id, stream: MemoryByteStream(Array(data)), now: now)
            }
            return JSONBody(ImportResponse(imported: 0, report: result.report, summary: LocationStrings.summary(result, context.language),
                                           trackPointsStored: result.pointsStored, staysDetected: result.staysOffered, dialect: "hibi-csv"),
                            status: .created)
        }
        let dialect = format == .geoJSON ? VisitFormats.geoJSONDialect(data) : nil
        if dialect == .positionLog {
            // Where the phone was, not places visited: into the location history, where stays are found and offered.
            let result = try await heavyWork.exclusive(userID: user.id) {
                try await locations.importFile(userID: user.id, stream: MemoryByteStream(Array(data)), now: now)
            }
            return JSONBody(ImportResponse(imported: 0, report: result.report,
                                           summary: [VisitStrings.readAsPositionLog(context.language)] + LocationStrings.summary(result, context.language),
                                           trackPointsStored: result.pointsStored, staysDetected: result.staysOffered,
                                           dialect: VisitFormats.GeoJSONDialect.positionLog.rawValue), status: .created)
        }
        if dialect == .googleSavedPlaces {
            // Places without a visit time: saved places, which a person can turn into visits one by one.
            let parsed = try await heavyWork.run(userID: user.id) { try GoogleSavedPlaces.parse(data) }
            let report = try await heavyWork.exclusive(userID: user.id) {
                try await visits.importSavedPlaces(userID: user.id, places: parsed.places, report: parsed.report, now: now)
            }
            return JSONBody(ImportResponse(imported: 0, report: report,
                                           summary: [VisitStrings.readAsSavedPlaces(context.language)] + report.lines(context.language),
                                           dialect: VisitFormats.GeoJSONDialect.googleSavedPlaces.rawValue, savedPlaces: report.added),
                            status: .created)
        }
        if format == .gpx {
            let parsed = try await heavyWork.run(userID: user.id) { try VisitFormats.parseGPXWithTrack(data, importedAt: now) }
            // Waypoints become visits (all or none); track points go to the location history, and
            // the stays found in them are offered on the "Detected stays" page.
            let result = try await locations.importGPX(userID: user.id, visits: parsed.visits, kinds: parsed.kinds, report: parsed.report,
                                                       trackPoints: parsed.trackPoints, now: now)
            return JSONBody(ImportResponse(imported: result.visitsImported, report: result.report,
                                           summary: LocationStrings.summary(result, context.language), trackPointsStored: result.pointsStored,
                                           staysDetected: result.staysOffered, dialect: "gpx"), status: .created)
        }
        let parsed = try await heavyWork.run(userID: user.id) {
            try VisitFormats.parseWithReport(data, gpx: false, importedAt: now)
        }
        let outcome = try await visits.importAll(userID: user.id, visits: parsed.visits, now: now)
        var report = parsed.report
        outcome.settle(&report, kinds: ["feature"])
        return JSONBody(ImportResponse(imported: outcome.added, report: report, summary: report.lines(context.language),
                                       dialect: VisitFormats.GeoJSONDialect.hibi.rawValue), status: .created)
    }

    @Sendable func webhook(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        return JSONBody(try await visits.webhookSettings(userID: user.id))
    }

    @Sendable func setWebhook(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        var request = request
        let body = try await request.json(WebhookRequest.self, limit: 16 * 1024)
        return JSONBody(try await visits.setWebhook(userID: user.id, url: body.url))
    }

    @Sendable func sendHead(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        try await visits.sendHead(userID: user.id, now: context.now)
        return JSONBody(try await visits.webhookSettings(userID: user.id))
    }

    @Sendable func visit(_ request: Request, context: SignedInContext) async throws -> JSONBody<VisitResponse> {
        let user = context.user
        let visit = try await visits.get(userID: user.id, id: try context.parameters.require("id"))
        return JSONBody(VisitResponse(visit, language: context.language))
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> JSONBody<VisitResponse> {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let body = try await request.json(VisitRequest.self, limit: bodyLimit)
        let now = context.now
        // Without a time, an edit keeps the visit's own time rather than moving it to now.
        let existing = try await visits.get(userID: user.id, id: id)
        let visit = try await visits.update(userID: user.id, id: id, fields: body.fields(now: existing.fields.visitedAt), now: now)
        return JSONBody(VisitResponse(visit, language: context.language))
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await visits.delete(userID: user.id, id: try context.parameters.require("id"), now: context.now)
        return Response(status: .noContent)
    }

    @Sendable func history(_ request: Request, context: SignedInContext) async throws -> JSONBody<[HistoryEntry]> {
        let user = context.user
        let history = try await visits.history(userID: user.id, visitID: try context.parameters.require("id"))
        return JSONBody(history.map { body, fields in
            HistoryEntry(seq: body.seq, action: body.action, at: Date(timeIntervalSince1970: Double(body.at)), name: fields?.name,
                         latitude: fields?.latitude, longitude: fields?.longitude)
        })
    }

    @Sendable func addPhoto(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let data = try await Self.collect(&request, limit: VisitRules.maxPhotoBytes, tooLarge: .photoTooLarge(limitBytes: VisitRules.maxPhotoBytes))
        let ref = try await visits.addPhoto(userID: user.id, visitID: id, data: data, contentType: request.headers[.contentType], now: context.now)
        return JSONBody(ref, status: .created)
    }

    @Sendable func photo(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let (data, type) = try await visits.photo(userID: user.id, visitID: try context.parameters.require("id"),
                                                  photoID: try context.parameters.require("photo"))
        return FileResponse.privateImage(data, contentType: type)
    }

    @Sendable func deletePhoto(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await visits.deletePhoto(userID: user.id, visitID: try context.parameters.require("id"),
                                     photoID: try context.parameters.require("photo"), now: context.now)
        return Response(status: .noContent)
    }

    static func collect(_ request: inout Request, limit: Int, tooLarge: VisitError) async throws -> Data {
        do {
            return Data(buffer: try await request.collectBody(upTo: limit))
        } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }

    enum ImportFormat: Sendable { case gpx, geoJSON, locationPoints }

    /// The body, and GPX when it starts with "<" or says XML, GeoJSON otherwise.
    static func readImport(_ request: inout Request) async throws -> (Data, ImportFormat) {
        let data = try await collect(&request, limit: importLimit, tooLarge: .importTooLarge(limitBytes: importLimit))
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let firstByte = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }
        if type.contains("xml") || type.contains("gpx") || firstByte == UInt8(ascii: "<") { return (data, .gpx) }
        // A takeout's visits/location-points.csv starts with its header, "time,latitude,longitude".
        if type.contains("csv") || firstByte == UInt8(ascii: "t") || firstByte == UInt8(ascii: "T") { return (data, .locationPoints) }
        return (data, .geoJSON)
    }
}
