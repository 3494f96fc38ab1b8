package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Stateful is what a world's state provides to a [Registry]: the journal
// shared by its tables, used to make every call atomic.
type Stateful interface {
	Journal() *Journal
}

// A Tool is one agent-callable operation of a world with state type S.
type Tool[S any] struct {
	Name        string          // unique in the world; ^[a-zA-Z0-9_-]{1,64}$
	Service     string          // the service that owns the tool
	Description string          // shown to the agent
	Parameters  json.RawMessage // JSON schema of the arguments object
	// Handler decodes args (with [DecodeArgs]), acts on state and returns
	// the observation's data (any value encoding/json can encode; nil means
	// null) or an error, preferably a [*ToolError]. It may panic: the call
	// is then rolled back and answered with an internal error.
	Handler func(state S, args json.RawMessage) (any, error)
}

// ToolInfo describes a tool to agents and servers.
type ToolInfo struct {
	Name        string          `json:"name"`        // unique in the world
	Service     string          `json:"service"`     // the service that owns the tool
	Description string          `json:"description"` // shown to the agent
	Parameters  json.RawMessage `json:"parameters"`  // JSON schema of the arguments object
}

// OpenAI returns the tool in the OpenAI function-tool format with strict
// mode on: {"type":"function","function":{"name","description","parameters","strict":true}}.
// (Strict mode requires the schema to list every property as required and
// to forbid additional properties; optional parameters are nullable.) A
// schema strict mode cannot express — a map, an object whose
// additionalProperties is a schema — is sent with "strict":false, rather
// than have the API refuse the whole tool list.
func (t ToolInfo) OpenAI() json.RawMessage {
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	}
	b, err := marshalJSON(struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}{"function", fn{t.Name, t.Description, t.schema(), StrictSchema(t.schema()) == nil}})
	if err != nil {
		panic(err) // unreachable: schema() is valid JSON
	}
	return b
}

// MCP returns the tool as an entry of an MCP tools/list result:
// {"name","description","inputSchema"}.
func (t ToolInfo) MCP() json.RawMessage {
	b, err := marshalJSON(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}{t.Name, t.Description, t.schema()})
	if err != nil {
		panic(err) // unreachable: schema() is valid JSON
	}
	return b
}

// schema is Parameters, or the schema of an empty object if they are
// missing or not valid JSON.
func (t ToolInfo) schema() json.RawMessage {
	if len(t.Parameters) == 0 || !json.Valid(t.Parameters) {
		return json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`)
	}
	return t.Parameters
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// A Registry maps tool names to tools for states of type S, keeping the
// registration order. Build it once (at package initialisation) and then
// only call it: Call does not modify the registry, so one registry serves
// any number of episodes concurrently (each with its own state).
type Registry[S Stateful] struct {
	r registryCore
}

type registryCore struct {
	tools []toolEntry
	index map[string]int
	names []string

	// load, when set, registers the tools on first use (RegistryOf): a
	// program that links many worlds decodes the tool descriptions of
	// those it uses only.
	load     func(r *registryCore)
	loadOnce sync.Once
}

// ready registers the tools of a lazily loaded registry.
func (r *registryCore) ready() {
	if r.load != nil {
		r.loadOnce.Do(r.loadNow)
	}
}

func (r *registryCore) loadNow() { r.load(r) }

type toolEntry struct {
	info ToolInfo
	call func(state Stateful, args json.RawMessage) (any, error)
}

// NewRegistry returns an empty registry.
func NewRegistry[S Stateful]() *Registry[S] {
	return &Registry[S]{r: registryCore{index: map[string]int{}}}
}

// RegistryOf returns a registry of the tools that data describes, a JSON
// array of [ToolInfo] in registration order, with handlers[i] the handler
// of the i-th: the registry of a generated world, whose tool descriptions
// and parameter schemas are embedded data (tools.json) and its handlers a
// table. The tools are registered when the registry is first used, which
// panics, as Register does, on data that does not decode or does not match
// the handlers, and on an invalid or duplicate name.
func RegistryOf[S Stateful](data string, handlers []func(state S, args json.RawMessage) (any, error)) *Registry[S] {
	r := NewRegistry[S]()
	calls := make([]func(Stateful, json.RawMessage) (any, error), len(handlers))
	for i, h := range handlers {
		if h == nil {
			panic(fmt.Sprintf("runtime: tool %d registered without a handler", i))
		}
		calls[i] = func(s Stateful, args json.RawMessage) (any, error) { return h(s.(S), args) }
	}
	r.r.load = func(core *registryCore) { core.registerJSON(data, calls) }
	return r
}

// registerJSON registers the tools data describes (see RegistryOf) with
// their calls, in order.
func (r *registryCore) registerJSON(data string, calls []func(Stateful, json.RawMessage) (any, error)) {
	var infos []ToolInfo
	if err := json.Unmarshal([]byte(data), &infos); err != nil {
		panic("runtime: the tool descriptions do not decode: " + err.Error())
	}
	if len(infos) != len(calls) {
		panic(fmt.Sprintf("runtime: %d tool descriptions for %d handlers", len(infos), len(calls)))
	}
	for i, info := range infos {
		r.register(info, calls[i])
	}
}

// Register adds a tool. It panics on an invalid or duplicate name or a nil
// handler: registration is the generated code's job, done once at start-up.
func (r *Registry[S]) Register(t Tool[S]) {
	h := t.Handler
	if h == nil {
		panic(fmt.Sprintf("runtime: tool %q registered without a handler", t.Name))
	}
	r.r.ready()
	r.r.register(ToolInfo{t.Name, t.Service, t.Description, t.Parameters},
		func(s Stateful, args json.RawMessage) (any, error) { return h(s.(S), args) })
}

// Call runs the named tool on state atomically and returns its observation:
//
//   - an unknown name is an unknown_tool error (nothing runs);
//   - the state's journal is begun, the handler runs;
//   - an error, a panic, or data that cannot be encoded as JSON rolls the
//     journal back (the state is exactly as before the call) and answers
//     ok:false — a panic as an internal error naming the tool;
//   - otherwise the journal is committed and the data is encoded (compact,
//     no HTML escaping) as the observation's data: by its AppendJSON method
//     when it has one ([JSONAppender]), else with encoding/json. The
//     observation's whole encoding is written then, once
//     ([Observation.AppendJSON] copies it). A row of a table's frozen
//     base (a record of the seed that the episode has not changed) is
//     encoded once for every state cloned from that base, and its JSON
//     copied into the observations that return it.
//
// Call never panics because of a handler or its arguments.
func (r *Registry[S]) Call(state S, name string, args json.RawMessage) Observation {
	return r.r.call(state, name, args)
}

// Tools describes the registered tools in registration order.
func (r *Registry[S]) Tools() []ToolInfo {
	r.r.ready()
	out := make([]ToolInfo, len(r.r.tools))
	for i, e := range r.r.tools {
		out[i] = e.info
	}
	return out
}

func (r *registryCore) register(info ToolInfo, call func(Stateful, json.RawMessage) (any, error)) {
	if !toolNameRE.MatchString(info.Name) {
		panic(fmt.Sprintf("runtime: invalid tool name %q (want ^[a-zA-Z0-9_-]{1,64}$)", info.Name))
	}
	if _, dup := r.index[info.Name]; dup {
		panic(fmt.Sprintf("runtime: tool %q registered twice", info.Name))
	}
	r.index[info.Name] = len(r.tools)
	r.tools = append(r.tools, toolEntry{info, call})
	r.names = append(r.names, info.Name)
}

func (r *registryCore) call(state Stateful, name string, args json.RawMessage) (obs Observation) {
	r.ready()
	i, ok := r.index[name]
	if !ok {
		return ErrorObservation(UnknownTool(name, r.names))
	}
	e := &r.tools[i]
	var j *Journal
	depth := -1 // open transactions before ours
	defer func() {
		if v := recover(); v != nil {
			if j != nil && depth >= 0 {
				j.rollbackTo(depth)
			}
			if l, ok := v.(limitExceeded); ok {
				obs = ErrorObservation(l.err)
				return
			}
			if _, ok := v.(*DecimalError); ok {
				obs = ErrorObservation(Internal(MsgDecimalOverflow))
				return
			}
			obs = ErrorObservation(Internal(MsgToolPanicked, name, v))
		}
	}()
	j = state.Journal()
	if j == nil {
		return ErrorObservation(Internal("tool %q: the state has no journal", name))
	}
	depth = len(j.marks)
	j.Begin()
	j.steps = 0
	data, err := e.call(state, args)
	if len(j.marks) != depth+1 {
		j.rollbackTo(depth)
		return ErrorObservation(Internal("tool %q left a transaction open or closed one it did not begin", name))
	}
	if err != nil {
		j.Rollback()
		// The message is copied: it may hold a string that shares the
		// memory of args (see ArgsView).
		te := AsToolError(err)
		return Observation{Error: &ToolError{Code: te.Code, Message: strings.Clone(te.Message)}}
	}
	if row, ok := j.rowJSON(data); ok {
		// a row of the frozen base: its JSON was written before
		j.Commit()
		enc := make([]byte, 0, len(obsPrefix)+len(row)+1)
		return okEncoded(append(append(append(enc, obsPrefix...), row...), '}'))
	}
	enc, err := encodeObservation(data)
	if err != nil {
		j.Rollback()
		return ErrorObservation(Internal(MsgUnencodable, name, err))
	}
	j.Commit()
	return okEncoded(enc)
}

// obsBuffers are the buffers observations are written into before they are
// copied, at their size, into the observation.
var obsBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledObs bounds the buffers kept in obsBuffers.
const maxPooledObs = 1 << 20

// encodeObservation returns the encoding of the ok observation of data,
// {"ok":true,"data":…}: data (compact, without HTML escaping) by its
// AppendJSON method when it has one, else with encoding/json. It costs one
// allocation, the result.
func encodeObservation(data any) ([]byte, error) {
	bp := obsBuffers.Get().(*[]byte)
	b := append((*bp)[:0], obsPrefix...)
	var err error
	switch d := data.(type) {
	case nil:
		b = append(b, "null"...)
	case JSONAppender:
		b, err = AppendJSONOf(b, d)
	case string:
		b = AppendString(b, d)
	case int64:
		b = AppendInt(b, d)
	case float64:
		b, err = AppendJSONOf(b, floatValue(d))
	case Decimal:
		b = AppendDecimal(b, d)
	case bool:
		b = AppendBool(b, d)
	default:
		var raw []byte
		if raw, err = marshalJSON(data); err == nil {
			b = append(b, raw...)
		}
	}
	var enc []byte
	if err == nil {
		b = append(b, '}')
		enc = bytes.Clone(b)
	}
	if cap(b) <= maxPooledObs {
		*bp = b
		obsBuffers.Put(bp)
	}
	return enc, err
}

// floatValue is a float64 as a JSONAppender.
type floatValue float64

func (f floatValue) AppendJSON(dst []byte) []byte { return AppendFloat(dst, float64(f)) }
