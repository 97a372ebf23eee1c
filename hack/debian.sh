# shellcheck shell=bash
# Sourced by hack/test.sh. ensure_debian COMMAND PACKAGE...: install the Debian packages unless COMMAND is
# on PATH; as root only, non-interactively, after one apt-get update per script, waiting for a dpkg lock
# held by another apt (unattended-upgrades on a fresh CI machine), keeping existing configuration files.
# Packages start their daemons (prometheus on :9090, influxd on :8086) through invoke-rc.d or
# deb-systemd-invoke unless policy-rc.d forbids it (exit 101): one is in place for the duration of the
# install, any existing policy set aside and put back however the install ends (failure, Ctrl-C, kill),
# and a policy an earlier interrupted run set aside is put back first, never overwritten.
# RAMP_POLICY_RC_D moves the policy file (tests).
ensure_debian() {
  local cmd=$1
  shift
  if command -v "$cmd" >/dev/null; then return 0; fi
  if [ "$(id -u)" != 0 ]; then
    echo "$cmd is not installed (the e2e tests need it) and this is not root:" \
      "install it (apt-get install $*) or put it on PATH" >&2
    return 1
  fi
  echo "== installing $* (apt)" >&2
  local policy=${RAMP_POLICY_RC_D:-/usr/sbin/policy-rc.d} rc=0
  local apt=(apt-get -o DPkg::Lock::Timeout=300)
  if [ -e "$policy.ramp-saved" ]; then mv -f "$policy.ramp-saved" "$policy"; fi
  if [ -e "$policy" ]; then mv "$policy" "$policy.ramp-saved"; fi
  trap '_debian_restore_policy "$policy"; exit 130' INT TERM HUP
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" || rc=$?
  if [ "$rc" = 0 ]; then
    { [ -n "${apt_updated:-}" ] || "${apt[@]}" update; } >&2 && apt_updated=1 &&
      DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" >&2 || rc=$?
  fi
  _debian_restore_policy "$policy"
  trap - INT TERM HUP
  return "$rc"
}

# _debian_restore_policy POLICY: remove the install's policy-rc.d and put back the one set aside, if any.
_debian_restore_policy() {
  rm -f "$1"
  if [ -e "$1.ramp-saved" ]; then mv "$1.ramp-saved" "$1"; fi
}
