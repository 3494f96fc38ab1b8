package serve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/worldc/worldc/runtime"
)

// Durable episodes (Options.StateDir, the serve command's --state-dir).
//
// Worlds are deterministic: an episode is its world, task and prefix plus
// the calls accepted in it. The server journals exactly that, append-only,
// in segments DIR/journal-NNNNNNNN.wal: a record when an episode opens,
// one per call (tool, arguments, a digest of the observation), one when it
// closes, and at a clean stop one with each open episode's state hash. A
// call's record is written (write(2)) before its answer is sent, in the
// episode's order, so a call that was answered is in the journal even if
// the process is killed the next instant (kill -9 loses nothing that was
// answered: the kernel holds what was written). What reaches the disk
// against a power cut is the fsync policy's business:
//
//   - "interval" (the default): the journal is fsynced every second when
//     it changed; a power cut loses at most the last second;
//   - "always": every record is fsynced before its answer (concurrent
//     calls share an fsync);
//   - "none": never fsynced by the server (the OS writes it back).
//
// On start the server reads every segment, rebuilds each episode that was
// open by opening it again and replaying its calls (each observation
// checked against its digest, the state hash against the last one
// recorded), writes the rebuilt episodes into a fresh segment and removes
// the old ones. An episode that does not replay the same (a different
// binary) is dropped and logged. A torn record at the end of a segment (a
// write cut by a power loss) ends that segment. Segments are rotated at
// 64 MiB and removed when every episode they hold is closed.

// FsyncPolicies are the values of Options.Fsync.
var FsyncPolicies = []string{"interval", "always", "none"}

const (
	segmentMax  = 64 << 20
	syncEvery   = time.Second
	journalHead = "worldc journal 1\n"
)

// record is one journal record.
type record struct {
	Op     string          `json:"op"` // open, call, kind, close, hash
	ID     string          `json:"id"`
	World  string          `json:"world,omitempty"`
	Task   string          `json:"task,omitempty"`
	Prefix int             `json:"prefix,omitempty"`
	Kind   string          `json:"kind,omitempty"` // kind: "mcp" for an MCP session's episode
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Obs    string          `json:"obs,omitempty"`   // call: the observation's digest
	Steps  int             `json:"steps,omitempty"` // hash: the calls made, given ones included
	Hash   string          `json:"hash,omitempty"`  // hash: the state hash after them
}

// journal is the append-only log of a server's episodes.
type journal struct {
	dir    string
	policy string

	mu      sync.Mutex
	f       *os.File
	seg     int              // current segment
	size    int64            // of the current segment
	written int64            // bytes written in all, the sync horizon
	live    map[int]int      // segment → open episodes with records in it
	eps     map[string][]int // open episode → the segments it has records in
	err     error            // a failed write: every later one fails too

	smu    sync.Mutex // serialises fsyncs
	synced int64

	stop chan struct{}
	done chan struct{}
}

func segName(n int) string { return fmt.Sprintf("journal-%08d.wal", n) }

// segments lists the journal's segment numbers, ascending.
func segments(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "journal-") || !strings.HasSuffix(name, ".wal") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "journal-"), ".wal"))
		if err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// readJournal reads every record of dir's segments, in order. A record cut
// short or failing its checksum ends its segment (torn is how many).
func readJournal(dir string) (recs []record, segs []int, torn int, err error) {
	segs, err = segments(dir)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, n := range segs {
		f, err := os.Open(filepath.Join(dir, segName(n)))
		if err != nil {
			return nil, nil, 0, err
		}
		r := bufio.NewReaderSize(f, 1<<16)
		head := make([]byte, len(journalHead))
		if _, err := io.ReadFull(r, head); err != nil || string(head) != journalHead {
			f.Close()
			if err == nil {
				return nil, nil, 0, fmt.Errorf("%s is not a worldc journal", segName(n))
			}
			torn++
			continue
		}
		for {
			var hdr [8]byte
			if _, err := io.ReadFull(r, hdr[:]); err != nil {
				if err != io.EOF {
					torn++
				}
				break
			}
			size, sum := binary.LittleEndian.Uint32(hdr[:4]), binary.LittleEndian.Uint32(hdr[4:])
			if size > 256<<20 {
				torn++
				break
			}
			payload := make([]byte, size)
			if _, err := io.ReadFull(r, payload); err != nil || crc32.Checksum(payload, crcTable) != sum {
				torn++
				break
			}
			var rec record
			if err := json.Unmarshal(payload, &rec); err != nil {
				torn++
				break
			}
			recs = append(recs, rec)
		}
		f.Close()
	}
	return recs, segs, torn, nil
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// openJournal starts a new segment after the ones in dir.
func openJournal(dir, policy string, next int) (*journal, error) {
	j := &journal{dir: dir, policy: policy, live: map[int]int{}, eps: map[string][]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	if err := j.rotate(next); err != nil {
		return nil, err
	}
	go j.syncLoop()
	return j, nil
}

// rotate starts segment n (j.mu held, or before j is shared).
func (j *journal) rotate(n int) error {
	f, err := os.OpenFile(filepath.Join(j.dir, segName(n)), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(journalHead); err != nil {
		f.Close()
		return err
	}
	if j.f != nil {
		old, oldSeg := j.f, j.seg
		old.Sync()
		old.Close()
		if j.live[oldSeg] == 0 {
			os.Remove(filepath.Join(j.dir, segName(oldSeg)))
			delete(j.live, oldSeg)
		}
	}
	j.f, j.seg, j.size = f, n, int64(len(journalHead))
	syncDir(j.dir)
	return nil
}

// append writes one record and, under the "always" policy, waits for it
// to be on disk.
func (j *journal) append(rec *record) error {
	payload, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	buf := make([]byte, 8, 8+len(payload))
	binary.LittleEndian.PutUint32(buf[:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[4:8], crc32.Checksum(payload, crcTable))
	buf = append(buf, payload...)
	j.mu.Lock()
	if j.err != nil {
		j.mu.Unlock()
		return j.err
	}
	if j.size+int64(len(buf)) > segmentMax && j.size > int64(len(journalHead)) {
		if err := j.rotate(j.seg + 1); err != nil {
			j.err = err
			j.mu.Unlock()
			return err
		}
	}
	if _, err := j.f.Write(buf); err != nil {
		j.err = fmt.Errorf("writing the journal: %w", err)
		j.mu.Unlock()
		return j.err
	}
	j.size += int64(len(buf))
	j.written += int64(len(buf))
	off := j.written
	// The segments an open episode has records in.
	switch rec.Op {
	case "close":
		for _, n := range j.eps[rec.ID] {
			j.live[n]--
			if j.live[n] <= 0 && n != j.seg {
				os.Remove(filepath.Join(j.dir, segName(n)))
				delete(j.live, n)
			}
		}
		delete(j.eps, rec.ID)
	default:
		if segs := j.eps[rec.ID]; len(segs) == 0 || segs[len(segs)-1] != j.seg {
			j.eps[rec.ID] = append(segs, j.seg)
			j.live[j.seg]++
		}
	}
	j.mu.Unlock()
	if j.policy == "always" {
		return j.syncTo(off)
	}
	return nil
}

// syncTo fsyncs the journal up to offset off (one fsync serves every
// writer waiting).
func (j *journal) syncTo(off int64) error {
	j.smu.Lock()
	defer j.smu.Unlock()
	if j.synced >= off {
		return nil
	}
	j.mu.Lock()
	f, horizon := j.f, j.written
	j.mu.Unlock()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	j.synced = horizon
	return nil
}

func (j *journal) syncLoop() {
	defer close(j.done)
	t := time.NewTicker(syncEvery)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			if j.policy == "interval" {
				j.mu.Lock()
				off := j.written
				j.mu.Unlock()
				j.syncTo(off)
			}
		}
	}
}

// close fsyncs and closes the journal.
func (j *journal) close() error {
	select {
	case <-j.stop:
		return nil
	default:
	}
	close(j.stop)
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.f.Sync()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// obsDigest is the digest of an observation's JSON that replay checks.
func obsDigest(obs runtime.Observation) string {
	b, err := obs.AppendJSON(nil)
	if err != nil {
		return ""
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

// journalOpen records a new episode (nothing without a journal, or while
// the journal is being replayed).
func (s *Server) journalOpen(e *episode, prefix int) error {
	if s.j == nil || s.replaying {
		return nil
	}
	if err := s.j.append(&record{Op: "open", ID: e.id, World: e.world.info.Name, Task: e.task, Prefix: prefix}); err != nil {
		return &apiError{Status: 500, Code: CodeInternal, Message: "the journal: " + err.Error()}
	}
	e.j = s.j
	return nil
}

// journalCall records an accepted call (e.mu held).
func (e *episode) journalCall(tool string, args json.RawMessage, obs runtime.Observation) error {
	if e.j == nil {
		return nil
	}
	var compact bytes.Buffer
	if json.Compact(&compact, args) != nil {
		compact.Reset()
		compact.WriteString("{}")
	}
	return e.j.append(&record{Op: "call", ID: e.id, Tool: tool, Args: compact.Bytes(), Obs: obsDigest(obs)})
}

// journalKind records that an episode is an MCP session's (it resumes by
// the session's id after a restart).
func (s *Server) journalKind(e *episode, kind string) {
	if e.j == nil {
		return
	}
	if err := e.j.append(&record{Op: "kind", ID: e.id, Kind: kind}); err != nil {
		s.log.Error("journal: an MCP session's episode", "episode", e.id, "err", err)
	}
}

// journalClose records that an episode closed.
func (s *Server) journalClose(e *episode) {
	if e.j == nil {
		return
	}
	if err := e.j.append(&record{Op: "close", ID: e.id}); err != nil {
		s.log.Error("journal: closing an episode", "episode", e.id, "err", err)
	}
}

// recover rebuilds the open episodes of dir's journal and starts a fresh
// segment holding them.
func (s *Server) recover(dir, policy string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	recs, segs, torn, err := readJournal(dir)
	if err != nil {
		return err
	}
	if torn > 0 {
		s.log.Warn("journal: torn records at the end of segments (a write cut short) were dropped", "segments", torn)
	}
	type pending struct {
		open  record
		calls []record
		hash  *record
	}
	open := map[string]*pending{}
	var order []string
	for i := range recs {
		r := recs[i]
		switch r.Op {
		case "open":
			if _, ok := open[r.ID]; !ok {
				order = append(order, r.ID)
			}
			open[r.ID] = &pending{open: r}
		case "call":
			if p := open[r.ID]; p != nil {
				p.calls = append(p.calls, r)
			}
		case "hash":
			if p := open[r.ID]; p != nil {
				p.hash = &recs[i]
			}
		case "kind":
			if p := open[r.ID]; p != nil {
				p.open.Kind = r.Kind
			}
		case "close":
			delete(open, r.ID)
		}
	}
	next := 1
	if len(segs) > 0 {
		next = segs[len(segs)-1] + 1
	}
	j, err := openJournal(dir, policy, next)
	if err != nil {
		return err
	}
	s.j = j
	rebuilt, dropped, calls := 0, 0, 0
	for _, id := range order {
		p := open[id]
		if p == nil {
			continue
		}
		e, err := s.replay(p.open, p.calls, p.hash)
		if err != nil {
			dropped++
			s.m.replayFailed.Inc()
			s.log.Error("journal: an episode does not replay and is dropped", "episode", id, "world", p.open.World, "task", p.open.Task, "err", err)
			continue
		}
		// Into the fresh segment: the episode as it is.
		kind := p.open.Kind
		p.open.Kind = ""
		if err := j.append(&p.open); err != nil {
			return err
		}
		if kind != "" {
			if err := j.append(&record{Op: "kind", ID: id, Kind: kind}); err != nil {
				return err
			}
		}
		for i := range p.calls {
			if err := j.append(&p.calls[i]); err != nil {
				return err
			}
		}
		_, hash, _ := e.state(s.opts.Now())
		if err := j.append(&record{Op: "hash", ID: id, Steps: e.stepCount(), Hash: hash}); err != nil {
			return err
		}
		e.j = j
		if kind == "mcp" {
			s.mu.Lock()
			s.resumable[id] = true
			s.mu.Unlock()
		}
		rebuilt++
		calls += len(p.calls)
	}
	if err := j.syncTo(j.written); err != nil {
		return err
	}
	for _, n := range segs {
		os.Remove(filepath.Join(dir, segName(n)))
	}
	syncDir(dir)
	s.m.recovered.Add(rebuilt)
	s.log.Info("journal: episodes rebuilt", "dir", dir, "episodes", rebuilt, "calls", calls, "dropped", dropped, "fsync", policy)
	return nil
}

// replay opens an episode again and replays its calls, checking each
// observation and the last state hash recorded.
func (s *Server) replay(open record, calls []record, hash *record) (*episode, error) {
	e, err := s.openAt(open.World, open.Task, open.ID, open.Prefix)
	if err != nil {
		return nil, err
	}
	for i, c := range calls {
		obs, err := e.call(c.Tool, c.Args, s.opts.Now())
		if err != nil {
			s.remove(e.id)
			return nil, err
		}
		if d := obsDigest(obs); d != c.Obs {
			s.remove(e.id)
			return nil, fmt.Errorf("call %d (%s): the observation differs from the one recorded", i+1, c.Tool)
		}
	}
	// The last state hash recorded (at a clean stop) is the state's when
	// no call came after it.
	if hash != nil && e.stepCount() == hash.Steps {
		if _, h, _ := e.state(s.opts.Now()); h != hash.Hash {
			s.remove(e.id)
			return nil, fmt.Errorf("after %d steps: state hash %s, recorded %s", hash.Steps, h, hash.Hash)
		}
	}
	return e, nil
}

// checkpoint records every open episode's state hash (at a clean stop),
// then fsyncs and closes the journal.
func (s *Server) checkpoint() error {
	if s.j == nil {
		return nil
	}
	select {
	case <-s.j.stop:
		return nil // closed already
	default:
	}
	s.mu.Lock()
	eps := make([]*episode, 0, len(s.episodes))
	for _, e := range s.episodes {
		eps = append(eps, e)
	}
	s.mu.Unlock()
	slices.SortFunc(eps, func(a, b *episode) int { return strings.Compare(a.id, b.id) })
	for _, e := range eps {
		e.mu.Lock()
		if !e.closed && e.ep != nil {
			steps, hash := len(e.steps), e.ep.StateHash()
			e.j.append(&record{Op: "hash", ID: e.id, Steps: steps, Hash: hash})
		}
		e.mu.Unlock()
	}
	return s.j.close()
}

// closeOnDisconnect closes the episode of a connection that ended,
// unless the server is stopping: then the episode stays in the journal,
// to be rebuilt when the server starts again.
func (s *Server) closeOnDisconnect(id, why string) {
	if s.draining.Load() && s.j != nil {
		return
	}
	s.closeEpisode(id, why)
}

// isResumable reports whether sid is the id of an MCP session whose
// episode was rebuilt from the journal and is still open.
func (s *Server) isResumable(sid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.resumable[sid] {
		return false
	}
	if _, open := s.episodes[sid]; !open {
		delete(s.resumable, sid)
		return false
	}
	return true
}

// resumedSession serves a request of an MCP session rebuilt from the
// journal: the SDK lost the session with the process, so its calls are
// served statelessly in its episode (the client keeps its session id;
// tools/list and tools/call work without a new initialize). DELETE ends
// the session and closes the episode; GET (an event stream) answers 405,
// which clients take as "no stream".
func (s *Server) resumedSession(w http.ResponseWriter, r *http.Request, sid string, h http.Handler) {
	if r.Method == http.MethodDelete {
		s.mu.Lock()
		delete(s.resumable, sid)
		s.mu.Unlock()
		s.closeEpisode(sid, "mcp session ended")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.ServeHTTP(w, r)
}
