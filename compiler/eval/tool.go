package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
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

// ToolError is a failed tool call: a code (the Code* constants) and a
// message for the agent.
type ToolError struct {
	Code    string
	Message string
}

// Error renders the error as "code: message".
func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Data is the data of a successful tool call's observation: null, a scalar,
// a record, a list, a map or a value record. It is a snapshot: later calls
// do not change it.
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

// snapshot copies records out of the live state. Composite values are
// immutable and need no copy, except to snapshot the records they hold.
func snapshot(v value) value {
	out, _ := snapshotted(v)
	return out
}

func snapshotted(v value) (value, bool) {
	switch x := v.(type) {
	case *row:
		return &recordData{ent: x.ent, id: x.id, vals: slices.Clone(x.vals)}, true
	case []value:
		var out []value
		for i, e := range x {
			c, changed := snapshotted(e)
			if changed && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = c
			}
		}
		if out != nil {
			return out, true
		}
	case *mapValue:
		if vals, changed := snapshotted(x.vals); changed {
			return &mapValue{keys: x.keys, vals: vals.([]value)}, true
		}
	case *structValue:
		if vals, changed := snapshotted(x.vals); changed {
			return &structValue{def: x.def, vals: vals.([]value)}, true
		}
	}
	return v, false
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
	s.wrote = false
	s.checked = nil // the call may write
	defer func() {
		if p := recover(); p != nil {
			s.rollback()
			data, terr = Data{}, &ToolError{Code: CodeInternal, Message: fmt.Sprintf(runtime.MsgToolPanicked, tool.Name, p)}
		}
	}()
	// The tool may write its own service's tables only (W010): s makes
	// them its own (copies on write) before the body reads any of their
	// rows, and the evaluator hands the tool its own copy of every row of
	// them it reads (see table.mine).
	if tool.Service != nil {
		for _, e := range tool.Service.Entities {
			s.own(e)
		}
	} else {
		for _, e := range s.w.Entities {
			s.own(e)
		}
	}
	ev := s.evaluator()
	ev.writing = true
	v, err := ev.runTool(tool, args)
	if err != nil {
		s.rollback()
		return Data{}, &ToolError{Code: err.code, Message: err.msg}
	}
	if f, ok := nonFinite(v); ok {
		s.rollback()
		_, jerr := json.Marshal(f)
		return Data{}, &ToolError{Code: CodeInternal, Message: fmt.Sprintf(runtime.MsgUnencodable, tool.Name, jerr)}
	}
	s.wrote = len(s.log) > 0
	s.log = s.log[:0]
	return Data{snapshot(v)}, nil
}

// nonFinite finds a NaN or infinite number in returned data, depth first
// in JSON order (records never hold one: writes reject them).
func nonFinite(v value) (float64, bool) {
	var list []value
	switch x := v.(type) {
	case float64:
		return x, math.IsNaN(x) || math.IsInf(x, 0)
	case []value:
		list = x
	case *mapValue:
		list = x.vals
	case *structValue:
		list = x.vals
	}
	for _, e := range list {
		if f, ok := nonFinite(e); ok {
			return f, true
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
// fields). An array becomes a List of its elements; an object inside an
// argument becomes a Map of its members (sorted by key; of a key given
// twice the last wins, as encoding/json does), which a map parameter takes
// as a map and a value-record parameter as the record's fields. Empty input
// and null decode to no arguments; an argument name given twice, invalid
// JSON, trailing data and anything but an object are errors.
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
		// Str keeps the number as written, Dec its exact value when a
		// decimal holds it: a world of exact numbers decodes that.
		v := &ir.Value{Kind: ir.KindDecimal, Num: f, Str: s}
		if d, err := runtime.ParseDecimal(s); err == nil {
			v.Dec = d.String()
		}
		return v, nil
	case []any:
		out := &ir.Value{Kind: ir.KindList, List: make([]*ir.Value, len(x))}
		for i, e := range x {
			v, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out.List[i] = v
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := &ir.Value{Kind: ir.KindMap, Entries: make([]ir.MapEntry, len(keys))}
		for i, k := range keys {
			v, err := jsonValue(x[k])
			if err != nil {
				return nil, err
			}
			out.Entries[i] = ir.MapEntry{Key: k, Value: v}
		}
		return out, nil
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
	case ir.KindRecord, ir.KindMap, ir.KindStruct:
		return "object"
	}
	return v.Kind.String()
}

func invalidArg(name, format string, args ...any) *evalError {
	return errorf(CodeInvalidArguments, "argument %q: %s", name, fmt.Sprintf(format, args...))
}

// decodeArg checks one argument against its parameter type and converts it.
// Arguments are JSON values: every string-like kind is a JSON string, int a
// JSON integer, decimal any JSON number, a list an array, a map or a value
// record an object.
func decodeArg(p *ir.Param, a *ir.Value, exact bool) (value, *evalError) {
	return decodeValue(p.Name, "", p.Type, a, exact)
}

// decodeValue decodes a (not null) as a value of type t, at path inside
// argument name (for messages: "", "[2]", ".zip", "[\"k\"].price").
func decodeValue(name, path string, t *ir.Type, a *ir.Value, exact bool) (value, *evalError) {
	bad := func(format string, args ...any) *evalError {
		if path != "" {
			format = path + ": " + format
		}
		return invalidArg(name, format, args...)
	}
	str, isStr := a.Str, jsonKind(a) == "string"
	mismatch := func() (value, *evalError) {
		return nil, bad("expected %s, got %s", baseType(t), jsonKind(a))
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
			return nil, bad("%q is not one of %s", str, strings.Join(t.Enum.Values, ", "))
		}
		return str, nil
	case ir.KindDate:
		if !isStr {
			return mismatch()
		}
		d, err := parseDate(str)
		if err != nil {
			return nil, bad("%v", err)
		}
		return d, nil
	case ir.KindDateTime:
		if !isStr {
			return mismatch()
		}
		d, err := parseDateTime(str)
		if err != nil {
			return nil, bad("%v", err)
		}
		return d, nil
	case ir.KindInt:
		if a.Kind != ir.KindInt {
			return mismatch()
		}
		return a.Int, nil
	case ir.KindDecimal, ir.KindMoney:
		if exact {
			switch a.Kind {
			case ir.KindInt:
				return runtime.DecimalFromInt(a.Int), nil
			case ir.KindDecimal, ir.KindMoney:
				if a.Dec == "" {
					return nil, bad("expected a number, got number %s (out of range)", a.Str)
				}
				d, err := runtime.ParseDecimal(a.Dec)
				if err != nil {
					return nil, bad("expected a number, got number %s (out of range)", a.Dec)
				}
				return d, nil
			}
			return mismatch()
		}
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
			return nil, bad("must be a finite number")
		}
		return f, nil
	case ir.KindBool:
		if a.Kind != ir.KindBool {
			return mismatch()
		}
		return a.Bool, nil
	case ir.KindList:
		if a.Kind != ir.KindList {
			return mismatch()
		}
		out := make([]value, len(a.List))
		for i, e := range a.List {
			v, err := decodeElem(name, path+"["+strconv.Itoa(i)+"]", t.Elem, e, exact)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case ir.KindMap:
		if a.Kind != ir.KindMap {
			return mismatch()
		}
		keys := make([]string, len(a.Entries))
		vals := make([]value, len(a.Entries))
		for i, e := range a.Entries {
			v, err := decodeElem(name, path+"["+strconv.Quote(e.Key)+"]", t.Elem, e.Value, exact)
			if err != nil {
				return nil, err
			}
			keys[i], vals[i] = e.Key, v
		}
		return newMap(keys, vals), nil
	case ir.KindStruct:
		if t.Struct == nil {
			break
		}
		return decodeStruct(name, path, t.Struct, a, bad, mismatch, exact)
	}
	return nil, bad("parameters of type %s are not supported", baseType(t))
}

// decodeElem decodes a list element or map value: null only when the
// element type is optional.
func decodeElem(name, path string, t *ir.Type, a *ir.Value, exact bool) (value, *evalError) {
	if t == nil {
		return nil, invalidArg(name, "%s: no element type", path)
	}
	if a == nil || a.Kind == ir.KindNull {
		if t.Optional {
			return nil, nil
		}
		return nil, invalidArg(name, "%s: expected %s, got null", path, baseType(t))
	}
	return decodeValue(name, path, t, a, exact)
}

// decodeStruct decodes a value record from a JSON object (a Map value: its
// members by field name) or from a record constant (a Struct value, its
// fields in AllFields order). Problems, in order: an unknown member (the
// first in key order), then each field in AllFields order: the tag (a
// variant's case: missing, or not a case name), a member given for a field
// of another case (not null), a missing or null required field of the
// record's case, a field value of the wrong type. Absent fields take their
// default, or null.
func decodeStruct(name, path string, d *ir.StructDef, a *ir.Value, bad func(string, ...any) *evalError, mismatch func() (value, *evalError), exact bool) (value, *evalError) {
	n := numFields(d)
	given := make([]*ir.Value, n)
	switch a.Kind {
	case ir.KindMap:
		for _, e := range a.Entries {
			at := -1
			eachField(d, func(i int, f *ir.Field) bool {
				if f.Name == e.Key {
					at = i
					return false
				}
				return true
			})
			if at < 0 {
				return nil, bad("unknown field %q", e.Key)
			}
			given[at] = e.Value
		}
	case ir.KindStruct:
		if len(a.Fields) != n {
			return mismatch()
		}
		copy(given, a.Fields)
	default:
		return mismatch()
	}
	isNull := func(v *ir.Value) bool { return v == nil || v.Kind == ir.KindNull }
	vals := make([]value, n)
	sv := &structValue{def: d, vals: vals}
	var c *ir.Case
	if d.Tag != nil {
		if isNull(given[0]) {
			return nil, bad(runtime.MsgMissingField, d.Tag.Name)
		}
		v, err := decodeValue(name, path+"."+d.Tag.Name, d.Tag.Type, given[0], exact)
		if err != nil {
			return nil, err
		}
		vals[0] = v
		if c = sv.caseOf(); c == nil {
			return nil, bad(".%s: %s is not a case of %s", d.Tag.Name, text(v), d.Name)
		}
	}
	var err *evalError
	eachField(d, func(i int, f *ir.Field) bool {
		if f == d.Tag {
			return true
		}
		g := given[i]
		if !inCase(d, f, c) {
			if !isNull(g) {
				cname := "<none>"
				if c != nil {
					cname = c.Name
				}
				err = bad("field %q belongs to case %s, not %s", f.Name, fieldCase(d, f).Name, cname)
				return false
			}
			return true
		}
		if isNull(g) {
			switch {
			case f.Default != nil:
				v, ferr := fromIR(f.Default, f.Type, exact)
				if ferr != nil {
					err = errorf(CodeInternal, "%s.%s: default: %v", d.Name, f.Name, ferr)
					return false
				}
				vals[i] = v
			case !f.Type.Optional:
				err = bad(runtime.MsgMissingField, f.Name)
				return false
			}
			return true
		}
		vals[i], err = decodeValue(name, path+"."+f.Name, f.Type, g, exact)
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return sv, nil
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
		v, err := decodeArg(p, a, ev.exact)
		if err != nil {
			return nil, err
		}
		out[p] = v
	}
	for _, p := range tool.Params {
		if out[p] == nil {
			continue
		}
		if p.Type.Kind != ir.KindRef {
			if err := ev.lookupRefs(p.Type, out[p]); err != nil {
				return nil, err
			}
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

// lookupRefs looks up every ref inside an argument of a composite type, in
// JSON order: the first that names no record is a not_found error.
func (ev *evaluator) lookupRefs(t *ir.Type, v value) *evalError {
	if t == nil || v == nil {
		return nil
	}
	var list []value
	switch x := v.(type) {
	case string:
		if t.Kind == ir.KindRef {
			_, err := ev.record(x, t.Entity)
			return err
		}
		return nil
	case []value:
		list = x
	case *mapValue:
		list = x.vals
	case *structValue:
		var err *evalError
		eachField(x.def, func(i int, f *ir.Field) bool {
			err = ev.lookupRefs(f.Type, x.vals[i])
			return err == nil
		})
		return err
	}
	for _, e := range list {
		if err := ev.lookupRefs(t.Elem, e); err != nil {
			return err
		}
	}
	return nil
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
	// idParam names the record: the parameter "id" (or, for an entity with
	// a key field, the parameter named after it) that sets no field, else
	// the parameter of the key field itself.
	var idParam *ir.Param
	for _, p := range tool.Params {
		if p.Field == nil && (p.Name == "id" || p.Name == t.ent.IDName()) {
			idParam = p
			break
		}
	}
	if idParam == nil && t.ent.Key != nil {
		for _, p := range tool.Params {
			if p.Field == t.ent.Key {
				idParam = p
				break
			}
		}
	}
	byID := func() (*row, *evalError) {
		if idParam == nil {
			return nil, errorf(CodeInternal, "tool %s: no id parameter", tool.Name)
		}
		return ev.record(bound[idParam], t.ent)
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
		var i int64
		for r := range t.all() {
			if len(out) == ir.PageSize {
				break
			}
			if i >= offset {
				out = append(out, r)
			}
			i++
		}
		return out, nil
	case ir.ToolSearch:
		out := []value{}
		for r := range t.all() {
			if len(out) == ir.PageSize {
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
		vals, err := defaults(t.ent, ev.exact)
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
			vals[i] = stored(p.Field, bound[p], ev.exact)
		}
		return ev.insert(t, vals)
	case ir.ToolUpdate:
		r, err := byID()
		if err != nil {
			return nil, err
		}
		for _, p := range tool.Params {
			if p.Field == nil || p == idParam || bound[p] == nil {
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
// as Python's str.lower() (runtime.PyLower); other fields by equality; an
// unset value matches no filter.
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
			if !ok1 || !ok2 || !runtime.ContainsLower(vs, runtime.PyLower(qs)) {
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
func defaults(e *ir.Entity, exact bool) ([]value, *evalError) {
	vals := make([]value, len(e.Fields))
	for i, f := range e.Fields {
		if f.Default == nil {
			continue
		}
		v, err := fromIR(f.Default, f.Type, exact)
		if err != nil {
			return nil, errorf(CodeInternal, "%s.%s: default: %v", e.Name, f.Name, err)
		}
		vals[i] = v
	}
	return vals, nil
}

// stored converts a value for storing in field f: a record becomes its id,
// an int in a decimal field a float64, deeply inside composite values
// (conform).
func stored(f *ir.Field, v value, exact bool) value {
	if r, ok := v.(*row); ok {
		return r.id
	}
	return conform(f.Type, v, exact)
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
				return nil, false, ev.failure(st.Message, st.MessageExpr)
			}
		case *ir.Fail:
			return nil, false, ev.failure(st.Message, st.MessageExpr)
		case *ir.Let:
			v, err := ev.eval(st.Value)
			if err != nil {
				return nil, false, err
			}
			ev.bind(st.Var, v)
		case *ir.VarDecl:
			if st.Var == nil {
				return nil, false, errorf(CodeInternal, "var without a variable")
			}
			v, err := ev.eval(st.Value)
			if err != nil {
				return nil, false, err
			}
			ev.bind(st.Var, conform(st.Var.Type, v, ev.exact))
		case *ir.Assign:
			if err := ev.assign(st); err != nil {
				return nil, false, err
			}
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
			vals, err := defaults(t.ent, ev.exact)
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
				vals[i] = stored(fi.Field, v, ev.exact)
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
			if st.Source != nil {
				src, err := ev.eval(st.Source)
				if err != nil {
					return nil, false, err
				}
				keys, elems, err := elements(src)
				if err != nil {
					return nil, false, err
				}
				// The list or map is immutable: iterating it is iterating
				// a snapshot taken when the loop starts.
				n := len(ev.vars)
				ret, done, err := ev.loopValues(st, keys, elems)
				ev.vars = ev.vars[:n]
				if err != nil || done {
					return ret, done, err
				}
				continue
			}
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

// loopValues runs a for statement over the elements of a list or the
// values of a map (keys gives each one's index or key, bound to st.Key).
func (ev *evaluator) loopValues(st *ir.For, keys func(int) value, elems []value) (ret value, done bool, err *evalError) {
	n := len(ev.vars)
	ev.vars = append(ev.vars, binding{v: st.Var})
	if st.Key != nil {
		ev.vars = append(ev.vars, binding{v: st.Key})
	}
	for i, e := range elems {
		if err := ev.tick(); err != nil {
			return nil, false, err
		}
		ev.vars[n].val = e
		if st.Key != nil {
			ev.vars[n+1].val = keys(i)
		}
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

// failure is the precondition_failed error of a require or fail: the
// static message, or the message expression's value (a string).
func (ev *evaluator) failure(msg string, x ir.Expr) *evalError {
	if x == nil {
		return &evalError{code: CodePreconditionFailed, msg: msg}
	}
	v, err := ev.eval(x)
	if err != nil {
		return err
	}
	s, ok := v.(string)
	if !ok {
		return errorf(CodeInternal, "the failure message is %s, not a string", typeName(v))
	}
	return &evalError{code: CodePreconditionFailed, msg: s}
}

// assign runs `set root.path = value`. When the root is a local (a
// variable that is not a record, or any variable with an empty path) the
// local is rebound to its value with the path replaced; otherwise the root
// is a record and the path starts with one of its fields, which is written
// (with its constraints checked) with the path replaced inside it. Order:
// the root, then the path's index expressions left to right, then the
// value, then the path is followed (see replaceAt) and the write made.
func (ev *evaluator) assign(st *ir.Assign) *evalError {
	var local *ir.Var
	if vr, ok := st.Root.(*ir.VarRef); ok && vr.Var != nil {
		if k := varKind(vr.Var); len(st.Path) == 0 || (k != ir.KindRecord && k != ir.KindRef) {
			local = vr.Var
		}
	}
	var root value
	if local == nil {
		v, err := ev.eval(st.Root)
		if err != nil {
			return err
		}
		root = v
	}
	keys := make([]value, len(st.Path))
	for i, p := range st.Path {
		if (p.Field == nil) == (p.Index == nil) {
			return errorf(CodeInternal, "malformed path step %d", i+1)
		}
		if p.Index != nil {
			k, err := ev.eval(p.Index)
			if err != nil {
				return err
			}
			keys[i] = k
		}
	}
	v, err := ev.eval(st.Value)
	if err != nil {
		return err
	}
	if local != nil {
		i := ev.slot(local)
		if i < 0 {
			return errorf(CodeInternal, "variable %s is not bound", varName(local))
		}
		if err := ev.charge(cost(ev.vars[i].val)); err != nil {
			return err
		}
		nv, err := replaceAt(ev.vars[i].val, local.Type, st.Path, keys, v, ev.exact)
		if err != nil {
			return err
		}
		ev.vars[i].val = nv
		return nil
	}
	if len(st.Path) == 0 || st.Path[0].Field == nil {
		return errorf(CodeInternal, "set: a record's path must start with a field")
	}
	f := st.Path[0].Field
	var e *ir.Entity
	if t := st.Root.Type(); t != nil {
		e = t.Entity
	}
	if e == nil {
		e = f.Entity
	}
	r, err := ev.record(root, e)
	if err != nil {
		return err
	}
	if len(st.Path) == 1 {
		return ev.set(r, f, v)
	}
	if r.deleted {
		return notFound(r.ent, r.id)
	}
	i := fieldIndex(r.ent, f)
	if i < 0 {
		return errorf(CodeInternal, "set: %s is not a field of %s", f.Name, r.ent.Name)
	}
	if err := ev.charge(cost(r.vals[i])); err != nil {
		return err
	}
	nv, err := replaceAt(r.vals[i], f.Type, st.Path[1:], keys[1:], v, ev.exact)
	if err != nil {
		return err
	}
	return ev.set(r, f, nv)
}

func varKind(v *ir.Var) ir.Kind {
	if v.Type == nil {
		return ir.KindInvalid
	}
	return v.Type.Kind
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
	v = stored(f, v, ev.exact)
	if f == r.ent.Key && !equal(v, r.vals[i]) {
		return errorf(CodeConstraintViolation, runtime.MsgKeyChanged, r.ent.Name, f.Name, r.ent.Name, r.id)
	}
	t, err := ev.s.writable(r.ent)
	if err != nil {
		return err
	}
	if r.owner != t {
		return errorf(CodeInternal, "set: %s %q is not a record of this state", r.ent.Name, r.id)
	}
	if err := ev.checkField(t, r, i, v); err != nil {
		return err
	}
	ev.s.log = append(ev.s.log, undo{op: 's', r: r, field: i, old: r.vals[i]})
	r.vals[i] = v
	return nil
}

// insert appends a record after checking every field's constraints in
// field order. Its id is the table's next id, or for an entity with a key
// field the key's value (checked as a required, unique field).
func (ev *evaluator) insert(t *table, vals []value) (*row, *evalError) {
	if t == nil || t.shared {
		return nil, errorf(CodeInternal, "insert: a tool writes %s, which its service does not own", entityName(t.entOrNil()))
	}
	var id string
	if k := t.ent.Key; k != nil {
		if i := fieldIndex(t.ent, k); i >= 0 {
			id, _ = vals[i].(string)
		}
	} else {
		ev.s.log = append(ev.s.log, undo{op: 'q', t: t, seq: t.seq})
		id = t.newID()
	}
	r := &row{owner: t, ent: t.ent, id: id, vals: vals}
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
		return errorf(CodeConstraintViolation, runtime.MsgStillReferenced, r.ent.Name, r.id, q.ent.Name, q.id, f.Name)
	}
	t, err := ev.s.writable(r.ent)
	if err != nil {
		return err
	}
	if r.owner != t {
		return errorf(CodeInternal, "delete: %s %q is not a record of this state", r.ent.Name, r.id)
	}
	pos := t.remove(r)
	r.deleted = true
	ev.s.log = append(ev.s.log, undo{op: 'd', t: t, r: r, pos: pos})
	return nil
}

// referrer finds the first record (entity order, then field order, then
// insertion order) other than r with a field holding r's id: a ref field,
// or a ref anywhere inside a composite field.
func (s *State) referrer(r *row) (*row, *ir.Field) {
	for _, t := range s.tables {
		for i, f := range t.ent.Fields {
			if f.Type == nil {
				continue
			}
			if f.Type.Kind == ir.KindRef {
				if f.Type.Entity != r.ent {
					continue
				}
				for q := range t.all() {
					if q != r && q.vals[i] == any(r.id) {
						return q, f
					}
				}
				continue
			}
			if !mentions(f.Type, r.ent, map[*ir.StructDef]bool{}) {
				continue
			}
			for q := range t.all() {
				if q != r && holdsRef(f.Type, q.vals[i], r.ent, r.id) {
					return q, f
				}
			}
		}
	}
	return nil, nil
}

// checkField checks value v for field i of record r (about to be written).
func (ev *evaluator) checkField(t *table, r *row, i int, v value) *evalError {
	others := t.all()
	if key, ok := v.(string); ok && t.ent.Fields[i] == t.ent.Key {
		// A record's id is its key: the record whose id is v, if any, is
		// the only one holding it.
		others = func(yield func(*row) bool) {
			if q := t.get(key); q != nil {
				yield(q)
			}
		}
	}
	if _, msg := fieldProblem(t.ent, others, r, i, v); msg != "" {
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
// declaration order), the content of a composite value (valueProblem),
// unique among others (r itself excluded; an entity's key field is
// unique). It returns the kind of the first problem and its message, or ""
// and "".
func fieldProblem(e *ir.Entity, others iter.Seq[*row], r *row, i int, v value) (kind, msg string) {
	f := e.Fields[i]
	if kind, msg := valueProblem(e.Name+"."+f.Name, f, f.Type, v); msg != "" || v == nil {
		return kind, msg
	}
	name := e.Name + "." + f.Name
	if f.Unique || f == e.Key {
		for q := range others {
			if q != r && equal(q.vals[i], v) {
				return ProblemUnique, fmt.Sprintf(runtime.MsgNotUnique, name, text(v), e.Name, q.id)
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
	case float64, decimal:
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
