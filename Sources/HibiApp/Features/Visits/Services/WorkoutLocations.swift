import Foundation
import SQLKit

/// Workout routes (Apple Health) as raw points of the location history: stored like any other point
/// (rounded the same way, so the same second at the same place is one point whichever file brought it),
/// marked with the workout they came from, and seen by stay detection.
extension LocationService {
    /// The `source` of a point a workout's route brought.
    public static func workoutSource(_ workoutID: String) -> String { "workout:\(workoutID)" }

    /// How far around a workout detection looks: a stay that ends as the workout starts, or starts as it
    /// ends, needs the points on either side to be decided.
    static let workoutDetectionMargin: Int64 = 3 * 3600

    /// Stores a workout's route points inside the caller's transaction (the health import commits them
    /// with its checkpoint); returns how many were new.
    public func storeWorkoutPoints(_ points: [LocationPoint], workoutID: String, userID: String, on sql: any SQLDatabase) async throws -> Int {
        guard !points.isEmpty else { return 0 }
        let rounded = points.map { LocationPoint(time: $0.time, latitude: VisitRules.roundCoordinate($0.latitude),
                                                 longitude: VisitRules.roundCoordinate($0.longitude), accuracy: $0.accuracy) }
        return try await LocationPointStore.insert(rounded[...], userID: userID, source: Self.workoutSource(workoutID), importID: nil, on: sql)
    }

    /// Runs stay detection around each span of workout points (overlapping spans merged). A stay still
    /// going on at a window's end is left for a later import or the live feed to finish, so a window
    /// never cuts a stay short. Returns how many stays were offered.
    public func detectAroundWorkouts(userID: String, spans: [ClosedRange<Int64>], now: Date) async throws -> Int {
        let windows = Self.windows(spans, margin: Self.workoutDetectionMargin)
        guard !windows.isEmpty else { return 0 }
        let settings = try await settings(userID: userID)
        var offered = 0
        for window in windows {
            offered += try await detect(userID: userID, from: window.lowerBound, to: window.upperBound, final: false,
                                        source: "apple-health", settings: settings, now: now)
        }
        return offered
    }

    /// Spans widened by `margin` and merged where they touch, in time order. Pure.
    static func windows(_ spans: [ClosedRange<Int64>], margin: Int64) -> [ClosedRange<Int64>] {
        var merged: [ClosedRange<Int64>] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            // Saturating: a time near either end of Int64 widens to that end, never wraps round.
            let low = span.lowerBound >= Int64.min + margin ? span.lowerBound - margin : Int64.min
            let high = span.upperBound <= Int64.max - margin ? span.upperBound + margin : Int64.max
            let widened = low...high
            if let last = merged.last, widened.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, widened.upperBound)
            } else {
                merged.append(widened)
            }
        }
        return merged
    }
}
