package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/worldc/worldc/runtime/serve/eval"
)

// encoded is what a world's answers hold that never changes: its tool
// lists in each protocol's form, its policy, its tasks' summaries and the
// start of every episode, encoded once when the server starts. Encoding
// them per episode (the tool list is ~14 KB, and encoding/json validates
// and compacts every json.RawMessage it writes) was most of an episode's
// cost.
type encoded struct {
	toolsOpenAI []byte                // GET /v1/worlds/{w}/tools: the OpenAI function tools, a JSON array
	toolsWS     []byte                // the OpenEnv list_tools form, a JSON array
	policy      map[eval.Clock][]byte // per clock: the policy shown on it (world.policies) as a JSON string
	tasks       []byte                // GET /v1/worlds/{w}/tasks
	start       map[string][]byte     // per task ("" included): EpisodeStart's members between episode_id and policy
	wsStart     map[string][2][]byte  // per task: the reset observation's members from instruction to policy, and from task to world
	listTools   []byte                // the OpenEnv list_tools reply
}

// encode fills wd.enc.
func (wd *world) encode() error {
	openai := make([]json.RawMessage, len(wd.tools))
	for i, t := range wd.tools {
		openai[i] = t.OpenAI()
	}
	wd.toolIndex = map[string]struct{}{}
	for _, t := range wd.tools {
		wd.toolIndex[t.Name] = struct{}{}
	}
	var err error
	e := &wd.enc
	if e.toolsOpenAI, err = compactJSON(openai); err != nil {
		return err
	}
	if e.toolsWS, err = compactJSON(wsTools(wd.tools)); err != nil {
		return err
	}
	// Each task's clock, and the policy as its agent is shown it: tasks on
	// the same clock (most are on the world's) share one.
	wd.clock = map[string]eval.Clock{}
	wd.policies = map[eval.Clock]string{}
	e.policy = map[eval.Clock][]byte{}
	policy := wd.w.Policy()
	for _, id := range append([]string{""}, wd.order...) {
		c := eval.TaskClock(wd.info, wd.tasks[id])
		wd.clock[id] = c
		if _, ok := wd.policies[c]; ok {
			continue
		}
		wd.policies[c] = eval.TaskPolicy(policy, wd.info, c)
		if e.policy[c], err = compactJSON(wd.policies[c]); err != nil {
			return err
		}
	}
	summaries := make([]TaskSummary, 0, len(wd.order))
	for _, id := range wd.order {
		summaries = append(summaries, taskSummary(wd.tasks[id], wd.clock[id]))
	}
	if e.tasks, err = compactJSON(summaries); err != nil {
		return err
	}
	e.start = map[string][]byte{}
	e.wsStart = map[string][2][]byte{}
	for _, id := range append([]string{""}, wd.order...) {
		t := wd.tasks[id]
		c := wd.clock[id]
		// `"world":…,"task":…,"persona":…,"instruction":…,"today":…,"now":…,`
		// in EpisodeStart's order.
		var b bytes.Buffer
		for _, kv := range [][2]string{{"world", wd.info.Name}, {"task", id}, {"persona", t.Persona}, {"instruction", t.Instruction}} {
			v, err := compactJSON(kv[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, `"%s":%s,`, kv[0], v)
		}
		fmt.Fprintf(&b, `"today":"%s","now":"%s",`, c.Today, c.Now) // digits, '-', ':', 'T', 'Z': nothing to escape
		e.start[id] = b.Bytes()
		// The reset observation is a map: its keys are sorted.
		instr, _ := compactJSON(t.Instruction)
		persona, _ := compactJSON(t.Persona)
		task, _ := compactJSON(id)
		world, _ := compactJSON(wd.info.Name)
		e.wsStart[id] = [2][]byte{
			fmt.Appendf(nil, `"instruction":%s,"now":"%s","persona":%s,"policy":%s,`, instr, c.Now, persona, e.policy[c]),
			fmt.Appendf(nil, `"task":%s,"today":"%s","tools":%s,"world":%s`, task, c.Today, e.toolsWS, world),
		}
	}
	e.listTools = fmt.Appendf(nil, `{"data":{"observation":{"tools":%s},"reward":null,"done":false},"type":"observation"}`, e.toolsWS)
	return nil
}

// startJSON is start(e) as JSON, built from the encoded parts: the same
// bytes as encoding it (TestStartJSON holds them equal). A member of
// EpisodeStart that varies per episode (the id, the given steps of a
// prefix) must be written here too.
func (s *Server) startJSON(e *episode) []byte { return s.startBytes(e, false) }

// startLiteJSON is startJSON without the policy and the tools: the
// members EpisodeStart omits when empty, and `"policy":"","tools":[]`.
func (s *Server) startLiteJSON(e *episode) []byte { return s.startBytes(e, true) }

func (s *Server) startBytes(e *episode, lite bool) []byte {
	enc := &e.world.enc
	mid := enc.start[e.task]
	policy := enc.policy[e.world.clock[e.task]]
	given := e.given()
	size := 64 + len(e.id) + len(mid)
	if !lite {
		size += len(policy) + len(enc.toolsOpenAI)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"episode_id":"`...)
	b = append(b, e.id...) // hex: nothing to escape
	b = append(b, `",`...)
	b = append(b, mid...)
	if lite {
		b = append(b, `"policy":"","tools":[]`...)
	} else {
		b = append(b, `"policy":`...)
		b = append(b, policy...)
		b = append(b, `,"tools":`...)
		b = append(b, enc.toolsOpenAI...)
	}
	if len(given) > 0 {
		g, err := compactJSON(given)
		if err != nil {
			panic(err) // unreachable: steps are the server's own, valid JSON
		}
		b = fmt.Appendf(b, `,"prefix":%d,"given":%s`, len(given), g)
	}
	if e.world.tasks[e.task].Answer {
		b = append(b, `,"answer":true`...)
	}
	return append(b, "}\n"...)
}

// wsResetJSON is the OpenEnv reply to a reset that opened e: the bytes
// of encoding its observation map (TestStartJSON holds them equal).
func (s *Server) wsResetJSON(e *episode) []byte {
	enc := &e.world.enc
	parts := enc.wsStart[e.task]
	given := e.given()
	g, err := compactJSON(nonNil(given))
	if err != nil {
		panic(err) // unreachable: steps are the server's own, valid JSON
	}
	b := make([]byte, 0, 128+len(e.id)+len(g)+len(parts[0])+len(parts[1]))
	// send's map: "data" before "type", its keys sorted.
	b = append(b, `{"data":{"observation":{`...)
	if e.world.tasks[e.task].Answer {
		b = append(b, `"answer":true,`...)
	}
	b = append(b, `"episode_id":"`...)
	b = append(b, e.id...)
	b = append(b, `","given":`...)
	b = append(b, g...)
	b = append(b, ',')
	b = append(b, parts[0]...)
	b = fmt.Appendf(b, `"prefix":%d,`, len(given))
	b = append(b, parts[1]...)
	return append(b, `},"reward":null,"done":false},"type":"observation"}`...)
}

// worldsJSON is GET /v1/worlds, encoded once.
func (s *Server) encodeWorlds() error {
	out := make([]WorldSummary, 0, len(s.names))
	for _, n := range s.names {
		wd := s.worlds[n]
		out = append(out, WorldSummary{WorldInfo: wd.info, Tools: len(wd.tools), Tasks: len(wd.order)})
	}
	var err error
	if s.worldsJSON, err = compactJSON(out); err != nil {
		return err
	}
	type worldTool struct {
		wsTool
		World string `json:"world"`
	}
	var all []worldTool
	for _, n := range s.names {
		for _, t := range wsTools(s.worlds[n].tools) {
			all = append(all, worldTool{t, n})
		}
	}
	tools, err := compactJSON(nonNil(all))
	if err != nil {
		return err
	}
	s.allToolsWS = fmt.Appendf(nil, `{"data":{"observation":{"tools":%s},"reward":null,"done":false},"type":"observation"}`, tools)
	return nil
}

// compactJSON is v as JSON without HTML escaping, without a newline.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// writeRaw answers bytes that are JSON already.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	// A length, not chunks: one write of the body.
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

var jsonContentType = []string{"application/json"}

// MaxOpenCount bounds the count of one POST /v1/worlds/{w}/episodes.
const MaxOpenCount = 1024

// openMany opens count episodes of a task and answers their starts as a
// JSON array; when one cannot open (capacity), those opened are closed
// and the error is the answer.
func (s *Server) openMany(w http.ResponseWriter, world, task string, prefix, count int, lite bool) {
	if count < 1 || count > MaxOpenCount {
		s.writeError(w, &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: fmt.Sprintf("count %d: give 1 to %d episodes", count, MaxOpenCount)})
		return
	}
	eps := make([]*episode, 0, count)
	for range count {
		e, err := s.openAt(world, task, newID(), prefix)
		if err != nil {
			for _, e := range eps {
				s.closeEpisode(e.id, "group not opened")
			}
			s.writeError(w, err)
			return
		}
		eps = append(eps, e)
	}
	var b []byte
	b = append(b, '[')
	for i, e := range eps {
		if i > 0 {
			b = append(b, ',')
		}
		var one []byte
		if lite {
			one = s.startLiteJSON(e)
		} else {
			one = s.startJSON(e)
		}
		b = append(b, one[:len(one)-1]...) // without its newline
	}
	b = append(b, "]\n"...)
	writeRaw(w, http.StatusCreated, b)
}
