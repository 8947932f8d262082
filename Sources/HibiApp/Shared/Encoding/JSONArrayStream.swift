import Foundation

/// Splits the elements of arrays of a JSON document out of bytes fed in chunks, so a document of any size
/// is read one element at a time: only the element being read is held, and at most `maxElementBytes` of it.
/// Which arrays are split is chosen by their path (the keys and indices leading to them: Day One's
/// `"entries": [...]` is `["entries"]`, a Health Auto Export metric's points `["data", "metrics", "3", "data"]`).
/// It does not decode the JSON; each element is decoded on its own. Outside the split arrays it can keep the
/// document's outline (the document with those arrays emptied, bounded by `outlineLimit`), which is small
/// and decodes whole, and notices the mistakes only it can see (an empty element, bytes after the end).
struct JSONArrayStream {
    enum Piece: Equatable {
        /// One element's bytes (whitespace around it trimmed).
        case element(Data)
        /// An element longer than the bound, with its length; its bytes were not kept.
        case tooLarge(Int)
    }

    /// A piece with the split array it belongs to (its place in `arrays`) and its index in that array.
    struct Located: Equatable {
        var array: Int
        /// That array's path (as in `arrays`).
        var path: [String]
        var index: Int
        var piece: Piece
    }

    private struct Frame {
        var isArray: Bool
        /// The number of the split array this frame is (in `arrays`), nil for the others.
        var split: Int?
        /// An object's key whose value is being read.
        var key: String?
        /// An array's index of the element being read.
        var index = 0
    }

    let maxElementBytes: Int
    private let splits: ([String]) -> Bool
    private let firstOnly: Bool
    private let outlineLimit: Int
    /// The path of every split array, in the order they opened.
    private(set) var arrays: [[String]] = []
    /// The document without the elements of its split arrays, up to `outlineLimit` bytes (`outlineOverflow` past it).
    private(set) var outline: [UInt8] = []
    private(set) var outlineOverflow = false
    /// Seen a mistake that decoding the elements and the outline would not show: an empty element
    /// (`[1,,2]`, `[1,]`), a bracket closing what was not open, or bytes after the document's end.
    private(set) var malformed = false
    /// The first split array ended (`firstOnly`), or the document did.
    private(set) var closed = false
    private var stack: [Frame] = []
    private var started = false
    private var inString = false
    private var escaped = false
    /// The string being read in an object (a key, once a colon follows), up to 256 bytes.
    private var recording: [UInt8]?
    private var lastString: String?
    private var elementDepth = 0
    /// The split array being read (the top of `stack`), nil outside one.
    private var splitArray: Int?
    private var current: [UInt8] = []
    private var currentLength = 0

    /// The array under `key` in the top-level object, and no more (Day One's `entries`).
    init(key: String, maxElementBytes: Int) {
        self.init(maxElementBytes: maxElementBytes, outlineLimit: 0, firstOnly: true) { $0 == [key] }
    }

    /// Every array whose path `splits` accepts; keeps the outline up to `outlineLimit` bytes.
    init(maxElementBytes: Int, outlineLimit: Int, firstOnly: Bool = false, splits: @escaping ([String]) -> Bool) {
        self.maxElementBytes = maxElementBytes
        self.outlineLimit = outlineLimit
        self.firstOnly = firstOnly
        self.splits = splits
    }

    /// Whether a split array was found at all (a file without one is not this kind of document).
    var found: Bool { !arrays.isEmpty }

    /// Whether the bytes so far make a whole document (every bracket closed).
    var complete: Bool { started && stack.isEmpty && !inString }

    /// Reads `bytes`; returns the elements they completed, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        feed(bytes) { pieces.append($0.piece) }
        return pieces
    }

    /// Reads `bytes`, handing each element they complete to `each`, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>, _ each: (Located) throws -> Void) rethrows {
        let array = Array(bytes)
        try array.withUnsafeBytes { try feed(buffer: $0, each) }
    }

    /// Reads `data` (a chunk of a file), handing each element it completes to `each`, in order.
    mutating func feed(_ data: Data, _ each: (Located) throws -> Void) rethrows {
        try data.withUnsafeBytes { try feed(buffer: $0, each) }
    }

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), comma = UInt8(ascii: ","), colon = UInt8(ascii: ":")
    private static let openObject = UInt8(ascii: "{"), closeObject = UInt8(ascii: "}"), openArray = UInt8(ascii: "["), closeArray = UInt8(ascii: "]")

    /// The loop over raw bytes: inside a split array (nearly all of a large document) it only follows strings and
    /// depth, and copies an element's bytes in runs rather than one at a time.
    private mutating func feed(buffer: UnsafeRawBufferPointer, _ each: (Located) throws -> Void) rethrows {
        var index = 0
        let count = buffer.count
        /// Where the element's bytes not yet copied into `current` begin in this chunk.
        var runStart = 0
        func copyRun(to end: Int) {
            guard end > runStart else { return }
            let room = maxElementBytes - current.count
            if room > 0 { current.append(contentsOf: buffer[runStart..<min(end, runStart + room)]) }
            currentLength += end - runStart
        }
        while index < count {
            let byte = buffer[index]
            if closed {
                if !firstOnly, !Self.isSpace(byte) { malformed = true }
                if firstOnly || malformed { return }
                index += 1
                continue
            }
            if let array = splitArray {
                if inString {
                    if escaped { escaped = false } else if byte == Self.backslash { escaped = true } else if byte == Self.quote { inString = false }
                    index += 1
                    continue
                }
                if elementDepth == 0, byte == Self.comma || byte == Self.closeArray {
                    copyRun(to: index)
                    try takeCurrent(array: array, closing: byte == Self.closeArray, each)
                    index += 1
                    runStart = index
                    if byte == Self.closeArray {
                        stack.removeLast()
                        splitArray = nil
                        keep(byte)
                        ended()
                        if firstOnly { closed = true }
                    }
                    continue
                }
                switch byte {
                case Self.quote: inString = true
                case Self.openObject, Self.openArray: elementDepth += 1
                case Self.closeObject, Self.closeArray: elementDepth -= 1
                default: break
                }
                index += 1
                continue
            }
            index += 1
            keep(byte)
            if inString {
                if escaped {
                    escaped = false
                } else if byte == Self.backslash {
                    escaped = true
                } else if byte == Self.quote {
                    inString = false
                    lastString = recording.map { String(decoding: $0, as: UTF8.self) }
                    recording = nil
                    continue
                }
                if recording != nil, recording?.count ?? 0 < 256 { recording?.append(byte) }
                continue
            }
            switch byte {
            case Self.quote:
                inString = true
                recording = stack.last?.isArray == false ? [] : nil
            case Self.colon:
                if let last = stack.indices.last, !stack[last].isArray { stack[last].key = lastString }
                lastString = nil
            case Self.comma:
                if let last = stack.indices.last {
                    if stack[last].isArray { stack[last].index += 1 } else { stack[last].key = nil }
                }
            case Self.openObject:
                started = true
                stack.append(Frame(isArray: false))
            case Self.openArray:
                started = true
                let path = stack.map { $0.isArray ? String($0.index) : ($0.key ?? "") }
                if splits(path) {
                    arrays.append(path)
                    stack.append(Frame(isArray: true, split: arrays.count - 1))
                    splitArray = arrays.count - 1
                    elementDepth = 0
                    runStart = index
                } else {
                    stack.append(Frame(isArray: true))
                }
            case Self.closeObject, Self.closeArray:
                if stack.isEmpty { malformed = true } else { stack.removeLast() }
                ended()
            default:
                if stack.isEmpty, !Self.isSpace(byte) { started = true }
            }
        }
        if splitArray != nil { copyRun(to: count) }
    }

    /// After a bracket closed: the document ends with its outermost one.
    private mutating func ended() {
        if stack.isEmpty, !firstOnly { closed = true }
    }

    private mutating func keep(_ byte: UInt8) {
        guard outlineLimit > 0, !outlineOverflow else { return }
        if outline.count >= outlineLimit { outlineOverflow = true } else { outline.append(byte) }
    }

    private mutating func takeCurrent(array: Int, closing: Bool, _ each: (Located) throws -> Void) rethrows {
        defer {
            current.removeAll(keepingCapacity: current.count <= 1 << 20)
            currentLength = 0
        }
        guard let last = stack.indices.last else { return }
        let index = stack[last].index
        var low = current.startIndex, high = current.endIndex
        while low < high, Self.isSpace(current[low]) { low += 1 }
        while high > low, Self.isSpace(current[high - 1]) { high -= 1 }
        if currentLength > maxElementBytes {
            stack[last].index += 1
            try each(Located(array: array, path: arrays[array], index: index, piece: .tooLarge(currentLength)))
        } else if low == high {
            // `[]` is an empty array; an empty element anywhere else (`[1,,2]`, `[1,]`) is a mistake.
            if !closing || index > 0 { malformed = true }
        } else {
            stack[last].index += 1
            try each(Located(array: array, path: arrays[array], index: index, piece: .element(Data(current[low..<high]))))
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}
