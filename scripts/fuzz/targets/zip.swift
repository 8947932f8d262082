// libFuzzer target: the ZIP reader (ZIPFoundation behind Hibi's name, size and bomb checks) on archive bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard let reader = try? ZipReader(data: bytes, maxTotalBytes: 1 << 20) else { return 0 }
    for name in reader.entries.keys.sorted().prefix(8) {
        _ = try? reader.contents(of: name)
    }
    return 0
}
