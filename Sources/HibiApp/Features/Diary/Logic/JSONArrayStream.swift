import Foundation

/// Splits the elements of one array of a JSON document (the array under `key` in the top-level object,
/// such as Day One's `"entries": [...]`) out of bytes fed in chunks, so a journal of any size is read one
/// entry at a time: only the element being read is held, and at most `maxElementBytes` of it. It does not
/// check the JSON; each element is decoded on its own, and one that does not decode is one skipped entry.
struct JSONArrayStream {
    enum Piece: Equatable {
        /// One element's bytes (whitespace around it trimmed).
        case element(Data)
        /// An element longer than the bound, with its length; its bytes were not kept.
        case tooLarge(Int)
    }

    let key: [UInt8]
    let maxElementBytes: Int
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The last string read at depth 1 (a key of the top-level object), up to the key's length + 1 bytes.
    private var lastString: [UInt8] = []
    private var recordingString = false
    /// Depth inside the array (1 + the array's own depth) once it has been found.
    private var arrayDepth: Int?
    private(set) var closed = false
    private var current: [UInt8] = []
    private var currentLength = 0

    init(key: String, maxElementBytes: Int) {
        self.key = Array(key.utf8)
        self.maxElementBytes = maxElementBytes
    }

    /// Whether the array was found at all (a file without it is not this kind of document).
    var found: Bool { arrayDepth != nil }

    /// Reads `bytes`; returns the elements they completed, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        for byte in bytes {
            if closed { break }
            if let inside = arrayDepth {
                if !inString, depth == inside, byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
                    if let piece = takeCurrent() { pieces.append(piece) }
                    if byte == UInt8(ascii: "]") { closed = true }
                    continue
                }
                currentLength += 1
                if current.count < maxElementBytes { current.append(byte) }
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    recordingString = false
                    continue
                }
                if recordingString, lastString.count <= key.count { lastString.append(byte) }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1, arrayDepth == nil {
                    recordingString = true
                    lastString.removeAll(keepingCapacity: true)
                }
            case UInt8(ascii: "["):
                depth += 1
                if depth == 2, arrayDepth == nil, lastString == key { arrayDepth = depth }
            case UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
        }
        return pieces
    }

    private mutating func takeCurrent() -> Piece? {
        defer {
            current.removeAll(keepingCapacity: current.count <= 1 << 20)
            currentLength = 0
        }
        let trimmed = current.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed()
        if currentLength > maxElementBytes { return .tooLarge(currentLength) }
        return trimmed.isEmpty ? nil : .element(Data(trimmed))
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}
