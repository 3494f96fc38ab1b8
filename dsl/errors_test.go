package dsl

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// parseError parses src and returns its *Error, failing the test if there
// is none or it is of another type.
func parseError(t *testing.T, src []byte) *Error {
	t.Helper()
	f, err := Parse("spec.world", src)
	if err == nil {
		t.Fatalf("no error; parsed %d declarations", len(f.Decls))
	}
	if f != nil {
		t.Errorf("a file came back with the error")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not a *dsl.Error", err, err)
	}
	return e
}

// TestParseErrors pins the message and the position of the mistakes LLMs
// make most.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"missing closing brace at end of file",
			"world w {\n  title \"t\"\n",
			`spec.world:3:1: unexpected end of file (expected "}")`},
		{"missing closing brace of a tool body",
			"service s {\n  tool t() {\n    return 1\n}\n",
			`spec.world:5:1: unexpected end of file (expected "}")`},
		{"extra closing brace",
			"world w {}\n}\n",
			`spec.world:2:1: unexpected token "}"`},
		{"= instead of : in a seed record",
			"seed {\n  crm.Customer acme { name = \"Acme\" }\n}\n",
			`spec.world:2:28: unexpected "=" (fields and arguments are written name: value)`},
		{"= instead of : after a good field",
			"seed {\n  crm.Customer acme { name: \"Acme\", tier = gold }\n}\n",
			`spec.world:2:42: unexpected "=" (fields and arguments are written name: value)`},
		{"= instead of : in a solution call",
			"task t {\n  persona \"p\"\n  instruction \"i\"\n  expect { unchanged }\n  solution { pay(invoice = inv1) }\n}\n",
			`spec.world:5:26: unexpected "=" (fields and arguments are written name: value)`},
		{"unterminated string",
			"world w {\n  title \"Northwind\n}\n",
			`spec.world:2:9: string not closed before the end of the line`},
		{"stray @",
			"world w {\n  title @\"x\"\n}\n",
			`spec.world:2:9: unexpected character '@'`},
		{"semicolon",
			"service s { entity E { a int; b int } }",
			`spec.world:1:29: unexpected character ';'`},
		{"&& instead of and",
			"service s { tool t() { return a && b } }",
			`spec.world:1:33: unexpected character '&'`},
		{"single quotes",
			"world w { title 'x' }",
			`spec.world:1:17: unexpected character '\''`},
		{"instruction before persona",
			"task t {\n  instruction \"i\"\n  persona \"p\"\n  expect { unchanged }\n}\n",
			`spec.world:2:3: unexpected token "instruction" (expected "persona")`},
		{"solution before expect",
			"task t {\n  persona \"p\"\n  instruction \"i\"\n  solution { f() }\n  expect { unchanged }\n}\n",
			`spec.world:4:3: unexpected token "solution" (expected "expect")`},
		{"errors stay in order",
			"world w {}\n}\ntask t {\n  persona \"p\"\n  instruction \"i\"\n  expect { unchanged }\n  solution { pay(invoice = inv1) }\n}\n",
			`spec.world:2:1: unexpected token "}"`},
		{"= instead of == in a condition",
			"service s {\n  tool t() {\n    return count(x in E where x.a = 1)\n  }\n}\n",
			`spec.world:3:35: unexpected "=" (compare with ==)`},
		{"= instead of : in an insert",
			"service s {\n  tool t() {\n    insert E { a = 1 }\n  }\n}\n",
			`spec.world:3:18: unexpected "=" (fields and arguments are written name: value)`},
		{"invariant without policy",
			"invariant i {\n  for x in E\n  require x.ok\n}\n",
			`spec.world:2:3: unexpected token "for" (expected "policy")`},
		{"require without else",
			"service s {\n  tool t() {\n    require a.b.c > 0 \"message\"\n  }\n}\n",
			`spec.world:3:23: unexpected token "message" (expected "else")`},
		{"require without else in a later tool",
			"service s {\n  entity E { a int }\n  tool t() {\n    require a > 0 \"message\"\n  }\n}\n",
			`spec.world:4:19: unexpected token "message" (expected "else")`},
		{"let without a name after another statement",
			"service s {\n  tool t() {\n    return 1\n    let = 3\n  }\n}\n",
			`spec.world:4:9: unexpected token "=" (expected <ident>)`},
		{"colon between field name and type in a later field",
			"service s {\n  entity E {\n    a int\n    b: int\n  }\n}\n",
			`spec.world:4:6: unexpected token ":" (expected Type)`},
		{"= instead of : in a later seed record",
			"seed {\n  a.B x { n: 1 }\n  a.B y { n: 1, m = 2 }\n}\n",
			`spec.world:3:19: unexpected "=" (fields and arguments are written name: value)`},
		{"colon between field name and type",
			"service s { entity E { a: int } }",
			`spec.world:1:25: unexpected token ":" (expected Type)`},
		{"unknown standard tool kind",
			"service s { tool t: find E }",
			`spec.world:1:21: unexpected token "find" (expected StdTool)`},
		{"bad escape",
			"world w { title \"a\\qb\" }",
			`spec.world:1:19: invalid escape \q in string`},
		{"meta entry without a colon",
			"task t {\n  persona \"p\"\n  instruction \"i\"\n  meta {\n    split [\"a\"]\n  }\n  expect { unchanged }\n}\n",
			`spec.world:5:11: unexpected token "[" (expected ":")`},
		{"meta entry without a colon after a good one",
			"task t {\n  persona \"p\"\n  instruction \"i\"\n  meta { a: 1, b \"x\" }\n  expect { unchanged }\n}\n",
			`spec.world:4:18: unexpected token "x" (expected ":")`},
		{"meta after the seed",
			"task t {\n  persona \"p\"\n  instruction \"i\"\n  seed {}\n  meta { a: 1 }\n  expect { unchanged }\n}\n",
			`spec.world:5:3: unexpected token "meta" (expected "expect")`},
		{"a string is not an operator or a keyword",
			"service s {\n  tool t(x: string) {\n    require x \"==\" \"a\" \"or\" x \"==\" \"b\" else \"no\"\n  }\n}\n",
			`spec.world:3:15: unexpected token "==" (expected "else")`},
		{"set without a value",
			"service s {\n  tool t(x: ref E) {\n    set x.n = }\n  }\n}\n",
			`spec.world:3:15: unexpected token "}" (expected Expr)`},
		{"escapes that are not UTF-8",
			"world w { title \"\\xff\" }",
			`spec.world:1:17: string escapes do not form valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseError(t, []byte(tt.src)).Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestParseHostile feeds input a broken or malicious generation could
// produce: each must give an *Error quickly, never a panic or a hang.
func TestParseHostile(t *testing.T) {
	deep := func(open, close string, n int) []byte {
		return []byte("service s { tool t() { return " + strings.Repeat(open, n) + "x" + strings.Repeat(close, n) + " } }")
	}
	elseIfs := func(n int) []byte {
		return []byte("service s { tool t() { if a {}" + strings.Repeat(" else if a {}", n) + " } }")
	}
	tests := []struct {
		name string
		src  []byte
		want string // a substring of the message
	}{
		{"over MaxFileSize", []byte("// " + strings.Repeat("x", MaxFileSize)), "the limit is 8388608"},
		{"parentheses deeper than MaxNesting", deep("(", ")", MaxNesting+1), "nesting deeper than 64"},
		{"brackets 100k deep", deep("[", "]", 100_000), "nesting deeper than 64"},
		{"braces 100k deep", []byte(strings.Repeat("world w {", 100_000)), "nesting deeper than 64"},
		{"not 100k times", []byte("service s { tool t() { return " + strings.Repeat("not ", 100_000) + "x } }"), "prefix operators"},
		{"minus 100k times", []byte("service s { tool t() { return " + strings.Repeat("- ", 100_000) + "x } }"), "prefix operators"},
		{"minus without spaces", []byte("service s { tool t() { return " + strings.Repeat("-", 100) + "x } }"), "prefix operators"},
		{"else if 100k times", elseIfs(100_000), "else if"},
		{"conditional in then 10k deep", []byte("service s { tool t() { return " + strings.Repeat("if a then ", 10_000) + "1" + strings.Repeat(" else 2", 10_000) + " } }"), "conditional expressions nested deeper than 64"},
		{"conditional in condition 10k deep", []byte("service s { tool t() { return " + strings.Repeat("if ", 10_000) + "a" + strings.Repeat(" then 1 else 2", 10_000) + " } }"), "conditional expressions nested deeper than 64"},
		{"conditional else if 100k times", []byte("service s { tool t() { return if a then 1" + strings.Repeat(" else if a then 1", 100_000) + " else 2 } }"), "else if"},
		{"NUL byte", []byte("world w {\n  title \"a\x00b\"\n}"), "spec.world:2:11: NUL byte"},
		{"NUL byte in a comment", []byte("// \x00\nworld w {}"), "NUL byte"},
		{"invalid UTF-8", []byte("world w {\n  title \"\xff\"\n}"), "spec.world:2:10: invalid UTF-8 byte 0xff"},
		{"truncated UTF-8 sequence", []byte("world w { title \"\xe6\x97\" }"), "invalid UTF-8"},
		{"string with a raw newline", []byte("world w { title \"a\nb\" }"), "string not closed"},
		{"unterminated string at end of file", []byte(`world w { title "abc`), "string not closed"},
		{"long unterminated string", []byte("world w { title \"" + strings.Repeat("a", 1<<20)), "string not closed"},
		{"backtick string", []byte("world w { title `x` }"), "unexpected character '`'"},
		{"comment opener /*", []byte("/* c */ world w {}"), "unexpected token \"/\""},
		{"BOM", []byte("\ufeffworld w {}"), "spec.world:1:1: the spec starts with a byte order mark (U+FEFF); save it as UTF-8 without one"},
		{"only garbage", []byte("\x01\x02\x03"), "unexpected character"},
		{"keyword soup", []byte("world service entity tool seed task expect solution"), "unexpected"},
		{"more than MaxTokens", []byte("service s { tool t() { return a" + strings.Repeat("+a", MaxTokens/2) + " } }"), "spec.world:1:250022: spec has more than 250000 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			e := parseError(t, tt.src)
			if !strings.Contains(e.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", e.Error(), tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestParseHostileButValid is input that is odd but well formed: it must
// parse, quickly, and format to a fixed point.
func TestParseHostileButValid(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
	}{
		{"nesting at MaxNesting", []byte("service s { tool t() { return " + strings.Repeat("(", MaxNesting-3) + "x" + strings.Repeat(")", MaxNesting-3) + " } }")},
		{"MaxNesting prefix operators", []byte("service s { tool t() { return " + strings.Repeat("not ", MaxNesting) + "x } }")},
		{"a + a 10k times", []byte("service s { tool t() { return a" + strings.Repeat(" + a", 10_000) + " } }")},
		{"a and a 10k times", []byte("service s { tool t() { return a" + strings.Repeat(" and a", 10_000) + " } }")},
		{"x.f 10k times", []byte("service s { tool t() { return x" + strings.Repeat(".f", 10_000) + " } }")},
		{"prefix operators in nested parentheses", []byte("service s { tool t() { return " + strings.Repeat("not (- ", 30) + "x" + strings.Repeat(")", 30) + " } }")},
		{"else if MaxNesting times", []byte("service s { tool t() { if a {}" + strings.Repeat(" else if a {}", MaxNesting) + " } }")},
		{"conditionals MaxNesting deep", []byte("service s { tool t() { return " + strings.Repeat("if a then ", MaxNesting) + "1" + strings.Repeat(" else 2", MaxNesting) + " } }")},
		{"1k fields", []byte("service s { entity E {" + strings.Repeat(" f int", 1_000) + " } }")},
		{"100k comments", []byte(strings.Repeat("// c\n", 100_000) + "world w {}")},
		{"long string", []byte("world w { title \"" + strings.Repeat("ab\\\"", 1<<18) + "\" }")},
		{"long identifier", []byte("world " + strings.Repeat("w", 1<<20) + " {}")},
		{"identifiers init, _ and type", []byte("world init { _ \"x\" type 1 }")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			checkFormatProperties(t, tt.name, tt.src)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestParseLongChain parses a chain of 100k operands once: 200k tokens,
// under MaxTokens, parsed in linear time without deep recursion.
func TestParseLongChain(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about a gigabyte")
	}
	for _, op := range []string{" + "} {
		src := []byte("service s { tool t() { return a" + strings.Repeat(op+"a", 100_000) + " } }")
		start := time.Now()
		f, err := Parse("chain.world", src)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Minute {
			t.Errorf("%q chain took %v", op, d)
		}
		if len(f.tokens) != 200_012 {
			t.Errorf("got %d tokens", len(f.tokens))
		}
	}
}

// TestParseErrorOrder checks which of several problems Parse reports: a
// problem the scanner finds (a character outside the language, a limit) before a
// string that does not decode, that before a syntax error, whatever their
// order in the file.
func TestParseErrorOrder(t *testing.T) {
	deep := strings.Repeat("(", MaxNesting+1)
	tests := []struct{ name, src, want string }{
		{"bad escape, then nesting too deep",
			"world w { title \"\\q\" }\nservice s { tool t() { return " + deep + " } }",
			"nesting deeper than 64 levels"},
		{"bad escape, then a stray character",
			"world w { title \"\\q\" }\n@",
			"spec.world:2:1: unexpected character '@'"},
		{"syntax error, then bad escape",
			"world w { title }\nworld v { title \"\\q\" }",
			"spec.world:2:18: invalid escape \\q in string"},
		{"two bad escapes",
			"world w { title \"\\q\" }\nworld v { title \"\\z\" }",
			"spec.world:1:18: invalid escape \\q in string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseError(t, []byte(tt.src)).Error(); !strings.Contains(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
