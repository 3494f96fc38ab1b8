package text

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain, ünïcode €":  "plain, ünïcode €",
		"a\nb\tc\r":         `a\nb\tc\r`,
		"\x1b[2J\x07\u0085": `\x1b[2J\a\u0085`,
		"bad \xff byte":     `bad \xff byte`,
		"8-bit CSI \x9b2J":  `8-bit CSI \x9b2J`,
		"a real \ufffd":     "a real \ufffd",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 worlds", 1: "1 world", 2: "2 worlds"} {
		if got := Plural(n, "world"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
