#!/usr/bin/env bash
# Videos are timed by simulated time (app/viewer/capture.h, video_frames_due): a video recorded while the viewer
# steps at 1/30 s and one recorded at 1/200 s each last, by ffprobe, the simulated time they cover (to one frame,
# 1/60 s), however many frames the window drew; and a replay exported to video at a chosen frame rate lasts the
# simulated time it covers. On the tests' X display (tests/app/test_display.sh), in screenshot mode (one step a frame).
#
# Usage: tests/app/video_timing_test.sh PATH/TO/contactlab OUTPUT_DIR
# Exit 0 on success, 1 on failure, 77 (ctest SKIP_RETURN_CODE) without an X display (or Xvfb), ffmpeg or ffprobe.
set -u
bin=$(realpath "$1")
out=$2
mkdir -p "$out" || exit 1
for tool in ffmpeg ffprobe; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not found" >&2; exit 77; }
done
. "$(dirname "$0")/test_display.sh"
use_test_display "$out" || { echo "SKIP: no X display and no Xvfb" >&2; exit 77; }
root=${CONTACTLAB_HOME:-$(cd "$(dirname "$0")/../.." && pwd)}
fail=0
for dt in 0.0333333333333333 0.005; do
  dir="$out/dt_$dt"
  rm -rf "$dir" && mkdir -p "$dir"
  # 60 frames of one step each, the video on from the first: it covers 60 steps.
  (cd "$dir" && "$bin" "$root/scenes/two_balls.json" --dt "$dt" \
     --view video,hideui --size 320x240 --screenshot shot.png --frames 60 > run.out 2> run.err)
  video=$(ls "$dir"/*.mp4 2> /dev/null | head -1)
  if [ -z "$video" ]; then echo "FAIL dt $dt: no video"; cat "$dir/run.out" "$dir/run.err"; fail=1; continue; fi
  duration=$(ffprobe -v error -show_entries format=duration -of default=noprint_wrappers=1:nokey=1 "$video")
  covered=$(python3 -c "print(60 * $dt)")
  if python3 -c "import sys; sys.exit(0 if abs($duration - $covered) <= 1/60 + 1e-6 else 1)"; then
    echo "ok   dt $dt: the video lasts $duration s for $covered s of simulation"
  else
    echo "FAIL dt $dt: the video lasts $duration s for $covered s of simulation"; cat "$dir/run.out"; fail=1
  fi
done
# A replay exported to video at 25 frames per second (--replay FILE --video OUT.mp4 --fps 25) lasts the 0.6 s of
# simulation the replay's 60 steps of 0.01 s cover.
dir="$out/export"
rm -rf "$dir" && mkdir -p "$dir"
"$bin" --headless "$root/scenes/two_balls.json" --steps 60 --dt 0.01 --record "$dir/run.replay.json" > /dev/null 2>&1 ||
  { echo "FAIL export: the run was not recorded"; fail=1; }
"$bin" --replay "$dir/run.replay.json" --video "$dir/run.mp4" --fps 25 \
  --view hideui --size 320x240 > "$dir/run.out" 2> "$dir/run.err"
if [ -f "$dir/run.mp4" ]; then
  duration=$(ffprobe -v error -show_entries format=duration -of default=noprint_wrappers=1:nokey=1 "$dir/run.mp4")
  rate=$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate -of default=noprint_wrappers=1:nokey=1 \
         "$dir/run.mp4")
  if [ "$rate" = "25/1" ] && python3 -c "import sys; sys.exit(0 if abs($duration - 0.6) <= 1/25 + 1e-6 else 1)"; then
    echo "ok   export: the replay's video lasts $duration s at $rate fps for 0.6 s of simulation"
  else
    echo "FAIL export: the replay's video lasts $duration s at $rate fps for 0.6 s of simulation"; fail=1
  fi
else
  echo "FAIL export: no video"; cat "$dir/run.out" "$dir/run.err"; fail=1
fi
exit $fail
