#!/usr/bin/env bash
# Clean-room check: the README's first command (./run.sh) on a minimal Debian 12 root made with
# `debootstrap --variant=minbase bookworm`, where every package must come from install_deps.sh.
#
#   scripts/fresh_machine_check.sh [--tree] [--test]
#
# Phases: base (the minbase tarball, downloaded once and cached), root (unpacked fresh every run),
# copy (the clone's HEAD by `git archive`; --tree copies the tracked files as they are in the
# working tree instead, uncommitted changes included), deps (scripts/install_deps.sh inside the
# root), run (./run.sh inside the root: configure, build its targets, run the demo). --test runs
# the README's second command, ./test.sh (the whole build and suite, the out-of-tree check), in
# that phase instead: CI runs the quick form, the full form is run by hand before a release.
# Needs root (debootstrap, chroot) and network access to the Debian mirror apt uses on the host.
#
# Environment: VIREO_FRESH_CACHE (default /var/cache/vireo-fresh) keeps the base tarball and the
# root's downloaded .deb files between runs (packages are still installed fresh each run);
# VIREO_FRESH_MIRROR overrides the mirror; VIREO_FRESH_KEEP=1 keeps the root for inspection.
# The root is made under $TMPDIR (default /var/tmp), never inside the clone, and is removed on exit.
# Exit status: 0 when every phase passed, 1 when one failed (the summary names it), 2 on misuse.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
mode=head
readme_command=./run.sh
for arg in "$@"; do
  case "$arg" in
    --tree) mode=tree ;;
    --test) readme_command=./test.sh ;;
    *) echo "usage: $0 [--tree] [--test]" >&2; exit 2 ;;
  esac
done
if [[ $(id -u) -ne 0 ]]; then echo "fresh_machine_check: needs root (debootstrap, chroot)" >&2; exit 2; fi

cache=${VIREO_FRESH_CACHE:-/var/cache/vireo-fresh}
suite=bookworm
# The host's Debian mirror (deb822 or one-line sources), else the default one.
host_mirror() {
  local uri
  uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/debian.sources | awk '{print $2}' |
        grep -v security | head -1 || true)
  [[ -n "$uri" ]] || uri=$(grep -hsE '^deb +(\[[^]]*\] +)?https?://[^ ]+ +bookworm ' \
                           /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
                           grep -oE 'https?://[^ ]+' | grep -v security | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}
mirror=${VIREO_FRESH_MIRROR:-$(host_mirror)}
security_mirror=${mirror%/debian}/debian-security
tarball="$cache/$suite-minbase-$(dpkg --print-architecture).tgz"

root=$(mktemp -d "${TMPDIR:-/var/tmp}/vireo-fresh-root.XXXXXX")
case "$root/" in
  "$repo"/*) echo "fresh_machine_check: root $root is inside the clone $repo" >&2; exit 2 ;;
esac

phases=()   # "name status seconds" lines for the summary
failed=""   # the phase that failed, or why the check stopped
current=""  # the phase running now
summary() {
  echo
  echo "== fresh_machine_check summary (root $root, mode $mode, $readme_command)"
  local line
  for line in "${phases[@]}"; do printf '   %-6s %-7s %5s s\n' $line; done
  if [[ -n "$failed" ]]; then
    echo "   FAILED in phase '$failed' (its log is above)"
  elif [[ $1 -ne 0 ]]; then
    echo "   STOPPED (exit status $1) during phase '${current:-none}'"
  else
    echo "   PASSED: $readme_command ran on a fresh minbase $suite root with install_deps.sh's packages only"
  fi
}
phase_pid=""  # the running phase, stopped by cleanup when the check is interrupted
cleanup() {
  local status=$?
  if [[ -n "$phase_pid" ]]; then
    # The phase is a process group of its own: kill all of it (debootstrap, apt, the build). Its
    # unshare's PID namespace goes too: the namespace's first process dies with unshare
    # (--kill-child), and the kernel then kills every process in the namespace.
    kill -KILL -- "-$phase_pid" 2>/dev/null || true
    wait "$phase_pid" 2>/dev/null || true
  fi
  # Nothing may still run in the root when it is removed: wait (30 s at most) for the last one.
  local tries p busy
  for tries in $(seq 30); do
    busy=""
    for p in /proc/[0-9]*; do
      [[ "$(readlink "$p/root" 2>/dev/null)" == "$root"* ]] && { busy=${p#/proc/}; break; }
    done
    [[ -z "$busy" ]] && break
    sleep 1
  done
  [[ -n "$busy" ]] && echo "fresh_machine_check: process $busy still runs in $root" >&2
  # Mounts live in the chroot's own mount namespace (unshare below) and vanish with it; unmount
  # anything still listed under the root anyway, deepest first, before removing files.
  local m
  for m in $(findmnt -rn -o TARGET | grep -F "$root/" | sort -r); do umount -l "$m" || true; done
  if [[ "${VIREO_FRESH_KEEP:-0}" == 1 ]]; then
    echo "fresh_machine_check: root kept at $root"
  else
    rm -rf --one-file-system "$root"
  fi
  summary "$status"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs phase $1 with the command that follows, timing it; the first failure stops the check.
phase() {
  local name=$1 start=$SECONDS
  shift
  current=$name
  echo "== fresh_machine_check: phase $name"
  local rc=0
  # A subshell with -e of its own: in an `if` condition bash would ignore -e inside the phase.
  set +e
  set -m  # job control: the phase runs in a process group of its own (see cleanup)
  (set -e; "$@") &
  phase_pid=$!
  set +m
  wait "$phase_pid"
  rc=$?
  phase_pid=""
  set -e
  if ((rc == 0)); then
    phases+=("$name ok $((SECONDS - start))")
  else
    phases+=("$name FAILED $((SECONDS - start))")
    failed=$name
    exit 1
  fi
}

make_base() {
  if [[ -s "$tarball" ]]; then
    echo "cached: $tarball"
    return 0
  fi
  command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap
  mkdir -p "$cache"
  local work
  work=$(mktemp -d "${TMPDIR:-/var/tmp}/vireo-fresh-base.XXXXXX")
  # Written under a temporary name and renamed: a killed download never looks cached.
  if debootstrap --variant=minbase --make-tarball="$tarball.part" "$suite" "$work" "$mirror"; then
    mv "$tarball.part" "$tarball"
    rm -rf --one-file-system "$work"
  else
    rm -rf --one-file-system "$work" "$tarball.part"
    return 1
  fi
}

make_root() {
  debootstrap --variant=minbase --unpack-tarball="$tarball" "$suite" "$root" "$mirror"
  # A stock Debian 12 install's sources: the release, its updates and security.
  cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security_mirror $suite-security main
EOF
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mkdir -p "$cache/archives/partial"
}

copy_repo() {
  mkdir -p "$root/root/vireo"
  if [[ $mode == head ]]; then
    git -C "$repo" archive --format=tar HEAD | tar -x -C "$root/root/vireo"
  else
    (cd "$repo" && git ls-files -z | while IFS= read -r -d '' f; do
      if [[ -e "$f" ]]; then printf '%s\0' "$f"; fi  # a deleted file is left out
    done | tar --null -T - -cf -) | tar -x -C "$root/root/vireo"
  fi
  echo "copied $(find "$root/root/vireo" -type f | wc -l) files ($mode)"
}

# Runs a command in the root: a private mount namespace holds proc, sys, dev and the cached
# .deb archive, so every mount goes away with the command, whatever way it ends; a PID namespace
# whose first process dies with unshare (--kill-child) leaves no build running when interrupted.
in_root() {
  unshare --mount --propagation private --pid --fork --kill-child -- /bin/sh -ec '
    root=$1; cache=$2; shift 2
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount --bind "$cache/archives" "$root/var/cache/apt/archives"
    exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
    sh "$root" "$cache" "$@"
}

phase base make_base
phase root make_root
phase copy copy_repo
phase deps in_root /bin/bash -c 'cd /root/vireo && ./scripts/install_deps.sh'
phase run in_root /bin/bash -c "cd /root/vireo && $readme_command"
