package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The stable error codes of tool calls. Agents and trainers may rely on
// them; messages are for reading.
const (
	// CodeUnknownTool: no tool has the requested name.
	CodeUnknownTool = "unknown_tool"
	// CodeInvalidArguments: the arguments are not a JSON object matching the
	// tool's parameters (unknown or missing argument, wrong JSON type,
	// invalid enum value or date).
	CodeInvalidArguments = "invalid_arguments"
	// CodeNotFound: a referenced record does not exist.
	CodeNotFound = "not_found"
	// CodePreconditionFailed: a `require … else "message"` of the spec
	// failed; the message is the spec's text.
	CodePreconditionFailed = "precondition_failed"
	// CodeConstraintViolation: a write would break a unique, range or
	// reference constraint.
	CodeConstraintViolation = "constraint_violation"
	// CodeInternal: the tool failed in a way that is the world's fault, not
	// the agent's (a recovered panic, an unclassified error).
	CodeInternal = "internal"
)

// A ToolError is the error of a failed tool call, as the agent sees it.
type ToolError struct {
	Code    string `json:"code"`    // one of the Code constants
	Message string `json:"message"` // what went wrong, for the agent to act on
}

// Error returns "code: message".
func (e *ToolError) Error() string {
	if e == nil {
		return "<nil ToolError>"
	}
	return e.Code + ": " + e.Message
}

// UnknownTool reports a call of a tool that does not exist, suggesting the
// closest known name and listing them all.
func UnknownTool(name string, known []string) *ToolError {
	var b strings.Builder
	b.WriteString("unknown tool " + quoteTrunc(name))
	if s := suggest(name, known); s != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", s)
	}
	if len(known) == 0 {
		b.WriteString("; this world has no tools")
	} else {
		b.WriteString("; known tools: ")
		b.WriteString(strings.Join(known, ", "))
	}
	return &ToolError{Code: CodeUnknownTool, Message: b.String()}
}

// InvalidArguments reports arguments that do not fit the tool's parameters.
// [DecodeArgs] returns these; handlers use it for checks beyond types.
func InvalidArguments(format string, args ...any) *ToolError {
	return &ToolError{Code: CodeInvalidArguments, Message: fmt.Sprintf(format, args...)}
}

// NotFound reports a missing record: `Invoice "inv_9" not found`.
func NotFound(entity, id string) *ToolError {
	return &ToolError{Code: CodeNotFound, Message: fmt.Sprintf(MsgNotFound, entity, id)}
}

// PreconditionFailed reports a failed `require … else "message"`; message
// is the spec's text, verbatim.
func PreconditionFailed(message string) *ToolError {
	return &ToolError{Code: CodePreconditionFailed, Message: message}
}

// ConstraintViolation reports a write that would break a unique, range or
// reference constraint, e.g. `Customer.email "a@b.example" is already used
// by Customer "acme"`.
func ConstraintViolation(format string, args ...any) *ToolError {
	return &ToolError{Code: CodeConstraintViolation, Message: fmt.Sprintf(format, args...)}
}

// Internal reports a failure that is the world's fault.
func Internal(format string, args ...any) *ToolError {
	return &ToolError{Code: CodeInternal, Message: fmt.Sprintf(format, args...)}
}

// AsToolError returns err as a *ToolError: err itself (or the first
// *ToolError in its chain), else an internal error carrying err's text. It
// returns nil for a nil err.
func AsToolError(err error) *ToolError {
	if err == nil {
		return nil
	}
	var te *ToolError
	if errors.As(err, &te) && te != nil {
		return te
	}
	return Internal("%s", err.Error())
}

// An Observation is what the agent sees after a tool call. It encodes as
// {"ok":true,"data":…} (data is null when the tool returns nothing) or
// {"ok":false,"error":{"code":…,"message":…}}.
type Observation struct {
	OK    bool            `json:"ok"`              // the call succeeded
	Data  json.RawMessage `json:"data,omitempty"`  // the result when OK (compact JSON; nil means null)
	Error *ToolError      `json:"error,omitempty"` // the error when not OK

	// enc is the whole encoding of an ok observation made by
	// [Registry.Call], {"ok":true,"data":…}, of which Data is a part: it is
	// written once and never compacted again (see AppendJSON).
	enc []byte
}

// obsPrefix begins the encoding of an ok observation.
const obsPrefix = `{"ok":true,"data":`

// OKObservation is a successful observation; nil data means null.
func OKObservation(data json.RawMessage) Observation {
	return Observation{OK: true, Data: data}
}

// ErrorObservation is a failed observation for err (see [AsToolError]).
func ErrorObservation(err error) Observation {
	te := AsToolError(err)
	if te == nil {
		te = Internal("a tool failed without an error")
	}
	return Observation{Error: te}
}

// Err returns the observation's error, or nil when it is ok.
func (o Observation) Err() error {
	if o.OK {
		return nil
	}
	if o.Error == nil {
		return Internal("failed observation without an error")
	}
	return o.Error
}

// MarshalJSON encodes the observation in its protocol form, as
// [Observation.AppendJSON] does.
func (o Observation) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(nil)
}

// AppendJSON appends the observation in its protocol form to dst: Data is
// written as stored (compact; JSON that is not compact is compacted),
// strings are not HTML-escaped. An observation made by [Registry.Call]
// was encoded when it was made and is copied as it is, with neither
// compaction nor validation; a server writing observations into a buffer
// of its own reuses it from call to call. The error is that of Data that
// is not valid JSON (dst is then returned as it was).
func (o Observation) AppendJSON(dst []byte) ([]byte, error) {
	if o.OK {
		if o.encoded() {
			return append(dst, o.enc...), nil
		}
		n0 := len(dst)
		dst = append(dst, obsPrefix...)
		if len(bytes.TrimSpace(o.Data)) == 0 {
			dst = append(dst, "null"...)
		} else {
			b := bytes.NewBuffer(dst)
			if err := json.Compact(b, o.Data); err != nil {
				return dst[:n0], fmt.Errorf("observation data: %w", err)
			}
			dst = b.Bytes()
		}
		return append(dst, '}'), nil
	}
	e := o.Error
	if e == nil {
		e = &ToolError{Code: CodeInternal, Message: "failed observation without an error"}
	}
	dst = append(dst, `{"ok":false,"error":{"code":`...)
	dst = AppendString(dst, e.Code)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, e.Message)
	return append(dst, "}}"...), nil
}

// encoded reports whether o.enc is o's encoding: Data is still the part
// of it that Registry.Call made it.
func (o *Observation) encoded() bool {
	n := len(o.enc) - len(obsPrefix) - 1
	return n > 0 && len(o.Data) == n && &o.Data[0] == &o.enc[len(obsPrefix)]
}

// okEncoded is the ok observation whose whole encoding is enc,
// {"ok":true,"data":…}, written by [Registry.Call].
func okEncoded(enc []byte) Observation {
	return Observation{OK: true, Data: enc[len(obsPrefix) : len(enc)-1 : len(enc)-1], enc: enc}
}

// Equal reports whether two observations are the same: same outcome, same
// error, and data equal as JSON values (ignoring formatting and key order).
func (o Observation) Equal(p Observation) bool {
	if o.OK != p.OK {
		return false
	}
	if !o.OK {
		return o.Err().Error() == p.Err().Error()
	}
	return jsonEqual(o.Data, p.Data)
}

// jsonEqual compares two JSON texts as values; empty means null.
func jsonEqual(a, b json.RawMessage) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return true
	}
	va, okA := decodeValue(a)
	vb, okB := decodeValue(b)
	return okA && okB && valueEqual(va, vb)
}

func decodeValue(raw []byte) (any, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func valueEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !valueEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !valueEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		fa, errA := a.Float64()
		fb, errB := bn.Float64()
		return errA == nil && errB == nil && fa == fb
	default:
		return a == b
	}
}

// suggest returns the element of known closest to name by edit distance,
// if it is close enough to be a plausible typo, else "".
func suggest(name string, known []string) string {
	if len(name) > 64 {
		return ""
	}
	best, bestD := "", -1
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > max(2, len(name)/3) || bestD >= len(name) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of two strings, by bytes. Long
// inputs are cut to keep the cost bounded on hostile input.
func editDistance(a, b string) int {
	const limit = 64
	if len(a) > limit {
		a = a[:limit]
	}
	if len(b) > limit {
		b = b[:limit]
	}
	var rowBuf [limit + 1]int
	row := rowBuf[:len(b)+1]
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur := min(row[j]+1, row[j-1]+1, prev+cost)
			prev, row[j] = row[j], cur
		}
	}
	return row[len(b)]
}
