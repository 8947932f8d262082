import Foundation

/// Exports shaped like the ones iPhones really write (no DOCTYPE in older exports, MetadataEntry on
/// records, a Workout with statistics and a WorkoutRoute, ActivitySummary, Correlations, category
/// samples), written by hand so every element is known and counted.
enum RealExportFixtures {
    /// Element counts of `export`, per kind, for the report checks.
    static let counts: [String: Int] = ["Record": 14, "Correlation": 2, "Workout": 2, "ActivitySummary": 2, "Location": 3, "ClinicalRecord": 1]

    static let export = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
        <ExportDate value="2019-07-19 10:36:11 -0700"/>
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-02-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"/>
        <Record type="HKQuantityTypeIdentifierBodyMassIndex" sourceName="Health Mate" sourceVersion="2160040" unit="count" creationDate="2016-11-20 17:57:19 -0700" startDate="2016-04-18 08:25:32 -0700" endDate="2016-04-18 08:25:32 -0700" value="22.5312">
            <MetadataEntry key="Health Mate App Version" value="2.16.0"/>
            <MetadataEntry key="Link" value="scale://measure?user=1&amp;type=1"/>
        </Record>
        <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" sourceVersion="4.3.1" device="&lt;&lt;HKDevice: 0x282a45810&gt;, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch2,4, software:4.3.1&gt;" unit="count/min" creationDate="2018-09-10 02:47:35 -0700" startDate="2018-09-10 02:28:55 -0700" endDate="2018-09-10 02:28:55 -0700" value="72">
            <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
        </Record>
        <Record type="HKQuantityTypeIdentifierDietaryFatTotal" sourceName="MyFitnessPal" sourceVersion="20962" unit="g" creationDate="2017-09-30 13:57:16 +0100" startDate="2017-09-30 13:56:00 +0100" endDate="2017-09-30 13:56:00 +0100" value="21.37">
          <MetadataEntry key="meal" value="Breakfast"/>
          <MetadataEntry key="Meal" value="Breakfast"/>
        </Record>
        <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" unit="" creationDate="2024-05-02 07:00:00 +0900" startDate="2024-05-02 01:00:00 +0900" endDate="2024-05-02 02:30:00 +0900" value="HKCategoryValueSleepAnalysisAsleepREM"/>
        <Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="Breathe" creationDate="2024-05-02 12:10:00 +0900" startDate="2024-05-02 12:00:00 +0900" endDate="2024-05-02 12:10:00 +0900" value="HKCategoryValueNotApplicable"/>
        <Record type="HKCategoryTypeIdentifierAppleStandHour" sourceName="Apple Watch" creationDate="2024-05-02 13:10:00 +0900" startDate="2024-05-02 13:00:00 +0900" endDate="2024-05-02 14:00:00 +0900" value="HKCategoryValueAppleStandHourStood"/>
        <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="yesterday" endDate="2024-05-02 14:00:00 +0900" value="12"/>
        <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="1" creationDate="2024-05-03 08:00:00 +0900" startDate="2024-05-03 08:00:00 +0900" endDate="2024-05-03 08:00:00 +0900">
            <MetadataEntry key="HKWasUserEntered" value="0"/>
            <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-05-03 08:00:00 +0900" endDate="2024-05-03 08:00:00 +0900" value="121"/>
            <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-05-03 08:00:00 +0900" endDate="2024-05-03 08:00:00 +0900" value="79"/>
        </Correlation>
        <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-05-03 08:00:00 +0900" endDate="2024-05-03 08:00:00 +0900" value="121"/>
        <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-05-03 08:00:00 +0900" endDate="2024-05-03 08:00:00 +0900" value="79"/>
        <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="MyFitnessPal" creationDate="2024-05-03 12:30:00 +0900" startDate="2024-05-03 12:30:00 +0900" endDate="2024-05-03 12:30:00 +0900">
            <MetadataEntry key="HKFoodMeal" value="Lunch"/>
            <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="MyFitnessPal" unit="kcal" startDate="2024-05-03 12:30:00 +0900" endDate="2024-05-03 12:30:00 +0900" value="640"/>
            <Record type="HKQuantityTypeIdentifierDietaryFatTotal" sourceName="MyFitnessPal" unit="g" startDate="2024-05-03 12:30:00 +0900" endDate="2024-05-03 12:30:00 +0900" value="18.5"/>
        </Correlation>
        <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="furlong" startDate="2024-05-04 07:00:00 +0900" endDate="2024-05-04 07:00:00 +0900" value="3"/>
        <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="5.19412346680959" durationUnit="min" totalDistance="0.4971749504535062" totalDistanceUnit="mi" totalEnergyBurned="48.74499999999999" totalEnergyBurnedUnit="kcal" sourceName="Apple Watch" sourceVersion="3.1" creationDate="2016-11-14 07:33:49 -0700" startDate="2016-11-14 07:25:41 -0700" endDate="2016-11-14 07:30:52 -0700">
            <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>
            <MetadataEntry key="HKWeatherTemperature" value="56 degF"/>
            <WorkoutRoute sourceName="Simon’s iPhone" sourceVersion="10.1.1" creationDate="2016-11-14 07:33:54 -0700" startDate="2016-11-14 07:25:44 -0700" endDate="2016-11-14 07:30:51 -0700">
                <Location date="2016-11-14 07:25:44 -0700" latitude="37.7777" longitude="-122.426" altitude="21.2694" horizontalAccuracy="2.40948" verticalAccuracy="1.67859" course="-1" speed="2.48034"/>
                <Location date="2016-11-14 07:25:45 -0700" latitude="37.7778" longitude="-122.4261" altitude="21.2677" horizontalAccuracy="2.40059" verticalAccuracy="1.67236" course="-1" speed="2.48034"/>
                <Location date="not a date" latitude="37.7779" longitude="-122.4262"/>
            </WorkoutRoute>
        </Workout>
        <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="30" durationUnit="min" sourceName="Apple Watch" sourceVersion="10.4" creationDate="2024-05-05 18:31:00 +0900" startDate="2024-05-05 18:00:00 +0900" endDate="2024-05-05 18:30:00 +0900">
            <MetadataEntry key="HKIndoorWorkout" value="0"/>
            <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-05-05 18:00:00 +0900" duration="10" durationUnit="min"/>
            <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-05-05 18:00:00 +0900" endDate="2024-05-05 18:30:00 +0900" sum="250.5" unit="kcal"/>
            <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceCycling" startDate="2024-05-05 18:00:00 +0900" endDate="2024-05-05 18:30:00 +0900" sum="12.25" unit="km"/>
            <WorkoutRoute sourceName="Apple Watch" sourceVersion="10.4" creationDate="2024-05-05 18:31:00 +0900" startDate="2024-05-05 18:00:00 +0900" endDate="2024-05-05 18:30:00 +0900">
                <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
                <FileReference path="/workout-routes/route_2024-05-05_6.30pm.gpx"/>
            </WorkoutRoute>
        </Workout>
        <ActivitySummary dateComponents="2016-11-15" activeEnergyBurned="590.252" activeEnergyBurnedGoal="630" activeEnergyBurnedUnit="kcal" appleExerciseTime="68" appleExerciseTimeGoal="30" appleStandHours="13" appleStandHoursGoal="12"/>
        <ActivitySummary dateComponents="2016-11-16" activeEnergyBurned="323.513" activeEnergyBurnedGoal="630" activeEnergyBurnedUnit="kcal" appleExerciseTime="39" appleExerciseTimeGoal="30" appleStandHours="9" appleStandHoursGoal="12"/>
        <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="x" sourceName="Clinic" fhirVersion="1.0.2" receivedDate="2024-05-06 10:00:00 +0900" resourceFilePath="/clinical-records/x.json"/>
    </HealthData>

    """

    /// The GPX the second workout's FileReference names, as Apple writes it.
    static let routeGPX = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
      <metadata>
        <time>2024-05-05T09:31:00Z</time>
      </metadata>
      <trk>
        <name>Route 2024-05-05 6:30pm</name>
        <trkseg>
          <trkpt lon="139.700001" lat="35.680001"><ele>4.076904</ele><time>2024-05-05T09:00:00Z</time><extensions><speed>0.18</speed><course>206.2</course><hAcc>8.06</hAcc><vAcc>6.42</vAcc></extensions></trkpt>
          <trkpt lon="139.700101" lat="35.680101"><ele>4.1</ele><time>2024-05-05T09:00:05Z</time><extensions><speed>0.11</speed></extensions></trkpt>
          <trkpt lon="139.700201" lat="35.680201"><time>2024-05-05T09:00:10Z</time></trkpt>
          <trkpt lon="400" lat="35.680301"><time>2024-05-05T09:00:15Z</time></trkpt>
        </trkseg>
      </trk>
    </gpx>
    """

    static let ecgCSV = """
    Name,Aiko
    Date of Birth,"Apr 1, 1990"
    Recorded Date,2024-05-05 09:12:00 +0900
    Classification,Sinus Rhythm
    Sample Rate,512 hertz

    -12.5
    -10.1
    """

    /// export.zip as the iPhone writes it: apple_health_export/ with export.xml, workout-routes and electrocardiograms.
    static func zip() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-real-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("apple_health_export")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("workout-routes"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("electrocardiograms"), withIntermediateDirectories: true)
        try export.write(to: folder.appendingPathComponent("export.xml"), atomically: true, encoding: .utf8)
        try routeGPX.write(to: folder.appendingPathComponent("workout-routes/route_2024-05-05_6.30pm.gpx"), atomically: true, encoding: .utf8)
        try ecgCSV.write(to: folder.appendingPathComponent("electrocardiograms/ecg_2024-05-05.csv"), atomically: true, encoding: .utf8)
        let zipPath = root.appendingPathComponent("export.zip").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import zipfile,sys,os\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\nfor d,_,fs in os.walk(sys.argv[2]):\n  for f in fs: p=os.path.join(d,f); z.write(p,os.path.relpath(p,sys.argv[3]))\nz.close()",
                             zipPath, folder.path, root.path]
        try process.run()
        process.waitUntilExit()
        return zipPath
    }
}
