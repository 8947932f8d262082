import Foundation
import NIOCore
import Testing
@testable import HibiApp

/// The pieces that keep a hostile input bounded, tested alone.
struct XMLReaderBoundsTests {
    func events(_ text: String, limits: XMLLimits = XMLLimits(), text reportsText: Bool = false) throws -> [XMLEvent] {
        let reader = XMLStreamReader(stream: MemoryByteStream(text), bufferSize: 5, limits: limits, reportsText: reportsText)
        var result: [XMLEvent] = []
        while let event = try reader.nextEvent() { result.append(event) }
        return result
    }

    @Test func terminatorsAfterAnExtraBracketOrDashEndTheSectionAndNothingIsSwallowed() throws {
        // "]]]>" and "--->" end a CDATA section and a comment; the naive matcher read on and swallowed <b/>.
        #expect(try events("<a><![CDATA[x]]]><b/></a>") == [.start(name: "a", attributes: []), .start(name: "b", attributes: []),
                                                            .end(name: "b"), .end(name: "a")])
        #expect(try events("<a><!-- x ---><b/></a>").count == 4)
        #expect(try events("<a><?pi x??><b/></a>").count == 4)
        #expect(try events("<a><![CDATA[x]]]>y</a>", text: true) == [.start(name: "a", attributes: []), .text("x]y"), .end(name: "a")])
    }

    @Test func textIsReportedDecodedOnlyWhenAskedFor() throws {
        let xml = "<a> <b>1 &lt; 2 &#x263A;</b><c><![CDATA[<raw>&amp;]]></c></a>"
        #expect(try events(xml, text: true) == [
            .start(name: "a", attributes: []), .start(name: "b", attributes: []), .text("1 < 2 ☺"), .end(name: "b"),
            .start(name: "c", attributes: []), .text("<raw>&amp;"), .end(name: "c"), .end(name: "a"),
        ])
        #expect(try events(xml).count == 6)
        #expect(throws: XMLStreamError(reason: .undefinedEntity("x"), line: 1)) { try events("<a>&x;</a>", text: true) }
    }

    @Test func everySizeIsBoundedWhileReading() {
        let limits = XMLLimits(maxValueBytes: 100, maxTagBytes: 300, maxAttributes: 4, maxDepth: 8)
        let long = String(repeating: "v", count: 101)
        #expect(throws: XMLStreamError(reason: .tooLarge, line: 1)) { try events("<a x=\"\(long)\"/>", limits: limits) }
        #expect(throws: XMLStreamError(reason: .tooLarge, line: 1)) { try events("<a>\(long)</a>", limits: limits, text: true) }
        #expect(throws: XMLStreamError(reason: .tooLarge, line: 1)) { try events("<a><![CDATA[\(long)]]></a>", limits: limits, text: true) }
        let many = (0..<5).map { "a\($0)=\"1\"" }.joined(separator: " ")
        #expect(throws: XMLStreamError(reason: .tooLarge, line: 1)) { try events("<a \(many)/>", limits: limits) }
        let wide = (0..<4).map { "a\($0)=\"\(String(repeating: "w", count: 90))\"" }.joined(separator: " ")
        #expect(throws: XMLStreamError(reason: .tooLarge, line: 1)) { try events("<a \(wide)/>", limits: limits) }
        #expect(throws: XMLStreamError(reason: .tooDeep, line: 1)) { try events(String(repeating: "<a>", count: 9), limits: limits) }
        // An entity-heavy value is bounded by its decoded size too.
        let refs = String(repeating: "&#x41;", count: 101)
        #expect(throws: XMLStreamError(reason: .tooLarge, line: 1)) { try events("<a x=\"\(refs)\"/>", limits: limits) }
    }

    @Test func gpxWithDTDsEntitiesAndDeepNestingIsReadOrRefusedWithALine() throws {
        let attlist = try VisitFormats.parseGPX(Data(CrashAttackTests.attlistGPX.utf8))
        #expect(attlist.count == 1)
        #expect(attlist.first?.name == "Shrine & garden")
        #expect(attlist.first?.notes == "steps ]]> and gates")
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <gpx><wpt lat="1" lon="2"><time>2024-05-01T09:30:00Z</time><name>&b;</name></wpt></gpx>
            """
        #expect(throws: VisitError.self) { try VisitFormats.parseGPX(Data(laughs.utf8)) }
        let deep = "<gpx>" + String(repeating: "<e>", count: 200) + String(repeating: "</e>", count: 200) + "</gpx>"
        #expect(throws: VisitError.self) { try VisitFormats.parseGPX(Data(deep.utf8)) }
        let huge = "<gpx><wpt lat=\"1\" lon=\"2\"><name>" + String(repeating: "n", count: 200_000) + "</name></wpt></gpx>"
        #expect(throws: VisitError.self) { try VisitFormats.parseGPX(Data(huge.utf8)) }
    }
}

struct MultipartLeadingFieldTests {
    func read(_ text: String, boundary: String = "B") -> MultipartLeadingField {
        Array(text.utf8).withUnsafeBytes { MultipartLeadingField.read($0, boundary: boundary) }
    }

    @Test func findsTheFirstTextPartOrSaysWhatIsMissing() {
        let full = "--B\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\ntoken-123\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n..."
        #expect(read(full) == .field(name: "_csrf", value: "token-123"))
        #expect(read("\r\n" + full) == .field(name: "_csrf", value: "token-123"))
        for cut in [1, 3, 10, 40, 55, 60] { #expect(read(String(full.prefix(cut))) == .incomplete, "\(cut)") }
        #expect(read("--X\r\n") == .invalid)
        #expect(read("--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nbytes") == .invalid)
        #expect(read("--B\r\nContent-Type: text/plain\r\n\r\nvalue\r\n--B") == .invalid)
        #expect(read("--B\r\n" + String(repeating: "h", count: 3000)) == .invalid)
        #expect(read("") == .incomplete)
    }
}

struct QueryBoundsTests {
    @Test func pagesAreClampedOnTheWebAndCheckedInTheAPI() throws {
        #expect(PageRequest.web(page: "9223372036854775807", perPage: 20) == PageRequest(page: PageRequest.maxPage, perPage: 20))
        #expect(PageRequest.web(page: "-5", perPage: 20).page == 1)
        #expect(PageRequest.web(page: "abc", perPage: 20).page == 1)
        #expect(PageRequest(page: .max, perPage: .max).offset == (PageRequest.maxPage - 1) * PageRequest.maxPerPage)
        #expect(throws: RequestError.self) { try PageRequest.api(page: "9223372036854775807", perPage: nil, defaultPerPage: 20, maxPerPage: 200) }
        #expect(throws: RequestError.self) { try PageRequest.api(page: "1", perPage: "201", defaultPerPage: 20, maxPerPage: 200) }
        #expect(try PageRequest.api(page: nil, perPage: nil, defaultPerPage: 20, maxPerPage: 200) == PageRequest(page: 1, perPage: 20))
    }

    @Test func datesFromFormsStayInRange() {
        #expect(VisitQuery.parseDay("2024-13-01", timeZone: .gmt, endOfDay: false) == nil)
        #expect(VisitQuery.parseDay("2024-01-9223372036854775807", timeZone: .gmt, endOfDay: false) == nil)
        #expect(VisitViews.parseLocalInput("2024-05-01T9223372036854775807:00", timeZone: .gmt) == nil)
        #expect(VisitViews.parseLocalInput("2024-05-01T09:30", timeZone: .gmt) != nil)
        #expect(MoodAnalytics.monthGrid(year: 2024, month: 13, days: [], timeZone: .gmt).weeks.isEmpty)
        #expect(MoodAnalytics.daysIn(year: 2024, month: 2) == 29 && MoodAnalytics.daysIn(year: 1900, month: 2) == 28)
    }
}

struct StorageBoundsTests {
    @Test func streamsPerPersonAreCountedAndReleasedWithTheirBody() throws {
        let slots = StreamSlots(perUser: 2)
        var first: StreamSlots.Ticket? = try slots.take(userID: "aiko")
        let second = try slots.take(userID: "aiko")
        #expect(throws: VideoError.tooManyStreams(limit: 2)) { try slots.take(userID: "aiko") }
        #expect(slots.count(userID: "ken") == 0)
        _ = try slots.take(userID: "ken")  // dropped at once: released
        #expect(slots.count(userID: "ken") == 0)
        first = nil
        #expect(first == nil && slots.count(userID: "aiko") == 1)
        withExtendedLifetime(second) {}
    }

    @Test func theQuotaRefusesADeclaredLengthThatDoesNotFit() async throws {
        let quota = StorageQuota(limit: 1000, usages: [{ _ in 600 }, { _ in 300 }])
        #expect(try await quota.remaining(userID: "aiko", declaredLength: 100) == 100)
        await #expect(throws: RequestError.quotaExceeded(limitBytes: 1000)) { try await quota.remaining(userID: "aiko", declaredLength: 101) }
        #expect(try await StorageQuota(limit: nil, usages: []).remaining(userID: "aiko", declaredLength: .max) == nil)
        let full = StorageQuota(limit: 1000, usages: [{ _ in .max }, { _ in .max }])
        await #expect(throws: RequestError.quotaExceeded(limitBytes: 1000)) { try await full.remaining(userID: "aiko", declaredLength: nil) }
    }
}

/// One escaper writes HTML, SVG and GPX; what it writes must read back.
struct MarkupEscapeTests {
    @Test func aVisitNamedWithQuotesAmpersandsAndAControlCharacterExportsAsGPXThatReadsBack() throws {
        let fields = VisitFields(visitedAt: Date(timeIntervalSince1970: 1_800_000_000), latitude: 35.68, longitude: 139.76,
                                 name: "Tom's \"Café\" & <Bar>\u{01}", labels: ["a&b"], notes: "line one\nline two")
        let visit = Visit(id: "v1", userID: "u1", fields: fields, photos: [], createdAt: fields.visitedAt, updatedAt: fields.visitedAt, revision: 1)
        let back = try VisitFormats.parseGPX(VisitFormats.gpx([visit]))
        #expect(back.count == 1)
        #expect(back.first?.name == "Tom's \"Café\" & <Bar>", "the control character is dropped, everything else kept")
        #expect(back.first?.notes == "line one\nline two")
        #expect(escapeHTML("<a href='x'>&</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;")
    }

    /// A `"` followed by a combining mark (U+0301) is one Character: compared Character by Character, the escaper let
    /// the quote through, and a visit's name closed the edit form's `value="…"` and added attributes of its own.
    @Test func aQuoteWithACombiningMarkDoesNotCloseAnAttribute() async throws {
        let hostile = "Caf\"\u{301} autofocus onfocus=alert(1) x=\"\u{301}<\u{338}script>"
        @Sendable func hasRawQuote(_ text: String) -> Bool {  // `"` then U+0301, as UTF-8 bytes (not compared as Characters)
            let bytes = Array(text.utf8)
            return bytes.indices.dropLast(2).contains { bytes[$0] == 0x22 && bytes[$0 + 1] == 0xCC && bytes[$0 + 2] == 0x81 }
        }
        #expect(escapeHTML(hostile) == "Caf&quot;\u{301} autofocus onfocus=alert(1) x=&quot;\u{301}&lt;\u{338}script&gt;")
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let name = String(decoding: try JSONEncoder().encode(hostile), as: UTF8.self)
            let visit = try await VisitTestApp.create(api, #"{"name":\#(name),"latitude":35.68,"longitude":139.76,"visitedAt":"2024-05-01T09:30:00Z"}"#)
            for path in ["/visits/\(visit.id)/edit", "/visits/\(visit.id)", "/visits"] {
                let page = try await browser.get(path)
                #expect(page.status == .ok, "\(path)")
                #expect(!hasRawQuote(page.body), "\(path) holds the quote unescaped")
                #expect(!page.body.contains("<\u{338}script"), "\(path)")
            }
        }
    }
}

/// Issue 13, item 9: photos are judged by their structure, not their first bytes.
struct ImageHeaderTests {
    @Test func realImagesReadWithTheirSize() {
        for (data, format) in [(TestImages.jpeg, ImageInfo.Format.jpeg), (TestImages.png, .png), (TestImages.webp, .webp), (TestImages.gif, .gif)] {
            #expect(ImageHeader.read(data) == ImageInfo(format: format, width: 3, height: 2), "\(format)")
        }
    }

    @Test func magicBytesAloneTruncatedFilesAndAbsurdSizesAreRefused() {
        #expect(ImageHeader.read(Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("<?php system($_GET['c']); ?>".utf8)) == nil)
        #expect(ImageHeader.read(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: UInt8(7), count: 200))) == nil)
        for image in [TestImages.jpeg, TestImages.png, TestImages.webp, TestImages.gif] {
            #expect(ImageHeader.read(image.prefix(image.count - 6)) == nil, "a truncated file")
        }
        // A PNG whose header claims 100,000 × 100,000 pixels (CRC fixed up so only the size is wrong).
        var huge = [UInt8](TestImages.png)
        huge.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        let crc = CRC32.checksum(huge[12..<29])
        huge.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(ImageHeader.read(Data(huge)) == nil)
        // The same with a wrong CRC is refused as damaged.
        var damaged = [UInt8](TestImages.png)
        damaged[20] ^= 0xFF
        #expect(ImageHeader.read(Data(damaged)) == nil)
        // Bytes after a JPEG's end are allowed (some cameras append data there).
        #expect(ImageHeader.read(TestImages.jpeg + Data("trailer".utf8))?.format == .jpeg)
    }
}
