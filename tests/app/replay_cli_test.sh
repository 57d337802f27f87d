#!/usr/bin/env bash
# Replays on the command line: a run recorded with --record and played with --replay --headless ends in the same
# state, byte for byte in the --state files, under every method; a replay changed by hand does not, and says so;
# replays of another format, and options a replay holds itself, are refused with what to do.
# usage: replay_cli_test.sh CONTACTLAB SOURCE_DIR OUT_DIR
set -u
exe=$1; src=$2; out=$3
mkdir -p "$out"
fail=0
check() {  # check NAME EXPECTED_EXIT OUTPUT_SUBSTRING -- command...   (the substring in stdout or stderr)
  local name=$1 want=$2 msg=$3; shift 4
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $name: exit $got, expected $want"; cat "$out/$name.err"; fail=1; return; fi
  if [ -n "$msg" ] && ! grep -qF -- "$msg" "$out/$name.out" "$out/$name.err"; then
    echo "FAIL $name: output lacks '$msg':"; cat "$out/$name.out" "$out/$name.err"; fail=1; return
  fi
  echo "ok   $name"
}
scene=$src/scenes/default.json

# Every method, with options the replay must carry (--dt, --set on lcp): the replayed state is the recorded one.
for solver in lcp implicit-penalty volume pid-penalty; do
  extra=()
  [ "$solver" = lcp ] && extra=(--set iterations=17)
  check "record.$solver" 0 "" -- "$exe" --headless "$scene" --steps 150 --solver "$solver" --dt 0.01 "${extra[@]}" \
    --state "$out/$solver.recorded.json" --record "$out/$solver.replay.json"
  check "replay.$solver" 0 "the same final state as recorded" -- "$exe" --replay "$out/$solver.replay.json" --headless \
    --state "$out/$solver.replayed.json"
  if cmp -s "$out/$solver.recorded.json" "$out/$solver.replayed.json"; then echo "ok   state.$solver"
  else echo "FAIL state.$solver: the replayed state differs from the recorded one"; fail=1; fi
done
# The options are edits at step 0: the settings with dt 0.01 (after gravity), lcp's parameters with iterations 17.
grep -q '"settings":\[0.0,-9.81,0.0,0.01,' "$out/lcp.replay.json" || { echo "FAIL the lcp replay holds no edit of dt"; fail=1; }
grep -q '"parameters":\[17.0,' "$out/lcp.replay.json" || { echo "FAIL the lcp replay holds no edit of iterations"; fail=1; }

# The control: the replay's recorded end changed by hand is found out (exit 3, which lane, where).
sed 's/"hash":"[0-9a-f]*"/"hash":"0123456789abcdef"/' "$out/lcp.replay.json" >"$out/changed.replay.json"
check changed 3 "did not end where the recording did" -- "$exe" --replay "$out/changed.replay.json" --headless
grep -qF "lane 1 (lcp)" "$out/changed.err" || { echo "FAIL changed: no lane named"; cat "$out/changed.err"; fail=1; }

# Another format: refused with what to do.
sed 's/"contactlab_replay": 1/"contactlab_replay": 0/' "$out/lcp.replay.json" >"$out/old.replay.json"
check older 2 "older ContactLab" -- "$exe" --replay "$out/old.replay.json" --headless
check scene_as_replay 2 "scene file, not a replay" -- "$exe" --replay "$scene" --headless
# What the replay holds is not given again.
check with_scene 2 "give no scene file" -- "$exe" --replay "$out/lcp.replay.json" --headless "$scene"
check with_solver 2 "cannot be used with --replay" -- "$exe" --replay "$out/lcp.replay.json" --headless --solver lcp
check with_steps 2 "cannot be used with --replay" -- "$exe" --replay "$out/lcp.replay.json" --headless --steps 3
# The replay is an output like any other: never over the scene it reads.
cp "$scene" "$out/scene_copy.json"
check record_over_own_scene 2 "--record" -- "$exe" --headless "$out/scene_copy.json" --steps 3 --record "$out/scene_copy.json"
exit $fail
