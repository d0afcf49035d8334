# Sourced by the measurement scripts (measure_local2.sh, measure_distributed.sh): `step CMD...`
# logs the time, the load and the command, then runs it with blank lines dropped.
step() {
  echo
  echo "## $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "\$ $*"
  "$@" 2>&1 | grep -v '^\s*$'
}
