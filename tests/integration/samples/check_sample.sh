#!/usr/bin/env bash
# Runs a sample and checks its exit status and output.
#   check_sample.sh ok|fail REGEX command args... [--cat_after FILE]
# With --cat_after, FILE's contents are appended to the output the regex is matched against
# (to check a report the sample wrote). A failure must print exactly one "[ ERROR ]" line.
set -u
expect=$1; regex=$2; shift 2
cmd=(); cat_after=""
while (($#)); do
  if [[ $1 == --cat_after ]]; then cat_after=$2; shift 2; continue; fi
  cmd+=("$1"); shift
done
out=$("${cmd[@]}" 2>&1); rc=$?
if [[ -n $cat_after ]]; then out+=$'\n'$(cat "$cat_after" 2>&1); fi
if [[ $expect == ok && $rc -ne 0 ]]; then echo "$out"; echo "FAIL: exit code $rc, expected 0"; exit 1; fi
if [[ $expect == fail ]]; then
  if [[ $rc -eq 0 ]]; then echo "$out"; echo "FAIL: exit code 0, expected an error"; exit 1; fi
  n=$(grep -c '^\[ ERROR \]' <<<"$out")
  if [[ $n -ne 1 ]]; then echo "$out"; echo "FAIL: expected exactly one [ ERROR ] line, got $n"; exit 1; fi
fi
if ! grep -Eq -- "$regex" <<<"$out"; then echo "$out"; echo "FAIL: output does not match: $regex"; exit 1; fi
echo "ok: $regex"
