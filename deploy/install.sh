#!/usr/bin/env bash
# Installs Terminal MCP as systemd services. Idempotent: every step checks first and
# says "ok:" when nothing needs doing, "do:" when it changes something, and with
# --dry-run "would:" instead (nothing is changed).
#
#   sudo deploy/install.sh --operator USER      system units, one Unix user per client service
#   deploy/install.sh --user-units              single-user units (systemctl --user), no split
#
# Options:
#   --operator USER  the person whose tmux server and repos the broker serves (system units)
#   --checkout DIR   the built checkout the units run (default: the one holding this script)
#   --node PATH      the node binary (default: `command -v node`, symlinks resolved)
#   --root DIR       install files under DIR instead of / (tests; skips systemctl).
#                    Users and groups are still real: they live in the system databases.
#   --units-only     only render the units into --root (no users, no directories; no root needed)
#   --nodes          also install the broker's drop-in that lets it reach `nodes:` over ssh
#                    (terminal-mcp-broker.service.d/nodes.conf: TCP allowed, nothing else)
#   --dry-run        print what would be done, change nothing
set -euo pipefail
# useradd, groupadd and usermod live in /usr/sbin on Debian, which is missing from PATH
# under `su` without `-` and in narrowed environments: look there too.
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
die() { echo "install.sh: $*" >&2; exit 1; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
checkout="$(cd "$here/.." && pwd)"
node=""
operator=""
root=""
dry=0
user_units=0
units_only=0
with_nodes=0

while [ $# -gt 0 ]; do
  case "$1" in
    --operator) operator="${2:?--operator needs a user name}"; shift 2 ;;
    --checkout) checkout="${2:?--checkout needs a directory}"; shift 2 ;;
    --node) node="${2:?--node needs a path}"; shift 2 ;;
    --root) root="${2:?--root needs a directory}"; shift 2 ;;
    --user-units) user_units=1; shift ;;
    --units-only) units_only=1; shift ;;
    --nodes) with_nodes=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage 2 ;;
  esac
done

ROLES=(gateway observer web notifier)
CLIENTS_GROUP=tmcp-clients

# ---- helpers -------------------------------------------------------------------------
ok() { echo "ok: $*"; }
# run DESCRIPTION -- COMMAND...: the one place a step changes the machine.
run() {
  local what="$1"; shift; [ "$1" = "--" ] && shift
  if [ "$dry" = 1 ]; then echo "would: $what"; else echo "do: $what"; "$@"; fi
}
in_group() { id -nG "$1" 2>/dev/null | tr ' ' '\n' | grep -qx "$2"; }

# put_file CONTENT_FILE DEST MODE [OWNER:GROUP] [keep]: writes DEST when missing or
# different; "keep" never replaces an existing DEST (files the operator edits).
put_file() {
  local src="$1" dest="$2" mode="$3" owner="${4:-}" keep="${5:-}"
  if [ -e "$dest" ]; then
    if [ "$keep" = keep ]; then
      ok "$dest exists (kept: yours to edit)"
    elif cmp -s "$src" "$dest"; then
      ok "$dest is up to date"
    else
      run "update $dest" -- install -m "$mode" ${owner:+-o "${owner%%:*}" -g "${owner##*:}"} "$src" "$dest"
      return
    fi
    # Mode and owner are part of being up to date.
    if [ "$(stat -c %a "$dest")" != "${mode#0}" ]; then run "chmod $mode $dest" -- chmod "$mode" "$dest"; fi
    if [ -n "$owner" ] && [ "$(stat -c %U:%G "$dest")" != "$owner" ]; then run "chown $owner $dest" -- chown "$owner" "$dest"; fi
  else
    run "write $dest (mode $mode${owner:+, $owner})" -- install -D -m "$mode" ${owner:+-o "${owner%%:*}" -g "${owner##*:}"} "$src" "$dest"
  fi
}

# put_dir DIR MODE OWNER:GROUP: creates DIR or fixes its mode and owner.
put_dir() {
  local dir="$1" mode="$2" owner="$3"
  if [ ! -d "$dir" ]; then
    run "create $dir (mode $mode, $owner)" -- install -d -m "$mode" -o "${owner%%:*}" -g "${owner##*:}" "$dir"
    return
  fi
  if [ "$(stat -c %U:%G "$dir")" != "$owner" ]; then run "chown $owner $dir" -- chown "$owner" "$dir"; fi
  if [ "$(stat -c %a "$dir")" != "${mode#0}" ]; then run "chmod $mode $dir" -- chmod "$mode" "$dir"; fi
  [ "$(stat -c %U:%G "$dir")" = "$owner" ] && [ "$(stat -c %a "$dir")" = "${mode#0}" ] && ok "$dir is $mode $owner"
  return 0
}

# ---- inputs --------------------------------------------------------------------------
[ -n "$node" ] || node="$(command -v node || true)"
[ -n "$node" ] || die "no node on PATH; pass --node /path/to/node"
node="$(readlink -f "$node")"
[ -x "$node" ] || die "$node is not executable"
checkout="$(cd "$checkout" 2>/dev/null && pwd)" || die "no checkout directory $checkout"
for f in services/broker/dist/bin/main.js services/gateway/dist/bin/http.js services/observer/dist/bin/observer.js services/notifier/dist/bin/notifier.js web/dist/server/main.js web/build/handler.js; do
  [ -f "$checkout/$f" ] || die "$checkout/$f is missing: run \`npm ci && npm run build\` in $checkout first"
done
for p in "$checkout" "$node"; do
  case "$p" in *[[:space:]@\|\&\\]*) die "$p: the checkout and node paths must not contain spaces, @, |, & or \\" ;; esac
done
if [ -n "$root" ]; then
  [ "$dry" = 1 ] && [ ! -d "$root" ] && die "--root $root does not exist"
  mkdir -p "$root" 2>/dev/null || [ "$dry" = 1 ] || die "cannot create --root $root"
  root="$(cd "$root" && pwd)"
fi

if [ "$user_units" = 1 ]; then
  unit_src="$here/systemd/user"
  if [ -n "$root" ]; then unit_dir="$root/.config/systemd/user"; conf_dir="$root/.config/terminal-mcp"
  else unit_dir="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"; conf_dir="${XDG_CONFIG_HOME:-$HOME/.config}/terminal-mcp"; fi
else
  unit_src="$here/systemd/system"
  unit_dir="$root/etc/systemd/system"
  conf_dir="$root/etc/terminal-mcp"
  [ -n "$operator" ] || die "--operator USER is required for the system units (or use --user-units)"
  [[ "$operator" =~ ^[a-z_][a-z0-9_.-]*$ ]] || die "--operator $operator is not a user name"
  getent passwd "$operator" >/dev/null || die "no user $operator on this machine (the operator is an existing person's account)"
  [ "$(id -u "$operator")" != 0 ] || die "the operator must not be root: the broker would run with every privilege"
  # The client units have ProtectHome=yes: node and the checkout must be outside it
  # (--units-only just renders, e.g. for systemd-analyze verify on a developer's checkout).
  [ "$units_only" = 1 ] || for p in "$node" "$checkout"; do
    case "$p" in /home/*|/root/*|/run/user/*) die "$p is under /home, /root or /run/user, which the client units cannot see (ProtectHome=yes); install node system-wide and put the built checkout in e.g. /opt/terminal-mcp" ;; esac
  done
  if [ "$dry" = 0 ] && [ "$units_only" = 0 ] && [ "$(id -u)" != 0 ]; then die "run as root (sudo), or with --dry-run to see what it would do"; fi
fi

# ---- users and groups (system units) -------------------------------------------------
if [ "$user_units" = 0 ] && [ "$units_only" = 0 ]; then
  nologin="$(command -v nologin || echo /usr/sbin/nologin)"
  for g in "$CLIENTS_GROUP" "${ROLES[@]/#/tmcp-}"; do
    if getent group "$g" >/dev/null; then ok "group $g exists"; else run "create group $g" -- groupadd --system "$g"; fi
  done
  for r in "${ROLES[@]}"; do
    u="tmcp-$r"
    if getent passwd "$u" >/dev/null; then
      ok "user $u exists"
      if in_group "$u" "$CLIENTS_GROUP"; then ok "$u is in $CLIENTS_GROUP"; else run "add $u to $CLIENTS_GROUP" -- usermod -a -G "$CLIENTS_GROUP" "$u"; fi
    else
      run "create system user $u (group $u, also in $CLIENTS_GROUP, no home, no login)" -- \
        useradd --system --gid "$u" --groups "$CLIENTS_GROUP" --no-create-home --home-dir /nonexistent --shell "$nologin" "$u"
    fi
    # The broker (running as the operator) may only hand a socket to a group it is in.
    if in_group "$operator" "$u"; then ok "$operator is in $u"; else run "add $operator to group $u (to hand $r.sock to it)" -- usermod -a -G "$u" "$operator"; fi
  done
fi

# ---- units ---------------------------------------------------------------------------
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for src in "$unit_src"/*.service; do
  name="$(basename "$src")"
  sed -e "s|@PREFIX@|$checkout|g" -e "s|@NODE@|$node|g" -e "s|@OPERATOR@|$operator|g" "$src" >"$tmp/$name"
  put_file "$tmp/$name" "$unit_dir/$name" 0644
done
# The drop-in for a broker with nodes (ssh over TCP); without --nodes an earlier one stays
# (removing it is the operator's call: it may carry their own edits).
dropin=terminal-mcp-broker.service.d/nodes.conf
if [ "$with_nodes" = 1 ]; then put_file "$unit_src/$dropin" "$unit_dir/$dropin" 0644
elif [ -e "$unit_dir/$dropin" ]; then ok "$unit_dir/$dropin exists (kept; install.sh --nodes keeps it up to date)"; fi
[ "$units_only" = 1 ] && exit 0

# ---- configuration files (copied once, never overwritten) ----------------------------
for f in broker "${ROLES[@]}"; do
  put_file "$here/env/$f.env" "$conf_dir/$f.env" 0600 "" keep
done

# ---- state and socket directories (system units) --------------------------------------
# systemd creates both at start (StateDirectory=, RuntimeDirectory=, then ExecStartPre=
# hands the socket directory to tmcp-clients); doing it here as well fixes the modes of
# an existing installation and of sockets a running broker already made.
if [ "$user_units" = 0 ]; then
  opgroup="$(id -gn "$operator")"
  state_dir="$root/var/lib/terminal-mcp"
  socket_dir="$root/run/terminal-mcp"
  put_dir "$state_dir" 0700 "$operator:$opgroup"
  put_dir "$socket_dir" 0710 "$operator:$CLIENTS_GROUP"
  for r in "${ROLES[@]}"; do
    s="$socket_dir/$r.sock"
    [ -S "$s" ] || continue
    if [ "$(stat -c %G "$s")" = "tmcp-$r" ]; then ok "$s belongs to group tmcp-$r"; else run "chgrp tmcp-$r $s" -- chgrp "tmcp-$r" "$s"; fi
    if [ "$(stat -c %a "$s")" = 660 ]; then ok "$s is 0660"; else run "chmod 0660 $s" -- chmod 0660 "$s"; fi
  done
  # The service users must reach node and the built files (every directory on the way
  # must be enterable by others).
  if [ "$dry" = 0 ]; then
    declare -A entry=([gateway]=services/gateway/dist/bin/http.js [observer]=services/observer/dist/bin/observer.js [web]=web/build/handler.js [notifier]=services/notifier/dist/bin/notifier.js)
    for r in "${ROLES[@]}"; do
      for f in "$node" "$checkout/${entry[$r]}"; do
        setpriv --reuid="tmcp-$r" --regid="tmcp-$r" --init-groups test -r "$f" ||
          die "user tmcp-$r cannot read $f: make every directory on the way o+x and the files o+r"
      done
    done
    ok "the service users can read node and the checkout"
  fi
fi

# ---- systemd ---------------------------------------------------------------------------
if [ -n "$root" ]; then
  ok "--root given: not reloading systemd"
elif [ "$user_units" = 1 ]; then
  run "systemctl --user daemon-reload" -- systemctl --user daemon-reload
  echo "next: systemctl --user enable --now terminal-mcp-broker terminal-mcp-gateway terminal-mcp-observer terminal-mcp-web terminal-mcp-notifier"
elif [ -d /run/systemd/system ]; then
  run "systemctl daemon-reload" -- systemctl daemon-reload
  echo "next: edit $conf_dir/*.env, then systemctl enable --now terminal-mcp-broker terminal-mcp-gateway terminal-mcp-observer terminal-mcp-web terminal-mcp-notifier"
else
  ok "systemd is not running here: units installed, nothing reloaded"
fi
