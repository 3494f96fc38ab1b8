// Package text holds the small words commands print with: counts with
// their nouns, and messages made safe for a terminal.
package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
// terminal. A byte that is not UTF-8 is shown as \xNN (a lone 0x9b is a
// terminal's CSI).
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
