import Foundation
import ZIPFoundation

/// ZIP archives whose entries are stored, not compressed: what Hibi writes for exports that are mostly
/// JPEGs (which deflate would not shrink). Reading goes through ZIPFoundation (`ZipReader` below), so
/// archives other tools re-zipped with deflate or ZIP64 are read too.
///
/// The writer makes no zip64: an archive holds at most 65,535 entries and 4 GiB, and it refuses to go
/// past that (callers check first so a download is never cut short).
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
    case inflatesTooFar(limitBytes: UInt64)

    public var text: Text {
        switch self {
        case .notAnArchive: Text(en: "not a ZIP archive", ja: "ZIP アーカイブではありません")
        case let .damaged(detail): Text(en: "the ZIP archive is damaged (\(detail))", ja: "ZIP アーカイブが壊れています(\(detail))")
        case let .unsupported(detail): Text(en: "the ZIP archive uses \(detail), which Hibi does not read; import the archive Hibi made as it is",
                                            ja: "ZIP アーカイブが Hibi の読めない形式(\(detail))です。Hibi が作ったアーカイブをそのまま読み込んでください")
        case let .unsafeName(name): Text(en: "the ZIP archive holds an unsafe file name \"\(name)\"", ja: "ZIP アーカイブに安全でないファイル名「\(name)」があります")
        case let .duplicateName(name): Text(en: "the ZIP archive holds \"\(name)\" twice", ja: "ZIP アーカイブに「\(name)」が2つあります")
        case let .inflatesTooFar(limit): Text(en: "the ZIP archive would unpack to more than \(limit / 1024 / 1024) MB, far more than its size suggests; it is refused as a possible zip bomb",
                                              ja: "ZIP アーカイブを展開すると \(limit / 1024 / 1024) MB を超え、サイズに比べて大きすぎます。zip 爆弾の可能性があるため読み込みません")
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

/// Reads ZIP archives through ZIPFoundation: stored or deflated entries and ZIP64, as other tools write
/// them when they re-zip an export. Every name is checked before any entry is handed out, and inflating is
/// capped twice, relative to the archive's size and in absolute terms, so a zip bomb is refused instead
/// of expanded: by the sizes the directory declares before reading, and by the bytes actually produced
/// while reading (a directory can lie).
public struct ZipReader: @unchecked Sendable {
    public struct Entry: Sendable {
        public let name: String
        public let size: UInt64
    }

    /// Deflate rarely shrinks real data (XML, JSON, photos) past 1:100; bombs shrink it by 1:1000 and more.
    public static let maxExpansionRatio: UInt64 = 200

    private let archive: Archive
    private let raw: [String: ZIPFoundation.Entry]
    public let entries: [String: Entry]
    /// Largest number of bytes all entries may inflate to together.
    public let limit: UInt64

    public static func looksLikeArchive(_ data: Data) -> Bool {
        data.count >= 4 && data.prefix(2) == Data([0x50, 0x4B]) && [Data([3, 4]), Data([5, 6])].contains(data.dropFirst(2).prefix(2))
    }

    public init(data: Data, maxTotalBytes: UInt64) throws(StoredZipError) {
        guard Self.looksLikeArchive(data) else { throw .notAnArchive }
        let archive: Archive
        do { archive = try Archive(data: data, accessMode: .read) } catch { throw .damaged("no readable central directory") }
        try self.init(archive: archive, archiveBytes: UInt64(data.count), maxTotalBytes: maxTotalBytes)
    }

    public init(path: String, maxTotalBytes: UInt64) throws(StoredZipError) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
        guard let head = FileHandle(forReadingAtPath: path).flatMap({ handle in defer { try? handle.close() }; return try? handle.read(upToCount: 4) }),
              Self.looksLikeArchive(head) else { throw .notAnArchive }
        let archive: Archive
        do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch { throw .damaged("no readable central directory") }
        try self.init(archive: archive, archiveBytes: size, maxTotalBytes: maxTotalBytes)
    }

    private init(archive: Archive, archiveBytes: UInt64, maxTotalBytes: UInt64) throws(StoredZipError) {
        let (relative, overflow) = archiveBytes.multipliedReportingOverflow(by: Self.maxExpansionRatio)
        let limit = min(maxTotalBytes, overflow ? UInt64.max : max(relative, 64 * 1024))
        var raw: [String: ZIPFoundation.Entry] = [:]
        var entries: [String: Entry] = [:]
        var declared: UInt64 = 0
        for entry in archive {
            let name = entry.path
            guard StoredZip.isSafeName(name) else { throw .unsafeName(name) }
            if entry.type == .directory { continue }
            guard entry.type == .file else { throw .unsupported("links") }
            guard raw[name] == nil else { throw .duplicateName(name) }
            let (sum, over) = declared.addingReportingOverflow(entry.uncompressedSize)
            guard !over, sum <= limit else { throw .inflatesTooFar(limitBytes: limit) }
            declared = sum
            raw[name] = entry
            entries[name] = Entry(name: name, size: entry.uncompressedSize)
        }
        self.archive = archive
        self.raw = raw
        self.entries = entries
        self.limit = limit
    }

    /// Streams an entry's inflated bytes to `consumer`, checked against its CRC; stops with
    /// `inflatesTooFar` the moment it produces more than its directory entry declared.
    public func stream(_ name: String, chunkSize: Int = 256 * 1024, consumer: (Data) throws -> Void) throws(StoredZipError) {
        guard let entry = raw[name] else { throw .damaged("no entry \(name)") }
        let declared = entry.uncompressedSize
        var produced: UInt64 = 0
        let crc: UInt32
        do {
            // The consumer form of extract computes the CRC but leaves comparing it to the caller.
            crc = try archive.extract(entry, bufferSize: chunkSize) { chunk in
                produced += UInt64(chunk.count)
                guard produced <= declared else { throw StoredZipError.inflatesTooFar(limitBytes: declared) }
                try consumer(chunk)
            }
        } catch let error as StoredZipError {
            throw error
        } catch Archive.ArchiveError.invalidCRC32 {
            throw .damaged("checksum of \(name)")
        } catch {
            throw .damaged("\(name) cannot be read")
        }
        guard produced == declared else { throw .damaged("size of \(name)") }
        guard crc == entry.checksum else { throw .damaged("checksum of \(name)") }
    }

    /// An entry's bytes, checked against the CRC the archive recorded; nil when there is no such entry.
    public func contents(of name: String) throws(StoredZipError) -> Data? {
        guard entries[name] != nil else { return nil }
        var data = Data()
        try stream(name) { data.append($0) }
        return data
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

}
