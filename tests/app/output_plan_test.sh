#!/usr/bin/env bash
# The output plan as a user meets it: every file a run writes is checked against every file it reads (by
# identity: hard links, symbolic links, bind mounts) and probed before the first step, and replaces the earlier
# file only when it is complete. Each case ends in exit 2 before step 1 (or the right output), and the user's
# other files are byte-identical afterwards.
# usage: output_plan_test.sh CONTACTLAB SOURCE_DIR OUT_DIR
set -u
exe=$1; src=$2; out=$3
rm -rf "$out"; mkdir -p "$out"
out=$(cd "$out" && pwd)
fail=0
# check NAME EXPECTED_EXIT STDERR_SUBSTRING -- command...: within 60 s, the exit code and the message.
check() {
  local name=$1 want=$2 msg=$3; shift 4
  timeout 60 "$@" >"$out/$name.out" 2>"$out/$name.err"
  local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $name: exit $got, expected $want"; head -c 2000 "$out/$name.err"; fail=1; return 1; fi
  if [ -n "$msg" ] && ! grep -qF -- "$msg" "$out/$name.err"; then
    echo "FAIL $name: stderr lacks '$msg':"; head -c 2000 "$out/$name.err"; fail=1; return 1
  fi
  echo "ok   $name"
}
# same NAME FILE COPY: FILE still holds the bytes of COPY.
same() {
  cmp -s "$2" "$3" || { echo "FAIL $1: $2 was changed"; fail=1; }
}
# no_temporaries NAME DIR: no temporary output file left in DIR.
no_temporaries() {
  if ls -A "$2" | grep -q '^\..*\.......$'; then echo "FAIL $1: temporary files left in $2: $(ls -A "$2")"; fail=1; fi
}

w=$out/work; mkdir -p "$w"
cp "$src/scenes/sphere_and_box.json" "$w/scene.json"; cp "$w/scene.json" "$w/scene.orig"
ln "$w/scene.json" "$w/hard.json"
ln -s scene.json "$w/soft.json"
scene=$w/scene.json

# --- Files lost ---
for opt in --state --metrics --trace; do
  check "hard_link_$opt" 2 "would overwrite the scene '$scene' (the same file by another name or link)" -- \
    "$exe" --headless "$scene" --steps 5 "$opt" "$w/hard.json"
  same "hard_link_$opt" "$scene" "$w/scene.orig"
done
check symlink_state 2 "would overwrite the scene" -- "$exe" --headless "$scene" --steps 5 --state "$w/soft.json"
same symlink_state "$scene" "$w/scene.orig"
mkdir -p "$w/x"
check dot_spelling 2 "would overwrite the scene" -- "$exe" --headless "$scene" --steps 5 --state "$w/./x/../scene.json"
# The scene through a bind mount (root only; skipped where mounts are not allowed).
mkdir -p "$w/bind"
if mount --bind "$w" "$w/bind" 2>/dev/null; then
  check bind_mount 2 "would overwrite the scene" -- "$exe" --headless "$scene" --steps 5 --state "$w/bind/scene.json"
  umount "$w/bind"
  same bind_mount "$scene" "$w/scene.orig"
else
  echo "skip bind_mount: mount --bind not allowed here"
fi

# A mesh the scene reads, and the distance grid it reads back from the cache.
mkdir -p "$w/mesh" "$out/cache"
cp "$src/assets/torus.obj" "$w/mesh/my_torus.obj"; cp "$w/mesh/my_torus.obj" "$w/torus.orig"
printf '{"format": 1, "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
 {"name": "torus", "shape": {"type": "mesh", "file": "my_torus.obj", "resolution": 16}, "mass": 1, "position": [0, 1, 0]}]}\n' \
  > "$w/mesh/torus.json"
check metrics_over_mesh 2 "--metrics '$w/mesh/my_torus.obj' would overwrite the mesh file of $w/mesh/torus.json: /bodies/1/shape/file" -- \
  env XDG_CACHE_HOME="$out/cache" "$exe" --headless "$w/mesh/torus.json" --steps 2 --metrics "$w/mesh/my_torus.obj"
same metrics_over_mesh "$w/mesh/my_torus.obj" "$w/torus.orig"
grid=$(ls "$out/cache/contactlab/"sdf-*.bin | head -1)
check metrics_over_cached_grid 2 "would overwrite the cached distance grid of $w/mesh/torus.json: /bodies/1/shape" -- \
  env XDG_CACHE_HOME="$out/cache" "$exe" --headless "$w/mesh/torus.json" --steps 2 --metrics "$grid"

# --sweep's --out: the scene it sweeps and that scene's meshes are read, so neither may be written.
check sweep_out_over_scene 2 "--out '$w/hard.json' would overwrite the scene '$scene'" -- \
  "$exe" --sweep "$scene" --dt 1/60 --solver lcp --duration 0.05 --out "$w/hard.json"
same sweep_out_over_scene "$scene" "$w/scene.orig"
check sweep_out_over_mesh 2 "--out '$w/mesh/my_torus.obj' would overwrite the mesh file of $w/mesh/torus.json" -- \
  env XDG_CACHE_HOME="$out/cache" "$exe" --sweep "$w/mesh/torus.json" --dt 1/60 --solver lcp --duration 0.05 \
  --out "$w/mesh/my_torus.obj"
same sweep_out_over_mesh "$w/mesh/my_torus.obj" "$w/torus.orig"

# --screenshot over the scene or a mesh: refused before any window opens (no display needed).
check screenshot_over_scene 2 "--screenshot '$w/hard.json' would overwrite the open scene" -- \
  env -u DISPLAY "$exe" "$scene" --screenshot "$w/hard.json"
same screenshot_over_scene "$scene" "$w/scene.orig"
check screenshot_directory 2 "cannot write --screenshot: it is a directory" -- env -u DISPLAY "$exe" "$scene" --screenshot "$w"

# Two outputs that are one file.
echo "metrics before" > "$w/m.csv"; cp "$w/m.csv" "$w/m.orig"; ln "$w/m.csv" "$w/m_link.json"
check metrics_trace_linked 2 "are the same file: each output needs its own" -- \
  "$exe" --headless "$scene" --steps 5 --metrics "$w/m.csv" --trace "$w/m_link.json"
same metrics_trace_linked "$w/m.csv" "$w/m.orig"
check metrics_trace_same_name 2 "are the same file" -- \
  "$exe" --headless "$scene" --steps 5 --metrics "$w/new.csv" --trace "$w/./new.csv"
# An existing --metrics is not truncated when --trace cannot be written.
check bad_trace_keeps_metrics 2 "cannot write --trace: its folder '$w/nofolder' does not exist" -- \
  "$exe" --headless "$scene" --steps 5 --metrics "$w/m.csv" --trace "$w/nofolder/t.json"
same bad_trace_keeps_metrics "$w/m.csv" "$w/m.orig"

# --compare's sidecar: over the scene by a hard link, and next to a --metrics that is a directory.
ln "$scene" "$w/cmp.lanes.json"
check sidecar_over_scene 2 "the lanes sidecar of --metrics '$w/cmp.lanes.json' would overwrite the scene" -- \
  "$exe" --compare lcp,volume "$scene" --steps 5 --metrics "$w/cmp.csv"
same sidecar_over_scene "$scene" "$w/scene.orig"
mkdir -p "$w/adir"; echo "sidecar before" > "$w/adir.lanes.json"; cp "$w/adir.lanes.json" "$w/adir.orig"
check metrics_directory_compare 2 "cannot write --metrics: it is a directory" -- \
  "$exe" --compare lcp,volume "$scene" --steps 5 --metrics "$w/adir"
same metrics_directory_compare "$w/adir.lanes.json" "$w/adir.orig"

# Unwritable --state found before the run (pile1000 for 100,000 steps would take minutes), --metrics untouched.
pile=$src/scenes/pile1000.json
check state_missing_folder 2 "its folder '$w/missing' does not exist" -- \
  "$exe" --headless "$pile" --steps 100000 --metrics "$w/m.csv" --state "$w/missing/s.json"
same state_missing_folder "$w/m.csv" "$w/m.orig"
check state_directory 2 "cannot write --state: it is a directory" -- \
  "$exe" --headless "$pile" --steps 100000 --metrics "$w/m.csv" --state "$w/adir"
mkdir -p "$w/ro"
if mount -t tmpfs -o ro tmpfs "$w/ro" 2>/dev/null; then
  check state_read_only_fs 2 "takes no new file: Read-only file system" -- \
    "$exe" --headless "$pile" --steps 100000 --metrics "$w/m.csv" --state "$w/ro/s.json"
  umount "$w/ro"
else
  echo "skip state_read_only_fs: cannot mount a read-only tmpfs here"
fi
mkdir -p "$w/frozen"; echo "state before" > "$w/frozen/s.json"
if chattr +i "$w/frozen" 2>/dev/null; then
  check state_immutable_folder 2 "takes no new file: Operation not permitted" -- \
    "$exe" --headless "$pile" --steps 100000 --state "$w/frozen/s.json"
  chattr -i "$w/frozen"
else
  echo "skip state_immutable_folder: chattr not supported here"
fi
same state_read_only "$w/m.csv" "$w/m.orig"

# Pipes and devices: a pipe without a reader is refused at once, /dev/null takes every output.
mkfifo "$w/pipe.csv"
check metrics_pipe_no_reader 2 "it is a named pipe that nobody reads" -- "$exe" --headless "$scene" --steps 5 --metrics "$w/pipe.csv"
check outputs_dev_null 0 "" -- "$exe" --headless "$scene" --steps 5 --metrics /dev/null --trace /dev/null --state /dev/null

# --- Never truncate before success ---
# A symbolic link as an output writes the file it names and stays a link.
echo "old" > "$w/real.csv"; ln -s real.csv "$w/link.csv"
check metrics_through_symlink 0 "" -- "$exe" --headless "$scene" --steps 3 --metrics "$w/link.csv"
[ -L "$w/link.csv" ] && [ "$(wc -l < "$w/real.csv")" = 4 ] || { echo "FAIL metrics_through_symlink: link or rows"; fail=1; }
# A link to a name that is not there yet (dangling) makes that file and stays a link; one into a missing folder is
# refused before the run.
ln -s made.csv "$w/dangling.csv"
check metrics_through_dangling_link 0 "" -- "$exe" --headless "$scene" --steps 3 --metrics "$w/dangling.csv"
[ -L "$w/dangling.csv" ] && [ "$(wc -l < "$w/made.csv")" = 4 ] || { echo "FAIL metrics_through_dangling_link"; fail=1; }
ln -s nowhere/x.csv "$w/dangling_nowhere.csv"
check metrics_dangling_into_missing_folder 2 "its folder '$w/nowhere' does not exist" -- \
  "$exe" --headless "$scene" --steps 3 --metrics "$w/dangling_nowhere.csv"
[ -L "$w/dangling_nowhere.csv" ] || { echo "FAIL metrics_dangling_into_missing_folder: the link is gone"; fail=1; }
# A full disk for the state: exit 2, and the metrics of that run do not replace the earlier ones.
check state_full_disk_keeps_metrics 2 "/dev/full: cannot write state file: No space left on device" -- \
  "$exe" --headless "$scene" --steps 5 --metrics "$w/m.csv" --state /dev/full
same state_full_disk_keeps_metrics "$w/m.csv" "$w/m.orig"
# SIGTERM during a run: the earlier files stay, no temporary file is left.
echo "state before" > "$w/s.json"; cp "$w/s.json" "$w/s.orig"
"$exe" --headless "$pile" --steps 100000 --metrics "$w/m.csv" --trace "$w/t.json" --state "$w/s.json" 2>/dev/null &
pid=$!
sleep 3
kill -TERM $pid; wait $pid; code=$?
[ "$code" = 143 ] || { echo "FAIL sigterm: exit $code, expected 143 (killed by SIGTERM)"; fail=1; }
same sigterm "$w/m.csv" "$w/m.orig"; same sigterm "$w/s.json" "$w/s.orig"
[ ! -e "$w/t.json" ] || { echo "FAIL sigterm: t.json was created"; fail=1; }
no_temporaries sigterm "$w"
echo "ok   sigterm"
# A blow-up keeps the steps before it, and says so.
printf '{"format": 1, "max_speed": 10, "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 5, 0]}]}\n' > "$w/blow.json"
check blow_up_keeps_steps 3 "blow-up: body 'ball' moves at" -- "$exe" --headless "$w/blow.json" --steps 200 --metrics "$w/blow.csv" --trace "$w/blow_t.json"
grep -qF "the 62 steps up to it are kept in $w/blow.csv and $w/blow_t.json" "$out/blow_up_keeps_steps.err" &&
  [ "$(wc -l < "$w/blow.csv")" = 63 ] && grep -q '"displayTimeUnit"' "$w/blow_t.json" ||
  { echo "FAIL blow_up_keeps_steps: rows $(wc -l < "$w/blow.csv")"; cat "$out/blow_up_keeps_steps.err"; fail=1; }
no_temporaries all "$w"

exit $fail
