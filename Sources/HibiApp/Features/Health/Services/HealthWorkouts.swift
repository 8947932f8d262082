import Foundation

/// Workouts and routes for the other features (the journal's day, the visits map) and the API.
extension HealthService {
    /// The user's workouts that started within `interval`, oldest first.
    public func workouts(user: User, in interval: DateInterval, limit: Int = 500) async throws -> [HealthWorkout] {
        try await workoutStore.list(userID: user.id, from: Int64(interval.start.timeIntervalSince1970.rounded(.down)),
                                    to: Int64(interval.end.timeIntervalSince1970.rounded(.up)), limit: limit)
    }

    /// One workout's route in time order; throws not found for a workout that is not the user's.
    public func workoutRoute(user: User, workoutID: String) async throws -> [WorkoutRoutePoint] {
        guard try await workoutStore.exists(id: workoutID, userID: user.id) else { throw HealthError.recordNotFound }
        return try await workoutStore.route(workoutID: workoutID, userID: user.id)
    }
}
