#!/bin/sh
# Runs a corpus through `worldc build` the way a Kubernetes Indexed Job or a
# CI matrix does — N shards, each told its index by JOB_COMPLETION_INDEX and
# the count by WORLDC_SHARD_COUNT, each writing a JSON report — then merges
# the shards' reports and checks that the verdicts equal an unsharded run
# of the same corpus.
#
# usage: local.sh N SPECS WORKDIR
set -eu
n=$1 specs=$2 work=$3
mkdir -p "$work"
status=0
worldc build --no-cache -o "$work/all" --report "$work/all.json" "$specs" >/dev/null 2>&1 || status=$?
[ "$status" -le 1 ] || { echo "unsharded run failed to run ($status)" >&2; exit 2; }
i=0
while [ "$i" -lt "$n" ]; do
	status=0
	JOB_COMPLETION_INDEX=$i WORLDC_SHARD_COUNT=$n \
		worldc build --no-cache -o "$work/shard$i" --report "$work/shard$i.json" "$specs" >/dev/null 2>&1 || status=$?
	[ "$status" -le 1 ] || { echo "shard $i failed to run ($status)" >&2; exit 2; }
	i=$((i + 1))
done
worldc report merge -o "$work/all.merged.json" "$work/all.json" >"$work/unsharded.txt" || true
worldc report merge -o "$work/shards.merged.json" "$work"/shard*.json >"$work/sharded.txt" || true
if ! diff -u "$work/unsharded.txt" "$work/sharded.txt"; then
	echo "the $n shards' verdicts differ from the unsharded run" >&2
	exit 1
fi
echo "$n shards agree with the unsharded run: $(tail -n 1 "$work/sharded.txt")"
