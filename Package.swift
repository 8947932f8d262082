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
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "SQLKit", package: "sql-kit"),
            .product(name: "SQLiteKit", package: "sqlite-kit"),
            .product(name: "PostgresKit", package: "postgres-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "MultipartKit", package: "multipart-kit"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "SwiftCSV", package: "SwiftCSV"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "HibiAppTests",
        dependencies: [
            "HibiApp",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            // Snapshot tests of representative pages, images and API answers (issue 12, item 7).
            .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
            // An embedded channel gives a page's request context without a server.
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ],
        exclude: ["Snapshots/__Snapshots__"],
        swiftSettings: swiftSettings
    ),
]

// BEGIN face targets (owned by the face engine work)
// Native code is built optimised even in debug builds: dlib's templates are unusably slow at -O0.
// Needs scripts/setup-face.sh (Debian libdlib-dev, libjpeg/libpng/libwebp, OpenBLAS, and the ONNX
// Runtime C header in vendor/onnxruntime/include; libonnxruntime.so is dlopen'ed from models/).
// dlib's HOG scanner is compiled into the shim from headers; AVX2/FMA make detection ~25% faster.
// Hibi is built on the machine that runs it, so use them when this machine has them.
import Foundation
let faceHostHasAVX2 = ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" avx2")
    && ProcessInfo.processInfo.environment["HIBI_PORTABLE_BUILD"] == nil
let faceNativeFlags = ["-O3", "-Wno-deprecated-declarations"] + (faceHostHasAVX2 ? ["-mavx2", "-mfma"] : [])
targets += [
    .target(
        name: "CDlibShim",
        cSettings: [.unsafeFlags(["-O2"])],
        cxxSettings: [.unsafeFlags(faceNativeFlags)],
        linkerSettings: [
            .linkedLibrary("dlib"), .linkedLibrary("lapack"), .linkedLibrary("blas"),
            .linkedLibrary("jpeg"), .linkedLibrary("png"), .linkedLibrary("webp"), .linkedLibrary("pthread"),
        ]
    ),
    .target(
        name: "COnnxRuntime",
        cSettings: [.unsafeFlags(["-O2"])],
        linkerSettings: [.linkedLibrary("dl")]
    ),
    .target(
        name: "FaceEngine",
        dependencies: [
            "CDlibShim", "COnnxRuntime",
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "FaceEngineTests",
        dependencies: ["FaceEngine"],
        swiftSettings: swiftSettings
    ),
]
// The server and the diary use the engine: the CLI for `hibi face`, HibiApp for moods, enrollment and unlock.
for name in ["hibi", "HibiApp"] {
    if let index = targets.firstIndex(where: { $0.name == name }) {
        targets[index].dependencies.append("FaceEngine")
    }
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
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        // Webhooks: its dnsOverride lets a request connect to the address Hibi checked, with TLS still
        // verifying the host name, so a DNS answer that changes between check and connect cannot
        // turn a webhook towards this server's own network. (Also what HummingbirdTesting uses.)
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // Helper programs (ffprobe, ffmpeg, rsvg-convert) awaited without blocking a thread, with output and time limits.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // Health CSV import: RFC 4180 with quoted newlines, so an export always reads back.
        .package(url: "https://github.com/swiftcsv/SwiftCSV.git", from: "0.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing.git", from: "1.19.7"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: targets
)
