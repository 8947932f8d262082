import ArgumentParser

/// Commands of features whose modules are wired into this executable.
let extraCommands: [any ParsableCommand.Type] = [ImportCommand.self, ExportCommand.self, VisitsCommand.self, VideosCommand.self, FaceCommand.self]
