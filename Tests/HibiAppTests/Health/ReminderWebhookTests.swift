import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing
@testable import HibiApp

/// The webhook sender against a tiny local HTTP listener.
@Suite(.serialized) struct ReminderWebhookTests {
    final class Inbox: Sendable {
        let bodies = Mutex<[String]>([])
        let port = Mutex<Int?>(nil)
    }

    @Test func aDueReminderIsPostedOnceEvenAcrossRestarts() async throws {
        let inbox = Inbox()
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 65536)
            inbox.bodies.withLock { $0.append(String(buffer: body)) }
            return .ok
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in inbox.port.withLock { $0 = channel.localAddress?.port } },
                              logger: TestApp.quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            var listening: Int?
            for _ in 0..<100 where listening == nil {
                try await Task.sleep(for: .milliseconds(20))
                listening = inbox.port.withLock { $0 }
            }
            let hookPort = try #require(listening)

            let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
            let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                          language: nil, now: Date())
            // The receiver is on loopback, which webhooks reach only where the administrator allowed it.
            let outbound = OutboundHTTP(allowedNetworks: [IPRange("127.0.0.1")].compactMap { $0 })
            let health = HealthService(database: core.database, box: core.box, outbound: outbound, logger: TestApp.quietLogger)
            let zone = TimeZone(identifier: user.timeZone) ?? .gmt
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let now = Date()
            let minute = calendar.component(.hour, from: now) * 60 + calendar.component(.minute, from: now)
            let reminder = try await health.createReminder(user: user, time: ReminderSchedule.formatTime(minute), weekdays: [],
                                                           message: "体重を記録しましょう", webhookURL: "http://127.0.0.1:\(hookPort)/hook", now: now)
            _ = try await health.createReminder(user: user, time: ReminderSchedule.formatTime((minute + 180) % 1440), weekdays: [],
                                                message: "later", webhookURL: "http://127.0.0.1:\(hookPort)/hook", now: now)

            let sender = ReminderSender(reminders: health.reminders, outbound: outbound, logger: TestApp.quietLogger)
            #expect(await sender.tick(now: now.addingTimeInterval(30)) == 1)
            #expect(await sender.tick(now: now.addingTimeInterval(50)) == 0)
            // A "restarted" sender reads the claimed slot from the database.
            let restarted = ReminderSender(reminders: HealthReminderStore(database: core.database), outbound: outbound, logger: TestApp.quietLogger)
            #expect(await restarted.tick(now: now.addingTimeInterval(55)) == 0)
            let bodies = inbox.bodies.withLock { $0 }
            #expect(bodies.count == 1)
            #expect(bodies.first?.contains("体重を記録しましょう") == true)
            #expect(bodies.first?.contains(reminder.id) == true)
            await core.database.shutdown()
            group.cancelAll()
        }
    }
}
