import Foundation
import Hummingbird
import NIOCore

/// Responses that carry a person's files: photos, exports, archives. One place decides their headers, so
/// every feature's downloads are private (`no-store`) and name their file the same way.
enum FileResponse {
    /// A private image shown inline (diary and visit photos): never cached by a shared cache or the browser.
    static func privateImage(_ data: Data, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "private, no-store"],
                 body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A download saved under `filename` (ASCII names chosen by Hibi, never by the user).
    static func attachment(_ data: Data, contentType: String, filename: String) -> Response {
        Response(status: .ok, headers: headers(contentType: contentType, filename: filename), body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A download written as it is produced (ZIP archives), so a large one never sits in memory.
    static func streamedAttachment(contentType: String, filename: String,
                                   write: @escaping @Sendable (_ emit: (Data) async throws -> Void) async throws -> Void) -> Response {
        Response(status: .ok, headers: headers(contentType: contentType, filename: filename), body: ResponseBody { writer in
            try await write { chunk in try await writer.write(ByteBuffer(bytes: chunk)) }
            try await writer.finish(nil)
        })
    }

    private static func headers(contentType: String, filename: String) -> HTTPFields {
        [.contentType: contentType, .cacheControl: "no-store", .contentDisposition: "attachment; filename=\"\(filename)\""]
    }
}
