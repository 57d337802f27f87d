#!/usr/bin/env bash
# The conformance matrix of docs/conformance.md is what `contactlab --conformance --markdown` prints (the whole
# sweep of every case under every solver), and the exit code says whether a point failed.
# usage: conformance_doc_test.sh CONTACTLAB SOURCE_DIR OUT_DIR
set -u
exe=$1; src=$2; out=$3
mkdir -p "$out"
doc=$src/docs/conformance.md
[ -f "$doc" ] || { echo "FAIL documentation page missing: $doc"; exit 1; }
fail=0
"$exe" --conformance --markdown > "$out/conformance.md"
code=$?
sed -n '/<!-- conformance:begin -->/,/<!-- conformance:end -->/p' "$doc" | sed '1d;$d' > "$out/doc_conformance.md"
if [ ! -s "$out/conformance.md" ] || ! cmp -s "$out/conformance.md" "$out/doc_conformance.md"; then
  echo "FAIL docs/conformance.md matrix differs from 'contactlab --conformance --markdown':"
  diff "$out/doc_conformance.md" "$out/conformance.md"; fail=1
else
  echo "ok   doc_conformance"
fi
# A failing cell reads "| **FAIL** <k> of <n>; worst ..." (the legend under the table names **FAIL** too).
if grep -qE '\| \*\*FAIL\*\* [0-9]+ of [0-9]+;' "$out/conformance.md"; then want=3; else want=0; fi
[ "$code" = "$want" ] || { echo "FAIL conformance exit $code, expected $want"; fail=1; }
exit $fail
