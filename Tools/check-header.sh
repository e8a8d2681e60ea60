#!/usr/bin/env bash
# Compiles the C header that every kernel includes (CVectorFMA.h) for the targets this machine
# cannot build the package for: arm64 (its NEON branches) on Linux and macOS, and x86-64 at each
# level the code branches on (SSE2, Haswell, AVX-512). Syntax and types only; warnings are errors.
set -euo pipefail
header="$(cd "$(dirname "$0")/.." && pwd)/Sources/CVectorFMA/include/CVectorFMA.h"
flags=(-fsyntax-only -x c -std=c11 -Wall -Wextra -Wno-unused-function -Werror)
for target in "--target=aarch64-linux-gnu" "--target=arm64-apple-macos15" "--target=x86_64-linux-gnu" \
              "--target=x86_64-linux-gnu -march=haswell" "--target=x86_64-linux-gnu -march=skylake-avx512"; do
    # shellcheck disable=SC2086
    clang $target "${flags[@]}" "$header"
    echo "check-header: CVectorFMA.h compiles for $target"
done
