// libFuzzer target: Range / If-Range / If-None-Match handling of video streaming.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let sizes: [Int64] = [0, 1, 1000, Int64.max]
    for fileSize in sizes {
        _ = ByteRanges.decide(range: parts.first, ifRange: parts.count > 1 ? parts[1] : nil,
                              ifNoneMatch: parts.count > 2 ? parts[2] : nil, ifModifiedSince: parts.count > 3 ? parts[3] : nil,
                              etag: "\"abc\"", lastModified: Date(timeIntervalSince1970: 1_700_000_000), size: fileSize)
    }
    return 0
}
