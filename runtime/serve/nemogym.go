package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// NeMo Gym (NVIDIA-NeMo/Gym): the bundle server as a resources server.
//
// A NeMo Gym agent server (its simple_agent, say) runs a rollout of a row
// of trainers/nemo_gym/<w>.jsonl against a resources server at the root of
// its address: POST /seed_session with the row, POST /<tool> with each
// call's arguments (the answer's body is the tool output the model sees),
// POST /verify with the row and the model's response (the answer is the
// request with "reward" added; the response's final assistant text is the
// agent's answer, for tasks that grade one: see answer.go). It carries the session in cookies: the
// agent sends the cookies of the last answer with the next request, so
// every answer here sets the session's cookie again. Also /aggregate_metrics
// and /reverify_mode, and the /ng-rollout/{id}/ prefix of its
// observability stripped, as its RolloutContextMiddleware does.
//
// A session is an episode: seed_session opens one of the row's world and
// task_id (and closes the session's previous one), the tool routes call in
// it, verify grades it and closes it (a second verify of the session gets
// the same answer). The cookie holds the episode's id, 128 random bits:
// only the agent server that holds it reaches the episode, and verify
// grades that episode only. Serve it on an address of its own (the serve
// command's --nemo-gym-addr), where the NeMo Gym agent server connects and
// the model does not.

// NemoGymCookie is the name of the session cookie.
const NemoGymCookie = "worldc_nemo_gym"

// maxVerdicts bounds the verify answers kept for repeated verifies.
const maxVerdicts = 10000

// nemoGym is the state of the NeMo Gym endpoints.
type nemoGym struct {
	mu       sync.Mutex
	verdicts map[string]float64 // closed sessions: their reward
	order    []string           // verdicts' keys, oldest first
}

var rolloutPrefix = regexp.MustCompile(`^/ng-rollout/[A-Za-z0-9_.:-]+(/.*)$`)

// NemoGymHandler serves the NeMo Gym resources-server endpoints at the
// root of its own listener.
func (s *Server) NemoGymHandler() http.Handler {
	g := &nemoGym{verdicts: map[string]float64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /seed_session", func(w http.ResponseWriter, r *http.Request) { s.nemoSeed(w, r) })
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) { s.nemoVerify(g, w, r) })
	mux.HandleFunc("POST /aggregate_metrics", s.nemoAggregate)
	mux.HandleFunc("GET /reverify_mode", func(w http.ResponseWriter, r *http.Request) {
		// Verify grades the session's state, which the body does not hold.
		writeRaw(w, http.StatusOK, []byte(`"unsupported"`))
	})
	mux.HandleFunc("POST /{tool}", func(w http.ResponseWriter, r *http.Request) { s.nemoTool(g, w, r) })
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf("no NeMo Gym endpoint %s %s: POST /seed_session, /<tool>, /verify, /aggregate_metrics; GET /reverify_mode", r.Method, r.URL.Path)})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := rolloutPrefix.FindStringSubmatch(r.URL.Path); m != nil {
			r2 := *r
			u := *r.URL
			u.Path, u.RawPath = m[1], ""
			r2.URL = &u
			r = &r2
		}
		mux.ServeHTTP(w, r)
	})
}

// nemoSession is the episode id of the request's cookie ("" when none).
func nemoSession(r *http.Request) string {
	c, err := r.Cookie(NemoGymCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// setSession sets the session cookie on the answer.
func setSession(w http.ResponseWriter, id string) {
	http.SetCookie(w, &http.Cookie{Name: NemoGymCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// readBody reads a JSON object body, bounded.
func (s *Server) readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, []byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		return nil, nil, &apiError{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: fmt.Sprintf("the body exceeds %d bytes", s.opts.MaxBodyBytes)}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, nil, &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "the body is not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return obj, body, nil
}

func (s *Server) nemoSeed(w http.ResponseWriter, r *http.Request) {
	obj, _, err := s.readObject(w, r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	var world, task string
	json.Unmarshal(obj["world"], &world)
	json.Unmarshal(obj["task_id"], &task)
	if world == "" && len(s.names) == 1 {
		world = s.names[0]
	}
	if world == "" {
		s.writeError(w, &apiError{Status: http.StatusBadRequest, Code: CodeUnknownWorld, Message: "the row names no world (\"world\"); worlds: " + joinNames(s.names)})
		return
	}
	if old := nemoSession(r); old != "" {
		s.closeEpisode(old, "nemo gym session seeded again")
	}
	e, err := s.open(world, task)
	if err != nil {
		s.writeError(w, err)
		return
	}
	setSession(w, e.id)
	writeRaw(w, http.StatusOK, []byte("{}"))
}

func (s *Server) nemoTool(g *nemoGym, w http.ResponseWriter, r *http.Request) {
	id := nemoSession(r)
	e, err := s.get(id)
	if err != nil {
		// The model sees this text as the tool's output.
		s.writeError(w, &apiError{Status: http.StatusBadRequest, Code: CodeUnknownEpisode, Message: "no NeMo Gym session: POST /seed_session first, and send its cookie"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		s.writeError(w, &apiError{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: fmt.Sprintf("the body exceeds %d bytes", s.opts.MaxBodyBytes)})
		return
	}
	obs, err := s.call(e, r.PathValue("tool"), bytes.TrimSpace(body))
	if err != nil {
		s.writeError(w, err)
		return
	}
	out, err := obs.AppendJSON(make([]byte, 0, 512))
	if err != nil {
		s.writeError(w, err)
		return
	}
	setSession(w, id)
	writeRaw(w, http.StatusOK, out)
}

func (s *Server) nemoVerify(g *nemoGym, w http.ResponseWriter, r *http.Request) {
	obj, _, err := s.readObject(w, r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	// The model's final message is the answer of tasks that grade one.
	answer, err := responseAnswer(obj["response"])
	if err != nil {
		s.writeError(w, err)
		return
	}
	id := nemoSession(r)
	reward, solved, ok := 0.0, false, false
	if e, err := s.get(id); err == nil {
		if gr, err := e.grade(s.opts.Now(), answer); err == nil {
			reward, solved, ok = gr.Reward, gr.Solved(), true
			s.closeEpisode(id, "nemo gym verified")
			g.remember(id, reward)
		}
	}
	if !ok {
		if reward, ok = g.verdict(id); !ok {
			s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeUnknownEpisode, Message: "no NeMo Gym session to verify: POST /seed_session first, and send its cookie"})
			return
		}
		solved = reward == 1
	}
	// BaseVerifyResponse: the request, with the reward (and resolved,
	// which NeMo Gym's agents read when it is a bool).
	obj["reward"], _ = json.Marshal(reward)
	obj["resolved"], _ = json.Marshal(solved)
	out, err := compactJSON(obj)
	if err != nil {
		s.writeError(w, err)
		return
	}
	setSession(w, id)
	writeRaw(w, http.StatusOK, out)
}

func (g *nemoGym) remember(id string, reward float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.verdicts[id]; !ok {
		g.order = append(g.order, id)
	}
	g.verdicts[id] = reward
	for len(g.order) > maxVerdicts {
		delete(g.verdicts, g.order[0])
		g.order = g.order[1:]
	}
}

func (g *nemoGym) verdict(id string) (float64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.verdicts[id]
	return r, ok
}

// nemoAggregate answers /aggregate_metrics: the mean, max and min reward
// over the verify responses and per task (by _ng_task_index), in NeMo
// Gym's AggregateMetrics shape (group_level_metrics, agent_metrics,
// key_metrics: the mean/ entries).
func (s *Server) nemoAggregate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		VerifyResponses []map[string]any `json:"verify_responses"`
	}
	if err := s.readJSONLoose(w, r, &req); err != nil {
		s.writeError(w, err)
		return
	}
	stats := func(rs []float64) map[string]any {
		if len(rs) == 0 {
			return map[string]any{}
		}
		sum, lo, hi := 0.0, rs[0], rs[0]
		for _, x := range rs {
			sum += x
			lo, hi = min(lo, x), max(hi, x)
		}
		return map[string]any{"mean/reward": sum / float64(len(rs)), "max/reward": hi, "min/reward": lo}
	}
	var all []float64
	byTask := map[int][]float64{}
	for _, vr := range req.VerifyResponses {
		rw, _ := vr["reward"].(float64)
		ti, _ := vr["_ng_task_index"].(float64)
		all = append(all, rw)
		byTask[int(ti)] = append(byTask[int(ti)], rw)
	}
	tasks := make([]int, 0, len(byTask))
	for t := range byTask {
		tasks = append(tasks, t)
	}
	sort.Ints(tasks)
	groups := []map[string]any{}
	for _, t := range tasks {
		m := stats(byTask[t])
		m["_ng_task_index"] = t
		groups = append(groups, m)
	}
	agent := stats(all)
	key := map[string]any{}
	if m, ok := agent["mean/reward"]; ok {
		key["mean/reward"] = m
	}
	writeJSON(w, http.StatusOK, map[string]any{"group_level_metrics": groups, "agent_metrics": agent, "key_metrics": key})
}

// readJSONLoose is readJSON that allows members it does not know.
func (s *Server) readJSONLoose(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		return &apiError{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: fmt.Sprintf("the body exceeds %d bytes", s.opts.MaxBodyBytes)}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "the body is not valid: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return nil
}
