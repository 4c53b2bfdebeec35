#!/usr/bin/env bash
# Checks the source tree's rules that no compiler enforces; ./test.sh runs it before building.
#   1. Formatting: every tracked C++ file is as clang-format 14 (Debian 12's) writes it with the
#      repository's .clang-format. Other versions format some constructs differently, so another
#      version is refused rather than trusted. Fix with:  scripts/check_tree.sh --fix
#   2. Layering of core's public headers: core/include never includes the SDK (vireo/sdk/...)
#      nor a runtime public header (runtime/include/vireo/: vireo/core.hpp, ...; installed in the
#      same include/vireo/). Sources cannot: each layer is a CMake target that sees only its own
#      and lower layers' headers (core/CMakeLists.txt, proved by the `layering` ctest entries); a
#      public header no core source includes is out of the compiler's reach, so it is checked here.
#   3. No header name is in both core/include and runtime/include: both install into include/,
#      where one would silently replace the other.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
if [[ "${1:-}" == "--fix" ]]; then fix=1; fi

formatter=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null &&
     "$candidate" --version | grep -q "clang-format version 14\."; then
    formatter=$candidate
    break
  fi
done
if [[ -z $formatter ]]; then
  echo "check_tree: clang-format 14 not found (scripts/install_deps.sh installs Debian's)" >&2
  exit 1
fi

# Tracked files and new ones not yet added (not the ignored build trees): a file created this
# session is checked before its first commit, not only in CI's clone.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.h' '*.cc')
failed=0
if ((fix)); then
  "$formatter" -i "${files[@]}"
else
  mapfile -t unformatted < <("$formatter" --dry-run "${files[@]}" 2>&1 |
                             sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning:.*/\1/p' | sort -u)
  if ((${#unformatted[@]})); then
    echo "check_tree: ${#unformatted[@]} file(s) not formatted as .clang-format says:" >&2
    printf '  %s\n' "${unformatted[@]}" >&2
    echo "  fix with: scripts/check_tree.sh --fix" >&2
    failed=1
  fi
fi

# The runtime's public headers, by their installed name (vireo/core.hpp, ...), as one alternation.
runtime_headers=$( (cd runtime/include && find vireo -type f) | sed 's/[.]/[.]/g' | paste -sd '|' -)
upward=$(git grep -n -E "#include\s+[\"<](vireo/sdk/|(${runtime_headers:-^})[\">])" -- core/include || true)
if [[ -n $upward ]]; then
  echo "check_tree: core/include includes the SDK or the runtime (the layering runs" \
       "core <- sdk <- runtime):" >&2
  echo "$upward" >&2
  failed=1
fi

clashes=$(comm -12 <(cd core/include && find . -type f | sort) <(cd runtime/include && find . -type f | sort))
if [[ -n $clashes ]]; then
  echo "check_tree: headers in both core/include and runtime/include (both install to include/):" >&2
  echo "$clashes" >&2
  failed=1
fi

if ((failed == 0)); then
  echo "check_tree: ${#files[@]} C++ files formatted; core/include includes neither the SDK nor" \
       "runtime/include"
fi
exit "$failed"
