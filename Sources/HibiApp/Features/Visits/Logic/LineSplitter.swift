/// A file fed a buffer at a time, cut into lines (without their "\n"); the part after the last line
/// break waits for the next buffer. Pure: no I/O. Shared by the line-based location readers.
struct LineSplitter: Sendable {
    private var partial: [UInt8] = []

    /// Bytes of the line not yet ended, so a reader can refuse one that grows past its limit.
    var pendingCount: Int { partial.count }

    mutating func feed<E: Error>(_ bytes: UnsafeBufferPointer<UInt8>, line: (ArraySlice<UInt8>) throws(E) -> Void) throws(E) {
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            partial.append(contentsOf: bytes[start..<index])
            try line(partial[...])
            partial.removeAll(keepingCapacity: true)
            start = index + 1
        }
        partial.append(contentsOf: bytes[start...])
    }

    /// The last line, when the file does not end with a line break.
    mutating func finish<E: Error>(line: (ArraySlice<UInt8>) throws(E) -> Void) throws(E) {
        guard !partial.isEmpty else { return }
        try line(partial[...])
        partial.removeAll()
    }
}
