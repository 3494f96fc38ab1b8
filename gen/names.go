package gen

import (
	"encoding/json"
	"go/token"
	"strconv"
	"strings"
	"unicode"

	"github.com/worldc/worldc/compiler/ir"
)

// exported turns a spec name into an exported Go identifier: credit_limit →
// CreditLimit, customer_id → CustomerID (ir.GoName, the one naming the
// checker shares).
func exported(s string) string { return ir.GoName(s) }

// unexported turns a spec name into an unexported Go identifier (creditLimit,
// customerID). Go keywords and predeclared names get a trailing underscore.
func unexported(s string) string {
	ws := ir.Words(s)
	var b strings.Builder
	for i, w := range ws {
		lw := strings.ToLower(w)
		switch {
		case i == 0:
			b.WriteString(lw)
		case ir.IsInitialism(lw):
			b.WriteString(strings.ToUpper(w))
		default:
			rs := []rune(w)
			rs[0] = unicode.ToUpper(rs[0])
			b.WriteString(string(rs))
		}
	}
	out := b.String()
	if out == "" {
		out = "x"
	}
	if r := []rune(out)[0]; !unicode.IsLetter(r) {
		out = "x" + out
	}
	if token.IsKeyword(out) || predeclared[out] {
		out += "_"
	}
	return out
}

// predeclared are Go's predeclared identifiers: a local of that name would
// shadow them, which is legal but makes generated code hard to read and
// breaks it when the generator itself needs the builtin.
var predeclared = map[string]bool{
	"any": true, "append": true, "bool": true, "byte": true, "cap": true,
	"clear": true, "close": true, "comparable": true, "complex": true,
	"complex128": true, "complex64": true, "copy": true, "delete": true,
	"error": true, "false": true, "float32": true, "float64": true,
	"imag": true, "int": true, "int16": true, "int32": true, "int64": true,
	"int8": true, "iota": true, "len": true, "make": true, "max": true,
	"min": true, "new": true, "nil": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true, "rune": true,
	"string": true, "true": true, "uint": true, "uint16": true,
	"uint32": true, "uint64": true, "uint8": true, "uintptr": true,
}

// plural is the English plural of an UpperCamelCase entity name, for table
// names: Customer → Customers, Entry → Entries, Address → Addresses.
func plural(s string) string {
	lower := strings.ToLower(s)
	switch {
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return s + "es"
	}
	return s + "s"
}

// namespace hands out identifiers unique within one scope. Asking twice for
// the same key gives the same name; a clash with a name already taken gets
// a numeric suffix (Status, Status2, …), deterministically in the order of
// the requests.
type namespace struct {
	taken map[string]bool
	given map[any]string
}

func newNamespace(reserved ...string) *namespace {
	ns := &namespace{taken: map[string]bool{}, given: map[any]string{}}
	for _, r := range reserved {
		ns.taken[r] = true
	}
	return ns
}

// name returns the identifier for key, wanting want.
func (ns *namespace) name(key any, want string) string {
	if n, ok := ns.given[key]; ok {
		return n
	}
	n := want
	for i := 2; ns.taken[n]; i++ {
		n = want + strconv.Itoa(i)
	}
	ns.taken[n] = true
	ns.given[key] = n
	return n
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
