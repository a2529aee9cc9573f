#!/usr/bin/env bash
# Every C++ file of the project follows .clang-format (test firmware in C, and other projects' code
# in tests/data, are left as written).
set -euo pipefail
src=$1
cd "$src"
files=$(find analysis app bench config decode emu examples fuzz include models session silicon tests trace \
    \( -name '*.cpp' -o -name '*.h' \) -not -path 'tests/firmware/*' -not -path 'tests/data/*' | sort)
if ! clang-format --dry-run -Werror $files 2>/tmp/format_check.$$; then
    grep -m 10 'error:' /tmp/format_check.$$ >&2 || true
    rm -f /tmp/format_check.$$
    echo "format_check: run clang-format -i on the files above" >&2
    exit 1
fi
rm -f /tmp/format_check.$$
