package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"
)

// ParseShard reads a shard "I/N" (0 ≤ I < N). An empty spec takes a
// Kubernetes Indexed Job's environment: JOB_COMPLETION_INDEX and
// WORLDC_SHARD_COUNT, both or neither (one without the other is an
// error, not a silent build of every spec). Neither gives (0, 1): every
// spec.
func ParseShard(spec string, getenv func(string) string) (shard, count int, err error) {
	if spec == "" {
		idx, cnt := getenv("JOB_COMPLETION_INDEX"), getenv("WORLDC_SHARD_COUNT")
		switch {
		case idx == "" && cnt == "":
			return 0, 1, nil
		case cnt == "":
			return 0, 0, usagef("JOB_COMPLETION_INDEX is %s but WORLDC_SHARD_COUNT is not set: set it to the number of shards (the Job's completions), or pass --shard I/N", idx)
		case idx == "":
			return 0, 0, usagef("WORLDC_SHARD_COUNT is %s but JOB_COMPLETION_INDEX is not set: run in an Indexed Job, or pass --shard I/N", cnt)
		}
		spec = idx + "/" + cnt
	}
	i, n, ok := strings.Cut(spec, "/")
	shard, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || shard < 0 || shard >= count {
		return 0, 0, usagef("--shard %s: want I/N with 0 <= I < N", spec)
	}
	return shard, count, nil
}

// ShardOf is the shard of a spec: its content hash modulo n, so that
// adding specs moves none of the others.
func ShardOf(src []byte, n int) int {
	sum := sha256.Sum256(src)
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
}
