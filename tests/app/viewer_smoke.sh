#!/usr/bin/env bash
# Smoke test of the viewer: renders scenes/default.json for 30 frames under a virtual X server, checks
# that the screenshot exists and shows a rendered scene (not a blank or uniform image), and that a bad
# scene path exits with code 2 and names the file on stderr. Then the overlays (contact graph,
# stack heights and layers, a script path laid and applied through CONTACTLAB_VIEW, a hinge's frame and
# limit arc with its joint selected) render the same way, the volume solver's intersection volumes, gradients
# and cells change the picture in the axis colours, the scene browser draws and caches its thumbnails, and a bad
# CONTACTLAB_VIEW is reported without stopping the viewer.
#
# Usage: tests/app/viewer_smoke.sh PATH/TO/contactlab OUTPUT_DIR
# Exit 0 on success, 1 on failure, 77 (ctest SKIP_RETURN_CODE) without an X display or Xvfb.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 PATH/TO/contactlab OUTPUT_DIR" >&2
  exit 1
fi
bin=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)  # read_png.py
root=${CONTACTLAB_HOME:-$(cd "$(dirname "$0")/../.." && pwd)}
mkdir -p "$out" || exit 1
unset CONTACTLAB_VIEW  # the first screenshot is of the plain viewer

. "$(dirname "$0")/test_display.sh"
if ! use_test_display "$out"; then
  echo "SKIP: no X display and no Xvfb (apt-get install xvfb)" >&2
  exit 77
fi

fail=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what" >&2; fail=1; fi
}

# --- 1. a screenshot of the default scene ------------------------------------------------------------
png="$out/viewer_smoke_default.png"
rm -f "$png"
"$bin" "$root/scenes/default.json" --screenshot "$png" --frames 30 > "$out/viewer_smoke.stdout" 2> "$out/viewer_smoke.stderr"
rc=$?
check "viewer exits 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$out/viewer_smoke.stderr" >&2
check "screenshot $png exists" test -s "$png"

# The PNG is decoded with the standard library only (zlib + struct) and must look like a picture:
# many distinct colours overall, no single colour covering most of it, and detail in the middle of
# the window where the 3D scene is (the panels are at the sides).
looks_rendered() {  # looks_rendered FILE.png
  python3 - "$1" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from read_png import read_png

w, h, bpp, rows = read_png(sys.argv[1])
counts = {}
for line in rows:
    for x in range(0, w * bpp, bpp):
        key = bytes(line[x:x + 3])
        counts[key] = counts.get(key, 0) + 1
top = max(counts.values()) / float(w * h)
middle = set()
for line in rows[h // 4: 3 * h // 4]:
    for x in range((w // 3) * bpp, (2 * w // 3) * bpp, bpp):
        middle.add(bytes(line[x:x + 3]))
print('screenshot %dx%d: %d colours, most common covers %.0f%%, %d colours in the middle'
      % (w, h, len(counts), 100 * top, len(middle)))
ok = w >= 320 and h >= 200 and len(counts) > 200 and top < 0.6 and len(middle) > 50
sys.exit(0 if ok else 1)
PY
}
if [ -s "$png" ]; then
  looks_rendered "$png"
  check "screenshot shows a rendered scene" test $? -eq 0
fi

# --- 2. a scene file that does not exist --------------------------------------------------------------
missing="$out/no-such-scene.json"
"$bin" "$missing" --screenshot "$out/viewer_smoke_missing.png" --frames 2 > /dev/null 2> "$out/viewer_smoke_missing.stderr"
rc=$?
check "missing scene exits 2 (got $rc)" test "$rc" -eq 2
check "stderr names the missing file" grep -qF "$missing" "$out/viewer_smoke_missing.stderr"
check "no screenshot for a missing scene" test ! -e "$out/viewer_smoke_missing.png"

# --- 3. the contact graph and stack overlays, a scripted path, joint frames ----------------------------------
# Views chosen through CONTACTLAB_VIEW (see apply_view_spec in app/viewer/session.h); small scenes so that
# the software renderer stays quick.
overlay() {  # overlay NAME SCENE VIEW
  local shot="$out/viewer_smoke_$1.png"
  rm -f "$shot"
  CONTACTLAB_VIEW=$3 "$bin" "$root/scenes/$2" --screenshot "$shot" --frames 30 > "$out/viewer_smoke_$1.stdout" 2> "$out/viewer_smoke_$1.stderr"
  local rc=$?
  check "$1: viewer exits 0 (got $rc)" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || cat "$out/viewer_smoke_$1.stderr" >&2
  ! grep -q "view settings" "$out/viewer_smoke_$1.stderr"
  check "$1: the view settings are accepted" test $? -eq 0
  if [ -s "$shot" ]; then
    looks_rendered "$shot"
    check "$1: screenshot shows a rendered scene" test $? -eq 0
  else
    check "$1: screenshot $shot exists" false
  fi
}
overlay graph_heights tower20.json "graph,heights,panel"
overlay script_layers sphere_and_box.json "select=box,path,point=1:0.5:3,point=3:0.5:3.5,apply,layers,graph"
overlay joint_frames door.json "joint=0,tab=settings,focus=door,zoom=2"

# --- 3b. the volume solver's views: intersection volumes per axis, vertex gradients, cells -------------------
# The deeply interpenetrated scene with post-stabilisation off (so the volumes stay large), the same
# deterministic run with and without the volume drawing: the drawing must change the picture, with pixels of the
# x (red), y (green) and z (blue) interval colours among those that changed.
# view_shot NAME VIEW SCENE FRAMES [OPTION...]: a screenshot of SCENE after FRAMES frames under the view settings
# VIEW; the viewer must exit 0, accept the settings and write the file.
view_shot() {
  local name="$1" view="$2" scene="$3" frames="$4"
  shift 4
  local shot="$out/viewer_smoke_$name.png"
  rm -f "$shot"
  "$bin" "$root/scenes/$scene" "$@" --screenshot "$shot" \
    --frames "$frames" --view "$view" > "$out/viewer_smoke_$name.stdout" 2> "$out/viewer_smoke_$name.stderr"
  local rc=$?
  check "$name: viewer exits 0 (got $rc)" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || cat "$out/viewer_smoke_$name.stderr" >&2
  ! grep -q "view settings" "$out/viewer_smoke_$name.stderr"
  check "$name: the view settings are accepted" test $? -eq 0
  check "$name: screenshot $shot exists" test -s "$shot"
}
volume_shot() {  # volume_shot NAME VIEW
  view_shot "$1" "$2" volume_interpenetrated.json 3 --set stabilization_iterations=0
}
volume_shot volume_views "volumes,gradients,cells,focus=box_1,zoom=3,-contacts"
volume_shot volume_plain "focus=box_1,zoom=3,-contacts"
if [ -s "$out/viewer_smoke_volume_views.png" ] && [ -s "$out/viewer_smoke_volume_plain.png" ]; then
  python3 - "$out/viewer_smoke_volume_views.png" "$out/viewer_smoke_volume_plain.png" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[3])
from read_png import read_png

w, h, bpp, with_rows = read_png(sys.argv[1])
w2, h2, bpp2, plain_rows = read_png(sys.argv[2])
changed, axis = 0, [0, 0, 0]
for y in range(h):
    for x in range(int(0.28 * w), int(0.72 * w)):  # the scene, clear of the panels
        p = tuple(with_rows[y][x * bpp:x * bpp + 3])
        if p == tuple(plain_rows[y][x * bpp2:x * bpp2 + 3]):
            continue
        changed += 1
        r, g, b = p
        if r > 170 and g < 0.55 * r and b < 0.55 * r: axis[0] += 1
        if g > 170 and r < 0.6 * g and b < 0.6 * g: axis[1] += 1
        if b > 170 and r < 0.6 * b and g < 0.8 * b: axis[2] += 1
print('volume drawing: %d pixels changed, x/y/z coloured %d/%d/%d' % (changed, axis[0], axis[1], axis[2]))
sys.exit(0 if changed > 2000 and min(axis) > 50 else 1)
PY
  check "volume_views: the intervals are drawn in the three axis colours" test $? -eq 0
fi

# --- 3b'. the method's own drawing: pid-penalty's resting block, with and without it. Its bottom polygon is drawn
# in the penalty colour (green, 51 217 77), which nothing else in the scene has.
method_shot() {  # method_shot NAME VIEW
  view_shot "$1" "$2" pushed_block.json 40 --solver pid-penalty
}
method_shot method_on "method,zoom=2,pitch=15,-contacts"
method_shot method_off "-method,zoom=2,pitch=15,-contacts"
if [ -s "$out/viewer_smoke_method_on.png" ] && [ -s "$out/viewer_smoke_method_off.png" ]; then
  python3 - "$out/viewer_smoke_method_on.png" "$out/viewer_smoke_method_off.png" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[3])
from read_png import read_png

w, h, bpp, on_rows = read_png(sys.argv[1])
w2, h2, bpp2, off_rows = read_png(sys.argv[2])
def green(rows, b):
    n = 0
    for y in range(h):
        for x in range(int(0.28 * w), int(0.72 * w)):
            r, g, bl = rows[y][x * b:x * b + 3]
            if g > 150 and r < 0.5 * g and bl < 0.6 * g: n += 1
    return n
on, off = green(on_rows, bpp), green(off_rows, bpp2)
print('method drawing: %d penalty-green pixels on, %d off' % (on, off))
sys.exit(0 if on > 200 and off < 20 else 1)
PY
  check "method_on: pid-penalty's bottom polygon is drawn in the penalty colour" test $? -eq 0
fi

# --- 3b''. --size: the window, and so the screenshot, at 1920x1080 (the layout's other tested size).
view_shot size_1080 "" sphere_and_box.json 3 --size 1920x1080
if [ -s "$out/viewer_smoke_size_1080.png" ]; then
  python3 - "$out/viewer_smoke_size_1080.png" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from read_png import read_png
w, h, bpp, rows = read_png(sys.argv[1])
print('size_1080: %dx%d' % (w, h))
sys.exit(0 if (w, h) == (1920, 1080) else 1)
PY
  check "size_1080: the screenshot is 1920x1080" test $? -eq 0
fi

# --- 3b, video. F9 (here the view token `video`) into the output folder (`out=`): an .mp4 of every rendered frame
# through ffmpeg when it is installed, else (and with `pngvideo` always) a folder of numbered PNGs.
video_dir="$out/viewer_smoke_video"
rm -rf "$video_dir"
view_shot video_png "pngvideo,video,out=$video_dir/png" sphere_and_box.json 6
pngs=$(find "$video_dir/png" -name 'frame_*.png' 2>/dev/null | wc -l)
check "video_png: six PNG frames in the output folder (got $pngs)" test "$pngs" -eq 6
if command -v ffmpeg > /dev/null && command -v ffprobe > /dev/null; then
  view_shot video_mp4 "video,out=$video_dir/mp4" sphere_and_box.json 6
  mp4=$(find "$video_dir/mp4" -name '*.mp4' 2>/dev/null | head -1)
  frames=$( [ -n "$mp4" ] && ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of csv=p=0 "$mp4")
  check "video_mp4: an .mp4 of six frames through ffmpeg (got '${frames:-no file}')" test "${frames:-0}" = 6
else
  echo "note: ffmpeg not installed: the .mp4 path is not tested (bash .ci/deps installs it)"
fi

# --- 3c. comparison lanes: the split view (a cell per lane, framed in the lane's colour) and the overlaid one
# (the other lanes' bodies as ghosts in their colour). Lane 2's colour (light blue, 89 191 255) must show in both.
lanes_shot() {  # lanes_shot NAME VIEW
  local shot="$out/viewer_smoke_$1.png"
  rm -f "$shot"
  "$bin" "$root/scenes/incline.json" --lanes lcp,implicit-penalty,volume \
    --set 2.penetration=0.002 --screenshot "$shot" --frames 40 --view "$2" > "$out/viewer_smoke_$1.stdout" 2> "$out/viewer_smoke_$1.stderr"
  local rc=$?
  check "$1: viewer exits 0 (got $rc)" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || cat "$out/viewer_smoke_$1.stderr" >&2
  check "$1: 40 steps of every lane" grep -qF "40 steps" "$out/viewer_smoke_$1.stdout"
  if [ -s "$shot" ]; then
    looks_rendered "$shot"
    check "$1: screenshot shows a rendered scene" test $? -eq 0
    python3 - "$shot" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from read_png import read_png
w, h, bpp, rows = read_png(sys.argv[1])
blue = 0
for y in range(0, int(0.55 * h)):
    for x in range(int(0.28 * w), int(0.72 * w)):
        r, g, b = rows[y][x * bpp:x * bpp + 3]
        if b > 150 and b > r + 60 and g > r + 30: blue += 1
print('lane 2 colour: %d pixels' % blue)
sys.exit(0 if blue > 40 else 1)
PY
    check "$1: lane 2 drawn in its colour" test $? -eq 0
  else
    check "$1: screenshot $shot exists" false
  fi
}
lanes_shot lanes_split "split"
lanes_shot lanes_overlay "overlay"
# A user's scene that names its methods (no shipped scene does) refuses a lane under another one.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["methods"] = ["lcp"]; json.dump(d, open(sys.argv[2], "w"))' \
  "$root/scenes/sphere_and_box.json" "$out/lcp_only.json"
"$bin" "$out/lcp_only.json" --lanes lcp,volume \
  --screenshot "$out/viewer_smoke_lanes_refused.png" --frames 2 > /dev/null 2> "$out/viewer_smoke_lanes_refused.stderr"
rc=$?
check "a lane the scene refuses exits 2 (got $rc)" test "$rc" -eq 2
check "stderr names the lane and the scene's methods" grep -qF "lane 2: scene 'sphere_and_box' is for the methods lcp" \
  "$out/viewer_smoke_lanes_refused.stderr"

# --- 3d. the help overlay (F1) and the hidden panels (Tab), against the plain view of the same run ------------
ui_shot() {  # ui_shot NAME VIEW
  rm -f "$out/viewer_smoke_$1.png"
  "$bin" "$root/scenes/sphere_and_box.json" --screenshot "$out/viewer_smoke_$1.png" \
    --frames 5 --view "$2" > /dev/null 2> "$out/viewer_smoke_$1.stderr"
  check "$1: viewer exits 0" test $? -eq 0
}
ui_shot ui_plain "-grid"
ui_shot ui_help "-grid,help"
ui_shot ui_hidden "-grid,hideui"
if [ -s "$out/viewer_smoke_ui_plain.png" ] && [ -s "$out/viewer_smoke_ui_help.png" ] && [ -s "$out/viewer_smoke_ui_hidden.png" ]; then
  python3 - "$out" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from read_png import read_png
out = sys.argv[1]
w, h, bpp, plain = read_png(out + '/viewer_smoke_ui_plain.png')
def changed(name, x0, x1, y0, y1):
    _, _, b2, rows = read_png(out + '/viewer_smoke_' + name + '.png')
    n = 0
    for y in range(int(y0 * h), int(y1 * h)):
        for x in range(int(x0 * w), int(x1 * w)):
            if plain[y][x * bpp:x * bpp + 3] != rows[y][x * b2:x * b2 + 3]: n += 1
    return n / ((x1 - x0) * w * (y1 - y0) * h)
help_middle = changed('ui_help', 0.35, 0.65, 0.35, 0.65)   # the overlay is centred
hidden_left = changed('ui_hidden', 0.01, 0.25, 0.3, 0.9)   # the Solver panel's place shows the scene instead
# The menu bar spans the top edge: between its labels and the right edge (x 40-99%, its top 12 px) the plain view
# shows one flat bar colour; hidden, the scene shows there instead.
hidden_menu = changed('ui_hidden', 0.4, 0.99, 0.0, 12.0 / h)
bar = set(tuple(plain[y][x * bpp:x * bpp + 3]) for y in range(2, 12) for x in range(int(0.4 * w), int(0.99 * w)))
print('help changes %.0f%% of the middle, hidden panels %.0f%% of the left column and %.0f%% of the menu bar; '
      'the bar has %d colours' % (100 * help_middle, 100 * hidden_left, 100 * hidden_menu, len(bar)))
sys.exit(0 if help_middle > 0.3 and hidden_left > 0.3 and hidden_menu > 0.5 and len(bar) == 1 else 1)
PY
  check "F1 overlay drawn over the middle, the menu bar along the top, Tab clears the left column and the bar" test $? -eq 0
fi

# A scene that fails to open (as from the Scene panel) keeps the current one and shows its whole message in the
# header above the view (panels_header.cpp): red text in the middle of the window's upper part.
printf '{"format": 1, "bodies": [{"name": "b", "shape": {"type": "sphere", "radius": -1}, "mass": 1}]}' > "$out/bad_radius.json"
ui_shot ui_error "-grid,open=$out/bad_radius.json"
if [ -s "$out/viewer_smoke_ui_error.png" ]; then
  python3 - "$out/viewer_smoke_ui_error.png" "$here" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from read_png import read_png
w, h, bpp, rows = read_png(sys.argv[1])
red = sum(1 for y in range(int(0.04 * h), int(0.3 * h)) for x in range(int(0.28 * w), int(0.72 * w))
          if rows[y][x * bpp] > 200 and rows[y][x * bpp + 1] < 140 and rows[y][x * bpp + 2] < 140)
print('error in the header: %d red pixels' % red)
sys.exit(0 if red > 300 else 1)
PY
  check "the load error shows in the header above the view" test $? -eq 0
fi

# --- 3e. the scene browser (`browser`): its thumbnails are drawn offscreen into a fresh cache folder as 160x90 PNGs
# that look like pictures, the browser changes the middle of the window, and a second start reads the thumbnails
# from the cache instead of drawing them again.
cache="$out/viewer_smoke_thumbs"
rm -rf "$cache"
XDG_CACHE_HOME="$cache" view_shot browser "browser" sphere_and_box.json 6
check "browser: thumbnails are drawn" grep -qE "thumbnails: [1-9][0-9]* drawn, 0 read" "$out/viewer_smoke_browser.stdout"
thumbs=$(ls "$cache"/contactlab/thumbs/*.png 2> /dev/null | wc -l)
check "browser: the thumbnails are cached ($thumbs PNGs)" test "$thumbs" -ge 1
view_shot browser_plain "grid" sphere_and_box.json 6
if [ "$thumbs" -ge 1 ]; then
  python3 - "$out" "$here" "$cache"/contactlab/thumbs/*.png <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from read_png import read_png
for path in sys.argv[3:]:
    w, h, bpp, rows = read_png(path)
    colours = {bytes(line[x:x + 3]) for line in rows for x in range(0, w * bpp, bpp)}
    if (w, h) != (160, 90) or len(colours) < 50:
        sys.exit('%s: %dx%d with %d colours' % (path, w, h, len(colours)))
out = sys.argv[1]
_, _, bpp, on = read_png(out + '/viewer_smoke_browser.png')
w, h, bpp2, off = read_png(out + '/viewer_smoke_browser_plain.png')
changed = sum(1 for y in range(h // 5, 4 * h // 5) for x in range(w // 3, 2 * w // 3)
              if on[y][x * bpp:x * bpp + 3] != off[y][x * bpp2:x * bpp2 + 3])
sys.exit(0 if changed > (h * w) // 30 else 'the browser changed only %d pixels in the middle' % changed)
PY
  check "browser: thumbnails look like pictures and the browser fills the middle" test $? -eq 0
  stat -c '%n %Y' "$cache"/contactlab/thumbs/*.png > "$out/viewer_smoke_thumbs_before.txt"
  XDG_CACHE_HOME="$cache" view_shot browser_cached "browser" sphere_and_box.json 2
  check "browser: a second start reads the cache" \
    grep -qE "thumbnails: [0-9]+ drawn, [1-9][0-9]* read" "$out/viewer_smoke_browser_cached.stdout"
  stat -c '%n %Y' "$cache"/contactlab/thumbs/*.png > "$out/viewer_smoke_thumbs_after.txt"
  check "browser: cached thumbnails are not written again" \
    test -z "$(comm -23 <(sort "$out/viewer_smoke_thumbs_before.txt") <(sort "$out/viewer_smoke_thumbs_after.txt"))"
fi

# --- 4. a mistaken CONTACTLAB_VIEW is reported, and the viewer still runs ---------------------------------
CONTACTLAB_VIEW="graph,no-such-overlay" "$bin" "$root/scenes/sphere_and_box.json" --screenshot "$out/viewer_smoke_badview.png" --frames 3 \
  > /dev/null 2> "$out/viewer_smoke_badview.stderr"
rc=$?
check "bad view settings still exit 0 (got $rc)" test "$rc" -eq 0
check "stderr names the bad view setting" grep -qF "no-such-overlay" "$out/viewer_smoke_badview.stderr"

exit $fail
