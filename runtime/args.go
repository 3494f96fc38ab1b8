package runtime

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeArgs decodes a tool call's JSON arguments into dst, a pointer to an
// argument struct whose fields carry json tags, strictly:
//
//   - the arguments must be one JSON object (null, empty or blank input is
//     the empty object); anything else, invalid JSON or trailing data is
//     rejected;
//   - argument names match field names exactly; an unknown name is rejected
//     with the closest known one suggested and the known ones listed; an
//     argument given twice is rejected;
//   - each value must have the field's JSON type; no conversion is made
//     (the string "12" is not a number, 1.5 is not an integer); fields whose
//     type implements json.Unmarshaler ([Date], enums) check themselves;
//   - null is the same as leaving an argument out;
//   - every name in required must be present and not null.
//
// All problems are reported at once in one invalid_arguments [ToolError]
// whose message an agent can act on, e.g.
//
//	argument "amount": expected a number, got string "abc"
//	unknown argument "amout" (did you mean "amount"?); known arguments: amount, invoice
//	missing required argument "invoice"
//
// Nested objects (struct fields) are decoded with encoding/json, rejecting
// unknown fields. DecodeArgs never panics on any input. A dst that is not a
// pointer to a struct, or a required name that is not one of its fields, is
// the caller's bug and yields an internal error. On error dst may be
// partially filled.
func DecodeArgs(raw json.RawMessage, dst any, required ...string) error {
	return decodeObject(raw, dst, argumentNoun, nil, required)
}

// DecodeRecord decodes data, the JSON object of a record value (an argument
// of a record type, a record in the seed), into dst, a pointer to its
// struct, as strictly as [DecodeArgs] decodes arguments and with the same
// messages, naming fields instead of arguments: `field "city": expected a
// string, got number 5`, `missing required field "zip"`, `unknown field
// "cty" (did you mean "city"?)`. Only the fields named in allowed are
// accepted (nil accepts every field of dst): a variant record accepts its
// tag, its common fields and the fields of its case. JSON null is rejected
// (`expected an object, got null`): generated code calls DecodeRecord only
// where a value is required, optional records being pointers.
func DecodeRecord(data []byte, dst any, allowed []string, required ...string) error {
	if d := trimJSONSpace(data); len(d) == 0 || d[0] != '{' {
		return InvalidArguments("expected an object, got %s", describeJSON(d))
	}
	return decodeObject(data, dst, fieldNoun, allowed, required)
}

// noun words the messages of decodeObject for arguments or record fields.
type noun struct {
	what    string // "argument"
	context string // "arguments", as in "arguments are not valid JSON"
	none    string // the message when the object takes no members
}

var (
	argumentNoun = &noun{"argument", "arguments", "this tool takes no arguments"}
	fieldNoun    = &noun{"field", "the record", "this record has no fields"}
)

// decodeObject is DecodeArgs and DecodeRecord: it decodes the JSON object
// raw into the struct *dst, accepting the names in allowed (nil: all).
func decodeObject(raw json.RawMessage, dst any, n *noun, allowed, required []string) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return Internal("DecodeArgs: destination must be a non-nil pointer to a struct, got %T", dst)
	}
	sv := rv.Elem()
	var fieldBuf [16]argField
	fields := argFields(sv.Type(), nil, fieldBuf[:0])
	if allowed != nil {
		kept := fields[:0]
		for _, f := range fields {
			if slices.Contains(allowed, f.name) {
				kept = append(kept, f)
			}
		}
		fields = kept
	}
	var stateBuf [16]uint8 // per field: 0 absent, 1 null, 2 given
	state := stateBuf[:0]
	if len(fields) > len(stateBuf) {
		state = make([]uint8, len(fields))
	} else {
		state = stateBuf[:len(fields)]
	}

	data := trimJSONSpace(raw)
	if len(data) == 0 || string(data) == "null" {
		data = nil
	} else {
		if !json.Valid(data) {
			var v any
			err := json.Unmarshal(data, &v)
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return InvalidArguments("%s are not valid JSON: %s (at byte %d)", n.context, strings.TrimPrefix(se.Error(), "json: "), se.Offset)
			}
			return InvalidArguments("%s are not valid JSON", n.context)
		}
		if data[0] != '{' {
			return InvalidArguments("%s must be a JSON object, got %s", n.context, describeJSON(data))
		}
	}

	var problems []string
	more := 0 // problems beyond maxProblems, counted but not described
	problem := func(msg string) {
		if len(problems) < maxProblems {
			problems = append(problems, msg)
		} else {
			more++
		}
	}
	unknown := false
	if data != nil {
		eachMember(data, func(rawKey, val []byte) {
			fi := -1
			for i := range fields {
				if string(rawKey[1:len(rawKey)-1]) == fields[i].name {
					fi = i
					break
				}
			}
			if fi < 0 && bytes.IndexByte(rawKey, '\\') >= 0 {
				key := unquoteKey(rawKey)
				for i := range fields {
					if key == fields[i].name {
						fi = i
						break
					}
				}
			}
			if fi < 0 {
				unknown = true
				if len(problems) >= maxProblems {
					more++
					return
				}
				key := unquoteKey(rawKey)
				msg := "unknown " + n.what + " " + quoteTrunc(key)
				if s := suggest(key, fieldNames(fields)); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				problems = append(problems, msg)
				return
			}
			f := &fields[fi]
			if state[fi] != 0 {
				problem(fmt.Sprintf("%s %q given more than once", n.what, f.name))
				return
			}
			if string(val) == "null" {
				state[fi] = 1
				return
			}
			state[fi] = 2
			if msg := decodeInto(sv.FieldByIndex(f.index), val); msg != "" {
				problem(fmt.Sprintf("%s %q: %s", n.what, f.name, msg))
			}
		})
	}
	for _, r := range required {
		fi := slices.IndexFunc(fields, func(f argField) bool { return f.name == r })
		if fi < 0 {
			return Internal("DecodeArgs: required %s %q is not a field of %T", n.what, r, dst)
		}
		switch state[fi] {
		case 0:
			problem(fmt.Sprintf("missing required %s %q", n.what, r))
		case 1:
			problem(fmt.Sprintf("required %s %q must not be null", n.what, r))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	if more > 0 {
		problems = append(problems, fmt.Sprintf("and %d more problems", more))
	}
	if unknown {
		names := fieldNames(fields)
		if len(names) == 0 {
			problems = append(problems, n.none)
		} else {
			slices.Sort(names)
			problems = append(problems, "known "+n.what+"s: "+strings.Join(names, ", "))
		}
	}
	return InvalidArguments("%s", strings.Join(problems, "; "))
}

// UnmarshalEnum decodes the JSON string data into *dst if it is one of
// allowed. Generated enum types (string types) implement json.Unmarshaler
// with it, converting their pointer:
//
//	func (v *CustomerTier) UnmarshalJSON(b []byte) error {
//		return runtime.UnmarshalEnum(b, (*string)(v), customerTierValues)
//	}
//
// null leaves *dst unchanged (the encoding/json convention). Errors are
// invalid_arguments [ToolError]s such as
// `expected one of "bronze", "silver", "gold", got "platinum"`.
func UnmarshalEnum(data []byte, dst *string, allowed []string) error {
	s, isNull, err := decodeEnum(data, allowed)
	if err == nil && !isNull {
		*dst = s
	}
	return err
}

func decodeEnum(data []byte, allowed []string) (string, bool, error) {
	data = trimJSONSpace(data)
	if string(data) == "null" {
		return "", true, nil
	}
	var s string
	if len(data) == 0 || data[0] != '"' || json.Unmarshal(data, &s) != nil {
		return "", false, InvalidArguments("expected one of %s, got %s", quoteList(allowed), describeJSON(data))
	}
	if slices.Contains(allowed, s) {
		return s, false, nil
	}
	msg := fmt.Sprintf("expected one of %s, got %s", quoteList(allowed), quoteTrunc(s))
	if g := suggest(s, allowed); g != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", g)
	}
	return "", false, InvalidArguments("%s", msg)
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// maxProblems bounds the problems DecodeArgs describes (and so its work and
// message size on hostile input).
const maxProblems = 8

type argField struct {
	name  string
	index []int
}

// argFields lists the JSON-visible fields of the struct type t, flattening
// embedded structs as encoding/json does (without its conflict rules).
func argFields(t reflect.Type, prefix []int, out []argField) []argField {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		index := f.Index
		if prefix != nil {
			index = append(slices.Clip(prefix), i)
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = argFields(f.Type, index, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, argField{name, index})
	}
	return out
}

func fieldNames(fields []argField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// decodeInto decodes the valid, non-null JSON value val into fv and returns
// "" or what is wrong, phrased for the agent.
func decodeInto(fv reflect.Value, val []byte) string {
	t := fv.Type()
	switch u := fv.Addr().Interface().(type) {
	case json.Unmarshaler:
		return errText(u.UnmarshalJSON(val))
	case encoding.TextUnmarshaler:
		return decodeFallback(fv, val)
	}
	switch t.Kind() {
	case reflect.Pointer:
		e := reflect.New(t.Elem())
		if msg := decodeInto(e.Elem(), val); msg != "" {
			return msg
		}
		fv.Set(e)
		return ""
	case reflect.String:
		if val[0] != '"' {
			return "expected a string, got " + describeJSON(val)
		}
		body := val[1 : len(val)-1]
		if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			fv.SetString(string(body))
			return ""
		}
		var s string
		if err := json.Unmarshal(val, &s); err != nil {
			return errText(err)
		}
		fv.SetString(s)
		return ""
	case reflect.Bool:
		switch string(val) {
		case "true":
			fv.SetBool(true)
		case "false":
			fv.SetBool(false)
		default:
			return "expected a boolean (true or false), got " + describeJSON(val)
		}
		return ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isJSONNumber(val) {
			return "expected an integer, got " + describeJSON(val)
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			if bytes.ContainsAny(val, ".eE") && !isRangeErr(err) {
				return "expected an integer, got " + describeJSON(val)
			}
			return "expected an integer, got " + describeJSON(val) + " (out of range)"
		}
		fv.SetInt(n)
		return ""
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isJSONNumber(val) {
			return "expected a non-negative integer, got " + describeJSON(val)
		}
		n, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil || fv.OverflowUint(n) {
			if val[0] != '-' && !bytes.ContainsAny(val, ".eE") {
				return "expected a non-negative integer, got " + describeJSON(val) + " (out of range)"
			}
			return "expected a non-negative integer, got " + describeJSON(val)
		}
		fv.SetUint(n)
		return ""
	case reflect.Float32, reflect.Float64:
		if !isJSONNumber(val) {
			return "expected a number, got " + describeJSON(val)
		}
		f, err := strconv.ParseFloat(string(val), t.Bits())
		if err != nil || fv.OverflowFloat(f) {
			return "expected a number, got " + describeJSON(val) + " (out of range)"
		}
		fv.SetFloat(f)
		return ""
	}
	return decodeFallback(fv, val)
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && ne.Err == strconv.ErrRange
}

// decodeFallback decodes composite values with encoding/json, rejecting
// unknown object fields and null elements that are not optional, and
// rephrases its errors.
func decodeFallback(fv reflect.Value, val []byte) string {
	if msg := nullInside(val, fv.Type()); msg != "" {
		return msg
	}
	d := json.NewDecoder(bytes.NewReader(val))
	d.DisallowUnknownFields()
	return errText(d.Decode(fv.Addr().Interface()))
}

// nullInside finds a null element of a JSON array or a null value of a
// JSON object (val, valid JSON) decoded into t where the element type has
// no null (encoding/json would leave a zero value there): `[1]: expected an
// integer, got null`. Records check their own fields.
func nullInside(val []byte, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	val = trimJSONSpace(val)
	if len(val) == 0 {
		return ""
	}
	check := func(path string, elem []byte, et reflect.Type) string {
		if string(trimJSONSpace(elem)) == "null" {
			switch et.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
				return ""
			}
			return path + ": expected " + describeType(et) + ", got null"
		}
		if msg := nullInside(elem, et); msg != "" {
			return path + msg
		}
		return ""
	}
	switch {
	case t.Kind() == reflect.Slice && val[0] == '[':
		i := skipSpace(val, 1)
		for n := 0; i < len(val) && val[i] != ']'; n++ {
			end := skipValue(val, i)
			if msg := check("["+strconv.Itoa(n)+"]", val[i:end], t.Elem()); msg != "" {
				return msg
			}
			i = skipSpace(val, end)
			if i < len(val) && val[i] == ',' {
				i = skipSpace(val, i+1)
			}
		}
	case t.Kind() == reflect.Map && val[0] == '{':
		msg := ""
		eachMember(val, func(key, elem []byte) {
			if msg == "" {
				msg = check("["+strconv.Quote(unquoteKey(key))+"]", elem, t.Elem())
			}
		})
		return msg
	}
	return ""
}

// errText phrases a decoding error for the agent ("" for nil).
func errText(err error) string {
	if err == nil {
		return ""
	}
	var te *ToolError
	if errors.As(err, &te) && te != nil {
		return te.Message
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		msg := fmt.Sprintf("expected %s, got %s", describeType(ute.Type), ute.Value)
		if ute.Field != "" {
			msg = fmt.Sprintf("field %q: %s", ute.Field, msg)
		}
		return msg
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

var (
	dateType     = reflect.TypeFor[Date]()
	dateTimeType = reflect.TypeFor[DateTime]()
)

// describeType names the JSON form of a Go type: "a number", "an array".
func describeType(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t {
	case dateType:
		return `a date "YYYY-MM-DD"`
	case dateTimeType:
		return `a date-time "YYYY-MM-DDThh:mm:ssZ"`
	}
	switch t.Kind() {
	case reflect.Pointer:
		return describeType(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// describeJSON names a (valid) JSON value for a message: `string "abc"`,
// `number 1.5`, `boolean true`, `null`, `an array`, `an object`.
func describeJSON(val []byte) string {
	val = trimJSONSpace(val)
	if len(val) == 0 {
		return "nothing"
	}
	switch val[0] {
	case '"':
		var s string
		if json.Unmarshal(val, &s) != nil {
			return "a malformed string"
		}
		return "string " + quoteTrunc(s)
	case 't', 'f':
		return "boolean " + string(val)
	case 'n':
		return "null"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	if len(val) > 40 {
		return "number " + string(val[:40]) + "…"
	}
	return "number " + string(val)
}

// quoteTrunc quotes s, cut to 40 runes.
func quoteTrunc(s string) string {
	n := 0
	for i := range s {
		if n == 40 {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

func isJSONNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') }

func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func unquoteKey(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw)
	}
	return s
}

// eachMember calls fn with the raw (quoted) key and the raw value of each
// member of obj, a valid JSON object, in order.
func eachMember(obj []byte, fn func(key, val []byte)) {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		kEnd := skipString(obj, i)
		key := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		i = skipSpace(obj, i+1) // ':'
		vEnd := skipValue(obj, i)
		fn(key, obj[i:vEnd])
		i = skipSpace(obj, vEnd)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}
