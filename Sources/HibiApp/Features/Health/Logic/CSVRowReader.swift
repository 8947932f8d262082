import Foundation

/// RFC 4180 rows from bytes fed a buffer at a time (quoted fields with commas, doubled quotes and line
/// breaks; CRLF or LF), for a Strava export's `activities.csv`, which has no size bound of its own. SwiftCSV,
/// the listed CSV package the other imports use, parses a whole `String` held in memory (`CSV(string:)`,
/// `EnumeratedCSV(string:)`) and has no incremental input, so a 200 MB export would be 200 MB of text and more
/// of rows; this reader holds one row. Bounded per row: a field of at most `maxFieldBytes`, a row of at most
/// `maxFields` fields. Pure: bytes in, rows out.
public struct CSVRowReader {
    public enum Failure: Error, Equatable, Sendable {
        /// A quote where RFC 4180 has none (after a closing quote), or a quoted field never closed. `record` counts from 1, the header included.
        case misplacedQuote(record: Int)
        case fieldTooLong(record: Int)
        case tooManyFields(record: Int)
    }

    public static let maxFieldBytes = 1 << 20
    public static let maxFields = 1000

    private var field: [UInt8] = []
    private var row: [String] = []
    private var quoted = false
    /// Inside a quoted field, a quote was just read: the next byte says whether it was doubled or closing.
    private var quotePending = false
    /// The current field was quoted and has closed: only a separator or a line end may follow.
    private var closed = false
    /// Records emitted so far.
    public private(set) var records = 0

    public init() {}

    /// Reads `bytes`, calling `emit` with each row it completes.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: ([String]) throws -> Void) throws {
        for byte in bytes {
            if quoted {
                if quotePending {
                    quotePending = false
                    if byte == UInt8(ascii: "\"") { try append(byte); continue }
                    quoted = false
                    closed = true
                    // Falls through: the byte after a closing quote is read as outside quotes.
                } else if byte == UInt8(ascii: "\"") {
                    quotePending = true
                    continue
                } else {
                    try append(byte)
                    continue
                }
            }
            switch byte {
            case UInt8(ascii: ","):
                try endField()
            case UInt8(ascii: "\n"):
                try endField()
                try endRow(emit)
            case UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\""):
                guard field.isEmpty, !closed else { throw Failure.misplacedQuote(record: records + 1) }
                quoted = true
            default:
                guard !closed else { throw Failure.misplacedQuote(record: records + 1) }
                try append(byte)
            }
        }
    }

    /// The last row, when the file does not end with a line break.
    public mutating func finish(_ emit: ([String]) throws -> Void) throws {
        if quoted && !quotePending { throw Failure.misplacedQuote(record: records + 1) }
        quoted = false
        quotePending = false
        if !field.isEmpty || !row.isEmpty || closed {
            try endField()
            try endRow(emit)
        }
    }

    private mutating func append(_ byte: UInt8) throws {
        guard field.count < Self.maxFieldBytes else { throw Failure.fieldTooLong(record: records + 1) }
        field.append(byte)
    }

    private mutating func endField() throws {
        guard row.count < Self.maxFields else { throw Failure.tooManyFields(record: records + 1) }
        row.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        closed = false
    }

    private mutating func endRow(_ emit: ([String]) throws -> Void) throws {
        let done = row
        row.removeAll(keepingCapacity: true)
        // A blank line is no record (Strava ends the file with one).
        if done.count == 1 && done[0].isEmpty { return }
        records += 1
        try emit(done)
    }
}
