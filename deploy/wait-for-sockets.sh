#!/bin/sh
# ExecStartPost of the broker units: returns once every role socket exists and, when
# TERMINAL_MCP_SOCKET_GROUPS names one, belongs to its group, so that units ordered
# After= the broker start against a broker that is ready. No timeout of its own:
# TimeoutStartSec= bounds it (and stops a broker that never gets there).
set -eu
dir="${TERMINAL_MCP_SOCKET_DIR:?TERMINAL_MCP_SOCKET_DIR is not set}"
groups="${TERMINAL_MCP_SOCKET_GROUPS:-}"

wanted_group() {
  printf '%s\n' "$groups" | tr ',' '\n' | sed -n "s/^ *$1 *= *\([^ ]*\) *\$/\1/p"
}

ready() {
  for role in gateway observer web notifier; do
    sock="$dir/$role.sock"
    [ -S "$sock" ] || return 1
    want="$(wanted_group "$role")"
    [ -z "$want" ] && continue
    [ "$(stat -c %G "$sock")" = "$want" ] || [ "$(stat -c %g "$sock")" = "$want" ] || return 1
  done
}

until ready; do sleep 0.2; done
