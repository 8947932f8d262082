import Foundation
import Hummingbird

/// The installable app's service worker. It is served at /sw.js, not under /static, because a worker only
/// controls pages under its own path; it is read once at start (a small file that changes with a release).
struct AppShellRoutes: Sendable {
    let serviceWorker: String?

    init(resourcesDirectory: String) {
        let path = ((resourcesDirectory as NSString).appendingPathComponent("web") as NSString).appendingPathComponent("sw.js")
        serviceWorker = try? String(contentsOfFile: path, encoding: .utf8)
    }

    func register(on router: some RouterMethods<HibiRequestContext>) {
        let script = serviceWorker
        router.get("/sw.js") { _, _ in
            guard let script else { return Response(status: .notFound) }
            // no-cache: the browser checks for a new worker on every visit, so an upgrade reaches phones.
            return Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                            body: .init(byteBuffer: ByteBuffer(string: script)))
        }
    }
}
