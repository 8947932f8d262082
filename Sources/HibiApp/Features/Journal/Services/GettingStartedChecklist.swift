/// The getting-started checklist on `/`: every feature's first steps, asked through `GettingStartedOffer`
/// in the order the assembly lists them.
struct GettingStartedChecklist: Sendable {
    let offers: [any GettingStartedOffer]

    func checklist(userID: String) async throws -> GettingStarted {
        var steps: [GettingStarted.Step] = []
        for offer in offers { steps += try await offer.gettingStartedSteps(userID: userID) }
        return GettingStarted(steps: steps)
    }
}
