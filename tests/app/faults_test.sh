#!/usr/bin/env bash
# The faults table of docs/testing.md, run: bad files, absurd numbers, huge scenes, lost outputs and diverging
# physics each end in exit 0, 2 or 3 with a clear one-line message, never a signal, exit 1 or a hang.
# usage: faults_test.sh CONTACTLAB SOURCE_DIR OUT_DIR
set -u
exe=$1; src=$2; out=$3
rm -rf "$out"; mkdir -p "$out"
data=$src/tests/data/faults
fail=0
# check NAME EXPECTED_EXIT STDERR_SUBSTRING -- command...: within 60 s, the exit code and the message.
check() {
  local name=$1 want=$2 msg=$3; shift 4
  timeout 60 "$@" >"$out/$name.out" 2>"$out/$name.err"
  local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $name: exit $got, expected $want"; head -c 2000 "$out/$name.err"; fail=1; return; fi
  if [ -n "$msg" ] && ! grep -qF -- "$msg" "$out/$name.err"; then
    echo "FAIL $name: stderr lacks '$msg':"; head -c 2000 "$out/$name.err"; fail=1; return
  fi
  # Messages are escaped: no control byte but the line ends reaches the terminal.
  if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$out/$name.err"; then
    echo "FAIL $name: raw control characters in the message"; fail=1; return
  fi
  echo "ok   $name"
}
# check_file NAME EXPECTED_EXIT STDERR_SUBSTRING: one step of tests/data/faults/NAME.json.
check_file() { check "$1" "$2" "$3" -- "$exe" --headless "$data/$1.json" --steps 1; }
scene=$src/scenes/sphere_and_box.json

# Reading what is not a file.
check dev_zero 2 "/dev/zero: cannot read scene file: it is a character device" -- "$exe" --headless /dev/zero --steps 1
mkfifo "$out/pipe.json"
check named_pipe 2 "pipe.json: cannot read scene file: it is a pipe" -- "$exe" --headless "$out/pipe.json" --steps 1
check directory 2 "cannot read scene file: it is a directory" -- "$exe" --headless "$src/scenes" --steps 1
check nul_byte 2 "nul_then_garbage.json:2:1: a NUL byte" -- "$exe" --headless "$data/nul_then_garbage.json" --steps 1

# Valid but huge: bodies heaped at one pose stop at max_contacts, in bounded memory and time.
python3 - "$out" <<'PY'
import json, sys
for n in (500, 2000):
    bodies = [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}, "fixed": True}]
    bodies += [{"name": "b%d" % i, "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "mass": 1,
                "position": [0, 3, 0]} for i in range(n)]
    json.dump({"format": 1, "bodies": bodies}, open("%s/heap%d.json" % (sys.argv[1], n), "w"))
PY
check heap_2000_boxes 3 "too many contacts: more than 250000 overlapping pairs at step 1 (max_contacts 250000)" -- \
  "$exe" --headless "$out/heap2000.json" --steps 10
check heap_500_boxes 3 "too many contacts: more than 250000 contacts at step 1" -- "$exe" --headless "$out/heap500.json" --steps 10

# Mesh files: a 20,000-sided prism loads in linear time (tinyobjloader took 4.8 s), a 200,000-sided one is
# refused at once (it ran past a minute); bad indices are named, however many digits.
python3 - "$out" <<'PY'
import math, sys
for n in (20000, 200000):
  with open("%s/prism%d.obj" % (sys.argv[1], n), "w") as f:
    for z in (0.0, 0.2):
        for i in range(n):
            f.write("v %.12f %.12f %.1f\n" % (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n), z))
    f.write("f " + " ".join(str(i) for i in range(n, 0, -1)) + "\n")
    f.write("f " + " ".join(str(n + i) for i in range(1, n + 1)) + "\n")
    for i in range(n):
        j = (i + 1) % n
        f.write("f %d %d %d %d\n" % (i + 1, j + 1, n + j + 1, n + i + 1))
PY
for n in 20000 200000; do
  printf '{"format": 1, "bodies": [{"name": "prism", "shape": {"type": "mesh", "file": "prism%d.obj", "resolution": 8}, "mass": 1}]}\n' $n > "$out/prism$n.json"
done
check polygon_20000_sides 0 "" -- "$exe" --headless "$out/prism20000.json" --steps 1
check polygon_200000_sides 2 "prism200000.obj:400001: this 200000-vertex polygon has more than the 65536 corners a face may have" -- \
  "$exe" --headless "$out/prism200000.json" --steps 1
check_file obj_index_20_digits 2 "obj_index_20_digits.obj:8: face index '99999999999999999999' out of range"
check_file obj_index_2pow32 2 "obj_index_2pow32.obj:8: face index 4294967295 out of range (7 vertices)"
check_file obj_index_2pow31 2 "obj_index_2pow31.obj:8: face index 2147483648 out of range (7 vertices)"

# Lost output is an error, never a silent success.
check metrics_full_disk 2 "/dev/full: cannot write metrics file: No space left on device" -- "$exe" --headless "$scene" --steps 5 --metrics /dev/full
check trace_full_disk 2 "/dev/full: cannot write trace file: No space left on device" -- "$exe" --headless "$scene" --steps 5 --trace /dev/full
check state_full_disk 2 "/dev/full: cannot write state file: No space left on device" -- "$exe" --headless "$scene" --steps 5 --state /dev/full
check metrics_empty_path 2 "option --metrics needs a file name, got ''" -- "$exe" --headless "$scene" --steps 5 --metrics ""
check outputs_same_file 2 "--metrics '$out/same.csv' and --trace '$out/./same.csv' are the same file" -- \
  "$exe" --headless "$scene" --steps 5 --metrics "$out/same.csv" --trace "$out/./same.csv"
check output_over_scene 2 "--state '$scene' would overwrite the scene '$scene', which the run reads" -- "$exe" --headless "$scene" --steps 5 --state "$scene"

# Mesh paths that are not mesh files: said as what they are, never "not found", never their bytes.
mkdir -p "$out/meshes/adir.obj"; mkfifo "$out/meshes/pipe.obj"; ln -s loop.obj "$out/meshes/loop.obj"
for name in adir pipe loop passwd; do
  file=$name.obj; [ $name = passwd ] && file=../../../../../../../../etc/passwd
  printf '{"format": 1, "bodies": [{"name": "m", "shape": {"type": "mesh", "file": "%s"}, "mass": 1}]}\n' "$file" > "$out/meshes/$name.json"
done
check mesh_directory 2 "/bodies/0/shape/file: $out/meshes/adir.obj: cannot read mesh file: it is a directory" -- "$exe" --headless "$out/meshes/adir.json" --steps 1
check mesh_pipe 2 "pipe.obj: cannot read mesh file: it is a pipe" -- "$exe" --headless "$out/meshes/pipe.json" --steps 1
check mesh_symlink_loop 2 "loop.obj: cannot open mesh file: Too many levels of symbolic links" -- "$exe" --headless "$out/meshes/loop.json" --steps 1
check mesh_not_a_mesh 2 '/bodies/0/shape/file: expected a mesh file name ending in .obj or .off, got "../../../../../../../../etc/passwd"' -- \
  "$exe" --headless "$out/meshes/passwd.json" --steps 1
grep -q "root:" "$out/mesh_not_a_mesh.err" && { echo "FAIL mesh_not_a_mesh: the file's bytes are in the message"; fail=1; }
ln -s /etc/passwd "$out/meshes/passwd_link.obj"
printf '{"format": 1, "bodies": [{"name": "m", "shape": {"type": "mesh", "file": "passwd_link.obj"}, "mass": 1}]}\n' > "$out/meshes/passwd_link.json"
check mesh_not_obj_text 2 "passwd_link.obj:1: not a Wavefront OBJ file: its first statement is no OBJ statement" -- \
  "$exe" --headless "$out/meshes/passwd_link.json" --steps 1
grep -q "root" "$out/mesh_not_obj_text.err" && { echo "FAIL mesh_not_obj_text: the file's bytes are in the message"; fail=1; }

# Memory budgets: a mesh or grid over the budget is refused before it is built, naming the file and JSON path.
check mesh_over_budget 2 "prism20000.json: /bodies/0/shape/file: mesh file \"$out/prism20000.obj\" (22066" -- \
  "$exe" --headless "$out/prism20000.json" --steps 1 --memory-budget 32M
grep -qF "triangles) with a distance grid of resolution 8 needs about 42 MiB, more than the memory budget of 32 MiB (--memory-budget or CONTACTLAB_MEMORY_BUDGET" "$out/mesh_over_budget.err" ||
  { echo "FAIL mesh_over_budget: no budget named"; fail=1; }
check mesh_over_budget_env 2 "more than the memory budget of 32 MiB" -- env CONTACTLAB_MEMORY_BUDGET=32M "$exe" --headless "$out/prism20000.json" --steps 1
printf '{"format": 1, "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true}' > "$out/rocks.json"
for i in 1 2 3 4 5 6 7 8; do printf ', {"name": "rock%d", "shape": {"type": "rock", "radius": 0.3, "resolution": 512}, "mass": 1, "position": [%d, 1, 0]}' $i $i >> "$out/rocks.json"; done
printf ']}\n' >> "$out/rocks.json"
check grid_over_budget 2 "rocks.json: /bodies/1/shape: cannot use the rock: the rock of" -- "$exe" --headless "$out/rocks.json" --steps 1 --memory-budget 256M
check memory_budget_bad 2 "--memory-budget expects a size of at least 1M" -- "$exe" --headless "$scene" --steps 1 --memory-budget lots
# Out of memory in a step (100,000 spheres heaped at one point, no contact limit, 2 GB of address space): exit 2
# naming the scene and the setting, never a bare std::bad_alloc or exit 1.
python3 - "$out" <<'PY'
import json, sys
b = [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": True}]
b += [{"name": "s%d" % i, "shape": {"type": "sphere", "radius": 0.001}, "mass": 0.001, "position": [0, 1, 0]} for i in range(20000)]
json.dump({"format": 1, "max_contacts": 0, "bodies": b}, open("%s/heap_spheres.json" % sys.argv[1], "w"))
PY
check out_of_memory_step 2 "heap_spheres.json: out of memory at step 1 (20001 bodies): its /max_contacts is 0" -- \
  bash -c 'ulimit -v 2000000; exec "$0" --headless "$1" --steps 2' "$exe" "$out/heap_spheres.json"

# The distance-grid cache: a named pipe at a grid's path is skipped, never waited on; the cache keeps its limit.
cache=$out/grid_cache
check grid_cache_fill 0 "" -- env XDG_CACHE_HOME="$cache" "$exe" --headless "$out/prism20000.json" --steps 1
grid=$(ls "$cache"/contactlab/sdf-*.bin | head -1)
rm -f "$grid"; mkfifo "$grid"
check grid_cache_pipe 0 "" -- env XDG_CACHE_HOME="$cache" "$exe" --headless "$out/prism20000.json" --steps 1
[ -f "$grid" ] || { echo "FAIL grid_cache_pipe: the pipe was not replaced by the grid"; fail=1; }
rm -rf "$cache"
check grid_cache_limit 0 "" -- env XDG_CACHE_HOME="$cache" CONTACTLAB_GRID_CACHE_LIMIT=1K "$exe" --headless "$out/prism20000.json" --steps 1
[ -z "$(ls "$cache"/contactlab/ 2>/dev/null)" ] || { echo "FAIL grid_cache_limit: a grid over the limit was stored"; fail=1; }

# Slender bodies: a 0.2 mm sheet dropped flat or tilted rests or stops (exit 3) under every method, never ends
# with its middle in the ground with exit 0.
for tilt in flat tilted; do
  q='[1, 0, 0, 0]'; [ $tilt = tilted ] && q='[0.9990482, 0.0436194, 0, 0]'
  printf '{"format": 1, "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
 {"name": "sheet", "shape": {"type": "box", "half_extents": [0.5, 0.0001, 0.5]}, "density": 1000, "position": [0, 0.5, 0],
  "orientation": %s}]}\n' "$q" > "$out/sheet_$tilt.json"
  for solver in lcp volume implicit-penalty pid-penalty; do
    name=sheet_${tilt}_$solver
    timeout 120 "$exe" --headless "$out/sheet_$tilt.json" --steps 300 --solver $solver --state "$out/$name.json" 2>"$out/$name.err"
    code=$?
    if [ $code = 0 ]; then
      python3 -c "import json,sys; y=json.load(open(sys.argv[1]))['bodies'][1]['position'][1]; sys.exit(0 if y > 0 else 1)" \
        "$out/$name.json" || { echo "FAIL $name: exit 0 with the sheet half or more in the ground"; fail=1; continue; }
    elif [ $code != 3 ]; then echo "FAIL $name: exit $code"; fail=1; continue
    fi
    echo "ok   $name (exit $code)"
  done
done

# Numbers converted with checks.
check_file bowl_segments_huge 2 "/bodies/1/shape/segments: expected a whole number in [0, 1000000], got 10000000000"
check_file bowl_segments_fraction 2 "/bodies/1/shape/segments: expected a whole number in [0, 1000000], got 12.9"
check_file mesh_resolution_fraction 2 "/bodies/1/shape/resolution: expected a whole number in [4, 512], got 4.9"
check_file rock_seed_negative 2 "/bodies/1/shape/seed: expected a whole number in [0, 9007199254740992], got -1e+300"
check_file force_1e308 3 "non-finite linear velocity of body 'ball' after the solve stage of step 1"
check dt_denormal 2 "--dt expects a time step in [1e-6, 1] seconds, got '1e-320'" -- "$exe" --headless "$scene" --steps 1 --dt 1e-320

# Names and bytes from files are escaped.
check_file name_control_characters 2 '/bodies/2/name: expected a unique body name, got "evil\n\u001b[2Jname"'
check_file key_control_characters 2 '/bodies/1/bad\n\e[2Jkey: unknown key'
for name in name_control_characters key_control_characters; do
  [ "$(wc -l < "$out/$name.err")" = 1 ] || { echo "FAIL $name: not one line"; fail=1; }
done

# The viewer's exits: no display is the environment (exit 2), never exit 1.
check no_display 2 "cannot initialise GLFW: X11: The DISPLAY environment variable is missing" -- \
  env -u DISPLAY -u WAYLAND_DISPLAY "$exe" "$scene"
check bad_display 2 "cannot initialise GLFW" -- env -u WAYLAND_DISPLAY DISPLAY=:97531 "$exe" "$scene"
# One line each, with what GLFW said in it (it printed its own error on a line before).
for name in no_display bad_display; do
  [ "$(wc -l < "$out/$name.err")" = 1 ] || { echo "FAIL $name: not one line:"; cat "$out/$name.err"; fail=1; }
done
. "$(dirname "$0")/test_display.sh"
use_test_display "$out"
if [ -n "${DISPLAY:-}" ]; then
  mkdir -p "$out/home_without_shaders/scenes"
  check missing_shaders 2 "cannot build the shaders" -- env CONTACTLAB_HOME="$out/home_without_shaders" "$exe" "$scene" --screenshot "$out/x.png" --frames 1
  # A shader that does not compile: the compiler's log, escaped onto the message's one line.
  mkdir -p "$out/home_bad_shader/scenes"; cp -r "$src/shaders" "$out/home_bad_shader/"
  for f in "$out/home_bad_shader/shaders/"*; do echo "this is not GLSL" >> "$f"; done
  check bad_shader 2 "cannot build the shaders" -- \
    env CONTACTLAB_HOME="$out/home_bad_shader" "$exe" "$scene" --screenshot "$out/x.png" --frames 1
  [ "$(wc -l < "$out/bad_shader.err")" = 1 ] || { echo "FAIL bad_shader: not one line:"; cat "$out/bad_shader.err"; fail=1; }
  check screenshot_full_disk 2 "/dev/full: cannot write PNG image: No space left on device" -- "$exe" "$scene" --screenshot /dev/full --frames 1
  grep -q "^wrote" "$out/screenshot_full_disk.out" && { echo "FAIL screenshot_full_disk: says wrote"; fail=1; }
  # A blow-up in screenshot mode is exit 3, as without a window (the picture is still written).
  printf '{"format": 1, "max_speed": 10, "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 5, 0]}]}\n' > "$out/blow.json"
  check headless_blow_up 3 "blow-up: body 'ball'" -- "$exe" --headless "$out/blow.json" --steps 100
  check screenshot_blow_up 3 "simulation stopped: blow-up: body 'ball'" -- "$exe" "$out/blow.json" --screenshot "$out/blow.png" --frames 100
  [ -s "$out/blow.png" ] || { echo "FAIL screenshot_blow_up: no picture"; fail=1; }
else
  echo "skip missing_shaders, screenshot_full_disk, screenshot_blow_up: no display and no Xvfb"
fi

# The command line's contract.
check repeated_flag 2 "option '--steps' given more than once" -- "$exe" --headless "$scene" --steps 1 --steps 2
check screenshot_headless 2 "--screenshot is for the viewer" -- "$exe" --headless "$scene" --steps 1 --screenshot "$out/x.png"
check view_headless 2 "--view is for the viewer" -- "$exe" --headless "$scene" --steps 1 --view contacts
check metrics_viewer 2 "--metrics is for runs without a window" -- "$exe" "$scene" --metrics "$out/m.csv"
check bool_any_case 0 "" -- "$exe" --headless "$scene" --steps 1 --set warm_start=TRUE --set shock_propagation=Off

exit $fail
