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

    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, outputLimit: Int,
                    timeout: Duration) async throws(Failure) -> Result {
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    let program = Executable.path(FilePath(executable))
                    // Two calls because the input's type is part of `run`'s signature.
                    let result = if let input {
                        try await Subprocess.run(program, arguments: Arguments(arguments), input: .data(input),
                                                 output: .data(limit: outputLimit), error: .discarded)
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
