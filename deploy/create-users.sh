#!/usr/bin/env bash
# Creates one system user per client service, each in its own group, plus the shared
# traversal group for the socket directory. Usage: create-users.sh OPERATOR_USER
set -euo pipefail
operator="${1:?usage: create-users.sh OPERATOR_USER}"
getent group tmcp-clients >/dev/null || groupadd --system tmcp-clients
for svc in gateway observer web; do
  getent group "tmcp-$svc" >/dev/null || groupadd --system "tmcp-$svc"
  id "tmcp-$svc" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin \
    --gid "tmcp-$svc" --groups tmcp-clients "tmcp-$svc"
  # The operator must be in each socket group to chgrp the socket to it.
  usermod -a -G "tmcp-$svc" "$operator"
done
echo "created tmcp-gateway, tmcp-observer, tmcp-web; $operator may hand them their sockets"
