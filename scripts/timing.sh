# Timing of the parts of a script (sourced by scripts/test.sh and .ci/run): `timed NAME command...` prints
# "== NAME", runs the command, then "== NAME: N s" (with FAILED and the exit code when it fails) and keeps the line
# for the summary that `timing_summary` prints (also when the script stops at a failed part).
TIMINGS=()
timed() {
  local name=$1 t0=$SECONDS rc=0 errexit=0
  shift
  echo "== $name"
  # In a subshell with errexit of its own (a function given here stops at its first failing command), while this
  # shell goes on to print the time of a failed part.
  [[ $- == *e* ]] && errexit=1
  set +e
  (set -e; "$@")
  rc=$?
  ((errexit)) && set -e
  local line
  line=$(printf '%-52s %5d s' "$name" "$((SECONDS - t0))")
  ((rc == 0)) || line+="  FAILED (exit $rc)"
  TIMINGS+=("$line")
  echo "== $line"
  return "$rc"
}
timing_summary() {
  ((${#TIMINGS[@]})) || return 0
  echo "== time of each part ($1)"
  printf '   %s\n' "${TIMINGS[@]}"
  printf '   %-52s %5d s\n' "total" "$SECONDS"
}
