import Foundation

/// Garmin's Flexible and Interoperable Data Transfer files (`.fit`, from Garmin, Wahoo, Strava's
/// export), read from a stream with a fixed buffer: the file header, definition and data messages
/// (normal and compressed-timestamp headers, either byte order, developer fields skipped), chained
/// files one after another. Only the record message (global number 20) is kept: timestamp (253),
/// position_lat/long (0, 1, semicircles), altitude (2, or enhanced 78) and heart rate (3).
/// No FIT decoder is listed for this machine (/work/.library/env/machines/swift-packages-b.md), so this
/// is the project's own, written from the public FIT protocol description and bounded: every size
/// comes from a byte (a field is at most 255 bytes, a message at most 255 fields), the declared data
/// size is checked against what is read, and a malformed file ends in `Failure`, never a trap.
/// Pure: bytes in, points out.
public final class FITReader {
    public enum Failure: Error, Equatable, Sendable {
        case notFIT
        case truncated(offset: Int64)
        case malformed(String, offset: Int64)
    }

    public struct Record: Sendable, Equatable {
        public var time: Int64
        public var latitude: Double?
        public var longitude: Double?
        public var altitude: Double?
        public var heartRate: Double?
    }

    public static let kind = "record"
    static let sessionMessage: UInt16 = 18
    static let sportMessage: UInt16 = 12
    /// FIT's sport enum (the profile's `sport` type), by number, for the workout a FIT uploaded alone makes.
    static let sports: [UInt8: String] = [
        0: "generic", 1: "running", 2: "cycling", 4: "fitness_equipment", 5: "swimming", 6: "basketball", 7: "soccer", 8: "tennis",
        10: "training", 11: "walking", 12: "cross_country_skiing", 13: "alpine_skiing", 14: "snowboarding", 15: "rowing",
        16: "mountaineering", 17: "hiking", 19: "paddling", 21: "e_biking", 25: "golf", 30: "inline_skating", 31: "rock_climbing",
        33: "ice_skating", 37: "stand_up_paddleboarding", 38: "surfing", 41: "kayaking",
    ]
    /// The session's (or sport message's) sport, total distance (metres) and calories; the first session's when the file has several.
    public private(set) var sport: String?
    public private(set) var totalMeters: Double?
    public private(set) var totalCalories: Double?
    /// Seconds from the Unix epoch to FIT's (1989-12-31T00:00:00Z).
    static let epochOffset: Int64 = 631_065_600
    static let recordMessage: UInt16 = 20

    private struct Field { var number: UInt8; var size: Int; var baseType: UInt8 }
    private struct Definition { var bigEndian: Bool; var global: UInt16; var fields: [Field]; var developerBytes: Int }

    private let stream: any ByteStream
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 64 * 1024
    private var position = 0
    private var count = 0
    private var atEnd = false
    /// Bytes consumed so far, for the position in an error.
    public private(set) var offset: Int64 = 0
    private var definitions = [Definition?](repeating: nil, count: 16)
    private var lastTimestamp: Int64?
    /// Data bytes left in the current file (after its header, before its CRC); nil between files.
    private var remaining: Int64?
    private var files = 0
    public private(set) var report = ImportReport()
    public private(set) var records: [Record] = []

    public init(stream: any ByteStream) {
        self.stream = stream
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// Whether a file's first bytes are a FIT header (".FIT" at bytes 8…11, a 12- or 14-byte header).
    public static func looksLike(_ head: [UInt8]) -> Bool {
        head.count >= 12 && (head[0] == 12 || head[0] == 14) && head[8] == 0x2E && head[9] == 0x46 && head[10] == 0x49 && head[11] == 0x54
    }

    // MARK: bytes

    private func fill() throws -> Bool {
        if position < count { return true }
        if atEnd { return false }
        let n = try stream.read(into: buffer, count: capacity)
        position = 0
        count = max(0, n)
        if n <= 0 { atEnd = true }
        return count > 0
    }

    private func byte() throws -> UInt8 {
        guard try fill() else { throw Failure.truncated(offset: offset) }
        let b = buffer[position]
        position += 1
        offset += 1
        if let left = remaining { remaining = left - 1 }
        return b
    }

    private func bytes(_ n: Int, into out: inout [UInt8]) throws {
        out.removeAll(keepingCapacity: true)
        for _ in 0..<n { out.append(try byte()) }
    }

    private func skip(_ n: Int) throws {
        for _ in 0..<n { _ = try byte() }
    }

    // MARK: messages

    /// Reads until `maxRecords` records are waiting or the file ends; false once it has ended.
    public func next(maxRecords: Int) throws(Failure) -> Bool {
        do {
            while records.count < maxRecords {
                if remaining == nil {
                    guard try fill() else {
                        guard files > 0 else { throw Failure.notFIT }
                        return false
                    }
                    try header()
                }
                if let left = remaining, left <= 0 {
                    if left < 0 { throw Failure.malformed("a message runs past the data size the header gives", offset: offset) }
                    try skip(2) // the file's CRC
                    remaining = nil
                    definitions = [Definition?](repeating: nil, count: 16)
                    continue
                }
                try message()
            }
            return true
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.truncated(offset: offset)
        }
    }

    public func takeRecords() -> [Record] {
        defer { records.removeAll(keepingCapacity: true) }
        return records
    }

    private func header() throws {
        let start = offset
        let size = Int(try byte())
        guard size == 12 || size == 14 else {
            throw files == 0 ? Failure.notFIT : Failure.malformed("a chained file's header has size \(size)", offset: start)
        }
        var head: [UInt8] = []
        try bytes(size - 1, into: &head)
        // head[0] protocol, head[1...2] profile, head[3...6] data size, head[7...10] ".FIT", then an optional CRC.
        guard head[7] == 0x2E, head[8] == 0x46, head[9] == 0x49, head[10] == 0x54 else {
            throw files == 0 ? Failure.notFIT : Failure.malformed("a chained file lacks .FIT", offset: start)
        }
        remaining = Int64(head[3]) | Int64(head[4]) << 8 | Int64(head[5]) << 16 | Int64(head[6]) << 24
        files += 1
        lastTimestamp = nil
    }

    private func message() throws {
        let at = offset
        let header = try byte()
        if header & 0x80 != 0 {
            // Compressed timestamp: local type in bits 5–6, a 5-bit offset from the last full timestamp.
            let local = Int((header >> 5) & 0x03)
            guard let definition = definitions[local] else { throw Failure.malformed("data for local message \(local) before its definition", offset: at) }
            var time: Int64?
            if let last = lastTimestamp {
                let step = Int64(header & 0x1F)
                var t = (last & ~0x1F) + step
                if step < (last & 0x1F) { t += 0x20 }
                time = t
                lastTimestamp = t
            }
            try data(definition, compressedTime: time, at: at)
            return
        }
        let local = Int(header & 0x0F)
        if header & 0x40 != 0 {
            _ = try byte() // reserved
            let architecture = try byte()
            guard architecture <= 1 else { throw Failure.malformed("architecture \(architecture)", offset: at) }
            let a = UInt16(try byte()), b = UInt16(try byte())
            let global = architecture == 1 ? a << 8 | b : b << 8 | a
            let fieldCount = Int(try byte())
            var fields: [Field] = []
            fields.reserveCapacity(fieldCount)
            for _ in 0..<fieldCount {
                let number = try byte(), size = Int(try byte()), baseType = try byte()
                fields.append(Field(number: number, size: size, baseType: baseType))
            }
            var developerBytes = 0
            if header & 0x20 != 0 {
                let developerCount = Int(try byte())
                for _ in 0..<developerCount {
                    _ = try byte()
                    developerBytes += Int(try byte())
                    _ = try byte()
                }
            }
            definitions[local] = Definition(bigEndian: architecture == 1, global: global, fields: fields, developerBytes: developerBytes)
            return
        }
        guard let definition = definitions[local] else { throw Failure.malformed("data for local message \(local) before its definition", offset: at) }
        try data(definition, compressedTime: nil, at: at)
    }

    private var scratch: [UInt8] = []

    /// An unsigned value of 1, 2 or 4 bytes in the definition's byte order, nil for another size.
    private static func unsigned(_ bytes: [UInt8], bigEndian: Bool) -> UInt32? {
        guard bytes.count == 1 || bytes.count == 2 || bytes.count == 4 else { return nil }
        var value: UInt32 = 0
        for i in 0..<bytes.count { value |= UInt32(bytes[bigEndian ? bytes.count - 1 - i : i]) << (8 * UInt32(i)) }
        return value
    }

    private func data(_ definition: Definition, compressedTime: Int64?, at: Int64) throws {
        let isRecord = definition.global == Self.recordMessage
        let isSummary = definition.global == Self.sessionMessage || definition.global == Self.sportMessage
        var time = compressedTime
        var lat: Int32?, lon: Int32?, altitude: Double?, heartRate: Double?
        for field in definition.fields {
            // Every message's timestamp is read (it anchors the compressed ones that follow); other fields only in records and summaries.
            guard field.number == 253 || isRecord || isSummary else {
                try skip(field.size)
                continue
            }
            try bytes(field.size, into: &scratch)
            guard let value = Self.unsigned(scratch, bigEndian: definition.bigEndian) else { continue }
            if isSummary {
                if field.number == 253, field.size == 4, value != 0xFFFF_FFFF { lastTimestamp = Int64(value) }
                summary(global: definition.global, field: field.number, size: field.size, value: value)
                continue
            }
            switch field.number {
            case 253 where field.size == 4 && value != 0xFFFF_FFFF:
                let t = Int64(value)
                lastTimestamp = t
                time = t
            case 0 where field.size == 4 && value != 0x7FFF_FFFF: lat = Int32(bitPattern: value)
            case 1 where field.size == 4 && value != 0x7FFF_FFFF: lon = Int32(bitPattern: value)
            case 2 where field.size == 2 && value != 0xFFFF: altitude = altitude ?? Double(value) / 5 - 500
            case 78 where field.size == 4 && value != 0xFFFF_FFFF: altitude = Double(value) / 5 - 500
            case 3 where field.size == 1 && value != 0xFF: heartRate = Double(value)
            default: break
            }
        }
        try skip(definition.developerBytes)
        guard isRecord else { return }
        guard let time else {
            report.skip(Self.kind, .missingValue, at: "byte \(at)")
            return
        }
        let degrees = 180.0 / 2_147_483_648.0
        records.append(Record(time: time + Self.epochOffset, latitude: lat.map { Double($0) * degrees }, longitude: lon.map { Double($0) * degrees },
                              altitude: altitude, heartRate: heartRate))
    }

    /// A session's sport (5), total distance (9, centimetres) and calories (11); a sport message's sport (0).
    private func summary(global: UInt16, field: UInt8, size: Int, value: UInt32) {
        switch (global, field) {
        case (Self.sessionMessage, 5) where size == 1, (Self.sportMessage, 0) where size == 1:
            if sport == nil, value != 0xFF { sport = Self.sports[UInt8(truncatingIfNeeded: value)] ?? "generic" }
        case (Self.sessionMessage, 9) where size == 4 && value != 0xFFFF_FFFF:
            if totalMeters == nil { totalMeters = Double(value) / 100 }
        case (Self.sessionMessage, 11) where size == 2 && value != 0xFFFF:
            if totalCalories == nil { totalCalories = Double(value) }
        default: break
        }
    }
}
