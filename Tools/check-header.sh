#!/usr/bin/env bash
# Compiles the C headers the kernels and warps include (CVectorMath.h, CPixelWarp.h, CProcessor.h)
# for the targets this machine cannot build the package for: arm64 (its NEON branches) on Linux
# and macOS, and x86-64 at each level the code branches on (SSE2, Haswell, AVX-512). Syntax and
# types only; warnings are errors.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
flags=(-fsyntax-only -x c -std=c11 -Wall -Wextra -Wno-unused-function -Werror -I "$root/Sources/CVectorMath/include")
for header in "$root"/Sources/{CVectorMath,CPixelWarp,CProcessor}/include/*.h; do
name="$(basename "$header")"
for target in "--target=aarch64-linux-gnu" "--target=arm64-apple-macos15" "--target=x86_64-linux-gnu" \
              "--target=x86_64-linux-gnu -march=haswell" "--target=x86_64-linux-gnu -march=skylake-avx512"; do
    # shellcheck disable=SC2086
    clang $target "${flags[@]}" "$header"
    echo "check-header: $name compiles for $target"
done
done

# Code generation too (issue 34): clang's ABI warnings (-Wpsabi) come only when a function is
# emitted, so every helper each header defines for a target is emitted once (its address taken),
# warnings as errors. The helpers a target's branches do not define are left out.
dir="$(mktemp -d "${TMPDIR:-/tmp}/check-header.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
for header in "$root"/Sources/{CVectorMath,CPixelWarp,CProcessor}/include/*.h; do
name="$(basename "$header")"
names=$(grep -oE '^static inline.*\bbf_[a-z0-9_]+\(' "$header" | grep -oE 'bf_[a-z0-9_]+\($' | tr -d '(' | sort -u)
for target in "--target=x86_64-linux-gnu" "--target=x86_64-linux-gnu -march=haswell" "--target=x86_64-linux-gnu -march=skylake-avx512" \
              "--target=aarch64-linux-gnu"; do
    keep="$names"
    for _ in 1 2; do
        { printf '#include "%s"\nvoid *bf_every_helper[] = {\n' "$header"; for n in $keep; do printf '    (void *)&%s,\n' "$n"; done; printf '};\n'; } > "$dir/all.c"
        # shellcheck disable=SC2086
        missing=$(clang $target -x c -std=c11 -O0 -I "$root/Sources/CVectorMath/include" -c "$dir/all.c" -o /dev/null 2>&1 | grep -oE "undeclared identifier '[a-z0-9_]+'" | grep -oE "bf_[a-z0-9_]+" || true)
        [ -z "$missing" ] && break
        keep=$(comm -23 <(printf '%s\n' $keep) <(printf '%s\n' $missing | sort -u))
    done
    # shellcheck disable=SC2086
    clang $target -x c -std=c11 -O0 -Wall -Wextra -Werror -I "$root/Sources/CVectorMath/include" -c "$dir/all.c" -o /dev/null
    echo "check-header: $name's $(printf '%s\n' $keep | wc -l) helpers generate code without a warning for $target"
done
done
