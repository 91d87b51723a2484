#!/usr/bin/env bash
# Run as the operator after the broker starts (ExecStartPost): hands each socket to the
# group of the one service allowed to use it. Sockets are already 0660.
set -euo pipefail
dir="${TERMINAL_MCP_SOCKET_DIR:?set TERMINAL_MCP_SOCKET_DIR}"
for i in $(seq 1 50); do [ -S "$dir/web.sock" ] && break; sleep 0.1; done
chgrp tmcp-clients "$dir" && chmod 0710 "$dir"
for svc in gateway observer web; do
  chgrp "tmcp-$svc" "$dir/$svc.sock"
  chmod 0660 "$dir/$svc.sock"
done
