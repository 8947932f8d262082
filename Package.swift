// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

var targets: [Target] = [
    .executableTarget(
        name: "hibi",
        dependencies: [
            "HibiApp",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "HibiApp",
        dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "SQLKit", package: "sql-kit"),
            .product(name: "SQLiteKit", package: "sqlite-kit"),
            .product(name: "PostgresKit", package: "postgres-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "MultipartKit", package: "multipart-kit"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "HibiAppTests",
        dependencies: [
            "HibiApp",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ],
        swiftSettings: swiftSettings
    ),
]

// BEGIN face targets (owned by the face engine work)
// dlib's detector and shape predictor are header templates: unoptimised they run ~10x slower, so the
// shim is always compiled with -O2, also in debug builds.
// Until the lead wires FaceEngine into hibi, the face targets exist only when HIBI_FACE_ENGINE=1, so
// that a half-built engine never breaks the main build (and `canImport(FaceEngine)` stays false there).
if Context.environment["HIBI_FACE_ENGINE"] == "1" {
targets += [
    .target(
        name: "CDlibShim",
        path: "Sources/CDlibShim",
        cxxSettings: [.unsafeFlags(["-O2", "-Wno-deprecated-declarations"])],
        linkerSettings: [
            .linkedLibrary("dlib"), .linkedLibrary("blas"), .linkedLibrary("lapack"),
            .linkedLibrary("jpeg"), .linkedLibrary("png"), .linkedLibrary("webp"), .linkedLibrary("pthread"),
        ]
    ),
    .target(
        name: "COnnxRuntime",
        path: "Sources/COnnxRuntime",
        cSettings: [.unsafeFlags(["-O2"])],
        linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
    ),
    .target(
        name: "FaceEngine",
        dependencies: ["CDlibShim", "COnnxRuntime"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "FaceEngineTests",
        dependencies: ["FaceEngine"],
        swiftSettings: swiftSettings
    ),
    // Measurement tool for Benchmarks/face.sh and Benchmarks/face-eval (threshold, stage timings).
    .executableTarget(
        name: "face-eval",
        dependencies: ["FaceEngine"],
        path: "Benchmarks/face-eval/FaceEval",
        swiftSettings: swiftSettings
    ),
]
}
// END face targets

let package = Package(
    name: "hibi",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hibi", targets: ["hibi"]),
        .library(name: "HibiApp", targets: ["HibiApp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
    ],
    targets: targets
)
