import Foundation

/// Workouts and routes for the other features (the journal's day, the visits map) and the API.
extension HealthService {
    /// The user's workouts that started within `interval`, oldest first.
    public func workouts(user: User, in interval: DateInterval, limit: Int = 500) async throws -> [HealthWorkout] {
        try await workoutStore.list(userID: user.id, from: Int64(saturating: interval.start.timeIntervalSince1970.rounded(.down)),
                                    to: Int64(saturating: interval.end.timeIntervalSince1970.rounded(.up)), limit: limit)
    }

    /// One workout's route in time order; throws not found for a workout that is not the user's.
    public func workoutRoute(user: User, workoutID: String) async throws -> [WorkoutRoutePoint] {
        guard try await workoutStore.exists(id: workoutID, userID: user.id) else { throw HealthError.recordNotFound }
        return try await workoutStore.route(workoutID: workoutID, userID: user.id)
    }

    /// The routes of the workouts that started within [from, to) as map tracks: the newest `limit`
    /// workouts that have a route, each simplified (`WorkoutTracks`); another person's never.
    public func workoutTracks(user: User, from: Date?, to: Date?, limit: Int = WorkoutTracks.defaultRoutes) async throws -> WorkoutTracks.Collection {
        let limit = min(max(limit, 1), WorkoutTracks.maxRoutes)
        let low = from.map { Int64(saturating: $0.timeIntervalSince1970.rounded(.down)) } ?? Int64.min / 2
        let high = to.map { Int64(saturating: $0.timeIntervalSince1970.rounded(.up)) } ?? Int64.max / 2
        // One more than asked for says whether there are more.
        let found = try await workoutStore.listWithRoutes(userID: user.id, from: low, to: high, limit: limit + 1)
        var routes: [(workout: HealthWorkout, route: [WorkoutRoutePoint])] = []
        for workout in found.prefix(limit) {
            routes.append((workout, try await workoutStore.route(workoutID: workout.id, userID: user.id)))
        }
        return WorkoutTracks.collection(routes, truncated: found.count > limit)
    }
}
