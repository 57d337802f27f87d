#!/usr/bin/env bash
# One shipped scene under every method it is for: each method the scene's "methods" lists (every registered
# solver when it lists none) runs SECONDS of simulated time headless (ceil(SECONDS / the scene's dt) steps) and
# must exit 0: no bad input, no non-finite value, no blow-up past max_speed. Every other registered solver must
# be refused at once with exit 2 and a message naming the file, the solver and the scene's methods.
# Widening a scene to another method is an edit of its "methods" (and of its generator, if it has one).
#
# Usage: shipped_scene.sh PATH/TO/contactlab SCENE.json [SECONDS]
set -u

exe=${1:?usage: shipped_scene.sh CONTACTLAB SCENE.json [SECONDS]}
scene=${2:?usage: shipped_scene.sh CONTACTLAB SCENE.json [SECONDS]}
seconds=${3:-10}
[[ -x "$exe" ]] || { echo "not an executable: $exe" >&2; exit 1; }
[[ -f "$scene" ]] || { echo "no such scene: $scene" >&2; exit 1; }

# The scene's steps and methods, read as the loader reads them (dt default 1/60; methods default: all).
read -r steps methods < <(python3 - "$scene" "$seconds" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
dt = doc.get("dt", 1.0 / 60.0)
print(math.ceil(round(float(sys.argv[2]) / dt, 6)), ",".join(doc.get("methods", [])))
PY
) || { echo "cannot read $scene" >&2; exit 1; }
# Registered solvers: the lines of --list-solvers that are not indented ("name: method").
solvers=$("$exe" --list-solvers | sed -n 's/^\([a-z0-9-]*\): .*/\1/p')
[[ -n "$solvers" ]] || { echo "no solvers listed by $exe --list-solvers" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
for solver in $solvers; do
  if [[ -z "$methods" || ",$methods," == *",$solver,"* ]]; then
    start=$(date +%s%N)
    "$exe" --headless "$scene" --steps "$steps" --solver "$solver" >/dev/null 2>"$tmp/stderr" </dev/null
    code=$?
    took_ms=$((($(date +%s%N) - start) / 1000000))
    if [[ $code -ne 0 ]]; then
      echo "FAIL $solver: $steps steps exit $code: $(grep -v 'warning:' "$tmp/stderr" | head -c 500)"
      failures=$((failures + 1))
    else
      echo "ok   $solver: $steps steps ($seconds s simulated) in $took_ms ms"
    fi
  else
    "$exe" --headless "$scene" --steps 1 --solver "$solver" >/dev/null 2>"$tmp/stderr" </dev/null
    code=$?
    want="$scene: --solver $solver: "
    listed="is for the methods ${methods//,/, } "
    if [[ $code -ne 2 ]] || ! grep -qF -- "$want" "$tmp/stderr" || ! grep -qF -- "$listed" "$tmp/stderr"; then
      echo "FAIL $solver: not for this scene (methods $methods), expected exit 2 naming the file, solver and methods;" \
           "got exit $code: $(head -c 500 "$tmp/stderr")"
      failures=$((failures + 1))
    else
      echo "ok   $solver: refused (the scene is for $methods)"
    fi
  fi
done
exit $((failures > 0))
