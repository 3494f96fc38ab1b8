package ir

import (
	"go/token"
	"strings"
	"unicode"
)

// GoName converts a spec name (snake_case or CamelCase) to an exported Go
// identifier: `credit_limit` → `CreditLimit`, `customer_id` → `CustomerID`,
// `Invoice` → `Invoice`. The checker rejects specs whose names collide after
// this conversion (W018), so the code generator may use it freely.
func GoName(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		if up := strings.ToUpper(part); initialisms[up] {
			b.WriteString(up)
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// initialisms are written all upper case in Go names, as golint would.
var initialisms = map[string]bool{
	"ID": true, "URL": true, "API": true, "SKU": true, "UUID": true,
	"HTTP": true, "JSON": true, "IP": true, "VAT": true,
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
