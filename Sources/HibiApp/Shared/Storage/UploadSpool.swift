import Foundation
import NIOCore
import NIOPosix

/// The one way a large upload reaches the disk (videos, Apple Health exports): streamed chunk by chunk
/// into a new private file, counted against its limit and the person's quota as it arrives, written on
/// NIO's thread pool so a slow disk never stalls the event loop reading the socket. On any failure the
/// partial file is removed, so nothing half-written is left behind.
enum UploadSpool {
    enum Failure: Error, Equatable {
        case cannotCreate
        /// More than the route's limit (in bytes).
        case tooLarge(limit: Int64)
        /// More than the person may still store.
        case overQuota
        /// The client stopped before its declared length, or the connection broke.
        case incomplete
        case empty
    }

    /// - Returns: the new file's path and its size.
    static func receive<Body: AsyncSequence & Sendable>(_ body: Body, into directory: String, suffix: String, expectedLength: Int64? = nil,
                                                        limit: Int64, quotaLeft: Int64? = nil) async throws(Failure) -> (path: String, bytes: Int64)
    where Body.Element == ByteBuffer {
        if let expectedLength, expectedLength > limit { throw .tooLarge(limit: limit) }
        if let expectedLength, let quotaLeft, expectedLength > quotaLeft { throw .overQuota }
        // A random name: two uploads (or two instances sharing the folder) never write the same file.
        let path = (directory as NSString).appendingPathComponent(UUID().uuidString.lowercased() + suffix)
        guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil,
              FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else { throw .cannotCreate }
        var written: Int64 = 0
        do {
            defer { try? handle.close() }
            for try await chunk in body {
                written += Int64(chunk.readableBytes)
                if written > limit { throw Failure.tooLarge(limit: limit) }
                if let quotaLeft, written > quotaLeft { throw Failure.overQuota }
                try await NIOThreadPool.singleton.runIfActive {
                    try chunk.withUnsafeReadableBytes { try handle.write(contentsOf: Data($0)) }
                }
            }
            if let expectedLength, written != expectedLength { throw Failure.incomplete }
            if written == 0 { throw Failure.empty }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw (error as? Failure) ?? .incomplete
        }
        return (path, written)
    }
}
