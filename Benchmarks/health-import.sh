#!/usr/bin/env bash
# Apple Health import throughput: `hibi import apple-health` (release build, a fresh SQLite data dir
# each time) against healthkit-to-sqlite 1.0.1 (PyPI, installed into the project's .venv) on the same
# generated export.xml, alternating Hibi, healthkit-to-sqlite, Hibi, … for ROUNDS rounds.
# Prints records/s and seconds for both, the speed-up and both peak RSS (GNU time). Then the tokenizer
# alone (`hibi import apple-health-scan`: every tag read, nothing stored) against libxml2's streaming
# reader (`xmllint --stream --noout`) on the same file, MB/s each and their ratio.
# Usage: Benchmarks/health-import.sh [size in MB]
#   quick (default): 20 MB, ROUNDS=5; BENCH_SIZE=full: 1024 MB (2.6 million records), ROUNDS=3;
#   BENCH_SIZE=smoke: 1 MB, 1 round.
# The export is generated once into .cache/health-bench/ and kept.
# Ends with `name: median unit (min …, max …, N rounds)` lines.
BENCH_FULL_ROUNDS=3
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
ROOT=$BENCH_ROOT
SIZE_MB=${1:-$(by_size 20 1024 1)}
is_count "$SIZE_MB" || die "size must be a whole number of MB"
ensure_apt time python3 python3-venv libxml2-utils
ensure_app
ensure_venv_pkg healthkit-to-sqlite==1.0.1
HK="$ROOT/.venv/bin/healthkit-to-sqlite"
[ -x "$HK" ] || die "$HK is missing after installing healthkit-to-sqlite"
HIBI=$(hibi_bin)
CACHE=${HIBI_BENCH_DIR:-$ROOT/.cache/health-bench}
mkdir -p "$CACHE"
XML="$CACHE/export-${SIZE_MB}mb.xml"
WORK=$(bench_tmpdir)

# 1. A realistic export: inline DTD, Me, the common record types from two devices (with metadata on
#    heart rate), workouts and activity summaries, ~one record per few minutes over years.
if [ ! -f "$XML" ]; then
  log "generating $XML (${SIZE_MB} MB, kept for later runs)"
  python3 - "$XML.part" "$SIZE_MB" <<'PYEOF'
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
  mv "$XML.part" "$XML"
fi
RECORDS=$(grep -c -E '<(Record|Workout|ActivitySummary) ' "$XML" || true)
[ "$RECORDS" -gt 0 ] || die "$XML has no records"
log "export: $(du -h "$XML" | cut -f1), $RECORDS records/workouts/summaries (size $BENCH_SIZE)"
cat "$XML" >/dev/null # the page cache holds it for both sides alike
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor" HIBI_LOG_LEVEL=error

peak_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$1"; }
import_hibi() { # a fresh data dir, wall time and peak RSS from GNU time
  local data="$WORK/hibi-data-$ROUND" start end
  mkdir -p "$data"
  echo "benchmark password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  start=$(date +%s.%N)
  HIBI_DATA_DIR="$data" /usr/bin/time -v -o "$WORK/hibi.time" "$HIBI" import apple-health --user bench --quiet "$XML" \
    >"$WORK/hibi.out" 2>&1 || { tail -20 "$WORK/hibi.out" >&2; die "hibi import apple-health failed"; }
  end=$(date +%s.%N)
  rm -rf "$data"
  local seconds
  seconds=$(python3 -c "print($end - $start)")
  record health_hibi_seconds "$seconds" s
  record health_hibi_rate "$(python3 -c "print($RECORDS / $seconds)")" records/s
  record health_hibi_peak_rss "$(peak_mb "$WORK/hibi.time")" MB
  printf '%.1f s (%s)' "$seconds" "$(tail -1 "$WORK/hibi.out")"
}
import_reference() {
  local db="$WORK/healthkit-$ROUND.db" start end
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/hk.time" "$HK" "$XML" "$db" --xml >"$WORK/hk.out" 2>&1 \
    || { tail -20 "$WORK/hk.out" >&2; die "healthkit-to-sqlite failed"; }
  end=$(date +%s.%N)
  rm -f "$db"
  local seconds
  seconds=$(python3 -c "print($end - $start)")
  record health_healthkit_to_sqlite_seconds "$seconds" s
  record health_healthkit_to_sqlite_rate "$(python3 -c "print($RECORDS / $seconds)")" records/s
  record health_healthkit_to_sqlite_peak_rss "$(peak_mb "$WORK/hk.time")" MB
  printf '%.1f s' "$seconds"
}

log "$ROUNDS rounds of Hibi then healthkit-to-sqlite"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  h=$(import_hibi)
  k=$(import_reference)
  # The machine may be shared: the 1-minute load average after each round, to read the figures with.
  log "round $ROUND/$ROUNDS: Hibi $h; healthkit-to-sqlite $k (load $(cut -d' ' -f1 /proc/loadavg))"
done
tokenize_hibi() {
  local start end seconds
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/scan.time" "$HIBI" import apple-health-scan "$XML" >"$WORK/scan.out" 2>&1 || die "apple-health-scan failed: $(tail -3 "$WORK/scan.out")"
  end=$(date +%s.%N)
  seconds=$(python3 -c "print($end - $start)")
  record health_tokenizer_seconds "$seconds" s
  record health_tokenizer_rate "$(python3 -c "import os; print(os.path.getsize('$XML') / 2**20 / $seconds)")" MB/s
  record health_tokenizer_peak_rss "$(peak_mb "$WORK/scan.time")" MB
  printf '%.2f s (%s)' "$seconds" "$(tail -1 "$WORK/scan.out")"
}
tokenize_xmllint() {
  local start end seconds
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/xmllint.time" xmllint --stream --noout "$XML" >"$WORK/xmllint.out" 2>&1 || die "xmllint --stream failed: $(tail -3 "$WORK/xmllint.out")"
  end=$(date +%s.%N)
  seconds=$(python3 -c "print($end - $start)")
  record health_xmllint_stream_seconds "$seconds" s
  record health_xmllint_stream_rate "$(python3 -c "import os; print(os.path.getsize('$XML') / 2**20 / $seconds)")" MB/s
  record health_xmllint_stream_peak_rss "$(peak_mb "$WORK/xmllint.time")" MB
  printf '%.2f s' "$seconds"
}

log "$ROUNDS rounds of the tokenizer alone then xmllint --stream"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  t=$(tokenize_hibi)
  x=$(tokenize_xmllint)
  log "round $ROUND/$ROUNDS: tokenizer $t; xmllint --stream $x"
done
ROUND=0
record health_export_records "$RECORDS" records
record health_export_size "$(python3 -c "import os; print(os.path.getsize('$XML') / 2**20)")" MB
report --ratio "health_speedup=health_healthkit_to_sqlite_seconds/health_hibi_seconds:x" \
  --ratio "health_tokenizer_vs_xmllint=health_tokenizer_seconds/health_xmllint_stream_seconds:x"
