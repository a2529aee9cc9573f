#!/usr/bin/env bash
# Installs emutrace into a temporary prefix and uses it from outside the tree: the example
# plug-in (examples/mmio-histogram) and a consumer program are built against the installed
# package alone, and the installed emutrace loads the plug-in, refuses plug-ins built for other
# ABIs and missing ones with one-line errors.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
emutrace=$tmp/prefix/bin/emutrace
fw=$tmp/prefix/bin/firmware

# The public headers name no third-party library.
if grep -h '#include <' "$tmp"/prefix/include/emutrace/*.h | grep '/'; then fail "a public header includes a third-party header"; fi
for h in "$tmp"/prefix/include/emutrace/*.h; do
    echo "#include <emutrace/$(basename "$h")>" | c++ -std=c++20 -fsyntax-only -nostdinc++ -isystem /usr/include/c++/12 \
        -isystem /usr/include/x86_64-linux-gnu/c++/12 -I"$tmp/prefix/include" -x c++ - || fail "$h does not compile on its own"
done

# The plug-in, in a tree of its own.
cmake -S "$src/examples/mmio-histogram" -B "$tmp/plugin" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/plugin" >/dev/null
plugin=$tmp/plugin/libmmio_histogram.so
"$emutrace" analyses --plugin "$plugin" | grep '^mmio_histogram$' >/dev/null || fail "emutrace analyses does not list the plug-in"
"$emutrace" run "$fw/stub_reader.elf" --scenario "$src/scenarios/sensor-stub.yaml" --plugin "$plugin" --mmio-histogram \
    --json "$tmp/r.json" 2>"$tmp/summary.txt" >/dev/null || fail "the run with the plug-in failed: $(cat "$tmp/summary.txt")"
grep -q '^mmio histogram' "$tmp/summary.txt" || fail "the summary lacks the plug-in's table"
python3 - "$tmp/r.json" <<'PY' || fail "the JSON result lacks the plug-in's counts"
import json, sys
regs = json.load(open(sys.argv[1]))["mmio_histogram"]["registers"]
sensor = {r["offset"]: r for r in regs if r["device"] == "sensor"}
# stub_reader.c reads the sensor's ID once and polls STATUS until DATA is ready.
assert sensor[0]["reads"] >= 1 and sensor[8]["reads"] >= 1 and sensor[4]["reads"] >= 1, sensor
PY
# Named in a scenario instead of on the command line, turned on by its own section.
sed "s|^peripherals:|plugins: [$plugin]\nmmio_histogram: {top: 3}\nperipherals:|" "$src/scenarios/sensor-stub.yaml" > "$tmp/with-plugin.yaml"
"$emutrace" run "$fw/stub_reader.elf" --scenario "$tmp/with-plugin.yaml" 2>&1 >/dev/null | grep '^mmio histogram' >/dev/null \
    || fail "a scenario's plugins: list did not load the plug-in"
# Its section keeps the usual errors.
sed "s|^peripherals:|plugins: [$plugin]\nmmio_histogram: {tpo: 3}\nperipherals:|" "$src/scenarios/sensor-stub.yaml" > "$tmp/typo.yaml"
set +e
"$emutrace" run "$fw/stub_reader.elf" --scenario "$tmp/typo.yaml" 2>"$tmp/err.txt" >/dev/null; status=$?
set -e
[ $status -eq 2 ] && grep -q 'typo.yaml:.*mmio_histogram.tpo: unknown key' "$tmp/err.txt" || fail "a typo in the plug-in's section: $(cat "$tmp/err.txt")"

# The example of docs/design.md ("Writing an analysis") builds and runs as printed there.
sed -n '/^## Writing an analysis/,/^The rules/p' "$src/docs/design.md" | sed -n '/^```cpp$/,/^```$/p' | sed '1d;$d' > "$tmp/exceptions_seen.cpp"
[ -s "$tmp/exceptions_seen.cpp" ] || fail "no example in docs/design.md"
c++ -std=c++20 -shared -fPIC -o "$tmp/libexceptions.so" "$tmp/exceptions_seen.cpp" -I"$tmp/prefix/include" -L"$tmp/prefix/lib" -lemutrace \
    || fail "the example of docs/design.md does not build"
"$emutrace" run "$fw/irq_tests.elf" -s "$src/tests/scenarios/irq.yaml" --cmdline periodic --plugin "$tmp/libexceptions.so" --exceptions-seen --json "$tmp/x.json" 2>"$tmp/x.txt" >/dev/null \
    || fail "the example of docs/design.md does not run: $(cat "$tmp/x.txt")"
grep -q '^exceptions taken: ' "$tmp/x.txt" && python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['exceptions_seen']" "$tmp/x.json" \
    || fail "the example of docs/design.md reports nothing: $(cat "$tmp/x.txt")"

# A program linking the library, shared and static, and plug-ins built for other versions.
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/consumer" -j2 >/dev/null
for kind in shared static; do
    out=$("$tmp/consumer/run_$kind" "$fw/compute.elf") || fail "run_$kind failed: $out"
    echo "$out" | grep ' analyses: calltrace$' >/dev/null || fail "run_$kind: $out"
done
# pkg-config finds the same library.
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
[ "$(pkg-config --modversion emutrace)" = "$("$emutrace" --version 2>/dev/null || pkg-config --modversion emutrace)" ] || fail "pkg-config version"
c++ -O1 -o "$tmp/run_pc" "$src/tests/install/consumer/run_firmware.cpp" $(pkg-config --cflags --libs emutrace) -Wl,-rpath,"$tmp/prefix/lib" \
    || fail "a program does not build with pkg-config's flags"
"$tmp/run_pc" "$fw/compute.elf" | grep ' analyses: calltrace$' >/dev/null || fail "the pkg-config build does not run"
for bad in newer_abi unreleased_abi; do
    set +e
    "$emutrace" run "$fw/compute.elf" --plugin "$tmp/consumer/lib$bad.so" 2>"$tmp/err.txt" >/dev/null; status=$?
    set -e
    [ $status -eq 2 ] && [ "$(wc -l < "$tmp/err.txt")" -eq 1 ] && grep -q "lib$bad.so: built for plug-in ABI .*does not know.*rebuild it" "$tmp/err.txt" \
        || fail "$bad plug-in: status $status, $(cat "$tmp/err.txt")"
done
set +e
"$emutrace" run "$fw/compute.elf" --plugin "$tmp/missing.so" 2>"$tmp/err.txt" >/dev/null; status=$?
set -e
[ $status -eq 2 ] && grep -q "missing.so: cannot load the plug-in" "$tmp/err.txt" || fail "missing plug-in: status $status, $(cat "$tmp/err.txt")"
echo "install_test: installed package, example plug-in, shared and static consumers, version checks: ok"
