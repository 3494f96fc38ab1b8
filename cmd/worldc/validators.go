package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/dsl"
)

type validatorsCmd struct {
	JSON bool `help:"Print the list as a JSON array of {code, name, doc, hint}."`
}

func (c *validatorsCmd) Run(sys *stdio) error {
	vs := compiler.Validators()
	if c.JSON {
		out, err := json.MarshalIndent(vs, "", "  ")
		if err != nil {
			return err
		}
		_, err = sys.stdout.Write(append(out, '\n'))
		return err
	}
	tw := tabwriter.NewWriter(sys.stdout, 0, 0, 2, ' ', 0)
	for _, v := range vs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Code, v.Name, v.Doc)
	}
	return tw.Flush()
}

type grammarCmd struct{}

func (grammarCmd) Run(sys *stdio) error {
	g := dsl.Grammar()
	if len(g) > 0 && g[len(g)-1] != '\n' {
		g += "\n"
	}
	_, err := fmt.Fprint(sys.stdout, g)
	return err
}
