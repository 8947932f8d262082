#!/usr/bin/env bash
# Fuzzes one of Hibi's parsers of outside input with libFuzzer (swiftc -sanitize=fuzzer,address).
# Usage: scripts/fuzz/run.sh TARGET [SECONDS]     TARGET: xml | ranges | multipart | zip
# The parser's own source files are compiled with a small harness (targets/TARGET.swift). The fuzzer
# starts from the seeds in corpus/TARGET and keeps what it finds in .build-fuzz/corpus-TARGET (not
# committed); an input that crashes is written to crashes/TARGET/: add it to corpus/TARGET, so
# Tests/HibiAppTests/Robustness/FuzzCorpusTests replays it in every test run from then on.
set -euo pipefail
cd "$(dirname "$0")"
TARGET=${1:?usage: run.sh xml|ranges|multipart|zip [seconds]}
SECONDS_TO_RUN=${2:-60}
SRC=../../Sources/HibiApp
case "$TARGET" in
  xml) FILES=("$SRC/Shared/XML/XMLStreamReader.swift" "$SRC/Shared/Web/Language.swift") ;;
  ranges) FILES=("$SRC/Features/Videos/Logic/ByteRanges.swift") ;;
  multipart) FILES=("$SRC/Shared/Web/MultipartLeadingField.swift") ;;
  zip) FILES=("$SRC/Shared/Archive/StoredZip.swift" "$SRC/Shared/Web/Language.swift") ;;
  *) echo "unknown target $TARGET" >&2; exit 2 ;;
esac
OUT=.build-fuzz
mkdir -p "$OUT/corpus-$TARGET" "corpus/$TARGET" "crashes/$TARGET"
EXTRA=()
RUN_OPTIONS=()
if [ "$TARGET" = zip ]; then
  # ZIPFoundation (the package Hibi reads archives with) built as its own instrumented module from the
  # checkout SwiftPM made; zlib comes from the system through its CZLib module map.
  ZIPF=../../.build/checkouts/ZIPFoundation/Sources
  [ -d "$ZIPF/ZIPFoundation" ] || { echo "run 'swift build' first: ZIPFoundation's checkout is missing" >&2; exit 1; }
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name ZIPFoundation -I "$ZIPF/CZLib" -Xcc -D_GNU_SOURCE=1 \
    -emit-library -static -emit-module -emit-module-path "$OUT/ZIPFoundation.swiftmodule" \
    "$ZIPF"/ZIPFoundation/*.swift -o "$OUT/libZIPFoundation.a"
  EXTRA=(-I "$OUT" -I "$ZIPF/CZLib" -Xcc -D_GNU_SOURCE=1 -L "$OUT" -lZIPFoundation -lz)
  # Opening an archive by path leaks its path's C string (55 bytes, FileManager.fileSystemRepresentation
  # inside ZIPFoundation); a bounded, known leak. The one that kept a whole upload alive is fixed in ZipReader.
  RUN_OPTIONS+=(-detect_leaks=0)
  export ASAN_OPTIONS=detect_leaks=0
fi
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HibiFuzz "${EXTRA[@]}" \
  "targets/$TARGET.swift" "${FILES[@]}" -o "$OUT/$TARGET"
"$OUT/$TARGET" "$OUT/corpus-$TARGET" "corpus/$TARGET" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=10 \
  -artifact_prefix="crashes/$TARGET/" -print_final_stats=1 "${RUN_OPTIONS[@]}"
