import Foundation
import NIOCore
import Testing
@testable import HibiApp

/// The JSON-lines reader a restore uses instead of JSONDecoder, and the COPY text it writes for PostgreSQL:
/// inputs with known answers, the odd ones included.
struct BackupRowParserTests {
    let columns: [BackupManifest.Column] = [
        .init(name: "t", type: .text), .init(name: "i", type: .integer), .init(name: "r", type: .real),
        .init(name: "b", type: .boolean), .init(name: "x", type: .blob),
    ]

    func parse(_ line: String, _ columns: [BackupManifest.Column]? = nil) -> [BackupValue]? {
        BackupRowCodec.decode(Data(line.utf8), columns: columns ?? self.columns)
    }

    @Test func readsWhatJSONAllowsAndWhatTheEncoderWrites() {
        #expect(parse(#"["a",1,2.5,true,"AAE="]"#) == [.text("a"), .integer(1), .real(2.5), .boolean(true), .blob(Data([0, 1]))])
        #expect(parse(#" [ null , -9223372036854775808 , 1e-05 , false , null ] "#)
            == [.null, .integer(Int64.min), .real(1e-05), .boolean(false), .null])
        // An integer token in a real column is that number; exponents and signs as JSON writes them.
        #expect(parse(#"["",0,-3,true,""]"#) == [.text(""), .integer(0), .real(-3), .boolean(true), .blob(Data())])
        #expect(parse(#"["",0,1.5E+300,true,""]"#) == [.text(""), .integer(0), .real(1.5e300), .boolean(true), .blob(Data())])
        // Every escape JSON has, surrogate pairs included.
        #expect(parse(#"["q\"b\\s\/n\nr\rt\tb\bf\fu\u00e9\ud83c\udf8c",1,1,true,null]"#)?.first
            == .text("q\"b\\s/n\nr\rt\tb\u{08}f\u{0C}u\u{E9}\u{1F38C}"))
        #expect(parse(#"["日々",1,1,true,null]"#)?.first == .text("日々"))
        #expect(parse("[]", []) == [])
    }

    @Test func refusesWhatIsNotJSONOrNotOfTheColumnsKind() {
        let refused = [
            #"["a",1,2.5,true]"#,                    // too few values
            #"["a",1,2.5,true,null,null]"#,          // too many
            #"["a",1.5,2.5,true,null]"#,             // a real in an integer column
            #"["a",9223372036854775808,1,true,null]"#, // past Int64
            #"[1,1,1,true,null]"#,                   // a number in a text column
            #"["a",1,"1",true,null]"#,               // a string in a real column
            #"["a",1,1,1,null]"#,                    // a number in a boolean column
            #"["a",1,1,true,"not base64!"]"#,
            #"["a",01,1,true,null]"#,                // leading zero
            #"["a",1,1.,true,null]"#, #"["a",1,.5,true,null]"#, #"["a",1,1e,true,null]"#, #"["a",1,+1,true,null]"#,
            #"["a",1,1e999,true,null]"#,             // not finite
            #"["a",1,nan,true,null]"#, #"["a",1,0x10,true,null]"#,
            #"["a\u00",1,1,true,null]"#, #"["a\ud83c",1,1,true,null]"#, #"["a\x",1,1,true,null]"#,
            "[\"a\tb\",1,1,true,null]",              // a raw control character in a string
            #"["a",1,1,true,null] x"#, #"["a",1,1,true,null"#, #"["a" 1,1,true,null]"#, "",
            #"["a",1,1,tru,null]"#, #"["a",1,1,true,nul]"#,
        ]
        for line in refused { #expect(parse(line) == nil, "\(line)") }
        // Invalid UTF-8 inside a string.
        var bytes = Array(#"["x",1,1,true,null]"#.utf8)
        bytes[2] = 0xFF
        #expect(BackupRowCodec.decode(Data(bytes), columns: columns) == nil)
    }

    /// Lines exactly as format 1 wrote them (control characters as \u00XX, shortest reals, base64 blobs).
    @Test func linesFormatOneWroteReadBackExactly() {
        let lines: [(String, [BackupValue])] = [
            (#"["\u0000\u001f\"\\ 日々 🎌\n",9223372036854775807,0.30000000000000004,false,"AAH/"]"#,
             [.text("\u{0}\u{1F}\"\\ 日々 🎌\n"), .integer(Int64.max), .real(0.1 + 0.2), .boolean(false), .blob(Data([0, 1, 255]))]),
            (#"[null,null,-0.0,null,null]"#, [.null, .null, .real(-0.0), .null, .null]),
            (#"["a\"",-1,5e-324,true,""]"#, [.text("a\""), .integer(-1), .real(5e-324), .boolean(true), .blob(Data())]),
        ]
        for (line, row) in lines {
            #expect(BackupRowCodec.decode(Data(line.utf8), columns: columns) == row, "\(line)")
        }
    }

    @Test func copyTextEscapesWhatPostgreSQLReadsSpecially() {
        var buffer = ByteBuffer()
        PostgresCopyText.append([.text("a\tb\nc\rd\\e 日"), .integer(-7), .real(1e-05), .boolean(true), .blob(Data([0, 0xAB]))], to: &buffer)
        PostgresCopyText.append([.null, .integer(0), .real(2.5), .boolean(false), .null], to: &buffer)
        #expect(String(buffer: buffer) == "a\\tb\\nc\\rd\\\\e 日\t-7\t1e-05\tt\t\\\\x00ab\n\\N\t0\t2.5\tf\t\\N\n")
    }
}
