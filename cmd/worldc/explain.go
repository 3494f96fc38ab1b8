package main

import (
	"fmt"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
)

type explainCmd struct {
	Code string `arg:"" help:"A diagnostic code, such as W011."`
}

// Run prints the validator behind a code: name, doc, hint, and its failing
// example with the diagnostics the example produces.
func (c *explainCmd) Run(sys *stdio) error {
	code := diag.Code(strings.ToUpper(strings.TrimSpace(c.Code)))
	v, ok := compiler.LookupValidator(code)
	if !ok {
		return usagef("unknown diagnostic code %q (see 'worldc validators')", c.Code)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n\n%s\n\nHint: %s\n", v.Code, v.Name, v.Doc, v.Hint)
	if example, err := compiler.Example(v.Code); err == nil {
		const name = "example.world"
		fmt.Fprintf(&b, "\nExample (%s):\n\n%s", name, indent(example, "    "))
		if _, diags := compiler.CheckSource(name, []byte(example), compiler.WithData(compiler.ExampleFiles())); len(diags) > 0 {
			fmt.Fprintf(&b, "\nworldc check %s reports:\n\n%s", name, indent(diags.Text(), "    "))
		}
	}
	_, err := fmt.Fprint(sys.stdout, b.String())
	return err
}

// indent prefixes every non-empty line of s and ends it with a newline.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
