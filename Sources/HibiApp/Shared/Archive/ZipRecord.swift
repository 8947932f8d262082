import Foundation

/// The bytes of a ZIP archive's records, made in one place for both of Hibi's writers: `StoredZipWriter`
/// (exports streamed into a response, member by member) and the backup's file writer (members given their
/// place in a file and filled from several threads). UTF-8 names, "made by Unix" with private permissions
/// (0600, so a diary never extracts world-readable), and ZIP64 fields only where a size or an offset needs them.
enum ZipRecord {
    enum Method { case stored, deflated }

    static let utf8Flag = UInt16(0x0800)

    /// A member's local header. With `zip64` its sizes sit in a ZIP64 extra field (a member whose size is not
    /// known when its header is written may pass 4 GiB); the header is as long either way once `zip64` is chosen,
    /// so a writer can write it first with zeros and again in place once the CRC and sizes are known.
    static func local(name: [UInt8], method: Method, modified: (time: UInt16, date: UInt16), crc: UInt32,
                      compressed: UInt64, uncompressed: UInt64, zip64: Bool) -> [UInt8] {
        var local: [UInt8] = []
        local.le32(0x0403_4B50); local.le16(zip64 ? 45 : 20); local.le16(utf8Flag)
        local.le16(method == .deflated ? 8 : 0); local.le16(modified.time); local.le16(modified.date)
        local.le32(crc)
        local.le32(zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: compressed))
        local.le32(zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: uncompressed))
        local.le16(UInt16(truncatingIfNeeded: name.count)); local.le16(zip64 ? 20 : 0)
        local.append(contentsOf: name)
        if zip64 { local.le16(1); local.le16(16); local.le64(uncompressed); local.le64(compressed) }
        return local
    }

    static func localLength(name: [UInt8], zip64: Bool) -> UInt64 { 30 + UInt64(name.count) + (zip64 ? 20 : 0) }

    /// A member's central directory record. It says ZIP64 only when a size or the offset needs it, whatever the
    /// local header had to promise before the size was known: ZIPFoundation reads a ZIP64 size of 0 as "not given".
    static func central(headerAt: UInt64, name: [UInt8], method: Method, modified: (time: UInt16, date: UInt16), crc: UInt32,
                        compressed: UInt64, uncompressed: UInt64) -> [UInt8] {
        var extra: [UInt8] = []
        let bigSizes = uncompressed >= 0xFFFF_FFFF || compressed >= 0xFFFF_FFFF
        let bigOffset = headerAt >= 0xFFFF_FFFF
        if bigSizes { extra.le64(uncompressed); extra.le64(compressed) }
        if bigOffset { extra.le64(headerAt) }
        if !extra.isEmpty { extra = [0x01, 0x00] + [UInt8(extra.count & 0xFF), UInt8(extra.count >> 8)] + extra }
        var central: [UInt8] = []
        // 0x031E: made by Unix, so unzip applies the permissions below.
        central.le32(0x0201_4B50); central.le16(0x031E); central.le16(bigSizes || bigOffset ? 45 : 20); central.le16(utf8Flag)
        central.le16(method == .deflated ? 8 : 0); central.le16(modified.time); central.le16(modified.date); central.le32(crc)
        central.le32(bigSizes ? 0xFFFF_FFFF : UInt32(compressed)); central.le32(bigSizes ? 0xFFFF_FFFF : UInt32(uncompressed))
        central.le16(UInt16(truncatingIfNeeded: name.count)); central.le16(UInt16(extra.count)); central.le16(0); central.le16(0); central.le16(0)
        central.le32(UInt32(0o100600) << 16)
        central.le32(bigOffset ? 0xFFFF_FFFF : UInt32(headerAt))
        central.append(contentsOf: name)
        central.append(contentsOf: extra)
        return central
    }

    /// What follows the central directory: the ZIP64 end records when the count or an offset needs them, then
    /// the end of central directory record.
    static func end(count: UInt64, directoryAt: UInt64, directorySize: UInt64) -> [UInt8] {
        var end: [UInt8] = []
        let needs64 = count >= 0xFFFF || directoryAt >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF
        if needs64 {
            let recordAt = directoryAt + directorySize
            end.le32(0x0606_4B50); end.le64(44); end.le16(45); end.le16(45); end.le32(0); end.le32(0)
            end.le64(count); end.le64(count); end.le64(directorySize); end.le64(directoryAt)
            end.le32(0x0706_4B50); end.le32(0); end.le64(recordAt); end.le32(1)
        }
        end.le32(0x0605_4B50); end.le16(0); end.le16(0)
        end.le16(needs64 ? 0xFFFF : UInt16(count)); end.le16(needs64 ? 0xFFFF : UInt16(count))
        end.le32(needs64 ? 0xFFFF_FFFF : UInt32(directorySize)); end.le32(needs64 ? 0xFFFF_FFFF : UInt32(directoryAt))
        end.le16(0)
        return end
    }

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

extension [UInt8] {
    mutating func le16(_ value: UInt16) { append(UInt8(value & 0xFF)); append(UInt8(value >> 8)) }
    mutating func le32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
    mutating func le64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) } }
}
