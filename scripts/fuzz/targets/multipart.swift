// libFuzzer target: the leading-part reader the CSRF check runs on unauthenticated-size bodies.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    for boundary in ["B", "----WebKitFormBoundary7MA4YWxkTrZu0gW", ""] {
        _ = MultipartLeadingField.read(raw, boundary: boundary)
    }
    _ = MultipartHeader.boundary(of: String(decoding: raw, as: UTF8.self))
    return 0
}
