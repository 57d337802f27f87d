#!/usr/bin/env bash
# Input at a low frame rate loses nothing (app/viewer/input_queue.h): under Xvfb, with every frame made to last
# 2 s (CONTACTLAB_TEST_FRAME_MS, as pile1000 draws at 1920x1080), synthetic input is put into the viewer's queue
# between frames through its GLFW callbacks (CONTACTLAB_TEST_INPUT), each burst arriving at once as a user's would
# during one long frame: a tap of F1 opens the help and another closes it, six taps of space in one burst toggle
# play and pause six times, each in a frame of its own, and a quick click (press and release in one burst) on a
# scene's description in the scene browser opens that scene. The viewer logs what each key and click did.
#
# Usage: tests/app/viewer_input.sh PATH/TO/contactlab OUTPUT_DIR
# Exit 0 on success, 1 on failure, 77 (ctest SKIP_RETURN_CODE) without an X display or Xvfb.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 PATH/TO/contactlab OUTPUT_DIR" >&2
  exit 1
fi
bin=$1
out=$2
root=${CONTACTLAB_HOME:-$(cd "$(dirname "$0")/../.." && pwd)}
export CONTACTLAB_HOME=$root
mkdir -p "$out" || exit 1
unset CONTACTLAB_VIEW
. "$(dirname "$0")/test_display.sh"
if ! use_test_display "$out" own; then
  echo "SKIP: no Xvfb (apt-get install xvfb)" >&2
  exit 77
fi

# The browser at 1280x720 lists "Getting started" first: default, then reference, whose description starts at about
# (532, 240); the click lands on its second line of text.
taps=""
for i in 1 2 3 4 5 6; do taps="$taps;8:key=space"; done
script="2:key=f1;5:key=f1$taps;22:click=650:252"
log="$out/viewer_input.stdout"
start=$(date +%s)
CONTACTLAB_TEST_FRAME_MS=2000 CONTACTLAB_TEST_INPUT="$script" "$bin" "$root/scenes/default.json" --view browser --screenshot "$out/viewer_input.png" --frames 27 \
  > "$log" 2> "$out/viewer_input.stderr"
rc=$?
echo "viewer ran $(( $(date +%s) - start )) s, exit $rc"
cat "$log"
fail=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what" >&2; fail=1; fi
}
check "viewer exits 0" test "$rc" -eq 0
check "F1 opened the help" grep -q "F1: help shown" "$log"
check "F1 again closed it" grep -q "F1: help hidden" "$log"
spaces=$(grep -c "space: " "$log")
check "6 taps of space toggled 6 times (got $spaces)" test "$spaces" -eq 6
# Alternating, one per frame: pause, play, pause, ... in six different frames.
order=$(grep "space: " "$log" | sed 's/.*space: //' | tr '\n' ' ')
check "they alternate ($order)" test "$order" = "pause play pause play pause play "
frames=$(grep "space: " "$log" | sed 's/frame \([0-9]*\):.*/\1/' | sort -u | wc -l)
check "each in a frame of its own (got $frames frames)" test "$frames" -eq 6
check "a quick click on a description in the browser opened that scene" grep -q "opened .*scenes/reference.json" "$log"
exit $fail
