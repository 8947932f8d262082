// libFuzzer target: the streaming XML reader, with and without text, under tight limits.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for reportsText in [false, true] {
        let reader = XMLStreamReader(stream: MemoryByteStream(bytes), bufferSize: 7,
                                     limits: XMLLimits(maxValueBytes: 512, maxTagBytes: 2048, maxAttributes: 16, maxDepth: 16),
                                     reportsText: reportsText)
        var events = 0
        while let _ = try? reader.nextEvent() {
            events += 1
            if events > 100_000 { fatalError("more events than bytes can make") }
        }
    }
    return 0
}
