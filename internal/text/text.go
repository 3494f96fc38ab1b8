// Package text holds the small words commands print with: counts with
// their nouns, and messages made safe for a terminal.
package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Plural is n with its noun, "1 world" or "3 worlds" (nouns whose plural
// is not noun+"s" are not used).
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Printable is s without control characters, shown escaped as Go quotes
// them: a message from a spec or an LLM that holds a newline or an escape
// sequence must not print a line of its own (a fake verdict) or drive the
// terminal.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
