import Foundation
import Testing
@testable import HibiApp

/// The import's fast paths (bytes instead of strings) give exactly what the string paths give.
struct HealthImportSpeedTests {
    static let records = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!ATTLIST Record type CDATA #REQUIRED>
    ]>
    <HealthData locale="ja_JP">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Aiko’s iPhone" sourceVersion="17.4.1" device="&lt;&lt;HKDevice: 0x283a4c0a0&gt;, name:iPhone&gt;" unit="count" creationDate="2024-01-02 07:09:09 +0900" startDate="2024-01-02 07:08:09 +0900" endDate="2024-01-02 07:09:09 +0900" value="42"/>
     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-01-02 07:08:09 +0900" endDate="2024-01-02 07:08:09 +0900" value="72.5">
      <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
     </Record>
     <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Health" unit="lb" startDate="2024-01-03 07:00:00 +0000" endDate="2024-01-03 07:00:00 +0000" value="132.2"/>
     <Record type="HKQuantityTypeIdentifierBodyFatPercentage" sourceName="Health" unit="%" startDate="2024-01-03 07:00:00Z" value="0.215"/>
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2024-01-02 00:00:00 +0900" endDate="2024-01-02 06:30:00 +0900" value="HKCategoryValueSleepAnalysisAsleepCore"/>
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2024-01-02 00:00:00 +0900" endDate="2024-01-02 06:30:00 +0900" value="1"/>
     <Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="Watch" startDate="2024-01-02 12:00:00 +0900" endDate="2024-01-02 12:10:00 +0900"/>
     <Record type="HKQuantityTypeIdentifierDietaryFatTotal" sourceName="App" unit="g" startDate="2024-01-02 12:00:00 +09:00" endDate="2024-01-02 12:00:00 +09:00" value="21.37"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="2024-01-02 12:00:00 +0900" value="nan"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="2024-01-02 12:00:00 +0900" value="1e3"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="2024-01-02 12:00:00 +0900"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="soon" value="3"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="1066-10-14 09:00:00 +0000" value="3"/>
     <Record sourceName="A" unit="count" startDate="2024-01-02 12:00:00 +0900" value="3"/>
     <Record type="HKQuantityTypeIdentifierStepCount" type="HKQuantityTypeIdentifierFlightsClimbed" sourceName="A &amp; B" unit="count" startDate="2024-01-02 12:00:00 +0900" value="-0"/>
     <Record type="HKQuantityTypeIdentifierWalkingSpeed" sourceName="A" unit="km/hr" startDate="2024-01-02 12:00:00 +0900" value="+4.25"/>
    </HealthData>
    """

    /// Every `<Record>`'s attributes, read as strings with `nextEvent()` (the reference) and as bytes.
    func recordsBothWays(bufferSize: Int) throws -> [(strings: AppleHealthMapping.RecordFields, bytes: AppleHealthMapping.RecordFields)] {
        let reference = XMLStreamReader(stream: MemoryByteStream(Self.records), bufferSize: bufferSize)
        let fast = XMLStreamReader(stream: MemoryByteStream(Self.records), bufferSize: bufferSize)
        var strings = AppleHealthStrings()
        var out: [(AppleHealthMapping.RecordFields, AppleHealthMapping.RecordFields)] = []
        while let event = try reference.nextEvent() {
            let token = try fast.nextToken()
            guard case let .start(name, attributes) = event else { continue }
            #expect(token == .start(name: name))
            #expect(fast.attributes.materialized == attributes)
            if name == "Record" {
                out.append((AppleHealthMapping.RecordFields(attributes: attributes), AppleHealthMapping.RecordFields(fast.attributes, strings: &strings)))
            }
        }
        #expect(try fast.nextToken() == nil)
        #expect(fast.bytesRead == reference.bytesRead && fast.line == reference.line)
        return out
    }

    @Test func recordsReadAsBytesMakeTheSameDraftsAsFromStrings() throws {
        for size in [1, 2, 3, 7, 64, 4096] {
            let pairs = try recordsBothWays(bufferSize: size)
            #expect(pairs.count == 16)
            for (strings, bytes) in pairs {
                let a = AppleHealthMapping.parseRecord(strings, metadata: [("k", "v")])
                let b = AppleHealthMapping.parseRecord(bytes, metadata: [("k", "v")])
                switch (a, b) {
                case let (.kept(x), .kept(y)): #expect(x == y, "buffer \(size)")
                case let (.skipped(x), .skipped(y)): #expect(x == y, "buffer \(size)")
                default: Issue.record("kept one way, skipped the other: \(strings.type) at buffer \(size)")
                }
            }
        }
        // Known answers for a few.
        let pairs = try recordsBothWays(bufferSize: 4096)
        func kept(_ i: Int) -> HealthRecordDraft? {
            if case let .kept(draft) = AppleHealthMapping.parseRecord(pairs[i].bytes, metadata: []) { return draft }
            return nil
        }
        #expect(kept(0) == HealthRecordDraft(type: "steps", value: 42, unit: "count", start: 1_704_146_889, end: 1_704_146_949, device: "Aiko’s iPhone"))
        #expect(kept(2)?.value == 132.2 * 0.45359237 && kept(2)?.unit == "kg")
        #expect(kept(4)?.category == "AsleepCore" && kept(4)?.value == 6.5)
        #expect(kept(5)?.category == "1")
        #expect(kept(6)?.category == "" && kept(6)?.value == 10 && kept(6)?.unit == "min")
        #expect(kept(7)?.value == 21.37 && kept(7)?.type == "HKQuantityTypeIdentifierDietaryFatTotal")
        #expect(kept(9)?.value == 1000)
        #expect(kept(14)?.type == "HKQuantityTypeIdentifierFlightsClimbed" && kept(14)?.device == "A & B")
        for (i, reason) in [(8, ImportSkipReason.outOfRange), (10, .missingValue), (11, .unparseableDate), (12, .outOfRange), (13, .missingValue)] {
            guard case let .skipped(found) = AppleHealthMapping.parseRecord(pairs[i].bytes, metadata: []) else {
                Issue.record("record \(i) should be skipped")
                continue
            }
            #expect(found == reason, "record \(i)")
        }
    }

    func number(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { AppleHealthMapping.parseNumber(bytes: $0) }
    }

    @Test func numbersReadFromBytesAreDoubleStringsOwn() {
        let cases = ["0", "-0", "7", "72", "72.5", "0.0312", "0.1", "0.2", "0.3", "132.2", "65.4", "1.000", "00012", "999999999999999",
                     "9999999999999999", "12345678901234567890", "0.123456789012345", "0.1234567890123456789", "3.14159265358979",
                     "1e3", "1E-2", "+5", "-4.5", ".5", "5.", "-", "", ".", "1..2", "1.2.3", "nan", "inf", "-inf", "0x1p3", " 1", "1 ", "1,5",
                     "HKCategoryValueSleepAnalysisAsleepCore", "0.0000000000000000000001", "123456.789012"]
        for text in cases {
            let expected = Double(text)
            let found = number(text)
            if let expected, expected.isNaN {
                #expect(found?.isNaN == true, "\(text)")
            } else {
                #expect(found == expected && found?.sign == expected?.sign, "\(text)")
            }
        }
        // Decimals as the export writes them (up to 15 digits): the bit pattern is Double(String)'s.
        var generator = SplitMix(seed: 17)
        for _ in 0..<20000 {
            let integer = generator.next() % 1_000_000
            let fractionDigits = Int(generator.next() % 8)
            var text = String(integer)
            if fractionDigits > 0 {
                let fraction = generator.next() % UInt64(pow(10, Double(fractionDigits)))
                let digits = String(fraction)
                text += "." + String(repeating: "0", count: fractionDigits - digits.count) + digits
            }
            if generator.next() % 4 == 0 { text = "-" + text }
            #expect(number(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test func datesReadFromBytesHaveKnownAnswers() {
        func date(_ text: String) -> Int64? {
            var text = text
            return text.withUTF8 { AppleHealthMapping.parseDate(bytes: $0) }
        }
        #expect(date("2024-01-02 07:08:09 +0900") == 1_704_146_889)
        #expect(date("2024-01-01 22:08:09 +0000") == 1_704_146_889)
        #expect(date("2024-01-01T22:08:09Z") == 1_704_146_889)
        #expect(date("2024-01-01 17:08:09 -05:00") == 1_704_146_889)
        #expect(date("1970-01-01") == 0)
        #expect(date("2000-02-29 00:00:00 +0000") == 951_782_400)
        for bad in ["", "2024", "2024-13-01 00:00:00 +0000", "2024-01-00", "2024-01-02 07:08", "2024-01-02 07:08:09 +09", "soon", "2024-01-02x"] {
            #expect(date(bad) == nil, "\(bad)")
            #expect(AppleHealthMapping.parseDate(bad) == nil, "\(bad)")
        }
    }

    @Test func sharedStringsAreTheBytesTheyWereMadeFrom() {
        var strings = AppleHealthStrings()
        var made: [String] = []
        for i in 0..<5000 {
            var text = "HKQuantityTypeIdentifier\(i % 3000)"
            let shared = text.withUTF8 { strings.shared($0) }
            #expect(shared == text)
            made.append(shared)
        }
        var invalid: [UInt8] = [0x41, 0xFF, 0x42]
        let repaired = invalid.withUnsafeMutableBufferPointer { strings.shared(UnsafeBufferPointer($0)) }
        #expect(repaired == String(decoding: [0x41, 0xFF, 0x42] as [UInt8], as: UTF8.self))
        #expect(made.count == 5000)
    }

    /// Values and names at their caps, at every buffer size from 1 to 4096: the same bytes, errors and lines.
    @Test func limitsHoldAtEveryBufferSize() throws {
        let limits = XMLLimits(maxValueBytes: 40, maxTagBytes: 200, maxAttributes: 4, maxDepth: 8)
        let fits = "<a>\n<b v=\"" + String(repeating: "x", count: 39) + "&amp;\" w='&#x1F600;\n'/>\n</a>"
        let valueTooLong = "<a>\n<b v=\"" + String(repeating: "x", count: 40) + "&amp;\"/>\n</a>"
        let lessThanAfterCap = "<a>\n<b v=\"" + String(repeating: "x", count: 41) + "<\"/>\n</a>"
        let tooMany = "<a>\n<b a='1' b='2' c='3' d='4' e='5'/>\n</a>"
        let longName = "<a " + String(repeating: "n", count: 4097) + "='1'/>"
        let nameAtCap = "<a " + String(repeating: "n", count: 4096) + "='1'/>"
        let badName = "<a n\"='1'/>"
        for size in 1...4096 {
            let reader = XMLStreamReader(stream: MemoryByteStream(fits), bufferSize: size, limits: limits)
            var events: [XMLEvent] = []
            while let event = try reader.nextEvent() { events.append(event) }
            #expect(events == [.start(name: "a", attributes: []),
                               .start(name: "b", attributes: [XMLAttribute("v", String(repeating: "x", count: 39) + "&"), XMLAttribute("w", "😀\n")]),
                               .end(name: "b"), .end(name: "a")], "buffer \(size)")
            #expect(reader.line == 4 && reader.bytesRead == Int64(fits.utf8.count), "buffer \(size)")
            func failure(_ text: String, _ limits: XMLLimits) -> XMLStreamError? {
                let reader = XMLStreamReader(stream: MemoryByteStream(text), bufferSize: size, limits: limits)
                do {
                    while try reader.nextToken() != nil {}
                    return nil
                } catch {
                    return error as? XMLStreamError
                }
            }
            #expect(failure(valueTooLong, limits) == XMLStreamError(reason: .tooLarge, line: 2), "buffer \(size)")
            #expect(failure(lessThanAfterCap, limits) == XMLStreamError(reason: .tooLarge, line: 2), "buffer \(size)")
            #expect(failure(tooMany, limits) == XMLStreamError(reason: .tooLarge, line: 2), "buffer \(size)")
            if size % 97 == 1 || size > 4090 {
                #expect(failure(longName, XMLLimits()) == XMLStreamError(reason: .tooLarge, line: 1), "buffer \(size)")
                #expect(failure(nameAtCap, XMLLimits()) == nil, "buffer \(size)")
            }
            #expect(failure(badName, limits) == XMLStreamError(reason: .unexpected("character in a name"), line: 1), "buffer \(size)")
        }
    }

    /// The raw view answers by name without strings, and is emptied by the next token.
    @Test func attributesAreReadByNameAsBytes() throws {
        let reader = XMLStreamReader(stream: MemoryByteStream("<r><Record type=\"steps\" value='12'/></r>"), bufferSize: 3)
        #expect(try reader.nextToken() == .start(name: "r"))
        #expect(reader.attributes.count == 0)
        #expect(try reader.nextToken() == .start(name: "Record"))
        let tag = reader.attributes
        #expect(tag.count == 2 && tag.nameIs(0, "type") && !tag.nameIs(0, "typ") && tag.nameIs(1, "value"))
        #expect(tag.string(named: "value") == "12" && tag.string(named: "unit") == nil)
        #expect(try reader.nextToken() == .end(name: "Record"))
        #expect(reader.attributes.count == 0)
        #expect(try reader.nextToken() == .end(name: "r"))
        #expect(try reader.nextToken() == nil)
    }
}
