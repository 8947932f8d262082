#if canImport(Glibc)
import Glibc
#endif

/// Where the tokenizer's bytes come from: a file, a pipe from `unzip -p`, or memory in tests.
/// `read` fills at most `count` bytes and returns 0 at the end.
public protocol ByteStream: AnyObject {
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int
}

public final class MemoryByteStream: ByteStream {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public convenience init(_ text: String) { self.init(Array(text.utf8)) }

    public func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let n = min(count, bytes.count - offset)
        if n > 0 {
            bytes.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return } // n > 0: never nil
                buffer.update(from: base + offset, count: n)
            }
            offset += n
        }
        return n
    }
}

/// A problem in the XML itself, with the 1-based line where it was found.
public struct XMLStreamError: Error, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        case truncated
        case unexpected(String)
        case undefinedEntity(String)
        case mismatchedEndTag(expected: String, found: String)
        case tooDeep
        case tooLarge
        case noRootElement
    }
    public let reason: Reason
    public let line: Int

    public var text: Text {
        switch reason {
        case .truncated:
            Text(en: "the file ends unexpectedly at line \(line) (is it truncated?)",
                 ja: "\(line) 行目でファイルが途中で終わっています(途中までしかコピーされていない可能性があります)")
        case let .unexpected(what):
            Text(en: "unexpected \(what) at line \(line)", ja: "\(line) 行目に予期しない \(what) があります")
        case let .undefinedEntity(name):
            Text(en: "the entity &\(name); at line \(line) is not allowed (Hibi never expands entities declared in the DTD)",
                 ja: "\(line) 行目のエンティティ &\(name); は使えません(Hibi は DTD で宣言されたエンティティを展開しません)")
        case let .mismatchedEndTag(expected, found):
            Text(en: "the end tag </\(found)> at line \(line) does not close <\(expected)>",
                 ja: "\(line) 行目の終了タグ </\(found)> が <\(expected)> と対応していません")
        case .tooDeep:
            Text(en: "elements are nested too deeply at line \(line)", ja: "\(line) 行目で要素の入れ子が深すぎます")
        case .tooLarge:
            Text(en: "a tag or attribute at line \(line) is too large", ja: "\(line) 行目のタグまたは属性が大きすぎます")
        case .noRootElement:
            Text(en: "the file contains no XML element", ja: "ファイルに XML 要素がありません")
        }
    }
}

public enum XMLEvent: Equatable {
    case start(name: String, attributes: [XMLAttribute])
    case end(name: String)
    /// Character data between tags (entities decoded, CDATA included), only when the reader was made
    /// with `reportsText`. Whitespace-only runs are not reported.
    case text(String)
}

/// What one document may cost. Every cap is checked while reading, before the bytes are kept, so a
/// hostile file is refused after reading at most one cap's worth of bytes.
public struct XMLLimits: Sendable {
    /// Bytes of one attribute value or one text run.
    public var maxValueBytes: Int
    /// Bytes of one start tag, all attributes together.
    public var maxTagBytes: Int
    public var maxAttributes: Int
    public var maxDepth: Int

    public init(maxValueBytes: Int = 64 * 1024, maxTagBytes: Int = 256 * 1024, maxAttributes: Int = 256, maxDepth: Int = 64) {
        self.maxValueBytes = maxValueBytes
        self.maxTagBytes = maxTagBytes
        self.maxAttributes = maxAttributes
        self.maxDepth = maxDepth
    }
}

public struct XMLAttribute: Equatable, Sendable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What `nextToken()` read. A start tag's attributes are not made into strings: they stay as bytes in
/// the reader (`attributes`) until the next call, so a caller that needs three of a dozen attributes
/// pays for three.
public enum XMLToken: Equatable {
    case start(name: String)
    case end(name: String)
    case text(String)
}

/// The current start tag's attributes, decoded (entities replaced) but still bytes. Valid until the
/// reader's next `nextToken()`/`nextEvent()`: read what is needed, copy it out, let it go.
public struct XMLTagAttributes {
    let arena: UnsafePointer<UInt8>
    let spans: UnsafePointer<XMLAttributeSpan>
    public let count: Int

    /// The name of attribute `i` (0-based, in document order), as bytes.
    @inline(__always) public func name(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: arena + spans[i].nameStart, count: spans[i].nameCount)
    }

    /// The decoded value of attribute `i`, as bytes.
    @inline(__always) public func value(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: arena + spans[i].valueStart, count: spans[i].valueCount)
    }

    /// Whether attribute `i` is called `name` (ASCII), compared as bytes without making a string.
    @inline(__always) public func nameIs(_ i: Int, _ name: StaticString) -> Bool {
        let span = spans[i]
        return name.withUTF8Buffer { wanted in
            wanted.count == span.nameCount && sameBytes(arena + span.nameStart, wanted.baseAddress, span.nameCount)
        }
    }

    public func nameString(_ i: Int) -> String { String(decoding: name(i), as: UTF8.self) }
    public func valueString(_ i: Int) -> String { String(decoding: value(i), as: UTF8.self) }

    /// The first attribute called `name`, as a string.
    public func string(named name: StaticString) -> String? {
        for i in 0..<count where nameIs(i, name) { return valueString(i) }
        return nil
    }

    /// All of them as strings, in document order (what `nextEvent()` hands out).
    public var materialized: [XMLAttribute] {
        var out: [XMLAttribute] = []
        out.reserveCapacity(count)
        for i in 0..<count { out.append(XMLAttribute(nameString(i), valueString(i))) }
        return out
    }
}

/// Whether `count` bytes at `a` and `b` are equal (memcmp; no bytes are always equal).
@inline(__always) func sameBytes(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
    guard count > 0 else { return true }
    guard let a, let b else { return false }
    return memcmp(a, b, count) == 0
}

/// Where one attribute's name and value sit in the reader's tag storage.
public struct XMLAttributeSpan {
    var nameStart = 0, nameCount = 0, valueStart = 0, valueCount = 0
}

/// A small pull tokenizer for element-and-attribute XML: Apple Health's export, GPX. Hibi's only XML
/// reader: Foundation's XMLParser (libxml2 underneath) crashed the process on a GPX file whose DTD
/// declared an attribute default, and it cannot bound what a document costs.
/// Memory stays constant whatever the input size: one read buffer, the current tag and the open
/// element names. Safety by construction: the DOCTYPE (including any inline DTD) is skipped
/// without being read, so no external entity is ever fetched and no declared entity is ever
/// expanded; only the five predefined entities and numeric character references are decoded in
/// attribute values, and any other reference there is an error. Text content is skipped (the
/// export keeps all data in attributes), so entity references in text cannot cost anything, unless
/// the caller asks for text (GPX keeps its data in text), which is then bounded like attributes.
///
/// Speed (the 1 GB export is 2.6 million records of a dozen attributes each): a start tag's names and
/// values are copied, decoded, into one fixed block (`arena`) and described by offsets, never made into
/// a String or an array per attribute unless the caller asks (`nextEvent()` does, `nextToken()` does
/// not); runs of plain bytes are found by scanning the read buffer and copied whole.
public final class XMLStreamReader {
    private let stream: any ByteStream
    private let limits: XMLLimits
    private let reportsText: Bool
    /// The byte after a '<' already consumed while collecting text, to be read as a tag next time.
    private var pendingTagByte: UInt8?
    private var text: [UInt8] = []
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The current start tag's decoded names and values; sized from the limits, so a tag the limits
    /// allow always fits (see `init`), and a write past it is refused as too large rather than made.
    private let arena: UnsafeMutablePointer<UInt8>
    private let arenaCapacity: Int
    private let spans: UnsafeMutablePointer<XMLAttributeSpan>
    /// The read position and counters live behind a pointer, not in stored properties: every access to
    /// a class's stored `var` is checked for exclusivity at run time, and those checks (a thread-local
    /// lookup each) were nearly half of the tokenizer's time (perf on a 50 MB export).
    private struct Cursor {
        var position = 0
        var count = 0
        var atEnd = false
        var line = 1
        var bytesRead: Int64 = 0
        var arenaUsed = 0
        var attributeCount = 0
    }
    private let cursor: UnsafeMutablePointer<Cursor>
    private var position: Int {
        @inline(__always) get { cursor.pointee.position }
        @inline(__always) set { cursor.pointee.position = newValue }
    }
    private var count: Int {
        @inline(__always) get { cursor.pointee.count }
        @inline(__always) set { cursor.pointee.count = newValue }
    }
    private var atEnd: Bool {
        @inline(__always) get { cursor.pointee.atEnd }
        @inline(__always) set { cursor.pointee.atEnd = newValue }
    }
    private var arenaUsed: Int {
        @inline(__always) get { cursor.pointee.arenaUsed }
        @inline(__always) set { cursor.pointee.arenaUsed = newValue }
    }
    private var pendingEnd: String?
    private var stack: [String] = []
    private var sawRoot = false
    /// Element names already seen, so each tag's name is compared as bytes and shared, not made again.
    private var names: [(bytes: [UInt8], name: String)] = []
    private static let maxNameBytes = 4096
    /// 1-based line of the byte about to be read.
    public private(set) var line: Int {
        @inline(__always) get { cursor.pointee.line }
        @inline(__always) set { cursor.pointee.line = newValue }
    }
    /// Bytes consumed so far, for progress.
    public private(set) var bytesRead: Int64 {
        @inline(__always) get { cursor.pointee.bytesRead }
        @inline(__always) set { cursor.pointee.bytesRead = newValue }
    }

    public init(stream: any ByteStream, bufferSize: Int = 256 * 1024, limits: XMLLimits = XMLLimits(), reportsText: Bool = false) {
        self.stream = stream
        self.limits = limits
        self.reportsText = reportsText
        self.capacity = max(1, bufferSize)
        self.buffer = .allocate(capacity: max(1, bufferSize))
        self.cursor = .allocate(capacity: 1)
        cursor.initialize(to: Cursor())
        // Before the tag check refuses it, a tag holds at most maxTagBytes of earlier attributes (decoding
        // only shortens), then one more name and one value (a reference adds at most 4 bytes past the cap).
        arenaCapacity = max(0, limits.maxTagBytes) + max(0, limits.maxValueBytes) + 2 * Self.maxNameBytes + 64
        arena = .allocate(capacity: arenaCapacity)
        let spanCapacity = max(0, limits.maxAttributes) + 2
        spans = .allocate(capacity: spanCapacity)
        spans.initialize(repeating: XMLAttributeSpan(), count: spanCapacity)
    }

    deinit {
        buffer.deallocate()
        arena.deallocate()
        spans.deallocate()
        cursor.deinitialize(count: 1)
        cursor.deallocate()
    }

    /// The attributes of the start tag `nextToken()` just returned.
    public var attributes: XMLTagAttributes {
        XMLTagAttributes(arena: arena, spans: spans, count: cursor.pointee.attributeCount)
    }

    // MARK: bytes

    @inline(__always) private func fill() throws -> Bool {
        if position < count { return true }
        if atEnd { return false }
        let n = try stream.read(into: buffer, count: capacity)
        position = 0
        count = max(n, 0)
        if n <= 0 { atEnd = true; return false }
        return true
    }

    @inline(__always) private func peek() throws -> UInt8? {
        if position < count { return buffer[position] }
        return try fill() ? buffer[position] : nil
    }

    @inline(__always) private func next() throws -> UInt8? {
        if position >= count, try !fill() { return nil }
        let byte = buffer[position]
        position += 1
        bytesRead += 1
        if byte == 0x0A { line += 1 }
        return byte
    }

    @inline(__always) private func require() throws -> UInt8 {
        guard let byte = try next() else { throw XMLStreamError(reason: .truncated, line: line) }
        return byte
    }

    @inline(__always) private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// Room for `n` more bytes in the tag storage, or the tag is too large.
    @inline(__always) private func reserveArena(_ n: Int) throws {
        if arenaUsed + n > arenaCapacity { throw XMLStreamError(reason: .tooLarge, line: line) }
    }

    /// Skips bytes until after `terminator` (at most four bytes). The last bytes read are kept in a
    /// window and compared whole: a matcher that restarts after a partial match misses `]]]>` and `--->`.
    private func skip(past terminator: [UInt8]) throws {
        let target = terminator.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let mask: UInt32 = terminator.count >= 4 ? .max : (1 << (8 * UInt32(terminator.count))) - 1
        var window: UInt32 = 0
        var seen = 0
        while true {
            window = (window << 8 | UInt32(try require())) & mask
            seen += 1
            if seen >= terminator.count, window == target { return }
        }
    }

    // MARK: events

    /// The next start or end tag (or text run, when asked for), or nil at the end of a well-formed
    /// document. Attributes come as strings; `nextToken()` is the same without making them.
    public func nextEvent() throws -> XMLEvent? {
        switch try nextToken() {
        case nil: return nil
        case let .start(name): return .start(name: name, attributes: attributes.materialized)
        case let .end(name): return .end(name: name)
        case let .text(run): return .text(run)
        }
    }

    /// The next start or end tag (or text run, when asked for), or nil at the end of a well-formed
    /// document. After `.start`, `attributes` holds the tag's attributes until the next call.
    public func nextToken() throws -> XMLToken? {
        cursor.pointee.attributeCount = 0
        if let name = pendingEnd {
            pendingEnd = nil
            return closed(name)
        }
        while true {
            let b: UInt8
            if let pending = pendingTagByte {
                pendingTagByte = nil
                b = pending
            } else {
                if reportsText, !stack.isEmpty {
                    if let run = try collectText() { return .text(run) }
                    // Only whitespace before the tag: read the tag whose first byte is already in hand.
                    if let pending = pendingTagByte {
                        pendingTagByte = nil
                        b = pending
                    } else {
                        b = try require()
                    }
                } else {
                    try skipToTag()
                    if atEnd, position >= count {
                        if !stack.isEmpty { throw XMLStreamError(reason: .truncated, line: line) }
                        if !sawRoot { throw XMLStreamError(reason: .noRootElement, line: line) }
                        return nil
                    }
                    b = try require()
                }
            }
            switch b {
            case 0x3F: // <? processing instruction
                try skip(past: [0x3F, 0x3E])
            case 0x21: // <! comment, CDATA or DOCTYPE
                try skipBang()
            case 0x2F: // </name>
                let name = try readElementName(first: try require())
                try skipSpaces()
                guard try require() == 0x3E else { throw XMLStreamError(reason: .unexpected("character in </\(name)>"), line: line) }
                guard let open = stack.last else { throw XMLStreamError(reason: .unexpected("</\(name)>"), line: line) }
                guard open == name else { throw XMLStreamError(reason: .mismatchedEndTag(expected: open, found: name), line: line) }
                return closed(name)
            default:
                if stack.isEmpty, sawRoot { throw XMLStreamError(reason: .unexpected("second root element"), line: line) }
                return try readStartTag(first: b)
            }
        }
    }

    /// Text between tags, skipped: only '<' matters (and text after the root element, which is an
    /// error). Leaves the position just after the '<', or at the end of the input.
    private func skipToTag() throws {
        while true {
            if position >= count, try !fill() { return }
            // Whole runs of the buffer at a time: find '<' with memchr (vectorised in libc), then count
            // the newlines before it, instead of one bounds-checked loop step per byte.
            let start = buffer + position
            let available = count - position
            let found = memchr(start, 0x3C, available)
            let run = found.map { UnsafeRawPointer(start).distance(to: UnsafeRawPointer($0)) } ?? available
            var i = 0
            while i < run {
                let c = start[i]
                if c == 0x0A { line += 1 }
                else if stack.isEmpty, sawRoot, !Self.isSpace(c) {
                    position += i + 1
                    bytesRead += Int64(i + 1)
                    throw XMLStreamError(reason: .unexpected("text after the root element"), line: line)
                }
                i += 1
            }
            if found != nil {
                position += run + 1
                bytesRead += Int64(run + 1)
                return
            }
            position += run
            bytesRead += Int64(run)
        }
    }

    /// Inside an element in text mode: gathers character data (entities decoded, CDATA sections
    /// copied, comments and processing instructions skipped) up to the next tag. Returns the run if it
    /// holds more than whitespace; the tag's first byte is left in `pendingTagByte`.
    private func collectText() throws -> String? {
        // The run is built in a local array, swapped in and out of `text`: appending to a class's stored
        // property byte by byte was checked for exclusive access on every byte (perf: ~7% of a GPX import).
        var run: [UInt8] = []
        swap(&run, &text)
        defer { swap(&run, &text) }
        run.removeAll(keepingCapacity: true)
        while true {
            let c = try require()
            if c == 0x26 {
                let decoded = try decodeReference()
                decoded.append(to: &run)
            } else if c == 0x3C {
                let after = try require()
                if after == 0x21, try peek() == 0x5B {
                    _ = try next()
                    for expected in Array("CDATA[".utf8) {
                        guard try require() == expected else { throw XMLStreamError(reason: .unexpected("'<![' not starting CDATA"), line: line) }
                    }
                    try copyCDATA(into: &run)
                    if run.count > limits.maxValueBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
                    continue
                }
                if after == 0x21 { try skipBang(); continue }
                if after == 0x3F { try skip(past: [0x3F, 0x3E]); continue }
                pendingTagByte = after
                break
            } else {
                run.append(c)
            }
            if run.count > limits.maxValueBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
        guard run.contains(where: { !Self.isSpace($0) }) else { return nil }
        return String(decoding: run, as: UTF8.self)
    }

    /// After `<![CDATA[`: copies bytes into the text run until `]]>`, which is found as a suffix so
    /// `]]]>` keeps its first bracket.
    private func copyCDATA(into text: inout [UInt8]) throws {
        // Only this section's own bytes can end it: text before it may already end in "]]".
        let start = text.count
        while true {
            text.append(try require())
            let n = text.count
            if n - start >= 3, text[n - 1] == 0x3E, text[n - 2] == 0x5D, text[n - 3] == 0x5D {
                text.removeLast(3)
                return
            }
            if n > limits.maxValueBytes + 3 { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
    }

    private func closed(_ name: String) -> XMLToken {
        stack.removeLast()
        return .end(name: name)
    }

    private func skipSpaces() throws {
        while true {
            if position >= count, try !fill() { return }
            let b = buffer[position]
            guard Self.isSpace(b) else { return }
            position += 1
            bytesRead += 1
            if b == 0x0A { line += 1 }
        }
    }

    /// Reads a name (element or attribute) into the tag storage; returns where it starts and its length.
    /// Names end at a space, '>', '/' or '='; '<' and quotes in a name are errors; at most 4096 bytes.
    private func readName(first: UInt8) throws -> (start: Int, count: Int) {
        guard !Self.isSpace(first), first != 0x3E, first != 0x2F, first != 0x3D else {
            throw XMLStreamError(reason: .unexpected("character in a tag name"), line: line)
        }
        try reserveArena(Self.maxNameBytes + 1)
        let start = arenaUsed
        arena[start] = first
        var n = 1
        while true {
            if position >= count, try !fill() { throw XMLStreamError(reason: .truncated, line: line) }
            var p = position
            let stop = min(count, position + (Self.maxNameBytes + 1 - n))
            var ended = false
            while p < stop {
                let b = buffer[p]
                if Self.isSpace(b) || b == 0x3E || b == 0x2F || b == 0x3D { ended = true; break }
                if b == 0x3C || b == 0x22 || b == 0x27 {
                    copy(from: position, to: p, into: start + n)
                    throw XMLStreamError(reason: .unexpected("character in a name"), line: line)
                }
                p += 1
            }
            let run = p - position
            copy(from: position, to: p, into: start + n)
            n += run
            if ended {
                arenaUsed = start + n
                return (start, n)
            }
            if n > Self.maxNameBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
    }

    /// Moves the buffer's bytes [from, to) into the tag storage at `at` and consumes them (no newlines
    /// among them: callers stop at '\n').
    @inline(__always) private func copy(from: Int, to: Int, into at: Int) {
        let n = to - from
        guard n > 0 else { return }
        (arena + at).update(from: buffer + from, count: n)
        position = to
        bytesRead += Int64(n)
    }

    /// An element name, shared with earlier tags of the same name (a document has a handful).
    private func readElementName(first: UInt8) throws -> String {
        arenaUsed = 0
        let (start, n) = try readName(first: first)
        arenaUsed = 0
        let bytes = UnsafeBufferPointer(start: arena + start, count: n)
        for entry in names where entry.bytes.count == n {
            if entry.bytes.withUnsafeBufferPointer({ sameBytes($0.baseAddress, bytes.baseAddress, n) }) { return entry.name }
        }
        let name = String(decoding: bytes, as: UTF8.self)
        if names.count < 64 { names.append((Array(bytes), name)) }
        return name
    }

    private func readStartTag(first: UInt8) throws -> XMLToken {
        let name = try readElementName(first: first)
        let tagStart = bytesRead
        var attributeCount = 0
        while true {
            try skipSpaces()
            let b = try require()
            if b == 0x3E { break }
            if b == 0x2F {
                guard try require() == 0x3E else { throw XMLStreamError(reason: .unexpected("'/' in <\(name)>"), line: line) }
                pendingEnd = name
                break
            }
            let (nameStart, nameCount) = try readName(first: b)
            try skipSpaces()
            guard try require() == 0x3D else {
                let attributeName = String(decoding: UnsafeBufferPointer(start: arena + nameStart, count: nameCount), as: UTF8.self)
                throw XMLStreamError(reason: .unexpected("attribute \(attributeName) without a value"), line: line)
            }
            try skipSpaces()
            let quote = try require()
            guard quote == 0x22 || quote == 0x27 else { throw XMLStreamError(reason: .unexpected("unquoted attribute value"), line: line) }
            let (valueStart, valueCount) = try readValue(quote: quote)
            spans[attributeCount] = XMLAttributeSpan(nameStart: nameStart, nameCount: nameCount, valueStart: valueStart, valueCount: valueCount)
            attributeCount += 1
            if attributeCount > limits.maxAttributes || bytesRead - tagStart > Int64(limits.maxTagBytes) {
                throw XMLStreamError(reason: .tooLarge, line: line)
            }
        }
        guard stack.count < limits.maxDepth else { throw XMLStreamError(reason: .tooDeep, line: line) }
        stack.append(name)
        sawRoot = true
        cursor.pointee.attributeCount = attributeCount
        return .start(name: name)
    }

    /// Reads an attribute value after its opening quote, decoded, into the tag storage.
    private func readValue(quote: UInt8) throws -> (start: Int, count: Int) {
        let maxValue = limits.maxValueBytes
        try reserveArena(maxValue + 8)
        let start = arenaUsed
        var n = 0
        while true {
            if position >= count, try !fill() { throw XMLStreamError(reason: .truncated, line: line) }
            // A run of plain bytes is copied whole; the scan stops one byte past the cap so an oversized
            // value is refused exactly where the byte-at-a-time reader refused it.
            var p = position
            let stop = min(count, position + (maxValue + 1 - n))
            while p < stop {
                let b = buffer[p]
                if b == quote || b == 0x26 || b == 0x3C || b == 0x0A { break }
                p += 1
            }
            let run = p - position
            copy(from: position, to: p, into: start + n)
            n += run
            if n > maxValue { throw XMLStreamError(reason: .tooLarge, line: line) }
            if p == count { continue }
            let b = buffer[p]
            position = p + 1
            bytesRead += 1
            if b == quote { break }
            if b == 0x26 {
                let decoded = try decodeReference()
                decoded.write(to: arena + start + n)
                n += decoded.count
                if n > maxValue { throw XMLStreamError(reason: .tooLarge, line: line) }
                continue
            }
            if b == 0x3C { throw XMLStreamError(reason: .unexpected("'<' in an attribute value"), line: line) }
            // '\n'
            line += 1
            arena[start + n] = b
            n += 1
            if n > maxValue { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
        arenaUsed = start + n
        return (start, n)
    }

    /// A decoded reference: one character, at most four UTF-8 bytes.
    struct Decoded {
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        var count = 0
        init(_ byte: UInt8) { bytes.0 = byte; count = 1 }
        init(scalar: Unicode.Scalar) {
            var all: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            var n = 0
            UTF8.encode(scalar) { unit in
                switch n {
                case 0: all.0 = unit
                case 1: all.1 = unit
                case 2: all.2 = unit
                default: all.3 = unit
                }
                n += 1
            }
            bytes = all
            count = n
        }
        func write(to out: UnsafeMutablePointer<UInt8>) {
            out[0] = bytes.0
            if count > 1 { out[1] = bytes.1 }
            if count > 2 { out[2] = bytes.2 }
            if count > 3 { out[3] = bytes.3 }
        }
        func append(to out: inout [UInt8]) {
            out.append(bytes.0)
            if count > 1 { out.append(bytes.1) }
            if count > 2 { out.append(bytes.2) }
            if count > 3 { out.append(bytes.3) }
        }
    }

    /// After '&': one of the five predefined entities or a numeric reference; nothing else.
    private func decodeReference() throws -> Decoded {
        // Fast path: "lt;", "gt;", "amp;" … already in the buffer are matched in place (the export's
        // device strings hold four each); anything else goes the general way below.
        let p = position
        if p + 5 <= count {
            let b0 = buffer[p], b1 = buffer[p + 1], b2 = buffer[p + 2]
            var decoded: UInt8 = 0
            var length = 0
            if b1 == 0x74, b2 == 0x3B, b0 == 0x6C || b0 == 0x67 { decoded = b0 == 0x6C ? 0x3C : 0x3E; length = 3 } // lt; gt;
            else if b0 == 0x61, b1 == 0x6D, b2 == 0x70, buffer[p + 3] == 0x3B { decoded = 0x26; length = 4 } // amp;
            else if b0 == 0x71, b1 == 0x75, b2 == 0x6F, buffer[p + 3] == 0x74, buffer[p + 4] == 0x3B { decoded = 0x22; length = 5 } // quot;
            else if b0 == 0x61, b1 == 0x70, b2 == 0x6F, buffer[p + 3] == 0x73, buffer[p + 4] == 0x3B { decoded = 0x27; length = 5 } // apos;
            if length > 0 {
                position = p + length
                bytesRead += Int64(length)
                return Decoded(decoded)
            }
        }
        var name: [UInt8] = []
        while true {
            let b = try require()
            if b == 0x3B { break }
            name.append(b)
            if name.count > 32 || b == 0x22 || b == 0x27 || b == 0x3C || Self.isSpace(b) {
                throw XMLStreamError(reason: .unexpected("'&' not starting a reference"), line: line)
            }
        }
        let text = String(decoding: name, as: UTF8.self)
        switch text {
        case "lt": return Decoded(0x3C)
        case "gt": return Decoded(0x3E)
        case "amp": return Decoded(0x26)
        case "quot": return Decoded(0x22)
        case "apos": return Decoded(0x27)
        default:
            var scalar: UInt32?
            if text.hasPrefix("#x") || text.hasPrefix("#X") {
                scalar = UInt32(text.dropFirst(2), radix: 16)
            } else if text.hasPrefix("#") {
                scalar = UInt32(text.dropFirst(), radix: 10)
            } else {
                throw XMLStreamError(reason: .undefinedEntity(text), line: line)
            }
            guard let value = scalar, let unicode = Unicode.Scalar(value), value != 0 else {
                throw XMLStreamError(reason: .unexpected("character reference &\(text);"), line: line)
            }
            return Decoded(scalar: unicode)
        }
    }

    /// After "<!": a comment, a CDATA section, or a DOCTYPE whose internal subset is skipped unread.
    private func skipBang() throws {
        let b = try require()
        if b == 0x2D {
            guard try require() == 0x2D else { throw XMLStreamError(reason: .unexpected("'<!-'"), line: line) }
            try skip(past: [0x2D, 0x2D, 0x3E])
        } else if b == 0x5B {
            try skip(past: [0x5D, 0x5D, 0x3E])
        } else {
            // DOCTYPE: track quotes and brackets so '>' inside the internal subset does not end it.
            var inSubset = false
            var quote: UInt8 = 0
            var inComment = false
            var recent: (UInt8, UInt8, UInt8) = (0, 0, b)
            while true {
                let c = try require()
                recent = (recent.1, recent.2, c)
                if inComment {
                    if recent == (0x2D, 0x2D, 0x3E) { inComment = false }
                    continue
                }
                if quote != 0 {
                    if c == quote { quote = 0 }
                    continue
                }
                switch c {
                case 0x22, 0x27: quote = c
                case 0x5B: inSubset = true
                case 0x5D: inSubset = false
                case 0x2D where recent.0 == 0x21 && recent.1 == 0x2D: inComment = true
                case 0x3E where !inSubset: return
                default: break
                }
            }
        }
    }
}
