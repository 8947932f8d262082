import Foundation

/// The stay-point method (Li et al., 2008; the one scikit-mobility and Dawarich use): from an anchor
/// point, take the following points while they stay within D metres of it; if the last of them is at
/// least T after the anchor, those points are a stay (their centroid, from the anchor's time to the
/// last one's) and the next anchor is the first point outside; otherwise the anchor moves one on.
///
/// Fed one point at a time, in time order, so a million points or a phone's live feed cost only the
/// current window: once a window has lasted T it is a stay whatever comes next, and only its sums
/// are kept. Pure: no clock, no I/O.
public struct StayDetector: Sendable {
    public let settings: StaySettings
    /// A silence longer than this ends a window: a phone that said nothing for a day is not known to
    /// have stayed put. Shorter gaps inside the radius are a stay (a phone asleep at home).
    public let maxGap: Int64

    /// Points from the anchor on, not yet decided (`buffer[start]` is the anchor).
    private var buffer: [LocationPoint] = []
    private var start = 0
    /// `buffer[start + 1 ..< scanned]` are known to lie within D of the anchor.
    private var scanned = 0
    /// Set once the window has lasted T: from then on only its sums are kept.
    private var established: Established?

    struct Established: Sendable {
        var anchor: LocationPoint
        var last: LocationPoint
        var sumLat: Double
        var sumLon: Double
        var count: Int
    }

    public init(settings: StaySettings, maxGap: Int64 = 12 * 3600) {
        self.settings = settings
        self.maxGap = maxGap
    }

    public static func detect(_ points: [LocationPoint], settings: StaySettings, maxGap: Int64 = 12 * 3600) -> [StayCandidate] {
        var detector = StayDetector(settings: settings, maxGap: maxGap)
        var stays: [StayCandidate] = []
        for point in points { stays += detector.add(point) }
        stays += detector.finish()
        return stays
    }

    /// The anchor's time: points before it can no longer change what is found.
    public var pendingSince: Int64? { held?.arrival ?? established?.anchor.time ?? (start < buffer.count ? buffer[start].time : nil) }

    /// The last stay found, held back while the next one might be the same stay split in two: the
    /// method cuts a stay when jitter carries a point just past D from an anchor at the circle's edge
    /// (the first point of the arrival), and the rest of the stay then forms a second window.
    private var held: StayCandidate?

    /// Adds the next point (in time order; an earlier one is ignored) and returns the stays it completed.
    public mutating func add(_ point: LocationPoint) -> [StayCandidate] {
        var out: [StayCandidate] = []
        for stay in core(point) {
            if let previous = held, canMerge(previous, stay) {
                held = Self.merge(previous, stay)
            } else {
                if let previous = held { out.append(previous) }
                held = stay
            }
        }
        // Offered once the person is away from it (a point further than D from its centre), unless a
        // stay under way at the same place may still join it.
        if let previous = held,
           Geo.distance(lat1: previous.latitude, lon1: previous.longitude, lat2: point.latitude, lon2: point.longitude) > settings.distanceMeters,
           !(established.map { Geo.distance(lat1: previous.latitude, lon1: previous.longitude, lat2: $0.anchor.latitude, lon2: $0.anchor.longitude)
               <= settings.distanceMeters } ?? false) {
            out.append(previous)
            held = nil
        }
        return out
    }

    private func canMerge(_ a: StayCandidate, _ b: StayCandidate) -> Bool {
        b.arrival &- a.departure <= maxGap
            && Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude) <= settings.distanceMeters
    }

    static func merge(_ a: StayCandidate, _ b: StayCandidate) -> StayCandidate {
        let total = max(1, a.pointCount &+ b.pointCount)
        let wa = Double(max(a.pointCount, 0)) / Double(total), wb = Double(max(b.pointCount, 0)) / Double(total)
        return StayCandidate(arrival: min(a.arrival, b.arrival), departure: max(a.departure, b.departure),
                             latitude: VisitRules.roundCoordinate(a.latitude * wa + b.latitude * wb),
                             longitude: VisitRules.roundCoordinate(a.longitude * wa + b.longitude * wb), pointCount: a.pointCount &+ b.pointCount,
                             name: a.name ?? b.name)
    }

    /// The method itself, before split stays are joined.
    private mutating func core(_ point: LocationPoint) -> [StayCandidate] {
        if var stay = established {
            guard point.time >= stay.last.time else { return [] }
            if point.time &- stay.last.time <= maxGap, within(stay.anchor, point) {
                stay.last = point
                stay.sumLat += point.latitude
                stay.sumLon += point.longitude
                stay.count &+= 1
                established = stay
                return []
            }
            established = nil
            reset(with: point)
            return [Self.candidate(stay)]
        }
        if let last = buffer.last {
            guard point.time >= last.time else { return [] }
            // Nothing links the points before a long silence to those after: they were not a stay.
            if point.time &- last.time > maxGap {
                reset(with: point)
                return []
            }
        }
        buffer.append(point)
        var completed: [StayCandidate] = []
        settle(into: &completed)
        return completed
    }

    /// The data ended: a window that already lasted T is a stay, and a held stay is given. (A live
    /// feed does not call this: its last stay is still going on.)
    public mutating func finish() -> [StayCandidate] {
        defer { established = nil; buffer = []; start = 0; scanned = 0; held = nil }
        let last = established.map(Self.candidate)
        switch (held, last) {
        case let (previous?, last?): return canMerge(previous, last) ? [Self.merge(previous, last)] : [previous, last]
        case let (previous?, nil): return [previous]
        case let (nil, last?): return [last]
        case (nil, nil): return []
        }
    }

    private func within(_ anchor: LocationPoint, _ point: LocationPoint) -> Bool {
        Geo.distance(lat1: anchor.latitude, lon1: anchor.longitude, lat2: point.latitude, lon2: point.longitude) <= settings.distanceMeters
    }

    private mutating func reset(with point: LocationPoint) {
        buffer = [point]
        start = 0
        scanned = 1
    }

    /// Runs the method as far as the points so far decide it.
    private mutating func settle(into completed: inout [StayCandidate]) {
        while start < buffer.count {
            let anchor = buffer[start]
            if scanned <= start { scanned = start + 1 }
            while scanned < buffer.count, within(anchor, buffer[scanned]) { scanned += 1 }
            if scanned == buffer.count {
                // Every point is still within D: a stay once it has lasted T, else undecided.
                if let newest = buffer.last, newest.time &- anchor.time >= settings.durationSeconds {
                    var sumLat = 0.0, sumLon = 0.0
                    for p in buffer[start...] { sumLat += p.latitude; sumLon += p.longitude }
                    established = Established(anchor: anchor, last: newest, sumLat: sumLat, sumLon: sumLon, count: buffer.count - start)
                    buffer = []
                    start = 0
                    scanned = 0
                }
                compact()
                return
            }
            // buffer[scanned] left the anchor's circle: the points before it were a stay, or the anchor moves on.
            let lastInside = buffer[scanned - 1]
            if lastInside.time &- anchor.time >= settings.durationSeconds {
                var sumLat = 0.0, sumLon = 0.0
                for p in buffer[start..<scanned] { sumLat += p.latitude; sumLon += p.longitude }
                completed.append(Self.candidate(Established(anchor: anchor, last: lastInside, sumLat: sumLat, sumLon: sumLon, count: scanned - start)))
                buffer.removeFirst(scanned)
                start = 0
                scanned = 1
                continue
            }
            start += 1
            scanned = start + 1
        }
    }

    private mutating func compact() {
        if start > 1024, start * 2 > buffer.count {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
    }

    private static func candidate(_ stay: Established) -> StayCandidate {
        let count = max(stay.count, 1)
        return StayCandidate(arrival: stay.anchor.time, departure: stay.last.time, latitude: VisitRules.roundCoordinate(stay.sumLat / Double(count)),
                             longitude: VisitRules.roundCoordinate(stay.sumLon / Double(count)), pointCount: stay.count)
    }
}

/// What becomes of a stay that was found: already known, covered by a visit, or offered, and under
/// which name. Pure: the caller looks up the stays and visits nearby.
public enum StayOffer {
    public enum Decision: Equatable, Sendable {
        /// A stay overlapping it in time at the same place is already stored (offered, confirmed or dismissed).
        case known
        /// A visit at this place during the stay (or half an hour either side) already records it.
        case merged(visitID: String)
        case offer
    }

    /// Visits this long before arrival or after departure still count as the same stay.
    public static let visitSlack: Int64 = 30 * 60

    public struct Place: Sendable, Equatable {
        public var id: String
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var time: Int64
        public init(id: String, name: String, latitude: Double, longitude: Double, time: Int64) {
            self.id = id
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.time = time
        }
    }

    /// How near two centres must be to be the same place: twice the stay radius (two circles of D that touch).
    static func sameplace(_ settings: StaySettings) -> Double { max(2 * settings.distanceMeters, 50) }

    public static func decide(_ stay: StayCandidate, settings: StaySettings, storedStays: [(arrival: Int64, departure: Int64, latitude: Double, longitude: Double)],
                              visits: [Place]) -> Decision {
        let near = sameplace(settings)
        for other in storedStays where other.arrival <= stay.departure && other.departure >= stay.arrival
            && Geo.distance(lat1: stay.latitude, lon1: stay.longitude, lat2: other.latitude, lon2: other.longitude) <= near {
            return .known
        }
        let from = stay.arrival &- visitSlack, to = stay.departure &+ visitSlack
        if let visit = visits.first(where: { $0.time >= from && $0.time <= to
            && Geo.distance(lat1: stay.latitude, lon1: stay.longitude, lat2: $0.latitude, lon2: $0.longitude) <= near }) {
            return .merged(visitID: visit.id)
        }
        return .offer
    }

    /// The source's own name, else the name of the nearest earlier visit within D, else the coordinates.
    public static func name(for stay: StayCandidate, settings: StaySettings, knownPlaces: [Place]) -> String {
        if let name = stay.name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty { return name }
        let nearest = knownPlaces
            .map { ($0, Geo.distance(lat1: stay.latitude, lon1: stay.longitude, lat2: $0.latitude, lon2: $0.longitude)) }
            .filter { $0.1 <= settings.distanceMeters }
            .min { $0.1 < $1.1 }
        if let nearest { return nearest.0.name }
        return String(format: "%.5f, %.5f", stay.latitude, stay.longitude)
    }
}
