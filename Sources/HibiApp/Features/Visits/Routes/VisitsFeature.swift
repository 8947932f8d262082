import Foundation
import Hummingbird

/// Wires the visits feature from the shared core; one line in `buildApplication(core:)`.
public struct VisitsFeature: Sendable {
    public let service: VisitService
    let signer: VisitSigner
    let tileURL: String
    let bodyLimit: Int
    let heavyWork: HeavyWork

    public init(core: AppCore) {
        heavyWork = core.heavyWork
        signer = VisitSigner(database: core.database, box: core.box, dataDirectory: core.config.dataDirectory, logger: core.logger)
        service = VisitService(database: core.database, box: core.box, signer: signer, webhook: ChainHeadWebhook(outbound: core.outbound),
                               logger: core.logger)
        tileURL = core.config.mapTileURL
        bodyLimit = core.config.maxRequestBodyBytes
    }

    func register(router: Router<HibiRequestContext>, api: RouterGroup<HibiRequestContext>) {
        VisitWebRoutes(visits: service, signer: signer, tileURL: tileURL).register(on: router)
        VisitAPIRoutes(visits: service, bodyLimit: bodyLimit, heavyWork: heavyWork).register(on: api)
    }
}

extension VisitsFeature {
    /// The verify sentence in English, for the command line.
    public static func message(_ report: ChainReport) -> String {
        VisitStrings.verifyMessage(report, language: .en)
    }
}
