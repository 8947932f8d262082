import Testing
@testable import HibiApp

struct AppleTypeNameTests {
    @Test func appleIdentifiersReadAsWords() {
        #expect(HealthDataType.title(of: "HKQuantityTypeIdentifierBodyMassIndex").en == "Body mass index")
        #expect(HealthDataType.title(of: "BodyMassIndex").ja == "BMI")
        #expect(HealthDataType.title(of: "HKQuantityTypeIdentifierFlightsClimbed").ja == "上った階数")
        #expect(HealthDataType.title(of: "HKQuantityTypeIdentifierNumberOfTimesFallen").en == "Number of times fallen")
        #expect(AppleTypeNames.spaced("UVExposure") == "UV exposure")
        #expect(AppleTypeNames.spaced("VO2Max") == "VO2 max")
        #expect(HealthDataType.title(of: "weight").en == "Weight")
    }
}
