import Foundation

/// ZIP archives whose entries are stored, not compressed: what Hibi writes for exports that are mostly
/// JPEGs (which deflate would not shrink), and what it reads back. Pure: bytes in, bytes out.
///
/// No zip64: an archive holds at most 65,535 entries and 4 GiB. The writer refuses to go past that
/// (callers check first so a download is never cut short), and the reader refuses zip64 archives.
public enum StoredZip {
    public static let maxEntries = 0xFFFF
    public static let maxArchiveBytes: UInt64 = 0xFFFF_FFFF

    /// A name that extracts inside the target folder on any system: relative, no `..`, no backslash or drive letter.
    public static func isSafeName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 1024, !name.hasPrefix("/"),
              !name.contains("\\"), !name.contains(":"), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            // A trailing slash marks a folder entry; an empty part anywhere else is `a//b`.
            if part.isEmpty, index == parts.count - 1, index > 0 { continue }
            if part.isEmpty || part == "." || part == ".." { return false }
        }
        return true
    }
}

public enum StoredZipError: Error, Equatable, Sendable {
    case notAnArchive
    case damaged(String)
    case unsupported(String)
    case unsafeName(String)
    case duplicateName(String)
    case tooLarge

    public var text: Text {
        switch self {
        case .notAnArchive: Text(en: "not a ZIP archive", ja: "ZIP アーカイブではありません")
        case let .damaged(detail): Text(en: "the ZIP archive is damaged (\(detail))", ja: "ZIP アーカイブが壊れています(\(detail))")
        case let .unsupported(detail): Text(en: "the ZIP archive uses \(detail), which Hibi does not read; import the archive Hibi made as it is",
                                            ja: "ZIP アーカイブが Hibi の読めない形式(\(detail))です。Hibi が作ったアーカイブをそのまま読み込んでください")
        case let .unsafeName(name): Text(en: "the ZIP archive holds an unsafe file name \"\(name)\"", ja: "ZIP アーカイブに安全でないファイル名「\(name)」があります")
        case let .duplicateName(name): Text(en: "the ZIP archive holds \"\(name)\" twice", ja: "ZIP アーカイブに「\(name)」が2つあります")
        case .tooLarge: Text(en: "too large for one ZIP archive (at most 65,535 files and 4 GiB)",
                             ja: "1つの ZIP アーカイブには大きすぎます(ファイル 65,535 個・4 GiB まで)")
        }
    }
}

/// Builds an archive piece by piece, so a caller can send each photo as soon as it is read.
public struct StoredZipWriter: Sendable {
    private var central = Data()
    private var count = 0
    private var offset: UInt64 = 0

    public init() {}

    /// The bytes to send for one file: its local header, then the data itself (not copied).
    public mutating func add(name: String, data: Data, modified: Date) throws(StoredZipError) -> [Data] {
        guard StoredZip.isSafeName(name) else { throw .unsafeName(name) }
        let nameBytes = Data(name.utf8)
        let headerSize = UInt64(30 + nameBytes.count)
        guard count + 1 < StoredZip.maxEntries,
              offset + headerSize + UInt64(data.count) + UInt64(central.count + 46 + nameBytes.count + 22) <= StoredZip.maxArchiveBytes
        else { throw .tooLarge }
        let crc = CRC32.checksum(data)
        let (time, date) = Self.dosTime(modified)
        var local = Data(capacity: Int(headerSize))
        local.appendLE(UInt32(0x0403_4B50))
        local.appendLE(UInt16(20))
        local.appendLE(Self.utf8Flag)
        local.appendLE(UInt16(0))
        local.appendLE(time); local.appendLE(date)
        local.appendLE(crc)
        local.appendLE(UInt32(data.count)); local.appendLE(UInt32(data.count))
        local.appendLE(UInt16(nameBytes.count)); local.appendLE(UInt16(0))
        local.append(nameBytes)

        central.appendLE(UInt32(0x0201_4B50))
        central.appendLE(UInt16(0x031E))  // made by Unix, so unzip applies the permissions below
        central.appendLE(UInt16(20))
        central.appendLE(Self.utf8Flag)
        central.appendLE(UInt16(0))
        central.appendLE(time); central.appendLE(date)
        central.appendLE(crc)
        central.appendLE(UInt32(data.count)); central.appendLE(UInt32(data.count))
        central.appendLE(UInt16(nameBytes.count))
        central.appendLE(UInt16(0)); central.appendLE(UInt16(0)); central.appendLE(UInt16(0)); central.appendLE(UInt16(0))
        central.appendLE(UInt32(0o100600) << 16)  // private: a diary should not extract world-readable
        central.appendLE(UInt32(offset))
        central.append(nameBytes)

        count += 1
        offset += headerSize + UInt64(data.count)
        return [local, data]
    }

    /// The central directory and its end record, which make the archive readable.
    public func finish() -> Data {
        var end = central
        end.appendLE(UInt32(0x0605_4B50))
        end.appendLE(UInt16(0)); end.appendLE(UInt16(0))
        end.appendLE(UInt16(count)); end.appendLE(UInt16(count))
        end.appendLE(UInt32(central.count))
        end.appendLE(UInt32(offset))
        end.appendLE(UInt16(0))
        return end
    }

    static let utf8Flag = UInt16(0x0800)

    static func dosTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        // DOS dates start in 1980; earlier moments are written as its first day.
        let year = max(1980, min(2107, c.year ?? 1980))
        if year != c.year { return (0, UInt16(1 << 5 | 1)) }
        return (UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2),
                UInt16((year - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1)))
    }
}

/// Reads an archive of stored entries held in memory (or mapped from a file), checking every name
/// and bound before any entry is handed out.
public struct StoredZipReader: Sendable {
    public struct Entry: Sendable {
        public let name: String
        let range: Range<Int>
        let crc: UInt32
        public var size: Int { range.count }
    }

    let data: Data
    public private(set) var entries: [String: Entry] = [:]

    public static func looksLikeArchive(_ data: Data) -> Bool {
        data.count >= 4 && data.prefix(2) == Data([0x50, 0x4B]) && [Data([3, 4]), Data([5, 6])].contains(data.dropFirst(2).prefix(2))
    }

    public init(_ data: Data) throws(StoredZipError) {
        // Re-based so offsets below are plain indexes from 0, whatever slice the caller passed.
        self.data = data.startIndex == 0 ? data : Data(data)
        let data = self.data
        guard Self.looksLikeArchive(data), data.count >= 22 else { throw .notAnArchive }
        // The end record sits at the very end, unless an archive comment (at most 64 KiB) follows it.
        var endAt: Int?
        var probe = data.count - 22
        while probe >= max(0, data.count - 22 - 0xFFFF) {
            if data.u32(probe) == 0x0605_4B50, probe + 22 + Int(data.u16(probe + 20)) == data.count { endAt = probe; break }
            probe -= 1
        }
        guard let end = endAt else { throw .damaged("no end record") }
        let total = Int(data.u16(end + 10))
        let directorySize = Int(data.u32(end + 12)), directoryStart = Int(data.u32(end + 16))
        if total == 0xFFFF || directoryStart == 0xFFFF_FFFF || directorySize == 0xFFFF_FFFF { throw .unsupported("zip64") }
        guard data.u16(end + 4) == 0, data.u16(end + 6) == 0, Int(data.u16(end + 8)) == total else { throw .unsupported("several volumes") }
        guard directoryStart + directorySize <= end else { throw .damaged("central directory out of bounds") }
        var at = directoryStart
        for _ in 0..<total {
            guard at + 46 <= directoryStart + directorySize, data.u32(at) == 0x0201_4B50 else { throw .damaged("central directory") }
            let flags = data.u16(at + 8), method = data.u16(at + 10)
            let crc = data.u32(at + 16)
            let compressed = Int(data.u32(at + 20)), size = Int(data.u32(at + 24))
            let nameLength = Int(data.u16(at + 28)), extraLength = Int(data.u16(at + 30)), commentLength = Int(data.u16(at + 32))
            let localAt = Int(data.u32(at + 42))
            guard at + 46 + nameLength <= directoryStart + directorySize else { throw .damaged("central directory") }
            let name = String(decoding: data[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            guard StoredZip.isSafeName(name) else { throw .unsafeName(name) }
            if flags & 1 != 0 { throw .unsupported("encryption") }
            if method != 0 { throw .unsupported("compression") }
            guard compressed == size else { throw .damaged("sizes of \(name)") }
            guard localAt + 30 + nameLength <= directoryStart, data.u32(localAt) == 0x0403_4B50,
                  Int(data.u16(localAt + 26)) == nameLength, data[(localAt + 30)..<(localAt + 30 + nameLength)] == data[(at + 46)..<(at + 46 + nameLength)]
            else { throw .damaged("local header of \(name)") }
            let start = localAt + 30 + nameLength + Int(data.u16(localAt + 28))
            guard start + size <= directoryStart else { throw .damaged("bounds of \(name)") }
            guard entries[name] == nil else { throw .duplicateName(name) }
            entries[name] = Entry(name: name, range: start..<(start + size), crc: crc)
            at += 46 + nameLength + extraLength + commentLength
        }
    }

    /// An entry's bytes, checked against the CRC the archive recorded.
    public func contents(of name: String) throws(StoredZipError) -> Data? {
        guard let entry = entries[name] else { return nil }
        let bytes = data[entry.range]
        guard CRC32.checksum(bytes) == entry.crc else { throw .damaged("checksum of \(name)") }
        return Data(bytes)
    }
}

/// CRC-32 as ZIP uses it (IEEE 802.3, reflected, table-driven).
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    public static func checksum(_ data: some DataProtocol) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for region in data.regions {
                region.withUnsafeBytes { bytes in
                    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Data {
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Little-endian reads at an index known to be inside the data; out of range reads as 0 so
    /// a truncated archive fails its checks rather than trapping.
    func u16(_ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= count else { return 0 }
        return UInt16(self[at]) | UInt16(self[at + 1]) << 8
    }

    func u32(_ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= count else { return 0 }
        return UInt32(u16(at)) | UInt32(u16(at + 2)) << 16
    }
}
