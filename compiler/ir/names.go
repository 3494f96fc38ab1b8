package ir

import (
	"go/token"
	"strings"
	"unicode"
)

// GoName converts a spec name to the exported Go identifier the code
// generator wants for it: `credit_limit` → `CreditLimit`, `customer_id` →
// `CustomerID`, `SlaPolicy` → `SLAPolicy`, "in progress" → `InProgress`. A
// name with no letters (or starting with a digit) gets the prefix X so that
// the result is always a valid identifier. The generator gives a name that
// is already taken in its scope a numeric suffix (Status2); the checker
// rejects such collisions between spec names (W018) so that Go names read
// as the spec does. It is the one naming of the generator, the checker and
// the gate's locator of failures.
func GoName(name string) string {
	var b strings.Builder
	for _, w := range Words(name) {
		lw := strings.ToLower(w)
		if IsInitialism(lw) {
			b.WriteString(strings.ToUpper(w))
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if r := []rune(out)[0]; !unicode.IsLetter(r) || !unicode.IsUpper(r) {
		out = "X" + out
	}
	return out
}

// Words splits a spec name into words: at underscores, at any rune that
// cannot appear in a Go identifier, and at lower-to-upper case changes
// ("creditLimit", "credit_limit" and "credit limit" all give credit, limit).
func Words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && i > 0 &&
			(unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				(i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// IsInitialism reports whether a lower-case word is one Go style writes in
// capitals (Effective Go, "MixedCaps"; the list golint used, trimmed to what
// business specs say).
func IsInitialism(lower string) bool { return initialisms[lower] }

var initialisms = map[string]bool{
	"api": true, "csv": true, "eta": true, "html": true, "http": true,
	"id": true, "ip": true, "json": true, "pdf": true, "sku": true,
	"sla": true, "sms": true, "sql": true, "ssn": true, "url": true,
	"uri": true, "uuid": true, "vat": true, "vin": true, "xml": true,
}

// SnakeName converts a CamelCase name to lower snake case: `PurchaseOrder`
// → `purchase_order`, `HTTPRequest` → `http_request`, `OrderV2` →
// `order_v2`. An underscore goes before an upper-case letter that follows a
// lower-case letter or a digit, or that follows an upper-case letter and
// precedes a lower-case one. It names generated record ids
// (`purchase_order_3`), identically at compile time and at run time.
func SnakeName(name string) string {
	var b strings.Builder
	r := []rune(name)
	for i, c := range r {
		if 'A' <= c && c <= 'Z' {
			if i > 0 {
				prev := r[i-1]
				lowerOrDigit := ('a' <= prev && prev <= 'z') || ('0' <= prev && prev <= '9')
				upperBeforeLower := 'A' <= prev && prev <= 'Z' && i+1 < len(r) && 'a' <= r[i+1] && r[i+1] <= 'z'
				if lowerOrDigit || upperBeforeLower {
					b.WriteByte('_')
				}
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// IsGoKeyword reports whether name is a Go keyword.
func IsGoKeyword(name string) bool { return token.IsKeyword(name) }

// ReservedGoNames are package-level names of every generated world package;
// no entity, enum or tool may map onto them.
var ReservedGoNames = []string{
	"State", "World", "Episode", "Seed", "Conformance", "Checks", "New",
	"NewState", "NewEpisode",
}

// ReservedStateMethods are methods of the generated State; tools become
// methods of State too and may not take these names.
var ReservedStateMethods = []string{
	"Clone", "Hash", "Snapshot", "Journal", "Violations", "CheckInvariants",
	"Grade", "Call", "Freeze", "Validate",
}

// EnumValueName converts an enum value (an identifier or any string, such
// as "pending (item modified)") to the CamelCase suffix of its Go constant:
// `PendingItemModified`. Values that would start with a digit get a `V`.
// The generated constant is GoName(entity) + GoName(field) + EnumValueName(v);
// the checker rejects enums whose constants collide (W018).
func EnumValueName(v string) string {
	var b strings.Builder
	upper := true
	for _, r := range v {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) {
		s = "V" + s
	}
	return s
}
