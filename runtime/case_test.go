package runtime

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// pyCaseTable is testdata/case_python.txt: Python 3.11's lower() and
// upper() of every code point that changes, the code points a final sigma
// looks through (I) and the cased ones that are not (C), and sample
// strings with their mappings (S).
type pyCaseTable struct {
	lower, upper map[rune]string
	ignorable    map[rune]bool
	cased        map[rune]bool
	samples      [][3]string
}

func readPyCase(t testing.TB) *pyCaseTable {
	t.Helper()
	f, err := os.Open("testdata/case_python.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab := &pyCaseTable{lower: map[rune]string{}, upper: map[rune]string{}, ignorable: map[rune]bool{}, cased: map[rune]bool{}}
	hex := func(s string) rune {
		n, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		return rune(n)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "#": // provenance
		case "L", "U":
			fs := strings.Fields(rest)
			var b strings.Builder
			for _, x := range fs[1:] {
				b.WriteRune(hex(x))
			}
			if kind == "L" {
				tab.lower[hex(fs[0])] = b.String()
			} else {
				tab.upper[hex(fs[0])] = b.String()
			}
		case "I", "C":
			fs := strings.Fields(rest)
			for r := hex(fs[0]); r <= hex(fs[1]); r++ {
				if kind == "I" {
					tab.ignorable[r] = true
				} else {
					tab.cased[r] = true
				}
			}
		case "S":
			d := json.NewDecoder(strings.NewReader(rest))
			var s [3]string
			for i := range s {
				if err := d.Decode(&s[i]); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			}
			tab.samples = append(tab.samples, s)
		default:
			t.Fatalf("bad line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tab.lower) < 1000 || len(tab.upper) < 1000 || len(tab.samples) < 1000 {
		t.Fatalf("table too small: %d lower, %d upper, %d samples", len(tab.lower), len(tab.upper), len(tab.samples))
	}
	return tab
}

// TestCaseMatchesPython: PyLower and PyUpper of every code point, the
// final sigma's properties of every code point, and the sample strings,
// as Python computes them.
func TestCaseMatchesPython(t *testing.T) {
	tab := readPyCase(t)
	bad := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 20 {
			t.Errorf(format, args...)
		}
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r < 0xE000 {
			continue
		}
		s := string(r)
		want, ok := tab.lower[r]
		if !ok {
			want = s
		}
		if got := PyLower(s); got != want {
			fail("PyLower(%U) = %q, Python %q", r, got, want)
		}
		want, ok = tab.upper[r]
		if !ok {
			want = s
		}
		if got := PyUpper(s); got != want {
			fail("PyUpper(%U) = %q, Python %q", r, got, want)
		}
		if got := isCaseIgnorable(r); got != tab.ignorable[r] {
			fail("isCaseIgnorable(%U) = %v, Python %v", r, got, tab.ignorable[r])
		}
		if got := isCased(r) && !isCaseIgnorable(r); got != tab.cased[r] {
			fail("isCased(%U) = %v, Python %v", r, got, tab.cased[r])
		}
	}
	for _, s := range tab.samples {
		if got := PyLower(s[0]); got != s[1] {
			fail("PyLower(%q) = %q, Python %q", s[0], got, s[1])
		}
		if got := PyUpper(s[0]); got != s[2] {
			fail("PyUpper(%q) = %q, Python %q", s[0], got, s[2])
		}
		if !IsLower(s[0], s[1]) || !IsUpper(s[0], s[2]) {
			fail("IsLower/IsUpper(%q) false on Python's mappings", s[0])
		}
		// every piece of Python's mappings, whole code points or not, is
		// found in them
		for i := range len(s[1]) + 1 {
			for j := i; j <= len(s[1]); j++ {
				if !ContainsLower(s[0], s[1][i:j]) {
					fail("ContainsLower(%q, %q) false: Python's lower() is %q", s[0], s[1][i:j], s[1])
				}
			}
		}
		for i := range len(s[2]) + 1 {
			for j := i; j <= len(s[2]); j++ {
				if !ContainsUpper(s[0], s[2][i:j]) {
					fail("ContainsUpper(%q, %q) false: Python's upper() is %q", s[0], s[2][i:j], s[2])
				}
			}
		}
	}
	// contains(lower(a), b) and contains(upper(a), b) against Python's
	// mappings of a, for pairs of samples
	for _, a := range tab.samples[:400] {
		for _, b := range tab.samples[:400] {
			for _, sub := range []string{b[0], b[1], b[2]} {
				if got, want := ContainsLower(a[0], sub), strings.Contains(a[1], sub); got != want {
					fail("ContainsLower(%q, %q) = %v, Python %v", a[0], sub, got, want)
				}
				if got, want := ContainsUpper(a[0], sub), strings.Contains(a[2], sub); got != want {
					fail("ContainsUpper(%q, %q) = %v, Python %v", a[0], sub, got, want)
				}
			}
		}
	}
	// the comparisons agree with the mappings on every pair of a subset
	for i, a := range tab.samples[:300] {
		for _, b := range tab.samples[:300] {
			checkComparisons(t, a[0], b[0])
			checkComparisons(t, a[0], b[1])
		}
		if i%50 == 0 {
			checkComparisons(t, a[0], strings.ToUpper(a[0]))
		}
	}
}

// checkComparisons: EqualLower, EqualUpper, IsLower and IsUpper give what
// comparing the mapped strings gives.
func checkComparisons(t *testing.T, a, b string) {
	t.Helper()
	if got, want := EqualLower(a, b), PyLower(a) == PyLower(b); got != want {
		t.Fatalf("EqualLower(%q, %q) = %v, want %v", a, b, got, want)
	}
	if got, want := EqualUpper(a, b), PyUpper(a) == PyUpper(b); got != want {
		t.Fatalf("EqualUpper(%q, %q) = %v, want %v", a, b, got, want)
	}
	if got, want := IsLower(a, b), PyLower(a) == b; got != want {
		t.Fatalf("IsLower(%q, %q) = %v, want %v", a, b, got, want)
	}
	if got, want := IsUpper(a, b), PyUpper(a) == b; got != want {
		t.Fatalf("IsUpper(%q, %q) = %v, want %v", a, b, got, want)
	}
	if got, want := ContainsLower(a, b), strings.Contains(PyLower(a), b); got != want {
		t.Fatalf("ContainsLower(%q, %q) = %v, want %v", a, b, got, want)
	}
	if got, want := ContainsUpper(a, b), strings.Contains(PyUpper(a), b); got != want {
		t.Fatalf("ContainsUpper(%q, %q) = %v, want %v", a, b, got, want)
	}
}

func TestCaseComparisons(t *testing.T) {
	for _, c := range [][2]string{
		{"Yusuf", "yusuf"}, {"Yusuf", "YUSUF"}, {"Yusuf", "Yusu"}, {"", ""}, {"a", ""}, {"Straße", "STRASSE"},
		{"ΟΔΟΣ", "οδος"}, {"ΟΔΟΣ", "οδοσ"}, {"İ", "i̇"}, {"İ", "i"}, {"K", "k"}, {"\xff", "\ufffd"},
		{"ﬁ", "FI"}, {"ǅ", "ǆ"}, {"ΑΣ'", "ας'"}, {"abcΣ", "ABCς"},
		{"İstanbul", "\u0307s"}, {"xİ", "i"}, {"ΟΔΟΣ ΟΔΟΣ", "σ ο"}, {"ΟΔΟΣ ΟΔΟΣ", "ς ο"}, {"straße", "SS"},
		{"Zoë K", "ë k"}, {"\xffA", "\xbda"}, {"abc", "bcd"}, {"ABC", "b"},
		// mappings that are ASCII from fewer bytes (EqualLower's and
		// EqualUpper's test of lengths)
		{"\u212a", "k"}, {"\u212a", "K"}, {"\u212a\u212a", "kk"}, {"ſ", "S"}, {"ſ", "s"}, {"ı", "I"}, {"ﬃ", "FFI"}, {"ﬅ", "ST"}, {"ß", "SS"}, {"Kelvin", "\u212aelvin"},
	} {
		checkComparisons(t, c[0], c[1])
		checkComparisons(t, c[1], c[0])
	}
	if !EqualLower("Ethan", "ETHAN") || EqualLower("Ethan", "Ethen") || !IsLower("ΟΔΟΣ", "οδος") || !EqualUpper("straße", "STRASSE") {
		t.Error("basic comparisons wrong")
	}
}

func TestCaseComparisonsAllocateNothing(t *testing.T) {
	for _, c := range [][2]string{{"Ethan", "ETHAN"}, {"ΟΔΟΣ Zoë", "οδος zoë"}, {"Straße", "STRASSE"}} {
		if n := testing.AllocsPerRun(100, func() {
			EqualLower(c[0], c[1])
			EqualUpper(c[0], c[1])
			IsLower(c[0], c[1])
			IsUpper(c[0], c[1])
			ContainsLower(c[0], c[1])
			ContainsUpper(c[0], c[1])
		}); n != 0 {
			t.Errorf("%q: %v allocations", c, n)
		}
	}
}

func FuzzCaseComparisons(f *testing.F) {
	f.Add("Yusuf", "yusuf")
	f.Add("ΟΔΟΣ'.", "οδος'.")
	f.Add("İß", "i̇SS")
	f.Fuzz(func(t *testing.T, a, b string) { checkComparisons(t, a, b) })
}
