import Foundation

/// Every page address of the visits feature, in one place: routes are registered with the same
/// functions links and redirects use (given `":id"`-style placeholders), so a link cannot point at a
/// path no route serves.
public enum VisitPaths {
    public static let list = "/visits"
    public static let new = "/visits/new"
    public static let verify = "/visits/verify"
    public static let places = "/visits/places"
    public static let transfer = "/visits/transfer"
    public static let webhook = "/visits/webhook"
    public static let webhookSend = "/visits/webhook/send"
    public static let stays = "/visits/stays"
    public static let staySettings = "/visits/stays/settings"
    /// Saved places (Google Maps' "Saved Places"): places without a visit time.
    public static let savedPlaces = "/visits/saved-places"

    public static func visit(_ id: String) -> String { list + "/\(id)" }
    public static func edit(_ id: String) -> String { visit(id) + "/edit" }
    public static func delete(_ id: String) -> String { visit(id) + "/delete" }
    public static func confirmStay(_ id: String) -> String { stays + "/\(id)/confirm" }
    public static func dismissStay(_ id: String) -> String { stays + "/\(id)/dismiss" }
    public static func savedPlaceVisit(_ id: String) -> String { savedPlaces + "/\(id)/visit" }
    public static func deleteSavedPlace(_ id: String) -> String { savedPlaces + "/\(id)/delete" }
    public static func savedPlacesPage(_ page: Int) -> String { page <= 1 ? savedPlaces : savedPlaces + "?page=\(page)" }
    public static let savedPlaceDeleted = savedPlaces + "?deleted=1"

    /// A visit's page after it was saved (with the notice).
    public static func saved(_ id: String) -> String { visit(id) + "?saved=1" }
    public static let deleted = list + "?deleted=1"
    public static let stayConfirmed = stays + "?confirmed=1"
    public static let stayDismissed = stays + "?dismissed=1"

    /// The list of visits near a place (radius in kilometres).
    public static func near(latitude: Double, longitude: Double, radiusKilometres: Double = 0.2) -> String {
        list + "?near=\(latitude),\(longitude)&radius=\(radiusKilometres)"
    }
}

/// Every address of the visits and location-history JSON API, relative to `APIPaths.root`: the routes are
/// registered with these (given `":id"`-style placeholders) and the pages' scripts are pointed at them;
/// `APIPathsTests` holds them to Resources/openapi/visits.json and locations.json.
public enum VisitAPIPaths {
    public static let visits = "/visits"
    public static func visit(_ id: String) -> String { visits + "/\(id)" }
    public static func history(_ id: String) -> String { visit(id) + "/history" }
    public static func photos(_ id: String) -> String { visit(id) + "/photos" }
    public static func photo(_ id: String, _ photoID: String) -> String { photos(id) + "/\(photoID)" }
    public static let map = visits + "/map"
    public static let stats = visits + "/stats"
    public static let verify = visits + "/verify"
    public static let chain = visits + "/chain"
    public static let export = visits + "/export"
    public static let importFile = visits + "/import"
    public static let webhook = visits + "/webhook"
    public static let webhookSend = webhook + "/send"
    /// Saved places (Google Maps' "Saved Places"): places without a visit time.
    public static let savedPlaces = visits + "/saved-places"
    public static func savedPlace(_ id: String) -> String { savedPlaces + "/\(id)" }
    public static func savedPlaceVisits(_ id: String) -> String { savedPlace(id) + "/visits" }

    /// The location history: imports, detected stays and their settings.
    public static let locationImport = "/locations/import"
    public static let stays = "/locations/stays"
    public static func confirmStay(_ id: String) -> String { stays + "/\(id)/confirm" }
    public static func dismissStay(_ id: String) -> String { stays + "/\(id)/dismiss" }
    public static let staySettings = "/locations/settings"
    /// The two phone endpoints, which authenticate themselves (see `LocationAPIRoutes.deviceUser`).
    public static let ownTracks = "/locations/owntracks"
    public static let overland = "/locations/overland"
}
