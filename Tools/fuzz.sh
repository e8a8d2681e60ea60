#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, with AddressSanitizer) and runs each for SECONDS
# (default 10; the issue's long run is 600). Seeds come from Fuzz/corpus/<target>/; what a run
# learns goes to .fuzz/<target>/ (not committed); a crash, leak, timeout or out-of-memory
# input is written to .fuzz/artifacts/ and the script exits non-zero.
#
#   bash Tools/fuzz.sh [SECONDS] [TARGET...]      e.g. bash Tools/fuzz.sh 600 FuzzPNG
#   targets: FuzzPNG FuzzJPEG FuzzPNM FuzzWebP FuzzY4M FuzzWeights FuzzTFLite FuzzTaskBundle FuzzGeometry
#   FUZZ_RUNS=N bash Tools/fuzz.sh       a fixed number of inputs from a fixed random seed instead
#                                        of a time (repeatable: CI's smoke run)
#   FUZZ_CONFIG=debug bash Tools/fuzz.sh an unoptimised build (quicker to build, slower to run)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"; shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=($(ls Fuzz/Sources | grep '^Fuzz')); fi
# FUZZ_CONFIG=debug (CI's smoke run): an unoptimised build, about half the build time, the
# inputs run a few times slower. SwiftPM links a debug executable with its main renamed, so
# libFuzzer's own main (from -sanitize=fuzzer) would be linked and ask for LLVMFuzzerTestOneInput:
# the same coverage is asked for by hand and libFuzzer linked without its main.
config="${FUZZ_CONFIG:-release}"
if [ -z "${FUZZ_NO_BUILD:-}" ]; then   # FUZZ_NO_BUILD=1: reuse the last build (parallel runs)
  if [ "$config" = debug ]; then
    runtime=$(ls "$(dirname "$(readlink -f "$(command -v swiftc)")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)
    # BlazeTensor file by file, as the rest (Package.swift): a whole-module compile under ASan
    # takes minutes and the readers fuzzed run no network.
    (cd Fuzz && BLAZEFACE_DEBUG_WHOLE_MODULE=0 swift build -c debug --scratch-path ../.build-fuzz -Xswiftc -use-ld=lld \
       -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
       -Xcc -fsanitize=fuzzer-no-link,address -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | tail -1)
  else
    (cd Fuzz && swift build -c release --scratch-path ../.build-fuzz -Xswiftc -use-ld=lld \
       -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address 2>&1 | tail -1)
  fi
fi
# Swift's own crash handler would read memory under ASan; libFuzzer reports the crash instead.
export SWIFT_BACKTRACE=enable=no
mkdir -p .fuzz/artifacts
status=0
for t in "${targets[@]}"; do
  mkdir -p ".fuzz/$t"
  if [ -n "${FUZZ_RUNS:-}" ]; then budget=(-runs="$FUZZ_RUNS" -seed=1); else budget=(-max_total_time="$seconds"); fi
  echo "== $t: ${budget[0]}"
  if ! ".build-fuzz/$config/$t" ".fuzz/$t" "Fuzz/corpus/$t" "${budget[@]}" -timeout=10 \
       -rss_limit_mb=2048 -max_len=65536 -artifact_prefix=".fuzz/artifacts/$t-" -print_final_stats=1 \
       > ".fuzz/$t.log" 2>&1; then
    echo "!! $t failed: see .fuzz/$t.log and .fuzz/artifacts/"; tail -30 ".fuzz/$t.log"; status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" ".fuzz/$t.log" | tr '\n' ' '; echo
  fi
done
exit $status
