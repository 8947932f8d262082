import Foundation

/// Apple Health exports with the real structure (inline DTD, Me, Records with MetadataEntry,
/// Workout, ActivitySummary), generated so tests never depend on someone's real data.
enum ExportFixtures {
    static let dtd = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!-- HealthKit Export Version: 14 -->
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
    <!ATTLIST HealthData
      locale CDATA #REQUIRED
    >
    <!ELEMENT ExportDate EMPTY>
    <!ATTLIST ExportDate
      value CDATA #REQUIRED
    >
    <!ELEMENT Me EMPTY>
    <!ATTLIST Me
      HKCharacteristicTypeIdentifierDateOfBirth         CDATA #REQUIRED
      HKCharacteristicTypeIdentifierBiologicalSex       CDATA #REQUIRED
    >
    <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
    <!ATTLIST Record
      type          CDATA #REQUIRED
      unit          CDATA #IMPLIED
      value         CDATA #IMPLIED
      sourceName    CDATA #REQUIRED
      startDate     CDATA #REQUIRED
      endDate       CDATA #REQUIRED
    >
    <!ELEMENT MetadataEntry EMPTY>
    <!ATTLIST MetadataEntry key CDATA #REQUIRED value CDATA #REQUIRED>
    ]>

    """

    static func header(locale: String = "ja_JP") -> String {
        dtd + """
        <HealthData locale="\(locale)">
         <ExportDate value="2024-06-01 09:00:00 +0900"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-04-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet"/>

        """
    }

    static func stamp(day: Int, hour: Int, minute: Int = 0) -> String {
        String(format: "2024-05-%02d %02d:%02d:00 +0900", day, hour, minute)
    }

    /// `days` days of data: steps (two devices), weight in lb, heart rate with metadata, sleep, an unknown
    /// type, a workout and an activity summary per day. Counts per day: 8 records.
    static func export(days: Int = 10, extra: String = "") -> String {
        var xml = header()
        for day in 1...days {
            xml += """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Aiko’s iPhone" sourceVersion="17.4" device="&lt;&lt;HKDevice: 0x1&gt;, name:iPhone&gt;" unit="count" creationDate="\(stamp(day: day, hour: 9))" startDate="\(stamp(day: day, hour: 8))" endDate="\(stamp(day: day, hour: 9))" value="\(1000 + day)"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Apple Watch" unit="count" creationDate="\(stamp(day: day, hour: 9))" startDate="\(stamp(day: day, hour: 8))" endDate="\(stamp(day: day, hour: 9))" value="\(1000 + day)"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Health" unit="lb" creationDate="\(stamp(day: day, hour: 7))" startDate="\(stamp(day: day, hour: 7))" endDate="\(stamp(day: day, hour: 7))" value="\(150 - Double(day) * 0.5)"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" creationDate="\(stamp(day: day, hour: 10))" startDate="\(stamp(day: day, hour: 10))" endDate="\(stamp(day: day, hour: 10))" value="72">
              <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
             </Record>
             <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" creationDate="\(stamp(day: day, hour: 7))" startDate="\(stamp(day: day, hour: 0))" endDate="\(stamp(day: day, hour: 6, minute: 30))" value="HKCategoryValueSleepAnalysisAsleepCore"/>
             <Record type="HKQuantityTypeIdentifierFlightsClimbed" sourceName="Aiko’s iPhone" unit="count" creationDate="\(stamp(day: day, hour: 12))" startDate="\(stamp(day: day, hour: 12))" endDate="\(stamp(day: day, hour: 12, minute: 5))" value="3"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" totalDistance="5.1" totalDistanceUnit="km" totalEnergyBurned="310" totalEnergyBurnedUnit="kcal" sourceName="Apple Watch" startDate="\(stamp(day: day, hour: 18))" endDate="\(stamp(day: day, hour: 18, minute: 30))">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\(stamp(day: day, hour: 18))" duration="5" durationUnit="min"/>
             </Workout>
             <ActivitySummary dateComponents="2024-05-\(String(format: "%02d", day))" activeEnergyBurned="450.5" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>

            """
        }
        return xml + extra + "</HealthData>\n"
    }

    static let recordsPerDay = 8

    static func write(_ text: String, name: String = "export.xml") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-health-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// export.zip laid out like the iPhone's: apple_health_export/export.xml (made with Info-ZIP's zip or Python).
    static func zip(_ text: String) throws -> String {
        let xml = try write(text)
        let directory = (xml as NSString).deletingLastPathComponent
        let zipPath = (directory as NSString).appendingPathComponent("export.zip")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); z.write(sys.argv[2],'apple_health_export/export.xml'); z.writestr('apple_health_export/export_cda.xml','<x/>'); z.close()", zipPath, xml]
        try process.run()
        process.waitUntilExit()
        return zipPath
    }

    static let billionLaughs = """
    <?xml version="1.0"?>
    <!DOCTYPE HealthData [
     <!ENTITY lol "lol">
     <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
     <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
     <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
     <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
     <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
     <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
     <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
     <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
     <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
    ]>
    <HealthData locale="en_US">
     <ExportDate value="&lol9;"/>
     <Note>&lol9;</Note>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="&lol9;" unit="count" startDate="2024-05-01 08:00:00 +0900" endDate="2024-05-01 09:00:00 +0900" value="10"/>
    </HealthData>
    """

    static let xxe = """
    <?xml version="1.0"?>
    <!DOCTYPE HealthData [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> <!ENTITY % remote SYSTEM "http://127.0.0.1:1/evil.dtd"> %remote; ]>
    <HealthData locale="en_US">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="&xxe;" unit="count" startDate="2024-05-01 08:00:00 +0900" endDate="2024-05-01 09:00:00 +0900" value="10"/>
    </HealthData>
    """
}
