import Foundation
import Subprocess
import SystemPackage

/// The one way Hibi runs a helper program (ffprobe, ffmpeg, rsvg-convert): through swift-subprocess,
/// which waits without blocking a thread of the cooperative pool, with the output capped and a time
/// limit after which the child is killed, so a broken file can neither hang a request nor fill memory.
enum ChildProcess {
    struct Result: Sendable {
        /// The exit code, or nil when the child was ended by a signal.
        let exitCode: Int32?
        let output: Data

        var succeeded: Bool { exitCode == 0 }
    }

    enum Failure: Error, Equatable {
        /// The program could not be started (missing or not executable).
        case cannotStart
        /// It ran past its time limit and was killed.
        case timedOut
        /// It wrote more than the output limit.
        case outputTooLarge
    }

    /// A child that exits before reading all its input makes the next write raise SIGPIPE, whose default
    /// action ends the whole process (the server, for one damaged photo). Ignored once, process-wide: the
    /// write then fails with EPIPE, which `run` answers. NIO's sockets already avoid the signal per write.
    private static let pipeSignalIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, outputLimit: Int,
                    timeout: Duration) async throws(Failure) -> Result {
        _ = pipeSignalIgnored
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    let program = Executable.path(FilePath(executable))
                    // Two calls because the input's type is part of `run`'s signature.
                    let result = if let input {
                        // The input is written here, not through `input: .data(…)`: when the child exits before
                        // reading all of it (ffmpeg giving up on a damaged photo), swift-subprocess 1.0.2's own
                        // writer throws without closing the pipe and then traps in its deinit ("FileDescriptor
                        // was not closed"), which stopped the whole server. The pipe is closed on every path.
                        try await Subprocess.run(program, arguments: Arguments(arguments), input: .inputWriter,
                                                 output: .data(limit: outputLimit), error: .discarded) { execution in
                            let writer = execution.standardInputWriter
                            do { _ = try await writer.write(Array(input)) } catch {}  // the child stopped reading
                            try? await writer.finish()
                        }
                    } else {
                        try await Subprocess.run(program, arguments: Arguments(arguments), input: .none,
                                                 output: .data(limit: outputLimit), error: .discarded)
                    }
                    if case let .exited(code) = result.terminationStatus {
                        return Result(exitCode: code, output: result.standardOutput)
                    }
                    return Result(exitCode: nil, output: result.standardOutput)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                // The first to finish decides; cancelling the other kills the child if it is still running.
                let first = try await group.next() ?? nil
                group.cancelAll()
                guard let first else { throw Failure.timedOut }
                return first
            }
        } catch let failure as Failure {
            throw failure
        } catch let error as SubprocessError where error.code == .outputLimitExceeded {
            throw .outputTooLarge
        } catch {
            throw .cannotStart
        }
    }
}
