import Foundation

extension AppleHealthImporter {
    /// The tokenizer alone over an export (XML or ZIP), with the importer's limits: every start and end
    /// tag read (names and values decoded into the reader, not made into strings), nothing mapped or stored. For the benchmark's tokenizer-only figure (against
    /// `xmllint --stream`), so the parse cost is measured apart from the database's.
    public static func scan(path: String) throws -> (events: Int, bytes: Int64) {
        let (stream, _) = try open(path: path)
        let reader = XMLStreamReader(stream: stream, limits: AppleHealthExportParser.limits)
        var events = 0
        while try reader.nextToken() != nil { events &+= 1 }
        return (events, reader.bytesRead)
    }
}
