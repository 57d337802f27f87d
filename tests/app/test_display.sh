# Sourced by the viewer's tests: an X display for the viewer without a nested xvfb-run. xvfb-run's own clean-up
# can fail after the command ran and turn the command's exit code into 5, and two xvfb-run -a started at once by
# ctest -j2 can race for one display number.
#
# use_test_display OUT_DIR [own]: keeps $DISPLAY when it is set (the README runs ctest under xvfb-run at 1280x720),
# else starts an Xvfb of its own at 1280x720 (-displayfd: the server itself takes a free display number), exports
# DISPLAY and stops the server when the script exits. With "own", always a server of its own: a test that feeds the
# viewer synthetic input needs a screen no other test's window shares, since a window of ctest -j2's other test
# mapped over the viewer takes the pointer and the focus, and ImGui clears the keys held when the focus goes.
# Returns 1 when there is no display (or, with "own", no Xvfb).
use_test_display() {
  if [ "${2:-}" = own ]; then
    unset DISPLAY
  elif [ -n "${DISPLAY:-}" ]; then
    return 0
  fi
  command -v Xvfb > /dev/null 2>&1 || return 1
  local out=$1
  rm -f "$out/xvfb.display"
  Xvfb -displayfd 9 -screen 0 1280x720x24 -nolisten tcp 9> "$out/xvfb.display" > "$out/xvfb.log" 2>&1 &
  test_display_pid=$!
  trap 'kill "$test_display_pid" 2> /dev/null' EXIT
  local _
  for _ in $(seq 100); do [ -s "$out/xvfb.display" ] && break; sleep 0.1; done
  [ -s "$out/xvfb.display" ] || { echo "Xvfb did not start: $(cat "$out/xvfb.log")" >&2; return 1; }
  export DISPLAY=":$(head -n 1 "$out/xvfb.display")"
}
