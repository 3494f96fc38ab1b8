package runtime

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file grades answers: a task's `expect { answer EXPR }` holds when
// the agent's final message states the value EXPR has on the final state.
// The generated code and compiler/eval both call AnswerMatches, so that
// they cannot disagree on what an answer says.

// The kinds of an expected answer.
const (
	AnswerNumber = "number" // an int, decimal or money
	AnswerDate   = "date"   // a date, YYYY-MM-DD
	AnswerText   = "text"   // a string, an enum value, an id, a date-time
	AnswerBool   = "bool"   // yes or no
)

// An Expected is what an answer must state: values of one kind, each in
// its canonical text (a number as Decimal writes it or an int's digits, a
// date as YYYY-MM-DD, a bool as true or false). A list's elements are all
// its values; the answer must state every one of them.
type Expected struct {
	Kind   string
	Values []string
}

// Text is the golden answer: the values joined by ", " (what a golden
// solution's final message is taken to say).
func (e Expected) Text() string {
	if e.Kind == AnswerBool && len(e.Values) == 1 {
		if e.Values[0] == "true" {
			return "yes"
		}
		return "no"
	}
	if len(e.Values) == 0 {
		return "none"
	}
	return strings.Join(e.Values, ", ")
}

// AnswerMatches reports whether answer, the agent's final message, states
// every value of want, after normalisation, and if not, which value it
// misses:
//
//   - a number: some number written in the answer equals it exactly;
//     thousands separators (1,234.50; 5 800,00 and 1.234,50 as in French
//     and German; 1'234.50 as in Swiss; see readNumber), a decimal comma
//     (12,50), a currency symbol or code before or after it ($12, 12 €,
//     USD 12) and a trailing point do not matter, and 12.50 equals 12.5;
//   - a date: the answer holds it as 2026-03-14, as 14 March 2026 or as
//     March 14, 2026 (English month names, any case);
//   - a text: the answer holds it, compared without case (Python's
//     lower) and with every run of white space as one space, where it is
//     not part of a longer word (inv_12 is not found in inv_123);
//   - a bool: the answer says yes or true (no, false) as a word, and not
//     the other.
//
// An empty list is answered by an answer that says none, nothing or no
// (as a word).
func AnswerMatches(answer string, want Expected) (ok bool, detail string) {
	text := normalizeAnswer(answer)
	if len(want.Values) == 0 {
		for _, w := range []string{"none", "nothing", "no"} {
			if containsWord(text, w) {
				return true, ""
			}
		}
		return false, "the answer does not say that there is none"
	}
	var nums []Decimal
	if want.Kind == AnswerNumber {
		nums = answerNumbers(text)
	}
	for _, v := range want.Values {
		found := false
		switch want.Kind {
		case AnswerNumber:
			d, err := ParseDecimal(v)
			if err != nil {
				return false, "cannot read the expected number " + v
			}
			for _, n := range nums {
				if n == d {
					found = true
					break
				}
			}
		case AnswerDate:
			found = containsWord(text, v)
			if !found {
				if d, err := ParseDate(v); err == nil {
					month := strings.ToLower(time.Month(d.Month()).String())
					day := d.Day()
					year := d.Year()
					found = containsWord(text, itoa(day)+" "+month+" "+itoa(year)) ||
						containsWord(text, month+" "+itoa(day)+", "+itoa(year)) ||
						containsWord(text, month+" "+itoa(day)+" "+itoa(year))
				}
			}
		case AnswerBool:
			yes := containsWord(text, "yes") || containsWord(text, "true")
			no := containsWord(text, "no") || containsWord(text, "false")
			found = yes != no && yes == (v == "true")
		default:
			found = containsWord(text, normalizeAnswer(v))
		}
		if !found {
			return false, "the answer does not state " + Expected{Kind: want.Kind, Values: []string{v}}.Text()
		}
	}
	return true, ""
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// normalizeAnswer lowers s as Python does and collapses every run of
// white space into one space.
func normalizeAnswer(s string) string {
	return strings.Join(strings.FieldsFunc(PyLower(s), unicode.IsSpace), " ")
}

// isWordRune is what a word is made of, for containsWord: letters,
// digits and the characters of ids.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '#'
}

// containsWord reports whether sub occurs in s with no word character
// right before or after it.
func containsWord(s, sub string) bool {
	if sub == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(sub)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		first, _ := utf8.DecodeRuneInString(sub)
		last, _ := utf8.DecodeLastRuneInString(sub)
		okBefore := start == 0 || !isWordRune(before) || !isWordRune(first)
		okAfter := end == len(s) || !isWordRune(after) || !isWordRune(last)
		if okBefore && okAfter {
			return true
		}
		i = start + 1
	}
}

// answerNumbers are the numbers written in s (normalised): runs of digits
// with an optional sign, grouping and a decimal mark (readNumber); digits
// inside a word or an id (inv_12, w2) are not a number, digits before
// letters (12kg) are.
func answerNumbers(s string) []Decimal {
	var out []Decimal
	for i := 0; i < len(s); {
		c := s[i]
		if !isDigit(c) {
			i++
			continue
		}
		if prev, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && (isWordRune(prev) || prev == '.') {
			// inside a word or an id (inv_12, w2): not a number
			for i < len(s) {
				r, n := utf8.DecodeRuneInString(s[i:])
				if !isWordRune(r) && r != '.' {
					break
				}
				i += n
			}
			continue
		}
		// after "1," a number is the next of a list (1,2,3), not one with
		// a decimal comma
		listed := i > 1 && (s[i-1] == ',' || s[i-1] == '.') && isDigit(s[i-2])
		digits, j := readNumber(s, i, listed)
		if i > 0 && s[i-1] == '-' {
			digits = "-" + digits
		}
		if d, err := ParseDecimal(digits); err == nil {
			out = append(out, d)
		}
		i = j
	}
	return out
}

// readNumber reads the number whose first digit is at s[i]: its digits
// with a point for its decimal mark, and the index after it. A number
// groups its thousands with one separator throughout:
//
//   - a comma followed by exactly three digits is grouping (1,234 is 1234,
//     as in English), unless the number groups by something else;
//   - a space (white space and no-break spaces are one space once the
//     answer is normalised) or an apostrophe (' or ’) followed by
//     exactly three digits is grouping after a first group of one to
//     three digits (5 800, 1'234: never 2026 123);
//   - a point followed by three digits is grouping only in a number that
//     ends in a decimal comma (1.234,50); otherwise it is the decimal
//     point (1.234 is 1.234).
//
// The decimal mark is a point followed by digits, or a comma followed by
// digits in a number that does not group by commas (1,5 is 1.5; 5 800,00
// is 5800), unless those digits are followed by another comma or point
// and a digit, or the number follows one and a comma (listed: 1,2,3 are
// three numbers). So an English number always reads as in English.
func readNumber(s string, i int, listed bool) (string, int) {
	var b strings.Builder
	j := digitsEnd(s, i)
	b.WriteString(s[i:j])
	lead := j - i
	group := ""
grouping:
	for j < len(s) {
		sep := groupSeparator(s[j:])
		if sep == "" || !groupOfThree(s, j+len(sep)) || (group != "" && sep != group) {
			break
		}
		switch sep {
		case ",":
		case ".":
			if lead > 3 || !dotGrouped(s, j) {
				break grouping
			}
		default:
			if lead > 3 {
				break grouping
			}
		}
		group = sep
		j += len(sep)
		b.WriteString(s[j : j+3])
		j += 3
	}
	if j+1 < len(s) && isDigit(s[j+1]) {
		switch {
		case s[j] == '.' && group != ".":
			k := digitsEnd(s, j+1)
			b.WriteString(s[j:k])
			j = k
		case s[j] == ',' && group != "," && !listed:
			k := digitsEnd(s, j+1)
			if k+1 < len(s) && (s[k] == ',' || s[k] == '.') && isDigit(s[k+1]) {
				break // 1,2,3: a list, not a decimal comma
			}
			b.WriteByte('.')
			b.WriteString(s[j+1 : k])
			j = k
		}
	}
	return b.String(), j
}

// groupSeparator is the separator of thousands that s starts with, or "".
func groupSeparator(s string) string {
	for _, sep := range []string{",", ".", " ", "'", "’"} {
		if strings.HasPrefix(s, sep) {
			return sep
		}
	}
	return ""
}

// dotGrouped reports whether the point at s[j] groups thousands: it
// starts groups of a point and three digits that end in a decimal comma
// (1.234,50; 1.234.567,00).
func dotGrouped(s string, j int) bool {
	for j < len(s) && s[j] == '.' && groupOfThree(s, j+1) {
		j += 4
	}
	return j+1 < len(s) && s[j] == ',' && isDigit(s[j+1])
}

// digitsEnd is the index of the first byte at or after i that is not a
// digit.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// groupOfThree reports whether s has exactly three digits at i, not
// followed by another digit.
func groupOfThree(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	for k := i; k < i+3; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return i+3 == len(s) || !isDigit(s[i+3])
}
