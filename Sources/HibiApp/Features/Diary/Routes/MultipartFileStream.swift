import Foundation
import MultipartKit
import NIOCore
import Synchronization

/// The bytes of one file field of a multipart/form-data body, as they arrive: the form's other parts are
/// read and dropped, so a page's upload of any size goes through `UploadSpool` to disk exactly like a
/// raw API upload, and memory holds one network chunk at a time. MultipartKit's parser is incremental;
/// it is fed chunk by chunk here instead of the whole collected body (`MultipartForm.parse`).
struct MultipartFileStream<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    /// The body was not a multipart form the parser can follow.
    struct Invalid: Error {}

    let base: Base
    let boundary: String
    /// The file input's name.
    let field: String
    /// The file's name as the browser sent it, once its part has begun.
    let filename = Filename()

    final class Filename: Sendable {
        let value = Mutex<String?>(nil)
    }

    /// What the parser's callbacks found in the chunk being read.
    final class State {
        var headers: [String: String] = [:]
        var inFile = false
        var fileSeen = false
        var out = ByteBuffer()
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let parser: MultipartParser
        let state: State
        var ended = false

        mutating func next() async throws -> ByteBuffer? {
            while state.out.readableBytes == 0 {
                guard !ended else { return nil }
                guard let chunk = try await base.next() else {
                    ended = true
                    return nil
                }
                do { try parser.execute(chunk) } catch { throw Invalid() }
            }
            defer { state.out = ByteBuffer() }
            return state.out
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let parser = MultipartParser(boundary: boundary)
        let state = State()
        let field = field, filename = filename
        parser.onHeader = { name, value in state.headers[name.lowercased()] = value }
        parser.onBody = { chunk in
            if !state.inFile, !state.fileSeen {
                // The first body bytes of a part: its headers are complete. Only the first file under `field` is kept.
                let disposition = state.headers["content-disposition"] ?? ""
                let name = MultipartForm.parameter("filename", in: disposition)
                state.inFile = MultipartForm.parameter("name", in: disposition) == field && name != nil
                if state.inFile { filename.value.withLock { $0 = name } }
            }
            if state.inFile { state.out.writeBuffer(&chunk) }
        }
        parser.onPartComplete = {
            if state.inFile { state.fileSeen = true }
            state.inFile = false
            state.headers = [:]
        }
        return AsyncIterator(base: base.makeAsyncIterator(), parser: parser, state: state)
    }
}
