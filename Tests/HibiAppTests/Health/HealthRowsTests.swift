import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// The Health rows read as their row types (issue 30, item 3) on the test's engine, where a column can be NULL: a profile
/// with nothing optional filled in reads back as nothing (not 0 or an empty name), a full one as written (the name opened
/// from its sealed bytes), and a route point without an elevation keeps none.
@Suite(.serialized) struct HealthRowsTests {
    @Test func aProfileReadsBackWithItsNullsAndItsSealedName() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let profiles = core.features.health.service.profiles
            #expect(try await profiles.get(userID: aiko.id) == HealthProfile())
            let bare = HealthProfile(units: UnitPreferences(weight: .lb, distance: .mi, energy: .kJ))
            try await profiles.save(bare, userID: aiko.id, now: Date())
            #expect(try await profiles.get(userID: aiko.id) == bare)
            let full = HealthProfile(name: "田中 愛子", birthDate: "1990-04-01", heightCm: 162.5, targetWeightKg: 55.25, units: UnitPreferences())
            try await profiles.save(full, userID: aiko.id, now: Date())
            #expect(try await profiles.get(userID: aiko.id) == full)
            let row = try #require(try await core.database.sql.select().column("*").from("health_profiles").where("user_id", .equal, aiko.id)
                .first(decoding: HealthProfileRow.self))
            #expect(row.nameSealed.map { !$0.isEmpty && String(decoding: $0, as: UTF8.self) != "田中 愛子" } == true)
            #expect(try await profiles.get(userID: ken.id) == HealthProfile())
        }
    }

    @Test func aRoutePointWithoutElevationHasNone() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let sql = core.database.sql
            try await sql.insert(into: "health_workouts")
                .columns("id", "user_id", "activity", "start_at", "end_at", "duration_min", "distance_km", "energy_kcal", "device", "details", "created_at")
                .values(SQLBind("w1"), SQLBind(aiko.id), SQLBind("running"), SQLBind(Int64(1_714_550_400)), SQLBind(Int64(1_714_552_200)),
                        SQLBind(30.0), SQLBind(Double?.none), SQLBind(Double?.none), SQLBind("Watch"), SQLBind(String?.none), SQLBind(Int64(1_714_552_200)))
                .run()
            let points = [WorkoutRoutePoint(t: 1_714_550_400, lat: 35.681236, lon: 139.767125, ele: nil),
                          WorkoutRoutePoint(t: 1_714_550_460, lat: 35.6815, lon: 139.7675, ele: 12.5)]
            #expect(try await HealthWorkoutStore.insertPoints(points, workoutID: "w1", userID: aiko.id, on: sql) == 2)
            let store = core.features.health.service.workoutStore
            #expect(try await store.route(workoutID: "w1", userID: aiko.id) == points)
            #expect(try await store.route(workoutID: "w1", userID: ken.id).isEmpty)
        }
    }
}
