#!/usr/bin/env bash
# The headless command line as a user runs it: outputs, determinism and exit codes.
# usage: cli_test.sh CONTACTLAB SOURCE_DIR OUT_DIR
set -u
exe=$1; src=$2; out=$3
mkdir -p "$out"
fail=0
check() {  # check NAME EXPECTED_EXIT STDERR_SUBSTRING -- command...
  local name=$1 want=$2 msg=$3; shift 4
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL $name: exit $got, expected $want"; cat "$out/$name.err"; fail=1; return; fi
  if [ -n "$msg" ] && ! grep -qF -- "$msg" "$out/$name.err"; then
    echo "FAIL $name: stderr lacks '$msg':"; cat "$out/$name.err"; fail=1; return
  fi
  echo "ok   $name"
}
scene=$src/scenes/sphere_and_box.json

check run 0 "" -- "$exe" --headless "$scene" --steps 120 --metrics "$out/m.csv" --trace "$out/t.json" --state "$out/s1.json"
# The documentation pages whose tables this test holds to the program's output. A page that is missing fails.
cli_doc=$src/docs/cli.md; solvers_doc=$src/docs/solvers.md; conformance_doc=$src/docs/conformance.md
for doc in "$cli_doc" "$solvers_doc" "$conformance_doc"; do
  [ -f "$doc" ] || { echo "FAIL documentation page missing: $doc"; fail=1; }
done
# The metrics columns are exactly those docs/cli.md lists: the fixed ones, then the solver's own stages as its
# row of "What the solvers report" (docs/solvers.md) lists them.
doc_columns=$(grep -o '`step,time,[A-Za-z_,]*`' "$cli_doc" | tr -d '`')
stage_columns() {  # stage_columns SOLVER: the documented <stage>_ms columns of that solver
  sed -n '/<!-- solver-report:begin -->/,/<!-- solver-report:end -->/p' "$solvers_doc" | grep "^| \`$1\` |" |
    grep -o '`[a-z_]*_ms[a-z_,]*`' | tr -d '`'
}
counter_columns() {  # counter_columns SOLVER: the documented counter columns of that solver, written `a,b`: ("" for none)
  sed -n '/<!-- solver-report:begin -->/,/<!-- solver-report:end -->/p' "$solvers_doc" | grep "^| \`$1\` |" |
    grep -o '`[a-z_][a-z_,]*`:' | grep -v '_ms' | tail -1 | tr -d '`:'
}
solver_columns() {  # solver_columns SOLVER: its stage columns, then its counter columns
  local counters
  counters=$(counter_columns "$1")
  echo "$(stage_columns "$1")${counters:+,$counters}"
}
lcp_columns=$(solver_columns lcp)
[ -n "$doc_columns" ] && [ -n "$lcp_columns" ] && [ "$(head -1 "$out/m.csv")" = "$doc_columns,$lcp_columns" ] ||
  { echo "FAIL metrics header: '$(head -1 "$out/m.csv")', docs list '$doc_columns,$lcp_columns'"; fail=1; }
for solver in implicit-penalty volume pid-penalty; do
  check "metrics_$solver" 0 "" -- "$exe" --headless "$scene" --steps 2 --solver "$solver" --metrics "$out/m_$solver.csv"
  columns=$(solver_columns "$solver")
  [ -n "$columns" ] && [ "$(head -1 "$out/m_$solver.csv")" = "$doc_columns,$columns" ] ||
    { echo "FAIL metrics header under $solver: '$(head -1 "$out/m_$solver.csv")', docs list '$doc_columns,$columns'"; fail=1; }
done
[ "$(wc -l < "$out/m.csv")" = 121 ] || { echo "FAIL metrics rows: $(wc -l < "$out/m.csv")"; fail=1; }
grep -q '"traceEvents"' "$out/t.json" || { echo "FAIL trace"; fail=1; }
grep -q '"bodies"' "$out/s1.json" && grep -q '"time"' "$out/s1.json" || { echo "FAIL state"; fail=1; }

# Determinism: the same run twice gives byte-identical final states.
check run2 0 "" -- "$exe" --headless "$scene" --steps 120 --state "$out/s2.json"
cmp -s "$out/s1.json" "$out/s2.json" || { echo "FAIL determinism: states differ"; fail=1; }

check solver_set 0 "" -- "$exe" --headless "$scene" --steps 10 --solver lcp --set iterations=20 --set warm_start=false --dt 0.005
check list 0 "" -- "$exe" --list-solvers
grep -q 'correction_iterations' "$out/list.out" || { echo "FAIL list-solvers"; fail=1; }

# The parameter tables of docs/solvers.md are the generated ones.
"$exe" --list-solvers --markdown > "$out/params.md"
sed -n '/<!-- parameters:begin -->/,/<!-- parameters:end -->/p' "$solvers_doc" | sed '1d;$d' > "$out/doc_params.md"
if [ ! -s "$out/params.md" ] || ! cmp -s "$out/params.md" "$out/doc_params.md"; then
  echo "FAIL docs/solvers.md parameter table differs from 'contactlab --list-solvers --markdown':"
  diff "$out/doc_params.md" "$out/params.md"; fail=1
else
  echo "ok   doc_params"
fi

# The conformance matrix of docs/conformance.md is held by conformance_doc_test.sh (label conformance_sweep).
check conformance_one 0 "" -- "$exe" --conformance --solver lcp --case box_rest_drift --case pendulum_period
grep -qE '^2 cells, 72 points: 72 pass, 0 fail because of the method, 0 FAIL$' "$out/conformance_one.out" &&
  grep -q '^pendulum_period: ' "$out/conformance_one.out" && grep -q '^  lcp  *pass 36  *worst ' "$out/conformance_one.out" ||
  { echo "FAIL conformance_one output:"; cat "$out/conformance_one.out"; fail=1; }
# One case under one solver: every point of its sweep, then the summary.
check conformance_points 0 "" -- "$exe" --conformance --solver lcp --case limit_hold
grep -q '^limit_hold under lcp: hinge angle after 3 s (rad), pass 36$' "$out/conformance_points.out" &&
  grep -qE '^  1/1000 s, 4 m, 640 kg: -0.500 \(exact -0.5 \+- 0.01\) pass \[' "$out/conformance_points.out" &&
  grep -q '^1 cell, 36 points: 36 pass' "$out/conformance_points.out" ||
  { echo "FAIL conformance_points output:"; cat "$out/conformance_points.out"; fail=1; }
check unknown_case 2 "unknown conformance case 'nope' (cases: incline_frictionless," -- "$exe" --conformance --case nope
check case_alone 2 "--case needs --conformance" -- "$exe" --case bounce_apex
check conformance_scene 2 "takes no scene" -- "$exe" --conformance "$scene"
# --machine-speed: one positive number on stdout (the slowness the tests' CPU budgets scale by), and alone.
check machine_speed 0 "times slower than the reference machine" -- "$exe" --machine-speed
grep -qE '^[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$' "$out/machine_speed.out" || { echo "FAIL machine_speed: not a number"; fail=1; }
check machine_speed_scene 2 "--machine-speed takes no scene and no other option" -- "$exe" --machine-speed "$scene"
check machine_speed_option 2 "--machine-speed takes no scene and no other option" -- "$exe" --steps 3 --machine-speed
check conformance_set 2 "no --set or --dt" -- "$exe" --conformance --set iterations=3
check conformance_home 2 "no such directory" -- env CONTACTLAB_HOME="$out/nowhere" "$exe" --conformance

check missing_file 2 "no_such_scene.json" -- "$exe" --headless "$out/no_such_scene.json" --steps 1
check unknown_flag 2 "unknown option '--bogus'" -- "$exe" --headless "$scene" --steps 1 --bogus
check no_steps 2 "--steps" -- "$exe" --headless "$scene"
check bad_steps 2 "--steps expects" -- "$exe" --headless "$scene" --steps ten
check unknown_solver 2 "unknown solver 'nope'" -- "$exe" --headless "$scene" --steps 1 --solver nope
check unknown_param 2 "unknown parameter 'bogus'" -- "$exe" --headless "$scene" --steps 1 --set bogus=1
check bad_param 2 "expected a value in [1, 1000]" -- "$exe" --headless "$scene" --steps 1 --set iterations=0
check bad_param_text 2 "expected true or false" -- "$exe" --headless "$scene" --steps 1 --set warm_start=maybe
check bad_dt 2 "--dt expects" -- "$exe" --headless "$scene" --steps 1 --dt -1
check bad_size 2 "--size expects the window as WIDTHxHEIGHT" -- "$exe" "$scene" --size 100x100
check bad_size_text 2 "--size expects the window as WIDTHxHEIGHT" -- "$exe" "$scene" --size big
check size_headless 2 "--size is for the viewer" -- "$exe" --headless "$scene" --steps 1 --size 800x600
check nan_dt 2 "--dt expects" -- "$exe" --headless "$scene" --steps 1 --dt nan
check bad_set 2 "--set expects name=value" -- "$exe" --headless "$scene" --steps 1 --set iterations
check unwritable 2 "cannot" -- "$exe" --headless "$scene" --steps 1 --metrics /nonexistent_dir/m.csv

# A simulation that produces a non-finite value exits 3 naming the body and the stage.
cat > "$out/explode.json" <<'JSON'
{"format": 1, "name": "explode", "gravity": [0, -9.81, 0], "dt": 0.01,
 "bodies": [{"name": "rocket", "shape": {"type": "box", "half_extents": [0.1, 0.5, 1]}, "density": 1000,
             "position": [0, 1, 0], "angular_velocity": [1e200, 3e200, 0]}]}
JSON
check nonfinite 3 "rocket" -- "$exe" --headless "$out/explode.json" --steps 5

# A body past the scene's max_speed is a blow-up: exit 3 naming the body, the stage and the step.
cat > "$out/fast.json" <<'JSON'
{"format": 1, "name": "fast", "dt": 0.01, "max_speed": 100,
 "bodies": [{"name": "slug", "shape": {"type": "sphere", "radius": 0.1}, "density": 1000,
             "position": [0, 1, 0], "linear_velocity": [150, 0, 0]}]}
JSON
check blowup 3 "blow-up: body 'slug' moves at 150 m/s (max_speed 100 m/s) after the integrate stage of step 1" -- "$exe" --headless "$out/fast.json" --steps 5

# Parameters of several methods in one scene: --solver takes the chosen method's from the scene, --set then
# changes the active one's. A scene feature the active method does not honour is a warning on stderr.
cat > "$out/tuned.json" <<'JSON'
{"format": 1, "name": "tuned", "dt": 0.01,
 "materials": {"default": {"friction": 0.5, "restitution": 0.5}},
 "solver": {"type": "lcp", "params": {"iterations": 12},
            "params_by_solver": {"volume": {"friction_directions": 0}}},
 "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0]}, "fixed": true},
            {"name": "ball", "shape": {"type": "sphere", "radius": 0.2}, "density": 1000, "position": [0, 0.5, 0]}]}
JSON
check tuned_lcp 0 "" -- "$exe" --headless "$out/tuned.json" --steps 2
[ -s "$out/tuned_lcp.err" ] && { echo "FAIL tuned_lcp: lcp honours the scene, yet stderr says:"; cat "$out/tuned_lcp.err"; fail=1; }
check tuned_volume 0 "warning: $out/tuned.json: volume: friction_directions = 0: the friction of material 'default' is ignored" -- \
  "$exe" --headless "$out/tuned.json" --steps 2 --solver volume
check tuned_volume_set 0 "" -- "$exe" --headless "$out/tuned.json" --steps 2 --solver volume --set friction_directions=2
[ -s "$out/tuned_volume_set.err" ] &&
  { echo "FAIL tuned_volume_set: --set did not replace the scene's value"; cat "$out/tuned_volume_set.err"; fail=1; }
check tuned_per_point 0 "implicit-penalty: contact_model = per_point: the restitution of material 'default' is ignored" -- \
  "$exe" --headless "$out/tuned.json" --steps 2 --solver implicit-penalty --set contact_model=per_point

# A scene for some methods only refuses the others: exit 2 naming the file, the solver and the methods.
sed 's/"name": "tuned",/"name": "tuned", "methods": ["lcp", "implicit-penalty"],/; s/"volume": {"friction_directions": 0}/"implicit-penalty": {"penetration": 0.002}/' \
  "$out/tuned.json" > "$out/for_two.json"
check methods_refused 2 "$out/for_two.json: --solver volume: scene 'tuned' is for the methods lcp, implicit-penalty" -- \
  "$exe" --headless "$out/for_two.json" --steps 1 --solver volume
check methods_allowed 0 "" -- "$exe" --headless "$out/for_two.json" --steps 1 --solver implicit-penalty

# --compare: the lanes side by side without a window, a table per lane, one CSV with the lane, solver and scene
# first, a sidecar with every lane's parameters, and the exit codes.
check compare 0 "" -- "$exe" --compare lcp,implicit-penalty,volume "$scene" --steps 30 --set 2.penetration=0.002 \
  --metrics "$out/lanes.csv" --threads 2
for want in "sphere_and_box: 30 steps" "ms med" "ms p95" "max pen mm" "E drift J" "div max m" "implicit-penalty (penetration=0.002)"; do
  grep -qF -- "$want" "$out/compare.out" || { echo "FAIL compare table lacks '$want':"; cat "$out/compare.out"; fail=1; }
done
[ "$(head -1 "$out/lanes.csv" | cut -d, -f1-5)" = "lane,solver,scene,step,time" ] ||
  { echo "FAIL compare CSV header: $(head -1 "$out/lanes.csv")"; fail=1; }
[ "$(wc -l < "$out/lanes.csv")" = 91 ] || { echo "FAIL compare CSV rows: $(wc -l < "$out/lanes.csv"), expected 1 + 3 x 30"; fail=1; }
grep -q '^3,volume,sphere_and_box,30,' "$out/lanes.csv" || { echo "FAIL compare CSV lacks lane 3's step 30"; fail=1; }
grep -q '"penetration": 0.002' "$out/lanes.lanes.json" && grep -q '"solver": "volume"' "$out/lanes.lanes.json" ||
  { echo "FAIL compare sidecar:"; cat "$out/lanes.lanes.json"; fail=1; }
# The same lanes with one thread give the same figures (the timings aside): compare the state columns.
check compare_one_thread 0 "" -- "$exe" --compare lcp,implicit-penalty,volume "$scene" --steps 30 \
  --set 2.penetration=0.002 --metrics "$out/lanes1.csv" --threads 1
cmp -s <(cut -d, -f1-5,12-22 "$out/lanes.csv") <(cut -d, -f1-5,12-22 "$out/lanes1.csv") ||
  { echo "FAIL compare: 1 and 2 threads differ"; fail=1; }
check compare_unknown 2 "--compare: unknown solver 'pgs'" -- "$exe" --compare lcp,pgs "$scene" --steps 1
check compare_no_steps 2 "--compare needs --steps N" -- "$exe" --compare lcp,volume "$scene"
check compare_no_scene 2 "--compare needs a scene file" -- "$exe" --compare lcp,volume --steps 1
check compare_solver 2 "--solver cannot be used with --compare" -- "$exe" --compare lcp,volume "$scene" --steps 1 --solver lcp
check compare_trace 2 "--trace cannot be used with --compare" -- "$exe" --compare lcp "$scene" --steps 1 --trace "$out/x.json"
check compare_set 2 "LANE.name=value" -- "$exe" --compare lcp,volume "$scene" --steps 1 --set iterations=3
check compare_set_lane 2 "a lane from 1 to 2" -- "$exe" --compare lcp,volume "$scene" --steps 1 --set 3.iterations=3
check compare_bad_param 2 "--compare lane 2: volume: iterationz=3" -- "$exe" --compare lcp,volume "$scene" --steps 1 --set 2.iterationz=3
check compare_methods 2 "lane 2" -- "$exe" --compare lcp,volume "$out/for_two.json" --steps 1
check compare_threads 2 "--threads is for --headless and --compare" -- "$exe" --list-solvers --threads 2
# --threads under --headless: the world's threads, which must not change the results.
"$exe" --headless "$src/scenes/pyramid20.json" --steps 20 --threads 1 --state "$out/threads1.json" >/dev/null &&
  "$exe" --headless "$src/scenes/pyramid20.json" --steps 20 --threads 2 --state "$out/threads2.json" >/dev/null ||
  { echo "FAIL headless_threads: a run failed"; fail=1; }
cmp -s "$out/threads1.json" "$out/threads2.json" || { echo "FAIL headless_threads: 1 and 2 threads differ"; fail=1; }
check compare_five 2 "more than 4 lanes" -- "$exe" --compare lcp,lcp,lcp,lcp,lcp "$scene" --steps 1
check compare_overwrite 2 "would overwrite the scene" -- "$exe" --compare lcp "$scene" --steps 1 --metrics "$scene"
cp "$scene" "$out/kept.lanes.json"
check compare_sidecar_overwrite 2 "would overwrite the scene" -- "$exe" --compare lcp "$out/kept.lanes.json" --steps 1 \
  --metrics "$out/kept.csv"
cmp -s "$scene" "$out/kept.lanes.json" || { echo "FAIL compare_sidecar_overwrite: the scene was changed"; fail=1; }
# A lane that blows up stops with exit 3, naming the lane; the others run to the end and the table is printed.
check compare_blowup 3 "lane 1 (lcp): blow-up: body 'slug'" -- "$exe" --compare lcp,volume "$out/fast.json" --steps 5
grep -qF "STOPPED" "$out/compare_blowup.out" || { echo "FAIL compare_blowup table:"; cat "$out/compare_blowup.out"; fail=1; }
# The table labels the residuals and each method's own figures with their units (docs/residuals.md).
for want in "cone N" "compl W" "mom N s" "PGS sweeps," "N s/m^2"; do
  grep -qF -- "$want" "$out/compare_one_thread.out" || { echo "FAIL compare table lacks '$want'"; fail=1; }
done

# --sweep: one row per method and step against the case's closed form, CSV to --out; lists only with --sweep.
check sweep 0 "" -- "$exe" --sweep incline_friction --dt 1/60,1/100 --solver lcp --iterations 5,10 --out "$out/sweep.csv"
[ "$(head -1 "$out/sweep.csv")" = "target,reference,solver,dt,iterations,error,unit,wall_s,cpu_s,steps,message" ] &&
  [ "$(grep -c '^incline_friction,closed form,lcp,' "$out/sweep.csv")" = 4 ] &&
  grep -q '^incline_friction,closed form,lcp,0.01,10,[0-9.e-]*,m/s,[0-9.e-]*,[0-9.e-]*,100,$' "$out/sweep.csv" ||
  { echo "FAIL sweep.csv:"; cat "$out/sweep.csv"; fail=1; }
check sweep_scene 0 "" -- "$exe" --sweep "$scene" --dt 1/60 --solver lcp --duration 0.5 --out "$out/sweep_scene.csv"
grep -q '^.*sphere_and_box.json,same method at dt/16,lcp,0.0166667,,[0-9.e-]*,m,' "$out/sweep_scene.csv" ||
  { echo "FAIL sweep_scene.csv:"; cat "$out/sweep_scene.csv"; fail=1; }
check sweep_unknown 2 "is no conformance case, and does not load as a scene" -- "$exe" --sweep no_such_case --dt 1/60
check sweep_no_dt 2 "--sweep needs --dt LIST" -- "$exe" --sweep incline_friction
check dt_list 2 "--dt takes one time step" -- "$exe" --headless "$scene" --steps 1 --dt 1/60,1/30
check iterations_alone 2 "--iterations is for --sweep" -- "$exe" --headless "$scene" --steps 1 --iterations 5

exit $fail
