#!/usr/bin/env bash
# Runs `contactlab --headless FILE --steps 1` on every malformed scene in a directory and checks that it
# exits with 2 (bad input) and that stderr contains every substring listed for the file in expected.txt
# (lines "FILE SUBSTRING"; '#' starts a comment). Also checks that a missing file is named.
#
# Usage: bad_scenes_cli.sh PATH/TO/contactlab PATH/TO/tests/data/bad_scenes
set -u

exe=${1:?usage: bad_scenes_cli.sh CONTACTLAB BAD_SCENES_DIR}
dir=${2:?usage: bad_scenes_cli.sh CONTACTLAB BAD_SCENES_DIR}
expected="$dir/expected.txt"
[[ -x "$exe" ]] || { echo "not an executable: $exe" >&2; exit 1; }
[[ -f "$expected" ]] || { echo "missing $expected" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checked=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Runs the executable on one scene; leaves the exit code in $code and stderr in $tmp/stderr.
run() {
  timeout 60 "$exe" --headless "$1" --steps 1 >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
  code=$?
}

shopt -s nullglob
for file in "$dir"/*.json; do
  name=$(basename "$file")
  checked=$((checked + 1))
  run "$file"
  if [[ $code -ne 2 ]]; then
    fail "$name: exit code $code, expected 2; stderr: $(head -c 500 "$tmp/stderr")"
    continue
  fi
  found=0
  while read -r listed substring; do
    [[ -z "$listed" || "$listed" == \#* || "$listed" != "$name" ]] && continue
    found=1
    if ! grep -qF -- "$substring" "$tmp/stderr"; then
      fail "$name: stderr does not contain: $substring"$'\n'"  stderr: $(head -c 500 "$tmp/stderr")"
    fi
  done <"$expected"
  [[ $found -eq 1 ]] || fail "$name: no expectation listed in $expected"
done

# A file that does not exist: exit 2 and the message names it.
missing="$tmp/no_such_scene.json"
run "$missing"
[[ $code -eq 2 ]] || fail "missing file: exit code $code, expected 2"
grep -qF -- "no_such_scene.json" "$tmp/stderr" || fail "missing file: stderr does not name it: $(head -c 500 "$tmp/stderr")"

[[ $checked -ge 30 ]] || fail "only $checked bad scenes in $dir (expected at least 30)"
if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s) over $checked bad scenes" >&2
  exit 1
fi
echo "ok: $checked bad scenes rejected with exit code 2 and their messages"
