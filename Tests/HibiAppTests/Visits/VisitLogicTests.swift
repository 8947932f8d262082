import Crypto
import Foundation
import Testing
@testable import HibiApp

struct VisitLogicTests {
    static let tokyo = VisitFields(visitedAt: Date(timeIntervalSince1970: 1_714_550_400), latitude: 35.681236, longitude: 139.767125,
                                   accuracy: 12.5, name: "Tokyo Station", labels: ["train", "Train", " "], companions: ["Ken"])

    @Test func coordinatesOutsideTheEarthOrNotFiniteAreRejected() throws {
        #expect(throws: VisitError.invalidLatitude) { try VisitRules.validateLatitude(91) }
        #expect(throws: VisitError.invalidLatitude) { try VisitRules.validateLatitude(-90.0001) }
        #expect(throws: VisitError.invalidLatitude) { try VisitRules.validateLatitude(.nan) }
        #expect(throws: VisitError.invalidLongitude) { try VisitRules.validateLongitude(180.5) }
        #expect(throws: VisitError.invalidLongitude) { try VisitRules.validateLongitude(.infinity) }
        #expect(try VisitRules.validateLatitude(90) == 90)
        #expect(try VisitRules.validateLongitude(-180) == -180)
        #expect(try VisitRules.validateLatitude(35.123456789) == 35.1234568)
    }

    @Test func validationTrimsAndDeduplicatesAndRequiresAName() throws {
        let fields = try VisitRules.validate(Self.tokyo)
        #expect(fields.labels == ["train"])
        var unnamed = Self.tokyo
        unnamed.name = "   "
        #expect(throws: VisitError.nameRequired) { try VisitRules.validate(unnamed) }
        var badAccuracy = Self.tokyo
        badAccuracy.accuracy = -1
        #expect(throws: VisitError.invalidNumber(field: "accuracy")) { try VisitRules.validate(badAccuracy) }
    }

    @Test func distanceBetweenTokyoAndOsakaIsAbout400Kilometres() {
        let metres = Geo.distance(lat1: 35.681236, lon1: 139.767125, lat2: 34.702485, lon2: 135.495951)
        #expect((400_000...404_000).contains(metres))
        #expect(Geo.distance(lat1: 10, lon1: 20, lat2: 10, lon2: 20) == 0)
        // Across the date line it is the short way round.
        #expect(Geo.distance(lat1: 0, lon1: 179.9, lat2: 0, lon2: -179.9) < 25_000)
    }

    @Test func addressesAreWrittenTheJapaneseOrTheEnglishWay() {
        let address = VisitAddress(country: "日本", postalCode: "100-0005", region: "東京都", locality: "千代田区", street: "丸の内1丁目")
        #expect(Geo.formatAddress(address, language: .ja) == "日本 〒100-0005 東京都千代田区丸の内1丁目")
        let english = VisitAddress(country: "Japan", postalCode: "100-0005", region: "Tokyo", locality: "Chiyoda", street: "1 Marunouchi")
        #expect(Geo.formatAddress(english, language: .en) == "1 Marunouchi, Chiyoda, Tokyo 100-0005, Japan")
        #expect(Geo.formatAddress(VisitAddress(locality: "Kyoto"), language: .en) == "Kyoto")
        #expect(Geo.formatAddress(nil, language: .ja) == "")
    }

    @Test func canonicalSerializationIsStableSortedAndEscaped() {
        let fields = VisitFields(visitedAt: Date(timeIntervalSince1970: 100), latitude: 35.5, longitude: 139, name: "Café \"A\"\n",
                                 labels: ["b", "a"], notes: "")
        let state = VisitCanonical.state(id: "v1", fields: fields, photos: [])
        #expect(state == #"{"accuracy":null,"address":null,"altitude":null,"companions":[],"group":null,"id":"v1","labels":["b","a"],"latitude":35.5,"longitude":139,"name":"Café \"A\"\n","notes":"","photos":[],"simulated":false,"visitedAt":100}"#)
        #expect(VisitCanonical.state(id: "v1", fields: fields, photos: []) == state)
        // It is JSON any reader accepts.
        #expect((try? JSONSerialization.jsonObject(with: Data(state.utf8))) != nil)
    }

    static func chain(_ count: Int, key: Curve25519.Signing.PrivateKey) -> [ChainRecord] {
        var records: [ChainRecord] = []
        for index in 0..<count {
            let head = records.last.map { ChainHead(seq: $0.seq, hash: $0.hash) }
            let record = VisitChain.append(head: head, userID: "u1", visitID: "v\(index)", action: .create, state: "{\"n\":\(index)}",
                                           now: Date(timeIntervalSince1970: 1000), sign: { try! key.signature(for: $0) })
            records.append(record)
        }
        return records
    }

    static func verify(_ records: [ChainRecord], key: Curve25519.Signing.PrivateKey, head: ChainHead? = nil, all: Bool = false) -> ChainReport {
        VisitChain.verify(records: records, storedHead: head, userID: "u1", current: nil, allSignatures: all) { signature, data in
            key.publicKey.isValidSignature(signature, for: data)
        }
    }

    @Test func anUntouchedChainIsIntact() {
        let key = Curve25519.Signing.PrivateKey()
        let records = Self.chain(5, key: key)
        let report = Self.verify(records, key: key, head: ChainHead(seq: 5, hash: records[4].hash))
        #expect(report.intact)
        #expect(report.records == 5)
        #expect(report.head == records[4].hash)
        #expect(Self.verify(records, key: key, all: true).intact)
        #expect(Self.verify([], key: key).intact)
    }

    @Test func verificationNamesTheFirstBadRecordAndWhy() {
        let key = Curve25519.Signing.PrivateKey()
        let records = Self.chain(6, key: key)
        let head = ChainHead(seq: 6, hash: records[5].hash)

        var changed = records
        changed[2].body = changed[2].body.replacingOccurrences(of: "\\\"n\\\":2", with: "\\\"n\\\":9")
        #expect(changed[2].body != records[2].body)
        #expect(Self.verify(changed, key: key, head: head).problem == ChainProblem(seq: 3, visitId: "v2", reason: .changed))

        // Content and hash rewritten together: only the signature gives it away.
        var rehashed = records
        rehashed[2].body = changed[2].body
        rehashed[2].hash = VisitChain.sha256Hex(rehashed[2].body)
        #expect(Self.verify(rehashed, key: key, head: head).problem?.seq == 3)
        #expect(Self.verify(rehashed, key: key, head: head).problem?.reason == .badSignature)

        var removed = records
        removed.remove(at: 3)
        #expect(Self.verify(removed, key: key, head: head).problem == ChainProblem(seq: 4, visitId: nil, reason: .removed))

        var swapped = records
        swapped.swapAt(1, 4)
        swapped[1].seq = 2
        swapped[4].seq = 5
        #expect(Self.verify(swapped, key: key, head: head).problem == ChainProblem(seq: 2, visitId: "v4", reason: .reordered))

        let truncated = Array(records.prefix(5))
        #expect(Self.verify(truncated, key: key, head: head).problem == ChainProblem(seq: 6, visitId: nil, reason: .removed))

        let otherKey = Curve25519.Signing.PrivateKey()
        #expect(Self.verify(records, key: otherKey, head: head).problem == ChainProblem(seq: 1, visitId: "v0", reason: .badSignature))
    }

    @Test func theVisitsTableMustMatchTheLastRecord() {
        let key = Curve25519.Signing.PrivateKey()
        let records = Self.chain(2, key: key)
        let current = [VisitChain.CurrentVisit(id: "v0", state: "{\"n\":0}", deleted: false),
                       VisitChain.CurrentVisit(id: "v1", state: "{\"n\":7}", deleted: false)]
        let report = VisitChain.verify(records: records, storedHead: nil, userID: "u1", current: current) { s, d in
            key.publicKey.isValidSignature(s, for: d)
        }
        #expect(report.problem == ChainProblem(seq: 2, visitId: "v1", reason: .visitChanged))
    }

    @Test func filtersParseDaysInTheUsersZone() throws {
        let zone = TimeZone(identifier: "Asia/Tokyo")!
        let filter = try VisitQuery.parse(["from": "2024-05-01", "to": "2024-05-01", "near": "35.68,139.76", "radius": "2"], timeZone: zone)
        #expect(filter.from == Date(timeIntervalSince1970: 1_714_489_200))
        #expect(filter.to == Date(timeIntervalSince1970: 1_714_575_600))
        #expect(filter.radiusMetres == 2000)
        #expect(throws: VisitError.invalidFilter(field: "from")) { try VisitQuery.parse(["from": "2024-02-30"], timeZone: zone) }
        #expect(throws: VisitError.invalidLatitude) { try VisitQuery.parse(["near": "91,0"], timeZone: zone) }
        #expect(throws: VisitError.invalidFilter(field: "near")) { try VisitQuery.parse(["radius": "3"], timeZone: zone) }
    }

    @Test func statsCountPlacesAndMonths() {
        func visit(_ name: String, _ day: TimeInterval) -> Visit {
            Visit(id: UUID().uuidString, userID: "u", fields: VisitFields(visitedAt: Date(timeIntervalSince1970: day * 86400), latitude: 1, longitude: 2, name: name),
                  photos: [], createdAt: .now, updatedAt: .now, revision: 1)
        }
        let stats = PlaceStats.compute([visit("Cafe", 0), visit("cafe ", 40), visit("Park", 41)], timeZone: .gmt)
        #expect(stats.topPlaces.first?.count == 2)
        #expect(stats.perMonth == [.init(month: "1970-01", count: 1), .init(month: "1970-02", count: 2)])
    }

    @Test func geoJSONAndGPXRoundTripToTheSameFields() throws {
        var fields = try VisitRules.validate(Self.tokyo)
        fields.altitude = 40.5
        fields.address = VisitAddress(country: "Japan", region: "Tokyo & <Kanto>")
        fields.group = "Trip"
        fields.notes = "Line one\nline \"two\""
        let second = try VisitRules.validate(VisitFields(visitedAt: Date(timeIntervalSince1970: 0), latitude: -33.8688, longitude: 151.2093,
                                                         simulated: true, name: "Sydney"))
        let visits = [fields, second].map { Visit(id: UUID().uuidString, userID: "u", fields: $0, photos: [], createdAt: .now, updatedAt: .now, revision: 1) }
        #expect(try VisitFormats.parseGeoJSON(VisitFormats.geoJSON(visits, chain: nil)) == [fields, second])
        #expect(try VisitFormats.parseGPX(VisitFormats.gpx(visits)) == [fields, second])
    }

    @Test func badFilesNameThePositionOfTheProblem() {
        let geo = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"name":"a","visitedAt":"2024-01-01T00:00:00Z"}},{"type":"Feature","geometry":{"type":"Point","coordinates":[0,91]},"properties":{"name":"b","visitedAt":"2024-01-01T00:00:00Z"}}]}"#
        #expect {
            try VisitFormats.parseGeoJSON(Data(geo.utf8))
        } throws: { error in
            guard case let VisitError.importInvalid(position, reason) = error else { return false }
            return position == "features[1]" && reason.en.contains("Latitude")
        }
        let gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n  <wpt lat=\"1\" lon=\"2\"><time>2024-01-01T00:00:00Z</time><name>x</name></wpt>\n  <wpt lat=\"a\" lon=\"2\"></wpt>\n</gpx>"
        #expect {
            try VisitFormats.parseGPX(Data(gpx.utf8))
        } throws: { error in
            guard case let VisitError.importInvalid(position, _) = error else { return false }
            return position.hasPrefix("line 4")
        }
        #expect {
            try VisitFormats.parseGPX(Data("<gpx>\n<wpt lat=\"1\" lon=\"2\">\n</gpx>".utf8))
        } throws: { error in
            guard case let VisitError.importInvalid(position, _) = error else { return false }
            return position.hasPrefix("line 3")
        }
        #expect(throws: VisitError.self) { try VisitFormats.parseGeoJSON(Data("{\"type\":".utf8)) }
    }
}
