import Crypto
import Foundation
import ZIPFoundation

/// Writes a ZIP archive to a file one member at a time, each streamed from a file in chunks, with ZIP64
/// where sizes or offsets pass 4 GiB. ZIPFoundation reads these archives; its own writer is not used here
/// because it rewrites the whole central directory on every added entry, which grows with the square of
/// the number of files (a backup has one member per photo). Used by one task at a time, hence unchecked.
final class BackupZipWriter: @unchecked Sendable {
    enum Method { case stored, deflated }

    struct Written {
        let bytes: Int64
        let sha256: String
    }

    private let handle: FileHandle
    private var offset: UInt64 = 0
    private var central: [UInt8] = []
    private var count: UInt64 = 0
    private let chunkSize = 256 * 1024

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw BackupError.io("cannot create \(path)")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Adds the file at `source` as `name`, reading it `chunkSize` at a time; returns its size and SHA-256.
    /// `onBytes` hears of each chunk read, for progress.
    @discardableResult
    func add(name: String, source: String, method: Method, modified: Date, onBytes: (Int) -> Void = { _ in }) throws -> Written {
        guard let input = FileHandle(forReadingAtPath: source) else { throw BackupError.io("cannot read \(source)") }
        defer { try? input.close() }
        let size = try Int64(input.seekToEnd())
        try input.seek(toOffset: 0)
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 0xFFFF else { throw BackupError.io("name too long: \(name)") }
        // Deflate can grow incompressible data a little; a margin keeps the 32-bit fields honest.
        let zip64 = size >= 0xF000_0000
        let headerAt = offset
        let (time, date) = StoredZipWriter.dosTime(modified)
        var local: [UInt8] = []
        local.le32(0x0403_4B50); local.le16(zip64 ? 45 : 20); local.le16(0x0800)
        local.le16(method == .deflated ? 8 : 0); local.le16(time); local.le16(date)
        local.le32(0); local.le32(zip64 ? 0xFFFF_FFFF : 0); local.le32(zip64 ? 0xFFFF_FFFF : 0)
        local.le16(UInt16(nameBytes.count)); local.le16(zip64 ? 20 : 0)
        local.append(contentsOf: nameBytes)
        if zip64 { local.le16(1); local.le16(16); local.le64(0); local.le64(0) }
        try write(local)

        var hasher = SHA256()
        var read: Int64 = 0
        var crc: UInt32 = 0
        var compressed: UInt64 = 0
        func readChunk(_ wanted: Int) throws -> Data {
            let chunk = try input.read(upToCount: wanted) ?? Data()
            read += Int64(chunk.count)
            hasher.update(data: chunk)
            onBytes(chunk.count)
            return chunk
        }
        switch method {
        case .deflated:
            crc = try Data.compress(size: size, bufferSize: chunkSize, provider: { _, wanted in try readChunk(wanted) }, consumer: { output in
                try self.write(output)
                compressed += UInt64(output.count)
            })
        case .stored:
            while read < size {
                let chunk = try readChunk(Int(min(Int64(chunkSize), size - read)))
                if chunk.isEmpty { break }
                crc = chunk.crc32(checksum: crc)
                try write(chunk)
                compressed += UInt64(chunk.count)
            }
        }
        // A file that shrank while being read would leave a member shorter than its header says.
        guard read == size else { throw BackupError.io("\(source) changed while it was being read") }
        let uncompressed = UInt64(size)
        let end = offset
        try handle.seek(toOffset: headerAt + 14)
        var patch: [UInt8] = []
        patch.le32(crc)
        if zip64 {
            patch.le32(0xFFFF_FFFF); patch.le32(0xFFFF_FFFF)
            try handle.write(contentsOf: patch)
            try handle.seek(toOffset: headerAt + 30 + UInt64(nameBytes.count) + 4)
            var sizes: [UInt8] = []
            sizes.le64(uncompressed); sizes.le64(compressed)
            try handle.write(contentsOf: sizes)
        } else {
            guard compressed <= 0xFFFF_FFFF else { throw BackupError.io("\(name) grew past 4 GiB when compressed") }
            patch.le32(UInt32(compressed)); patch.le32(UInt32(uncompressed))
            try handle.write(contentsOf: patch)
        }
        try handle.seek(toOffset: end)

        var extra: [UInt8] = []
        let bigSizes = zip64 || compressed > 0xFFFF_FFFF
        let bigOffset = headerAt >= 0xFFFF_FFFF
        if bigSizes { extra.le64(uncompressed); extra.le64(compressed) }
        if bigOffset { extra.le64(headerAt) }
        if !extra.isEmpty { extra = [0x01, 0x00] + [UInt8(extra.count & 0xFF), UInt8(extra.count >> 8)] + extra }
        central.le32(0x0201_4B50); central.le16(0x031E); central.le16(bigSizes || bigOffset ? 45 : 20); central.le16(0x0800)
        central.le16(method == .deflated ? 8 : 0); central.le16(time); central.le16(date); central.le32(crc)
        central.le32(bigSizes ? 0xFFFF_FFFF : UInt32(compressed)); central.le32(bigSizes ? 0xFFFF_FFFF : UInt32(uncompressed))
        central.le16(UInt16(nameBytes.count)); central.le16(UInt16(extra.count)); central.le16(0); central.le16(0); central.le16(0)
        central.le32(UInt32(0o100600) << 16)
        central.le32(bigOffset ? 0xFFFF_FFFF : UInt32(headerAt))
        central.append(contentsOf: nameBytes)
        central.append(contentsOf: extra)
        count += 1
        return Written(bytes: size, sha256: Hex.string(hasher.finalize()))
    }

    /// Writes the central directory and end records, syncs, and closes the file.
    func finish() throws {
        let directoryAt = offset
        let directorySize = UInt64(central.count)
        try write(central)
        central = []
        var end: [UInt8] = []
        let needs64 = count >= 0xFFFF || directoryAt >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF
        if needs64 {
            let recordAt = offset
            end.le32(0x0606_4B50); end.le64(44); end.le16(45); end.le16(45); end.le32(0); end.le32(0)
            end.le64(count); end.le64(count); end.le64(directorySize); end.le64(directoryAt)
            end.le32(0x0706_4B50); end.le32(0); end.le64(recordAt); end.le32(1)
        }
        end.le32(0x0605_4B50); end.le16(0); end.le16(0)
        end.le16(needs64 ? 0xFFFF : UInt16(count)); end.le16(needs64 ? 0xFFFF : UInt16(count))
        end.le32(needs64 ? 0xFFFF_FFFF : UInt32(directorySize)); end.le32(needs64 ? 0xFFFF_FFFF : UInt32(directoryAt))
        end.le16(0)
        try write(end)
        try handle.synchronize()
        try handle.close()
    }

    func abandon() {
        try? handle.close()
    }

    private func write(_ bytes: [UInt8]) throws {
        try handle.write(contentsOf: bytes)
        offset += UInt64(bytes.count)
    }

    private func write(_ data: Data) throws {
        try handle.write(contentsOf: data)
        offset += UInt64(data.count)
    }
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) { append(UInt8(value & 0xFF)); append(UInt8(value >> 8)) }
    mutating func le32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
    mutating func le64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) } }
}
