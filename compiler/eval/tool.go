package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// The error codes of failed tool calls.
const (
	// CodeInvalidArguments: an unknown argument, a missing required one, a
	// value of the wrong JSON type, an unknown enum value, a malformed date,
	// a non-finite number, a negative list offset.
	CodeInvalidArguments = runtime.CodeInvalidArguments
	// CodeNotFound: a ref argument, an id or a followed ref names no record.
	CodeNotFound = runtime.CodeNotFound
	// CodePreconditionFailed: a require statement did not hold.
	CodePreconditionFailed = runtime.CodePreconditionFailed
	// CodeConstraintViolation: a write broke a field constraint, or a
	// delete was refused because another record refers to the record.
	CodeConstraintViolation = runtime.CodeConstraintViolation
	// CodeUnknownTool: CallJSON was given a name that is no tool.
	CodeUnknownTool = runtime.CodeUnknownTool
	// CodeInternal: the world's fault, not the agent's: an expression that
	// cannot be evaluated (integer modulo by zero, a null where a value is
	// needed, the evaluator's limits), data that cannot be encoded as JSON
	// (a returned NaN or infinity), or a recovered panic.
	CodeInternal = runtime.CodeInternal
)

// MaxResults is the number of records list and search tools return at most.
const MaxResults = 50

// ToolError is a failed tool call: a code (the Code* constants) and a
// message for the agent.
type ToolError struct {
	Code    string
	Message string
}

// Error renders the error as "code: message".
func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Data is the data of a successful tool call's observation: null, a scalar,
// a record or a list. It is a snapshot: later calls do not change it.
type Data struct{ v value }

// recordData is a snapshot of a record.
type recordData struct {
	ent  *ir.Entity
	id   string
	vals []value
}

// JSON renders the data as the package doc says: a record as an object
// with "id" first and its fields in declaration order, a list as an array,
// dates as "YYYY-MM-DD", date-times as "YYYY-MM-DDThh:mm:ssZ", enums by
// value name, refs by id, null as null.
func (d Data) JSON() []byte { return appendJSON(nil, d.v) }

// String is the JSON rendering.
func (d Data) String() string { return string(d.JSON()) }

// IsNull reports whether the data is null (a tool without return).
func (d Data) IsNull() bool { return d.v == nil }

// ID is the id of the record the data holds, or "" when it is no record.
func (d Data) ID() string {
	if r, ok := d.v.(*recordData); ok {
		return r.id
	}
	return ""
}

// ObservationJSON renders a call's outcome as the runtime's observation
// protocol does (runtime.Observation.MarshalJSON): {"ok":true,"data":…}, or
// {"ok":false,"error":{"code":…,"message":…}} when err is not nil.
func ObservationJSON(d Data, err *ToolError) []byte {
	if err == nil {
		b := append([]byte(`{"ok":true,"data":`), d.JSON()...)
		return append(b, '}')
	}
	b := []byte(`{"ok":false,"error":{"code":`)
	b = appendString(b, err.Code)
	b = append(b, `,"message":`...)
	b = appendString(b, err.Message)
	return append(b, '}', '}')
}

// snapshot copies records out of the live state.
func snapshot(v value) value {
	switch x := v.(type) {
	case *row:
		return &recordData{ent: x.ent, id: x.id, vals: slices.Clone(x.vals)}
	case []value:
		out := make([]value, len(x))
		for i, e := range x {
			out[i] = snapshot(e)
		}
		return out
	}
	return v
}

// Call runs tool on the state with the given arguments (by parameter name;
// absent and null mean not given). On success the state holds the call's
// writes and the result is the observation data; on failure the state is
// exactly as before the call.
func (s *State) Call(tool *ir.Tool, args map[string]*ir.Value) (data Data, terr *ToolError) {
	if tool == nil {
		return Data{}, &ToolError{Code: CodeUnknownTool, Message: "no tool"}
	}
	s.log = s.log[:0]
	defer func() {
		if p := recover(); p != nil {
			s.rollback()
			data, terr = Data{}, &ToolError{Code: CodeInternal, Message: fmt.Sprintf("tool %q panicked: %v", tool.Name, p)}
		}
	}()
	ev := s.evaluator()
	v, err := ev.runTool(tool, args)
	if err != nil {
		s.rollback()
		return Data{}, &ToolError{Code: err.code, Message: err.msg}
	}
	if f, ok := nonFinite(v); ok {
		s.rollback()
		_, jerr := json.Marshal(f)
		return Data{}, &ToolError{Code: CodeInternal, Message: fmt.Sprintf("tool %q returned data that cannot be encoded as JSON: %v", tool.Name, jerr)}
	}
	s.log = s.log[:0]
	return Data{snapshot(v)}, nil
}

// nonFinite finds a NaN or infinite number in returned data (records never
// hold one: writes reject them).
func nonFinite(v value) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, math.IsNaN(x) || math.IsInf(x, 0)
	case []value:
		for _, e := range x {
			if f, ok := nonFinite(e); ok {
				return f, true
			}
		}
	}
	return 0, false
}

// CallJSON looks the tool up by name and calls it with a JSON object of
// arguments (empty input and null count as {}). A name that is no tool fails
// with CodeUnknownTool, arguments that are no JSON object with
// CodeInvalidArguments.
func (s *State) CallJSON(name string, args []byte) (Data, *ToolError) {
	var tool *ir.Tool
	for _, t := range s.w.Tools {
		if t != nil && t.Name == name {
			tool = t
			break
		}
	}
	if tool == nil {
		return Data{}, &ToolError{Code: CodeUnknownTool, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	m, err := ArgsFromJSON(args)
	if err != nil {
		return Data{}, &ToolError{Code: CodeInvalidArguments, Message: err.Error()}
	}
	return s.Call(tool, m)
}

// ArgsFromJSON decodes a JSON object of tool arguments. A JSON string
// becomes a String value, true/false a Bool, null a Null; a number written
// without fraction or exponent that fits int64 becomes an Int and any other
// number a Decimal (exactly what encoding/json accepts for int64 and float64
// fields). Arrays and objects become values of kind List and Record without
// content, which every parameter rejects as the wrong type. Empty input and
// null decode to no arguments; a name given twice, invalid JSON, trailing
// data and anything but an object are errors.
func ArgsFromJSON(data []byte) (map[string]*ir.Value, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return map[string]*ir.Value{}, nil
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("arguments are not valid JSON: %s", strings.TrimPrefix(fmt.Sprint(err), "json: "))
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out := map[string]*ir.Value{}
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		k, _ := tok.(string)
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("argument %q given more than once", k)
		}
		x, err := jsonValue(raw)
		if err != nil {
			return nil, fmt.Errorf("argument %q: %v", k, err)
		}
		out[k] = x
	}
	return out, nil
}

func jsonValue(v any) (*ir.Value, error) {
	switch x := v.(type) {
	case nil:
		return &ir.Value{Kind: ir.KindNull}, nil
	case string:
		return &ir.Value{Kind: ir.KindString, Str: x}, nil
	case bool:
		return &ir.Value{Kind: ir.KindBool, Bool: x}, nil
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return &ir.Value{Kind: ir.KindInt, Int: i}, nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s is out of range", s)
		}
		return &ir.Value{Kind: ir.KindDecimal, Num: f}, nil
	case []any:
		return &ir.Value{Kind: ir.KindList}, nil
	case map[string]any:
		return &ir.Value{Kind: ir.KindRecord}, nil
	}
	return nil, fmt.Errorf("unsupported JSON value")
}

// jsonKind names the JSON type an argument value stands for.
func jsonKind(v *ir.Value) string {
	switch v.Kind {
	case ir.KindString, ir.KindText, ir.KindEnum, ir.KindRef, ir.KindDate, ir.KindDateTime:
		return "string"
	case ir.KindInt:
		return "int"
	case ir.KindDecimal, ir.KindMoney:
		return "decimal"
	case ir.KindBool:
		return "bool"
	case ir.KindList:
		return "array"
	case ir.KindRecord:
		return "object"
	}
	return v.Kind.String()
}

func invalidArg(name, format string, args ...any) *evalError {
	return errorf(CodeInvalidArguments, "argument %q: %s", name, fmt.Sprintf(format, args...))
}

// decodeArg checks one argument against its parameter type and converts it.
// Arguments are JSON values: every string-like kind is a JSON string, int a
// JSON integer, decimal any JSON number.
func decodeArg(p *ir.Param, a *ir.Value) (value, *evalError) {
	t := p.Type
	str, isStr := a.Str, jsonKind(a) == "string"
	mismatch := func() (value, *evalError) {
		return nil, invalidArg(p.Name, "expected %s, got %s", baseType(t), jsonKind(a))
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef:
		if !isStr {
			return mismatch()
		}
		return str, nil
	case ir.KindEnum:
		if !isStr {
			return mismatch()
		}
		if t.Enum != nil && !t.Enum.Has(str) {
			return nil, invalidArg(p.Name, "%q is not one of %s", str, strings.Join(t.Enum.Values, ", "))
		}
		return str, nil
	case ir.KindDate:
		if !isStr {
			return mismatch()
		}
		d, err := parseDate(str)
		if err != nil {
			return nil, invalidArg(p.Name, "%v", err)
		}
		return d, nil
	case ir.KindDateTime:
		if !isStr {
			return mismatch()
		}
		d, err := parseDateTime(str)
		if err != nil {
			return nil, invalidArg(p.Name, "%v", err)
		}
		return d, nil
	case ir.KindInt:
		if a.Kind != ir.KindInt {
			return mismatch()
		}
		return a.Int, nil
	case ir.KindDecimal, ir.KindMoney:
		var f float64
		switch a.Kind {
		case ir.KindInt:
			f = float64(a.Int)
		case ir.KindDecimal, ir.KindMoney:
			f = a.Num
		default:
			return mismatch()
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, invalidArg(p.Name, "must be a finite number")
		}
		return f, nil
	case ir.KindBool:
		if a.Kind != ir.KindBool {
			return mismatch()
		}
		return a.Bool, nil
	}
	return nil, invalidArg(p.Name, "parameters of type %s are not supported", baseType(t))
}

// baseType is t without its optional mark.
func baseType(t *ir.Type) string {
	c := *t
	c.Optional = false
	return c.String()
}

// bindArgs checks and converts the arguments. Problems are reported in this
// order: an unknown argument (by name, sorted), then each parameter in
// declaration order (missing when required, or of the wrong type or value),
// then each ref parameter in declaration order is looked up (not_found). A
// ref parameter's value is its live record.
func (ev *evaluator) bindArgs(tool *ir.Tool, args map[string]*ir.Value) (map[*ir.Param]value, *evalError) {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !slices.ContainsFunc(tool.Params, func(p *ir.Param) bool { return p != nil && p.Name == k }) {
			return nil, errorf(CodeInvalidArguments, "unknown argument %q", k)
		}
	}
	out := make(map[*ir.Param]value, len(tool.Params))
	for _, p := range tool.Params {
		if p == nil || p.Type == nil {
			return nil, errorf(CodeInternal, "tool %s: malformed parameter", tool.Name)
		}
		a := args[p.Name]
		if a == nil || a.Kind == ir.KindNull {
			if p.Required() {
				return nil, errorf(CodeInvalidArguments, "missing required argument %q", p.Name)
			}
			out[p] = nil
			continue
		}
		v, err := decodeArg(p, a)
		if err != nil {
			return nil, err
		}
		out[p] = v
	}
	for _, p := range tool.Params {
		if p.Type.Kind != ir.KindRef || out[p] == nil {
			continue
		}
		r, err := ev.record(out[p], p.Type.Entity)
		if err != nil {
			return nil, err
		}
		out[p] = r
	}
	return out, nil
}

func (ev *evaluator) runTool(tool *ir.Tool, args map[string]*ir.Value) (value, *evalError) {
	bound, err := ev.bindArgs(tool, args)
	if err != nil {
		return nil, err
	}
	if tool.Kind == ir.ToolCustom {
		for _, p := range tool.Params {
			if p.Var == nil {
				continue
			}
			v := bound[p]
			if r, ok := v.(*row); ok && (p.Var.Type == nil || p.Var.Type.Kind != ir.KindRecord) {
				v = r.id
			}
			ev.bind(p.Var, v)
		}
		ret, _, err := ev.exec(tool.Body)
		return ret, err
	}
	t := ev.s.table(tool.Entity)
	if t == nil {
		return nil, errorf(CodeInternal, "tool %s: no entity", tool.Name)
	}
	// byID is the record named by the id parameter.
	byID := func() (*row, *evalError) {
		for _, p := range tool.Params {
			if p.Field == nil && p.Name == "id" {
				return ev.record(bound[p], t.ent)
			}
		}
		return nil, errorf(CodeInternal, "tool %s: no id parameter", tool.Name)
	}
	switch tool.Kind {
	case ir.ToolGet:
		return byID()
	case ir.ToolList:
		var offset int64
		for _, p := range tool.Params {
			if p.Field == nil && p.Name == "offset" {
				if o, ok := bound[p].(int64); ok {
					offset = o
				}
			}
		}
		if offset < 0 {
			return nil, invalidArg("offset", "must be >= 0")
		}
		out := []value{}
		for i := offset; i < int64(len(t.rows)) && len(out) < MaxResults; i++ {
			out = append(out, t.rows[i])
		}
		return out, nil
	case ir.ToolSearch:
		out := []value{}
		for _, r := range t.rows {
			if len(out) == MaxResults {
				break
			}
			if err := ev.tick(); err != nil {
				return nil, err
			}
			if matches(r, tool.Params, bound) {
				out = append(out, r)
			}
		}
		return out, nil
	case ir.ToolCreate:
		vals, err := defaults(t.ent)
		if err != nil {
			return nil, err
		}
		for _, p := range tool.Params {
			if p.Field == nil || bound[p] == nil {
				continue
			}
			i := fieldIndex(t.ent, p.Field)
			if i < 0 {
				return nil, errorf(CodeInternal, "tool %s: field %s is not of %s", tool.Name, p.Field.Name, t.ent.Name)
			}
			vals[i] = stored(p.Field, bound[p])
		}
		return ev.insert(t, vals)
	case ir.ToolUpdate:
		r, err := byID()
		if err != nil {
			return nil, err
		}
		for _, p := range tool.Params {
			if p.Field == nil || bound[p] == nil {
				continue
			}
			if err := ev.set(r, p.Field, bound[p]); err != nil {
				return nil, err
			}
		}
		return r, nil
	case ir.ToolDelete:
		r, err := byID()
		if err != nil {
			return nil, err
		}
		return r, ev.delete(r)
	}
	return nil, errorf(CodeInternal, "tool %s: unknown kind %q", tool.Name, tool.Kind)
}

// matches applies a search tool's given filters to r: string and text
// fields match when the filter is a substring of the value, both lowered
// with strings.ToLower; other fields by equality; an unset value matches no
// filter.
func matches(r *row, params []*ir.Param, bound map[*ir.Param]value) bool {
	for _, p := range params {
		q := bound[p]
		if p.Field == nil || q == nil {
			continue
		}
		i := fieldIndex(r.ent, p.Field)
		if i < 0 {
			return false
		}
		v := r.vals[i]
		if p.Field.Type.Kind.Textual() {
			vs, ok1 := v.(string)
			qs, ok2 := q.(string)
			if !ok1 || !ok2 || !runtime.ContainsLower(vs, strings.ToLower(qs)) {
				return false
			}
			continue
		}
		if !equal(v, q) {
			return false
		}
	}
	return true
}

// defaults is a new record's values before its given fields: each field's
// default, or null.
func defaults(e *ir.Entity) ([]value, *evalError) {
	vals := make([]value, len(e.Fields))
	for i, f := range e.Fields {
		if f.Default == nil {
			continue
		}
		v, err := fromIR(f.Default, f.Type)
		if err != nil {
			return nil, errorf(CodeInternal, "%s.%s: default: %v", e.Name, f.Name, err)
		}
		vals[i] = v
	}
	return vals, nil
}

// stored converts a value for storing in field f: a record becomes its id,
// an int in a decimal field a float64.
func stored(f *ir.Field, v value) value {
	if r, ok := v.(*row); ok {
		return r.id
	}
	return coerce(v, f.Type)
}

// exec runs statements; done reports that a return ended the call.
func (ev *evaluator) exec(stmts []ir.Stmt) (ret value, done bool, err *evalError) {
	if err := ev.enter(); err != nil {
		return nil, false, err
	}
	ret, done, err = ev.block(stmts)
	ev.depth--
	return ret, done, err
}

func (ev *evaluator) block(stmts []ir.Stmt) (ret value, done bool, err *evalError) {
	for _, st := range stmts {
		if err := ev.tick(); err != nil {
			return nil, false, err
		}
		switch st := st.(type) {
		case *ir.Require:
			ok, err := ev.cond(st.Cond)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				return nil, false, &evalError{code: CodePreconditionFailed, msg: st.Message}
			}
		case *ir.Let:
			v, err := ev.eval(st.Value)
			if err != nil {
				return nil, false, err
			}
			ev.bind(st.Var, v)
		case *ir.Set:
			r, err := ev.target(st.Target, st.Field)
			if err != nil {
				return nil, false, err
			}
			v, err := ev.eval(st.Value)
			if err != nil {
				return nil, false, err
			}
			if err := ev.set(r, st.Field, v); err != nil {
				return nil, false, err
			}
		case *ir.Insert:
			t := ev.s.table(st.Entity)
			if t == nil {
				return nil, false, errorf(CodeInternal, "insert: entity not in the world")
			}
			vals, err := defaults(t.ent)
			if err != nil {
				return nil, false, err
			}
			for _, fi := range st.Fields {
				if fi == nil || fi.Field == nil {
					return nil, false, errorf(CodeInternal, "insert %s: malformed field", t.ent.Name)
				}
				i := fieldIndex(t.ent, fi.Field)
				if i < 0 {
					return nil, false, errorf(CodeInternal, "insert %s: %s is not its field", t.ent.Name, fi.Field.Name)
				}
				v, err := ev.eval(fi.Value)
				if err != nil {
					return nil, false, err
				}
				vals[i] = stored(fi.Field, v)
			}
			r, err := ev.insert(t, vals)
			if err != nil {
				return nil, false, err
			}
			if st.Var != nil {
				ev.bind(st.Var, r)
			}
		case *ir.Delete:
			r, err := ev.target(st.Target, nil)
			if err != nil {
				return nil, false, err
			}
			if err := ev.delete(r); err != nil {
				return nil, false, err
			}
		case *ir.Return:
			if st.Value == nil {
				return nil, true, nil
			}
			v, err := ev.eval(st.Value)
			if err != nil {
				return nil, false, err
			}
			return v, true, nil
		case *ir.If:
			ok, err := ev.cond(st.Cond)
			if err != nil {
				return nil, false, err
			}
			body := st.Else
			if ok {
				body = st.Then
			}
			if ret, done, err := ev.exec(body); err != nil || done {
				return ret, done, err
			}
		case *ir.For:
			rows, err := ev.rows(st.Entity)
			if err != nil {
				return nil, false, err
			}
			// Iterate a snapshot of the table taken before the loop: records
			// the body inserts are not visited; records deleted before
			// their turn are skipped.
			n := len(ev.vars)
			ret, done, err := ev.loop(st, slices.Clone(rows))
			ev.vars = ev.vars[:n]
			if err != nil || done {
				return ret, done, err
			}
		default:
			return nil, false, errorf(CodeInternal, "unsupported statement %T", st)
		}
	}
	return nil, false, nil
}

// loop runs a for statement over rows, a snapshot of the table.
func (ev *evaluator) loop(st *ir.For, rows []*row) (ret value, done bool, err *evalError) {
	n := len(ev.vars)
	ev.vars = append(ev.vars, binding{v: st.Var})
	for _, r := range rows {
		if r.deleted {
			continue
		}
		if err := ev.tick(); err != nil {
			return nil, false, err
		}
		ev.vars[n].val = r
		if st.Where != nil {
			ok, err := ev.cond(st.Where)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
		}
		if ret, done, err := ev.exec(st.Body); err != nil || done {
			return ret, done, err
		}
	}
	return nil, false, nil
}

// target evaluates the record a set or delete writes. A record deleted
// earlier in the call is not found.
func (ev *evaluator) target(x ir.Expr, f *ir.Field) (*row, *evalError) {
	v, err := ev.eval(x)
	if err != nil {
		return nil, err
	}
	var e *ir.Entity
	if t := x.Type(); t != nil {
		e = t.Entity
	}
	if e == nil && f != nil {
		e = f.Entity
	}
	return ev.record(v, e)
}

// set writes field f of r after checking f's constraints.
func (ev *evaluator) set(r *row, f *ir.Field, v value) *evalError {
	if f == nil {
		return errorf(CodeInternal, "set: no field")
	}
	if r.deleted {
		return notFound(r.ent, r.id)
	}
	i := fieldIndex(r.ent, f)
	if i < 0 {
		return errorf(CodeInternal, "set: %s is not a field of %s", f.Name, r.ent.Name)
	}
	v = stored(f, v)
	t := ev.s.table(r.ent)
	if err := ev.checkField(t, r, i, v); err != nil {
		return err
	}
	ev.s.log = append(ev.s.log, undo{op: 's', r: r, field: i, old: r.vals[i]})
	r.vals[i] = v
	return nil
}

// insert appends a record with the next id after checking every field's
// constraints in field order.
func (ev *evaluator) insert(t *table, vals []value) (*row, *evalError) {
	ev.s.log = append(ev.s.log, undo{op: 'q', t: t, seq: t.seq})
	r := &row{ent: t.ent, id: t.newID(), vals: vals}
	for i := range vals {
		if err := ev.checkField(t, r, i, vals[i]); err != nil {
			return nil, err
		}
	}
	t.append(r)
	ev.s.log = append(ev.s.log, undo{op: 'i', t: t, r: r})
	return r, nil
}

// delete removes r unless another record refers to it.
func (ev *evaluator) delete(r *row) *evalError {
	if r.deleted {
		return notFound(r.ent, r.id)
	}
	if q, f := ev.s.referrer(r); q != nil {
		return errorf(CodeConstraintViolation, "%s %q is still referenced by %s %q (field %s)", r.ent.Name, r.id, q.ent.Name, q.id, f.Name)
	}
	t := ev.s.table(r.ent)
	pos := t.remove(r)
	r.deleted = true
	ev.s.log = append(ev.s.log, undo{op: 'd', t: t, r: r, pos: pos})
	return nil
}

// referrer finds the first record (entity order, then insertion order, then
// field order) other than r with a ref field holding r's id.
func (s *State) referrer(r *row) (*row, *ir.Field) {
	for _, t := range s.tables {
		for i, f := range t.ent.Fields {
			if f.Type == nil || f.Type.Kind != ir.KindRef || f.Type.Entity != r.ent {
				continue
			}
			for _, q := range t.rows {
				if q != r && q.vals[i] == any(r.id) {
					return q, f
				}
			}
		}
	}
	return nil, nil
}

// checkField checks value v for field i of record r (about to be written).
func (ev *evaluator) checkField(t *table, r *row, i int, v value) *evalError {
	if _, msg := fieldProblem(t.ent, t.rows, r, i, v); msg != "" {
		return &evalError{code: CodeConstraintViolation, msg: msg}
	}
	return nil
}

// The kinds of constraint problems.
const (
	ProblemRequired = "required" // null in a field that is not optional
	ProblemType     = "type"     // a value of the wrong type, or a non-finite number
	ProblemEnum     = "enum"     // not a value of the field's enum
	ProblemBound    = "bound"    // outside a bound
	ProblemUnique   = "unique"   // a unique value used by another record
	ProblemRef      = "ref"      // a ref to a missing record (CheckConstraints only)
)

// fieldProblem checks value v for field i of record r of entity e against,
// in this order: required, finite number, type, enum value, bounds (in
// declaration order), unique among others (r itself excluded). It returns
// the kind of the first problem and its message, or "" and "".
func fieldProblem(e *ir.Entity, others []*row, r *row, i int, v value) (kind, msg string) {
	f := e.Fields[i]
	name := e.Name + "." + f.Name
	if f.Type == nil {
		return ProblemType, name + " has no type"
	}
	if v == nil {
		if !f.Type.Optional {
			return ProblemRequired, name + " is required"
		}
		return "", ""
	}
	if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return ProblemType, fmt.Sprintf("%s must be a finite number, got %s", name, text(v))
	}
	if !kindHolds(f.Type.Kind, v) {
		return ProblemType, fmt.Sprintf("%s must be %s, got %s", name, baseType(f.Type), typeName(v))
	}
	if f.Type.Kind == ir.KindEnum && f.Type.Enum != nil && !f.Type.Enum.Has(v.(string)) {
		return ProblemEnum, fmt.Sprintf("%s must be one of %s, got %s", name, strings.Join(f.Type.Enum.Values, ", "), text(v))
	}
	for _, b := range f.Bounds {
		bv, err := fromIR(b.Value, f.Type)
		if err != nil {
			return ProblemBound, fmt.Sprintf("%s: bound %s: %v", name, b.Op, err)
		}
		if ok, comparable := order(b.Op, v, bv); !ok || !comparable {
			return ProblemBound, fmt.Sprintf("%s must be %s %s, got %s", name, b.Op, text(bv), text(v))
		}
	}
	if f.Unique {
		for _, q := range others {
			if q != r && equal(q.vals[i], v) {
				return ProblemUnique, fmt.Sprintf("%s must be unique: %s is already used by %s %q", name, text(v), e.Name, q.id)
			}
		}
	}
	return "", ""
}

// kindHolds reports whether v is a stored value of kind k.
func kindHolds(k ir.Kind, v value) bool {
	switch v.(type) {
	case string:
		return k.Textual() || k == ir.KindEnum || k == ir.KindRef
	case int64:
		return k == ir.KindInt
	case float64:
		return k == ir.KindDecimal || k == ir.KindMoney
	case bool:
		return k == ir.KindBool
	case date:
		return k == ir.KindDate
	case dateTime:
		return k == ir.KindDateTime
	}
	return false
}
