import Foundation
import Testing
@testable import HibiApp

/// The one runner for helper programs: output back, input in, and the limits that keep a broken file
/// from hanging a request or filling memory.
struct ChildProcessTests {
    @Test func inputGoesInAndOutputComesBack() async throws {
        let result = try await ChildProcess.run("/bin/cat", [], input: Data("日記\n".utf8), outputLimit: 1024, timeout: .seconds(10))
        #expect(result.succeeded)
        #expect(String(decoding: result.output, as: UTF8.self) == "日記\n")
        let failed = try await ChildProcess.run("/bin/sh", ["-c", "exit 3"], outputLimit: 1024, timeout: .seconds(10))
        #expect(failed.exitCode == 3)
    }

    /// ffmpeg giving up on a damaged photo stops reading its input; the runner used to trap (the whole
    /// server with it) when the unread input's pipe was left open. Several in a row, since the trap came
    /// from a descriptor's deinit and not from every run.
    @Test func aChildThatStopsReadingItsInputIsNotACrash() async throws {
        for _ in 0..<5 {
            let result = try await ChildProcess.run("/bin/sh", ["-c", "head -c 10 >/dev/null; echo done"],
                                                    input: Data(count: 4 << 20), outputLimit: 1024, timeout: .seconds(20))
            #expect(result.succeeded)
            #expect(String(decoding: result.output, as: UTF8.self) == "done\n")
        }
        let refused = try await ChildProcess.run("/bin/true", [], input: Data(count: 4 << 20), outputLimit: 1024, timeout: .seconds(20))
        #expect(refused.succeeded)
    }

    @Test func aChildThatRunsTooLongIsKilledAtItsLimit() async throws {
        let started = ContinuousClock.now
        await #expect(throws: ChildProcess.Failure.timedOut) {
            _ = try await ChildProcess.run("/bin/sleep", ["300"], outputLimit: 1024, timeout: .milliseconds(300))
        }
        // Not a timing assertion on speed: only that the five-minute child did not run to its end (a
        // machine busy with the rest of the suite can delay the timer by tens of seconds).
        #expect(ContinuousClock.now - started < .seconds(240))
    }

    @Test func endlessOutputStopsAtTheLimit() async throws {
        await #expect(throws: ChildProcess.Failure.outputTooLarge) {
            _ = try await ChildProcess.run("/usr/bin/yes", [], outputLimit: 64 * 1024, timeout: .seconds(20))
        }
    }

    @Test func aMissingProgramSaysSo() async throws {
        await #expect(throws: ChildProcess.Failure.cannotStart) {
            _ = try await ChildProcess.run("/nonexistent/ffprobe", [], outputLimit: 1024, timeout: .seconds(5))
        }
    }
}
