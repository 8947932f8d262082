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

    /// The state as the generic canonical serialiser writes it: the fast writer must match it byte for byte,
    /// or chains signed before it would stop verifying.
    static func referenceState(id: String, fields: VisitFields, photos: [VisitPhotoRef]) -> String {
        func optional(_ value: String?) -> CanonicalJSON { value.map(CanonicalJSON.string) ?? .null }
        func optional(_ value: Double?) -> CanonicalJSON { value.map(CanonicalJSON.double) ?? .null }
        let address: CanonicalJSON = fields.address.map { address in
            .object(["country": optional(address.country), "postalCode": optional(address.postalCode),
                     "region": optional(address.region), "locality": optional(address.locality), "street": optional(address.street)])
        } ?? .null
        return CanonicalJSON.object([
            "id": .string(id), "visitedAt": .int(Int64(fields.visitedAt.timeIntervalSince1970)),
            "latitude": .double(fields.latitude), "longitude": .double(fields.longitude),
            "accuracy": optional(fields.accuracy), "altitude": optional(fields.altitude), "simulated": .bool(fields.simulated),
            "name": .string(fields.name), "address": address, "labels": .array(fields.labels.map(CanonicalJSON.string)),
            "group": optional(fields.group), "companions": .array(fields.companions.map(CanonicalJSON.string)),
            "notes": .string(fields.notes),
            "photos": .array(photos.map { .object(["id": .string($0.id), "contentType": .string($0.contentType),
                                                    "size": .int(Int64($0.size)), "sha256": .string($0.sha256)]) }),
        ]).render()
    }

    @Test func theStateWriterMatchesTheGenericCanonicalForm() {
        let photos = [VisitPhotoRef(id: "p1", contentType: "image/jpeg", size: 12345, sha256: String(repeating: "ab", count: 32)),
                      VisitPhotoRef(id: "p2", contentType: "image/png", size: 0, sha256: "00")]
        let samples = [
            Self.tokyo,
            VisitFields(visitedAt: Date(timeIntervalSince1970: -86_400.5), latitude: -0.0000001, longitude: 180, accuracy: 1e-7,
                        altitude: -12.25, simulated: true, name: "Tab\\there \"quoted\" \u{1}\u{1f}\u{7f} 東京 😀\r\n",
                        address: VisitAddress(country: "日本", postalCode: "100-0005", region: nil, locality: "千代田区", street: "a/b"),
                        labels: [], group: "Family", companions: ["A\"B", "", "ç"], notes: String(repeating: "長い", count: 300)),
            VisitFields(visitedAt: Date(timeIntervalSince1970: 1e12), latitude: 1e15, longitude: 123456789.125, name: "x",
                        address: VisitAddress()),
        ]
        for fields in samples {
            for list in [[], photos] {
                #expect(VisitCanonical.state(id: "v-1", fields: fields, photos: list) == Self.referenceState(id: "v-1", fields: fields, photos: list))
            }
        }
        #expect(VisitChain.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func storedStringListsReadTheSameFastOrThroughJSONDecoder() throws {
        for text in [#"[]"#, #"[""]"#, #"["a"]"#, #"["train","東京","a b"]"#, #"["a\"b","c"]"#, #"["\u0001"]"#, #"["x\\y"]"#] {
            #expect(try VisitStore.decodeStrings(text) == JSONDecoder().decode([String].self, from: Data(text.utf8)), "\(text)")
        }
        for broken in [#"["a""#, #"[1]"#, #"{}"#, #"["a"]x"#] {
            #expect(throws: (any Error).self) { try VisitStore.decodeStrings(broken) }
        }
    }

    @Test func bodiesInAnotherShapeAreReadByTheDecoder() throws {
        // A body with its keys in another order still verifies when its hash and signature hold:
        // the fast reader declines it and JSONDecoder reads it.
        let key = Curve25519.Signing.PrivateKey()
        var records: [ChainRecord] = []
        var prev = VisitChain.genesis
        for index in 0..<3 {
            let state = index == 2 ? "null" : #""{\"n\":\#(index)}""#
            let action = index == 2 ? "delete" : "create"
            let body = #"{"seq":\#(index + 1), "visit":"v\#(index % 2)","user":"u1","prev":"\#(prev)","at":5,"action":"\#(action)","state":\#(state)}"#
            let hash = VisitChain.sha256Hex(body)
            records.append(ChainRecord(seq: index + 1, visitID: "v\(index % 2)", action: VisitAction(rawValue: action)!, body: body,
                                       hash: hash, signature: try key.signature(for: Data(body.utf8)).base64EncodedString()))
            prev = hash
        }
        let current = [VisitChain.CurrentVisit(id: "v0", state: "", deleted: true),
                       VisitChain.CurrentVisit(id: "v1", state: #"{"n":1}"#, deleted: false)]
        let report = VisitChain.verify(records: records, storedHead: ChainHead(seq: 3, hash: prev), userID: "u1", current: current,
                                       allSignatures: true) { key.publicKey.isValidSignature($0, for: $1) }
        #expect(report.intact)
        let changed = [current[0], VisitChain.CurrentVisit(id: "v1", state: #"{"n":2}"#, deleted: false)]
        #expect(VisitChain.verify(records: records, storedHead: nil, userID: "u1", current: changed) { key.publicKey.isValidSignature($0, for: $1) }
            .problem == ChainProblem(seq: 2, visitId: "v1", reason: .visitChanged))
    }

    @Test func onlyAGenuineHeadIsSignedOnto() throws {
        let key = Curve25519.Signing.PrivateKey()
        let records = Self.chain(3, key: key)
        let head = ChainHead(seq: 3, hash: records[2].hash)
        let check: (Data, Data) -> Bool = { key.publicKey.isValidSignature($0, for: $1) }
        #expect(VisitChain.isGenuineHead(records[2], head: head, isValidSignature: check))
        #expect(!VisitChain.isGenuineHead(nil, head: head, isValidSignature: check))
        #expect(!VisitChain.isGenuineHead(records[1], head: head, isValidSignature: check))
        var forged = records[2]
        forged.body = forged.body.replacingOccurrences(of: #"\"n\":2"#, with: #"\"n\":9"#)
        forged.hash = VisitChain.sha256Hex(forged.body)
        #expect(forged.body != records[2].body)
        #expect(!VisitChain.isGenuineHead(forged, head: ChainHead(seq: 3, hash: forged.hash), isValidSignature: check))
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
