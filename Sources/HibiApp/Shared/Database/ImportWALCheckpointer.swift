/// Keeps SQLite's WAL bounded while an import's transactions commit without checkpointing
/// (`Database.bulkTransaction(autoCheckpoint: false)`): after each batch a passive checkpoint runs on
/// another pooled connection, beside the writer's next batch, on another thread. A checkpoint that runs
/// beside a writer never finishes the WAL (the batch being written is always past it), and SQLite only
/// starts the WAL over when all of it is in the database file; so once the WAL passes `restartFrames`,
/// the importer waits for the last batch's few frames to be copied too, and its next write starts the
/// WAL from the beginning. Commits are as durable as before: a checkpoint only copies committed pages.
/// Shared by the imports that write in batches: Apple Health's and the location history's.
struct ImportWALCheckpointer {
    let database: Database
    /// 8192 frames of 4 KB by default: the WAL stays near 32 MB plus a batch or two.
    let restartFrames: Int
    private var running: Task<(frames: Int, checkpointed: Int)?, any Error>?

    init(database: Database, restartFrames: Int = 8192) {
        self.database = database
        self.restartFrames = restartFrames
    }

    /// After each committed batch, before the next one starts. A checkpoint that fails costs no data (the
    /// pages stay in the WAL, and the next checkpoint, this one's or any connection's, copies them), so it
    /// does not fail the import.
    mutating func committed() async {
        var frames = 0
        if let task = running {
            running = nil
            frames = (try? await task.value)??.frames ?? 0
        }
        if frames >= restartFrames {
            _ = try? await database.checkpointWAL()
            return
        }
        let database = database
        running = Task { try await database.checkpointWAL() }
    }

    /// Once the import is in (or stopped): the WAL is left checkpointed, not at its largest.
    mutating func finish() async {
        if let task = running {
            running = nil
            _ = try? await task.value
        }
        _ = try? await database.checkpointWAL()
    }
}
