#!/bin/sh
# make scale N=…: the gate on N synthetic worlds (worldc synth), from spec
# to verdict, as a user runs it: `worldc build` cold (world packages never
# built: the corpus seed is new each run), warm (the same corpus again with
# the verdict cache off: check, gen and go test's own cache), and unchanged
# (the verdict cache on). It prints the table: wall seconds in all and per
# world, and peak memory (RSS) of worldc and of the whole run.
#
# usage: scale.sh WORLDC N [SEED]
set -eu
worldc=$1 n=$2 seed=${3:-$(date +%s)}
work=$(mktemp -d "${TMPDIR:-/tmp}/worldc-scale-XXXXXX")
trap 'rm -rf "$work"' EXIT
export WORLDC_CACHE="$work/cache"
"$worldc" synth -n "$n" --seed "$seed" -o "$work/specs" 2>/dev/null

run() { # label, build args...
	label=$1
	shift
	start=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "$work/rss" "$worldc" build -o "$work/out" --report "$work/report.json" "$@" "$work/specs" >"$work/out.txt" 2>"$work/err.txt" || true
	end=$(date +%s.%N)
	rss=$(tail -n 1 "$work/rss")
	summary=$(tail -n 1 "$work/out.txt")
	awk -v l="$label" -v s="$start" -v e="$end" -v n="$n" -v r="$rss" -v sum="$summary" \
		'BEGIN { printf "%-10s %8.1f %10.3f %10.0f   %s\n", l, e - s, (e - s) / n, r / 1024, sum }'
}

echo "worldc scale: $n synthetic worlds (seed $seed), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %8s %10s %10s   %s\n' stage seconds s/world "worldc MB" verdicts
run cold --no-cache
run warm --no-cache
run unchanged
"$worldc" report -o "${SCALE_REPORT:-scale-report.html}" "$work/report.json" 2>/dev/null && echo "report: ${SCALE_REPORT:-scale-report.html}"
