import Foundation

/// Validation and normalisation of what a user or a file says about a visit. Pure: no clock, no I/O.
public enum VisitRules {
    public static let maxNameLength = 200
    public static let maxNotesLength = 10_000
    public static let maxTagLength = 64
    public static let maxLabels = 30
    public static let maxCompanions = 30
    public static let maxAddressPartLength = 200
    public static let maxPhotos = 20
    public static let maxPhotoBytes = 5 * 1024 * 1024
    public static let photoTypes = ["image/jpeg", "image/png", "image/webp", "image/gif"]

    /// Coordinates are kept to 7 decimals (about 1 cm): more is noise, and a fixed precision
    /// makes exports re-import to exactly the same numbers.
    public static func roundCoordinate(_ value: Double) -> Double {
        (value * 1e7).rounded() / 1e7
    }

    public static func validateLatitude(_ value: Double) throws(VisitError) -> Double {
        guard value.isFinite, (-90...90).contains(value) else { throw .invalidLatitude }
        return roundCoordinate(value)
    }

    public static func validateLongitude(_ value: Double) throws(VisitError) -> Double {
        guard value.isFinite, (-180...180).contains(value) else { throw .invalidLongitude }
        return roundCoordinate(value)
    }

    /// Trims, drops empties and duplicates (first spelling wins), keeps order.
    public static func normalizeTags(_ values: [String], field: String, limit: Int) throws(VisitError) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for raw in values {
            let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { continue }
            guard value.count <= maxTagLength else { throw .tooLong(field: field, limit: maxTagLength) }
            if seen.insert(value.lowercased()).inserted { result.append(value) }
        }
        guard result.count <= limit else { throw .tooMany(field: field, limit: limit) }
        return result
    }

    /// Splits "a, b、c" (ASCII or Japanese commas) as typed into a form.
    public static func splitList(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == "、" || $0 == "，" || $0 == "\n" }).map(String.init)
    }

    static func optionalText(_ value: String?, field: String, limit: Int) throws(VisitError) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= limit else { throw .tooLong(field: field, limit: limit) }
        return trimmed
    }

    /// Checks and normalises every field; the result is what gets stored and signed.
    public static func validate(_ input: VisitFields) throws(VisitError) -> VisitFields {
        var fields = input
        fields.latitude = try validateLatitude(input.latitude)
        fields.longitude = try validateLongitude(input.longitude)
        if let accuracy = input.accuracy {
            guard accuracy.isFinite, accuracy >= 0, accuracy <= 1_000_000 else { throw .invalidNumber(field: "accuracy") }
            fields.accuracy = (accuracy * 100).rounded() / 100
        }
        if let altitude = input.altitude {
            guard altitude.isFinite, (-12_000...100_000).contains(altitude) else { throw .invalidNumber(field: "altitude") }
            fields.altitude = (altitude * 100).rounded() / 100
        }
        let seconds = input.visitedAt.timeIntervalSince1970
        // Year 1 to 9999: anything else is a typo or an overflow, and ISO-8601 cannot write it.
        guard seconds.isFinite else { throw .invalidDate(field: "visitedAt") }
        guard seconds > -62_135_596_800, seconds < 253_402_300_800 else { throw .yearOutOfRange(field: "visitedAt") }
        fields.visitedAt = Date(timeIntervalSince1970: seconds.rounded(.down))
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .nameRequired }
        guard name.count <= maxNameLength else { throw .tooLong(field: "name", limit: maxNameLength) }
        fields.name = name
        if let address = input.address {
            let cleaned = VisitAddress(
                country: try optionalText(address.country, field: "address.country", limit: maxAddressPartLength),
                postalCode: try optionalText(address.postalCode, field: "address.postalCode", limit: 32),
                region: try optionalText(address.region, field: "address.region", limit: maxAddressPartLength),
                locality: try optionalText(address.locality, field: "address.locality", limit: maxAddressPartLength),
                street: try optionalText(address.street, field: "address.street", limit: maxAddressPartLength))
            fields.address = cleaned.isEmpty ? nil : cleaned
        }
        fields.labels = try normalizeTags(input.labels, field: "labels", limit: maxLabels)
        fields.companions = try normalizeTags(input.companions, field: "companions", limit: maxCompanions)
        fields.group = try optionalText(input.group, field: "group", limit: maxTagLength)
        let notes = input.notes.trimmingCharacters(in: .whitespacesAndNewlines)
        guard notes.count <= maxNotesLength else { throw .tooLong(field: "notes", limit: maxNotesLength) }
        fields.notes = notes
        return fields
    }

    public static func validatePhoto(contentType: String?, size: Int, existing: Int) throws(VisitError) -> String {
        let type = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard photoTypes.contains(type) else { throw .photoType }
        guard size <= maxPhotoBytes else { throw .photoTooLarge(limitBytes: maxPhotoBytes) }
        guard size > 0 else { throw .photoType }
        guard existing < maxPhotos else { throw .tooManyPhotos(limit: maxPhotos) }
        return type
    }

    public static func validateWebhook(_ raw: String?) throws(VisitError) -> String? {
        guard let text = raw?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.count <= 2000, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else { throw .invalidWebhookURL }
        return text
    }
}

/// Distances and address text.
public enum Geo {
    static let earthRadiusMetres = 6_371_008.8

    /// Great-circle distance (haversine) in metres.
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad
        let dLon = (lon2 - lon1) * rad
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusMetres * asin(min(1, sqrt(a)))
    }

    /// Japanese addresses go from large to small with no separators ("〒150-0001 東京都渋谷区神宮前1-2-3");
    /// English ones from small to large with commas ("1-2-3 Jingumae, Shibuya, Tokyo 150-0001, Japan").
    public static func formatAddress(_ address: VisitAddress?, language: Language) -> String {
        guard let address, !address.isEmpty else { return "" }
        func part(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        switch language {
        case .ja:
            let postal = part(address.postalCode).map { "〒\($0)" }
            let body = [address.region, address.locality, address.street].compactMap(part).joined()
            return [part(address.country), postal, body.isEmpty ? nil : body].compactMap { $0 }.joined(separator: " ")
        case .en:
            let regionPostal = [part(address.region), part(address.postalCode)].compactMap { $0 }.joined(separator: " ")
            return [part(address.street), part(address.locality), regionPostal.isEmpty ? nil : regionPostal, part(address.country)]
                .compactMap { $0 }.joined(separator: ", ")
        }
    }
}
