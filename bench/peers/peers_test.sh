#!/usr/bin/env bash
# contactlab_peers's scene checks and a small run (registered only when the peers are built).
#   peers_test.sh PATH/TO/contactlab_peers PATH/TO/scenes
set -u
exe=${1:?usage: peers_test.sh CONTACTLAB_PEERS SCENES_DIR}
scenes=${2:?usage: peers_test.sh CONTACTLAB_PEERS SCENES_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A mesh scene is refused before anything runs: exit 2, one line naming the scene, the engine and the body.
"$exe" "$scenes/torus_stack.json" --steps 1 >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code -eq 2 ]] || fail "torus_stack: exit $code, expected 2"
grep -Eq "torus_stack\.json: [a-z]+: body 'torus_0' \(/bodies/1\): (a mesh shape is not converted|mesh shapes are not written)" "$tmp/err" ||
  fail "torus_stack: message was: $(head -c 300 "$tmp/err")"
[[ ! -s "$tmp/out" ]] || fail "torus_stack: printed a table: $(head -c 300 "$tmp/out")"

# A sphere and a box at rest: every method and engine of the build runs 60 steps, the CSV has a row each.
"$exe" "$scenes/sphere_and_box.json" --steps 60 --csv "$tmp/runs.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code -eq 0 ]] || fail "sphere_and_box: exit $code: $(head -c 500 "$tmp/err") $(tail -c 500 "$tmp/out")"
engines=$(grep -c '^sphere_and_box,' "$tmp/runs.csv")
[[ $engines -ge 5 ]] || fail "sphere_and_box: $engines rows in the CSV, expected the 4 methods and at least one peer"
# At rest, no peer and not lcp lets anything move more than a centimetre or sink more than one (the conversion
# keeps the bodies where they are; the penalty and volume methods' own resting behaviour is their tests' business).
while IFS=, read -r scene engine method bodies dt steps iterations status med p95 drift maxpen rest; do
  [[ $scene == scene ]] && continue
  [[ $status == ok ]] || fail "$engine $method: status $status"
  [[ $engine == contactlab && $method != lcp ]] && continue
  awk -v d="$drift" -v p="$maxpen" 'BEGIN { exit !(d < 0.01 && p < 0.01) }' ||
    fail "$engine $method: drift $drift m, max penetration $maxpen m"
done <"$tmp/runs.csv"

# A scene with joints: Bullet and ODE refuse it, naming the joint and its bodies; MuJoCo takes it through the MJCF
# writer (engine/scene/mjcf_writer.h), hinge, limits and motor, and ends where lcp does (the door swings on its motor).
for engine in $(awk -F, 'NR > 1 && $2 != "contactlab" { print $2 }' "$tmp/runs.csv" | sort -u); do
  "$exe" "$scenes/door.json" --steps 100 --methods lcp --engines "$engine" --csv "$tmp/door.csv" >"$tmp/out" 2>"$tmp/err"
  code=$?
  if [[ $engine == mujoco ]]; then
    [[ $code -eq 0 ]] || fail "door under mujoco: exit $code: $(head -c 300 "$tmp/err")"
    lcp=$(awk -F, '$2 == "contactlab" { print $11 }' "$tmp/door.csv")
    mj=$(awk -F, '$2 == "mujoco" { print $11 }' "$tmp/door.csv")
    awk -v a="$lcp" -v b="$mj" 'BEGIN { d = a - b; exit !(a > 0.05 && d < 0.01 && d > -0.01) }' ||
      fail "door: mujoco's drift $mj m against lcp's $lcp m"
  else
    [[ $code -eq 2 ]] || fail "door under $engine: exit $code, expected 2"
    grep -Eq "door\.json: $engine: joint '[^']*' \(/joints/0\) between '[^']+' and '[^']+': joints are not converted" \
      "$tmp/err" || fail "door under $engine: message was: $(head -c 300 "$tmp/err")"
  fi
done

# A scene MuJoCo declines (its dense arrays over --mujoco-max-gb) is a skipped run, not a failure: exit 0.
if grep -q '^sphere_and_box,mujoco,' "$tmp/runs.csv"; then
  "$exe" "$scenes/pyramid20.json" --steps 1 --methods none --engines mujoco --mujoco-max-gb 0.001 --csv "$tmp/declined.csv" \
    >"$tmp/out" 2>"$tmp/err"
  code=$?
  [[ $code -eq 0 ]] || fail "mujoco declining pyramid20: exit $code: $(head -c 300 "$tmp/err")"
  grep -q '^pyramid20,mujoco,newton,211,[^,]*,0,10,skipped,' "$tmp/declined.csv" ||
    fail "mujoco declining pyramid20: $(cat "$tmp/declined.csv")"
fi

# DART (when built): a capsule lying on the ground and a box on a turned plane (normal z and offset 0.5 in its body frame,
# turned to y up at 0.5 m; DART gets it as a box below the plane) rest where lcp rests them, the capsule through FCL (DART's own detector has no
# capsule), the box through DART's own; an unknown detector in CONTACTLAB_PEERS_DART_COLLISION is a failed run.
if grep -q '^sphere_and_box,dart,' "$tmp/runs.csv"; then
  cat >"$tmp/capsule.json" <<'JSON'
{"format": 1, "name": "capsule_rest", "gravity": [0, -9.81, 0], "dt": 0.016666666666666666,
 "bodies": [
  {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}, "fixed": true},
  {"name": "capsule", "shape": {"type": "capsule", "radius": 0.2, "half_height": 0.5}, "density": 1000,
   "position": [0, 0.2, 0], "orientation": [0.7071067811865476, 0, 0, 0.7071067811865476]}]}
JSON
  cat >"$tmp/turned.json" <<'JSON'
{"format": 1, "name": "turned_plane", "gravity": [0, -9.81, 0], "dt": 0.016666666666666666,
 "bodies": [
  {"name": "ground", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0.5}, "fixed": true,
   "orientation": [0.7071067811865476, -0.7071067811865476, 0, 0]},
  {"name": "box", "shape": {"type": "box", "half_extents": [0.25, 0.25, 0.25]}, "density": 1000,
   "position": [0, 0.75, 0]}]}
JSON
  for scene in capsule turned; do
    "$exe" "$tmp/$scene.json" --steps 120 --methods lcp --engines dart --csv "$tmp/$scene.csv" >"$tmp/out" 2>"$tmp/err"
    code=$?
    [[ $code -eq 0 ]] || fail "dart $scene: exit $code: $(head -c 300 "$tmp/err") $(tail -c 300 "$tmp/out")"
    drift=$(awk -F, '$2 == "dart" { print $11 }' "$tmp/$scene.csv")
    awk -v d="$drift" 'BEGIN { exit !(d != "" && d < 0.01) }' || fail "dart $scene: drift $drift m, expected under 1 cm"
  done
  CONTACTLAB_PEERS_DART_COLLISION=bogus "$exe" "$scenes/sphere_and_box.json" --steps 1 --methods none --engines dart \
    >"$tmp/out" 2>"$tmp/err"
  code=$?
  [[ $code -eq 3 ]] || fail "dart with CONTACTLAB_PEERS_DART_COLLISION=bogus: exit $code, expected 3"
  grep -q "CONTACTLAB_PEERS_DART_COLLISION=bogus: expected fcl-mesh, fcl or dart" "$tmp/out" ||
    fail "dart bogus detector: $(tail -c 300 "$tmp/out")"
fi

# --set reaches the methods that have the parameter and names itself in the method column; a parameter no method
# run has, or a value out of range, is refused before anything runs.
"$exe" "$scenes/sphere_and_box.json" --steps 5 --methods lcp,pid-penalty --engines none --set friction_directions=1 \
  --csv "$tmp/set.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code -eq 0 ]] || fail "--set friction_directions=1: exit $code: $(head -c 300 "$tmp/err")"
grep -q '^sphere_and_box,contactlab,lcp \[friction_directions=1\],' "$tmp/set.csv" ||
  fail "--set: lcp's row does not name the setting: $(cat "$tmp/set.csv")"
grep -q '^sphere_and_box,contactlab,pid-penalty,' "$tmp/set.csv" ||
  fail "--set: pid-penalty (which has no friction_directions) should run at its defaults: $(cat "$tmp/set.csv")"
"$exe" "$scenes/sphere_and_box.json" --steps 5 --methods pid-penalty --engines none --set friction_directions=1 \
  >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code -eq 2 ]] || fail "--set for no method: exit $code, expected 2"
grep -q "friction_directions: no method run has this parameter" "$tmp/err" || fail "--set for no method: $(head -c 300 "$tmp/err")"
"$exe" "$scenes/sphere_and_box.json" --steps 5 --methods lcp --engines none --set friction_directions=7 \
  >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code -eq 2 ]] || fail "--set out of range: exit $code, expected 2"
grep -q "friction_directions=7: lcp: " "$tmp/err" || fail "--set out of range: $(head -c 300 "$tmp/err")"
[[ ! -s "$tmp/out" ]] || fail "--set out of range: printed a table"

[[ $failures -eq 0 ]] && echo "ok"
exit $((failures > 0))
