import Foundation
import Testing
@testable import HibiApp

struct NiceScaleTests {
    @Test func ticksAreRoundNumbersCoveringTheData() {
        let steps = NiceScale(low: 3163.6, high: 17_000)
        #expect(steps.step == 5000)
        #expect(steps.ticks == [0, 5000, 10_000, 15_000, 20_000])
        let weight = NiceScale(low: 61.2, high: 64.9)
        #expect(weight.step == 1)
        #expect(weight.ticks == [61, 62, 63, 64, 65])
        let fine = NiceScale(low: 0.1, high: 0.9)
        #expect(fine.step == 0.2)
        #expect(fine.ticks == [0, 0.2, 0.4, 0.6, 0.8, 1])
        #expect(fine.fractionDigits == 1)
        #expect(NiceScale(low: 0, high: 10).step == 2.5)
        #expect(NiceScale(low: 0, high: 10).fractionDigits == 1)
    }

    @Test func aFlatSeriesStillGetsAnAxis() {
        let flat = NiceScale(low: 70, high: 70)
        #expect(flat.low < 70 && flat.high > 70)
        #expect(flat.ticks.count >= 2)
        #expect(NiceScale(low: .nan, high: .infinity).ticks.count >= 2)
    }

    @Test func chartLabelsAreRoundAndFitTheirMargin() throws {
        let day = 86_400.0
        let points = (0..<30).map { TrendPoint(date: Date(timeIntervalSince1970: 1_717_200_000 + Double($0) * day), value: 3163.6 + Double($0) * 460, movingAverage: 3163.6 + Double($0) * 460) }
        let svg = HealthGraphics.chart(points: points, unit: "steps", display: { $0 }, language: .en, title: "Steps")
        let labels = svg.components(separatedBy: "class=\"y-label\"").dropFirst().compactMap { part in
            part.split(separator: ">", maxSplits: 1).last?.split(separator: "<").first.map(String.init)
        }
        #expect(labels == ["0", "5,000", "10,000", "15,000", "20,000"])
        // The widest label ends 6 units left of the plot, whose left edge leaves room for its six characters.
        #expect(svg.contains("x=\"47.0\" y=") && svg.contains("text-anchor=\"end\" font-size=\"11\" fill=\"#6b7280\">20,000"))
        // A week: every day labelled; the last label, at the right edge, is anchored at its end so it is not cut off.
        let week = HealthGraphics.chart(points: Array(points.prefix(7)), unit: "steps", display: { $0 }, language: .en, title: "Steps")
        let lastX = try #require(week.components(separatedBy: "class=\"x-label\"").last)
        #expect(lastX.hasPrefix(" x=\"628.0\"") && lastX.contains("text-anchor=\"end\""))
        let firstX = try #require(week.components(separatedBy: "class=\"x-label\"").dropFirst().first)
        #expect(firstX.contains("text-anchor=\"start\""))
    }
}
