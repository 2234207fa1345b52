#!/bin/sh
# Install the Debian packages named as arguments that are not installed yet.
# Needs root (or sudo) only when something is missing.
set -eu
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# another apt may hold the lock on a shared machine: wait for it
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $missing ||
	{ $SUDO apt-get -o DPkg::Lock::Timeout=600 update &&
	  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $missing; }
