import ArgumentParser
import Foundation
import HibiApp

struct VideosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "videos",
        abstract: "Video library maintenance.",
        subcommands: [Scan.self]
    )

    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan the shared video folder (HIBI_VIDEO_LIBRARY_DIR) now and print what changed.")
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await options.withCore { core in
                let videos = core.features.videos.service
                do {
                    try videos.files.prepare(sweep: false)
                    let result = try await videos.scanLibrary(now: Date())
                    print("added \(result.added), changed \(result.updated), removed \(result.removed), unchanged \(result.unchanged)")
                } catch let error as VideoError {
                    printError(error.message(.en))
                    throw ExitCode.failure
                }
            }
        }
    }
}
