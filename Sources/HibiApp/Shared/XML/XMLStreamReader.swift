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
public final class XMLStreamReader {
    private let stream: any ByteStream
    private let limits: XMLLimits
    private let reportsText: Bool
    /// The byte after a '<' already consumed while collecting text, to be read as a tag next time.
    private var pendingTagByte: UInt8?
    private var text: [UInt8] = []
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The read position and counters live behind a pointer, not in stored properties: every access to
    /// a class's stored `var` is checked for exclusivity at run time, and those checks (a thread-local
    /// lookup each) were nearly half of the tokenizer's time (perf on a 50 MB export).
    private struct Cursor {
        var position = 0
        var count = 0
        var atEnd = false
        var line = 1
        var bytesRead: Int64 = 0
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
    private var pendingEnd: String?
    private var stack: [String] = []
    private var sawRoot = false
    private var scratch: [UInt8] = []
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
        self.capacity = bufferSize
        self.buffer = .allocate(capacity: bufferSize)
        self.cursor = .allocate(capacity: 1)
        cursor.initialize(to: Cursor())
        scratch.reserveCapacity(256)
    }

    deinit {
        buffer.deallocate()
        cursor.deinitialize(count: 1)
        cursor.deallocate()
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

    /// The next start or end tag (or text run, when asked for), or nil at the end of a well-formed document.
    public func nextEvent() throws -> XMLEvent? {
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
                    // Text between tags: skipped; only '<' matters.
                    while true {
                        if position >= count, try !fill() {
                            if !stack.isEmpty { throw XMLStreamError(reason: .truncated, line: line) }
                            if !sawRoot { throw XMLStreamError(reason: .noRootElement, line: line) }
                            return nil
                        }
                        let c = buffer[position]
                        position += 1
                        bytesRead += 1
                        if c == 0x3C { break }
                        if c == 0x0A { line += 1 }
                        else if stack.isEmpty, sawRoot, !Self.isSpace(c) {
                            throw XMLStreamError(reason: .unexpected("text after the root element"), line: line)
                        }
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
                let name = try readName(first: try require())
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

    /// Inside an element in text mode: gathers character data (entities decoded, CDATA sections
    /// copied, comments and processing instructions skipped) up to the next tag. Returns the run if it
    /// holds more than whitespace; the tag's first byte is left in `pendingTagByte`.
    private func collectText() throws -> String? {
        text.removeAll(keepingCapacity: true)
        while true {
            let c = try require()
            if c == 0x26 {
                try decodeReference(into: &text)
            } else if c == 0x3C {
                let after = try require()
                if after == 0x21, try peek() == 0x5B {
                    _ = try next()
                    for expected in Array("CDATA[".utf8) {
                        guard try require() == expected else { throw XMLStreamError(reason: .unexpected("'<![' not starting CDATA"), line: line) }
                    }
                    try copyCDATA()
                    if text.count > limits.maxValueBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
                    continue
                }
                if after == 0x21 { try skipBang(); continue }
                if after == 0x3F { try skip(past: [0x3F, 0x3E]); continue }
                pendingTagByte = after
                break
            } else {
                text.append(c)
            }
            if text.count > limits.maxValueBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
        guard text.contains(where: { !Self.isSpace($0) }) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// After `<![CDATA[`: copies bytes into the text run until `]]>`, which is found as a suffix so
    /// `]]]>` keeps its first bracket.
    private func copyCDATA() throws {
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

    private func closed(_ name: String) -> XMLEvent {
        stack.removeLast()
        return .end(name: name)
    }

    private func skipSpaces() throws {
        while let b = try peek(), Self.isSpace(b) { _ = try next() }
    }

    private func readName(first: UInt8) throws -> String {
        guard !Self.isSpace(first), first != 0x3E, first != 0x2F, first != 0x3D else {
            throw XMLStreamError(reason: .unexpected("character in a tag name"), line: line)
        }
        // Fast path as for values: the rest of the name is in the buffer.
        var end = position
        while end < count, end - position < 4096 {
            let b = buffer[end]
            if Self.isSpace(b) || b == 0x3E || b == 0x2F || b == 0x3D || b == 0x3C || b == 0x22 || b == 0x27 { break }
            end += 1
        }
        if end < count, end - position < 4096, !(buffer[end] == 0x3C || buffer[end] == 0x22 || buffer[end] == 0x27) {
            var bytes = [first]
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer + position, count: end - position))
            bytesRead += Int64(end - position)
            position = end
            return String(decoding: bytes, as: UTF8.self)
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(first)
        while let b = try peek() {
            if Self.isSpace(b) || b == 0x3E || b == 0x2F || b == 0x3D { break }
            if b == 0x3C || b == 0x22 || b == 0x27 { throw XMLStreamError(reason: .unexpected("character in a name"), line: line) }
            scratch.append(b)
            _ = try next()
            if scratch.count > 4096 { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
        if try peek() == nil { throw XMLStreamError(reason: .truncated, line: line) }
        return String(decoding: scratch, as: UTF8.self)
    }

    private func readStartTag(first: UInt8) throws -> XMLEvent {
        let name = try readName(first: first)
        var attributes: [XMLAttribute] = []
        // One allocation for a Record's dozen attributes instead of regrowing 1, 2, 4, 8, 16.
        attributes.reserveCapacity(min(16, limits.maxAttributes + 1))
        let tagStart = bytesRead
        while true {
            try skipSpaces()
            let b = try require()
            if b == 0x3E { break }
            if b == 0x2F {
                guard try require() == 0x3E else { throw XMLStreamError(reason: .unexpected("'/' in <\(name)>"), line: line) }
                pendingEnd = name
                break
            }
            let attributeName = try readName(first: b)
            try skipSpaces()
            guard try require() == 0x3D else { throw XMLStreamError(reason: .unexpected("attribute \(attributeName) without a value"), line: line) }
            try skipSpaces()
            let quote = try require()
            guard quote == 0x22 || quote == 0x27 else { throw XMLStreamError(reason: .unexpected("unquoted attribute value"), line: line) }
            attributes.append(XMLAttribute(attributeName, try readValue(quote: quote)))
            if attributes.count > limits.maxAttributes || bytesRead - tagStart > Int64(limits.maxTagBytes) {
                throw XMLStreamError(reason: .tooLarge, line: line)
            }
        }
        guard stack.count < limits.maxDepth else { throw XMLStreamError(reason: .tooDeep, line: line) }
        stack.append(name)
        sawRoot = true
        return .start(name: name, attributes: attributes)
    }

    private func readValue(quote: UInt8) throws -> String {
        // Fast path: the whole value already sits in the buffer with nothing to decode, so the
        // string is made straight from it (most values in an export are short dates and numbers).
        var end = position
        while end < count {
            let b = buffer[end]
            if b == quote || b == 0x26 || b == 0x3C || b == 0x0A { break }
            end += 1
        }
        if end < count, buffer[end] == quote, end - position <= limits.maxValueBytes {
            let value = String(decoding: UnsafeBufferPointer(start: buffer + position, count: end - position), as: UTF8.self)
            bytesRead += Int64(end + 1 - position)
            position = end + 1
            return value
        }
        // The reusable scratch storage is taken into a local for the loop: appending to the stored
        // property byte by byte paid a run-time exclusivity check per byte (values with entities, such
        // as every record's device="&lt;&lt;HKDevice…", take this path).
        var out: [UInt8] = []
        swap(&out, &scratch)
        defer { swap(&out, &scratch) }
        out.removeAll(keepingCapacity: true)
        while true {
            if position >= count, try !fill() { throw XMLStreamError(reason: .truncated, line: line) }
            let b = buffer[position]
            position += 1
            bytesRead += 1
            if b == quote { break }
            if b == 0x26 {
                try decodeReference(into: &out)
                if out.count > limits.maxValueBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
                continue
            }
            if b == 0x3C { throw XMLStreamError(reason: .unexpected("'<' in an attribute value"), line: line) }
            if b == 0x0A { line += 1 }
            out.append(b)
            if out.count > limits.maxValueBytes { throw XMLStreamError(reason: .tooLarge, line: line) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// After '&': one of the five predefined entities or a numeric reference; nothing else.
    private func decodeReference(into out: inout [UInt8]) throws {
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
                out.append(decoded)
                return
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
        case "lt": out.append(0x3C)
        case "gt": out.append(0x3E)
        case "amp": out.append(0x26)
        case "quot": out.append(0x22)
        case "apos": out.append(0x27)
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
            out.append(contentsOf: Array(String(Character(unicode)).utf8))
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
