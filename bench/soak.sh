#!/usr/bin/env bash
# Soak: runs one scene headless for a given wall time and records the process's resident memory over time,
# to show that memory stays flat once the scene has settled (nothing is kept per step).
# usage: bench/soak.sh CONTACTLAB SCENE.json SECONDS [OUT.csv] [extra contactlab options...]
# Writes OUT.csv (default soak.csv): seconds,rss_kb, one row every SECONDS/120 s (at least 1 s), and
# prints the resident memory at 10 %, 50 % and 100 % of the run and the growth per minute over its second half.
set -u
exe=$1; scene=$2; seconds=$3; out=${4:-soak.csv}; shift 3; [ $# -gt 0 ] && shift
every=$(( seconds / 120 )); [ "$every" -lt 1 ] && every=1
# As many steps as it will ever take (the run is stopped at the deadline), its metrics streamed to /dev/null.
"$exe" --headless "$scene" --steps 2000000000 "$@" --metrics /dev/null &
pid=$!
echo "seconds,rss_kb" > "$out"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  now=$(( $(date +%s) - start ))
  rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null)
  [ -n "$rss" ] && echo "$now,$rss" >> "$out"
  [ "$now" -ge "$seconds" ] && { kill "$pid"; break; }
  sleep "$every"
done
wait "$pid" 2>/dev/null
code=$?
# 143: stopped by the deadline (SIGTERM); anything else ended the run early.
[ "$code" != 143 ] && { echo "soak: contactlab ended early with exit $code"; exit 1; }
awk -F, -v total="$seconds" 'NR > 1 { t[NR] = $1; r[NR] = $2; n = NR }
  END {
    for (i = 2; i <= n; ++i) { if (!a && t[i] >= 0.1 * total) a = r[i]; if (!b && t[i] >= 0.5 * total) { b = r[i]; tb = t[i] } }
    growth = (n > 2 && t[n] > tb) ? (r[n] - b) / ((t[n] - tb) / 60) : 0
    printf "rss at 10%%: %d kB, 50%%: %d kB, end (%d s): %d kB; growth over the second half: %.1f kB/min\n", a, b, t[n], r[n], growth
  }' "$out"
