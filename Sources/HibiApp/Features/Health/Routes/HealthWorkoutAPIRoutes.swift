import Foundation
import Hummingbird

/// Workout routes as map tracks (the visits map draws them): `GET /api/v1/health/workouts/routes`.
struct HealthWorkoutAPIRoutes: Sendable {
    let health: HealthService

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get(RouterPath(HealthAPIPaths.workoutRoutes), use: workoutRoutes)
    }

    @Sendable func workoutRoutes(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let q = request.uri.formQuery
        var bounds: [Date?] = []
        for name in ["from", "to"] {
            guard let text = q.get(name), !text.isEmpty else { bounds.append(nil); continue }
            guard let date = HealthCSV.parseTime(text) else {
                throw HealthError.invalidField(name, Text(en: "use an ISO-8601 time such as 2024-05-01T00:00:00Z",
                                                          ja: "2024-05-01T00:00:00Z のような ISO-8601 形式で指定してください"))
            }
            bounds.append(date)
        }
        let limit = try QueryNumber.strict(q.get("limit"), name: "limit", range: 1...WorkoutTracks.maxRoutes) ?? WorkoutTracks.defaultRoutes
        return JSONBody(try await health.workoutTracks(user: context.user, from: bounds[0], to: bounds[1], limit: limit))
    }
}
