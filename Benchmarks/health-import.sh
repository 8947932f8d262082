#!/usr/bin/env bash
# Apple Health import throughput: Hibi (release build) against healthkit-to-sqlite (PyPI) on the
# same generated export.xml, in the same run. Prints records/s for both, the ratio and Hibi's peak RSS.
# Usage: Benchmarks/health-import.sh [size-in-MB, default 1024]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZE_MB=${1:-1024}
WORK=${HIBI_BENCH_DIR:-$ROOT/.cache/health-bench}
mkdir -p "$WORK"
XML="$WORK/export-${SIZE_MB}mb.xml"

# 1. A realistic export: inline DTD, Me, the common record types from two devices (with metadata on
#    heart rate), workouts and activity summaries, ~one record per few minutes over years.
if [ ! -f "$XML" ]; then
  echo "generating $XML (${SIZE_MB} MB)..."
  python3 - "$XML" "$SIZE_MB" <<'PYEOF'
import sys, datetime, random
path, size_mb = sys.argv[1], int(sys.argv[2])
target = size_mb * 1024 * 1024
random.seed(7)
head = '''<?xml version="1.0" encoding="UTF-8"?>
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
  HKCharacteristicTypeIdentifierBloodType           CDATA #REQUIRED
  HKCharacteristicTypeIdentifierFitzpatrickSkinType CDATA #REQUIRED
  HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #IMPLIED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT MetadataEntry EMPTY>
<!ATTLIST MetadataEntry
  key   CDATA #REQUIRED
  value CDATA #REQUIRED
>
]>
<HealthData locale="ja_JP">
 <ExportDate value="2024-06-01 09:00:00 +0900"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-04-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
'''
phone = 'sourceName="Aiko’s iPhone" sourceVersion="17.4.1" device="&lt;&lt;HKDevice: 0x283a4c0a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4.1&gt;"'
watch = 'sourceName="Aiko’s Apple Watch" sourceVersion="10.4" device="&lt;&lt;HKDevice: 0x283a4c1e0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.4&gt;"'
def fmt(t): return t.strftime("%Y-%m-%d %H:%M:%S +0900")
written = 0
with open(path, "w", encoding="utf-8") as out:
    out.write(head); written += len(head.encode())
    t = datetime.datetime(2016, 1, 1, 0, 0, 0)
    day = None
    while written < target:
        t += datetime.timedelta(minutes=random.randint(1, 4))
        s, e = fmt(t), fmt(t + datetime.timedelta(minutes=1))
        r = random.random()
        if r < 0.45:
            line = f' <Record type="HKQuantityTypeIdentifierStepCount" {random.choice((phone, watch))} unit="count" creationDate="{e}" startDate="{s}" endDate="{e}" value="{random.randint(5, 180)}"/>\n'
        elif r < 0.70:
            line = f' <Record type="HKQuantityTypeIdentifierHeartRate" {watch} unit="count/min" creationDate="{e}" startDate="{s}" endDate="{s}" value="{random.randint(55, 130)}">\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="{random.randint(0, 2)}"/>\n </Record>\n'
        elif r < 0.85:
            line = f' <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" {watch} unit="kcal" creationDate="{e}" startDate="{s}" endDate="{e}" value="{random.uniform(0.1, 9):.3f}"/>\n'
        elif r < 0.97:
            line = f' <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" {random.choice((phone, watch))} unit="km" creationDate="{e}" startDate="{s}" endDate="{e}" value="{random.uniform(0.001, 0.15):.5f}"/>\n'
        elif r < 0.985:
            line = f' <Record type="HKQuantityTypeIdentifierBasalEnergyBurned" {watch} unit="kcal" creationDate="{e}" startDate="{s}" endDate="{e}" value="{random.uniform(0.5, 2):.3f}"/>\n'
        else:
            line = f' <Record type="HKQuantityTypeIdentifierFlightsClimbed" {phone} unit="count" creationDate="{e}" startDate="{s}" endDate="{e}" value="{random.randint(1, 4)}"/>\n'
        if t.date() != day:
            day = t.date()
            w = t.replace(hour=7, minute=0)
            line += f' <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Health" sourceVersion="17.4.1" unit="kg" creationDate="{fmt(w)}" startDate="{fmt(w)}" endDate="{fmt(w)}" value="{random.uniform(58, 66):.1f}"/>\n'
            line += f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" {watch} creationDate="{fmt(w)}" startDate="{fmt(w - datetime.timedelta(hours=7))}" endDate="{fmt(w - datetime.timedelta(hours=1))}" value="HKCategoryValueSleepAnalysisAsleepCore"/>\n'
            line += f' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="31.5" durationUnit="min" totalDistance="2.4" totalDistanceUnit="km" totalEnergyBurned="120" totalEnergyBurnedUnit="kcal" {watch} creationDate="{fmt(w)}" startDate="{fmt(w)}" endDate="{fmt(w + datetime.timedelta(minutes=31))}">\n  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n </Workout>\n'
            line += f' <ActivitySummary dateComponents="{day.isoformat()}" activeEnergyBurned="{random.uniform(200, 700):.1f}" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="{random.randint(5, 60)}" appleExerciseTimeGoal="30" appleStandHours="{random.randint(6, 14)}" appleStandHoursGoal="12"/>\n'
        out.write(line); written += len(line.encode())
    out.write("</HealthData>\n")
PYEOF
fi
RECORDS=$(grep -c -E '<(Record|Workout|ActivitySummary) ' "$XML" || true)
echo "export: $(du -h "$XML" | cut -f1), $RECORDS records/workouts/summaries"

# 2. Hibi, release build, a fresh SQLite data dir; peak RSS from /usr/bin/time.
swift build -c release --product hibi 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
HIBI="$ROOT/.build/release/hibi"
DATA="$WORK/hibi-data"
rm -rf "$DATA"; mkdir -p "$DATA"
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_DATA_DIR="$DATA"
echo "benchmark password" | "$HIBI" user create bench --password-stdin >/dev/null
START=$(date +%s.%N)
/usr/bin/time -v -o "$WORK/hibi.time" "$HIBI" import apple-health --user bench --quiet "$XML" | tail -1
END=$(date +%s.%N)
HIBI_SECONDS=$(python3 -c "print($END - $START)")
HIBI_RSS_KB=$(grep "Maximum resident set size" "$WORK/hibi.time" | awk '{print $NF}')

# 3. healthkit-to-sqlite in its own venv under .cache/.
VENV="$ROOT/.cache/healthkit-venv"
if [ ! -x "$VENV/bin/healthkit-to-sqlite" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check healthkit-to-sqlite
fi
rm -f "$WORK/healthkit.db"
START=$(date +%s.%N)
/usr/bin/time -v -o "$WORK/hk.time" "$VENV/bin/healthkit-to-sqlite" "$XML" "$WORK/healthkit.db" --xml >/dev/null 2>&1
END=$(date +%s.%N)
HK_SECONDS=$(python3 -c "print($END - $START)")
HK_RSS_KB=$(grep "Maximum resident set size" "$WORK/hk.time" | awk '{print $NF}')

python3 - "$RECORDS" "$HIBI_SECONDS" "$HK_SECONDS" "$HIBI_RSS_KB" "$HK_RSS_KB" <<'PYEOF'
import sys
n, hs, ks, hr, kr = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"hibi_seconds: {hs:.1f} s")
print(f"healthkit_to_sqlite_seconds: {ks:.1f} s")
print(f"hibi_import_rate: {n / hs:.0f} records/s")
print(f"healthkit_to_sqlite_rate: {n / ks:.0f} records/s")
print(f"speedup: {ks / hs:.2f} x")
print(f"hibi_peak_rss: {hr / 1024:.0f} MB")
print(f"healthkit_to_sqlite_peak_rss: {kr / 1024:.0f} MB")
PYEOF
