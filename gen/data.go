package gen

// The data files of a world package: what its code reads at run time
// rather than compiles. A description, a schema or a list of probe values
// written as Go would be a composite literal the compiler type-checks,
// lays out and, for every []byte in it, initialises with code, in every
// world; as an embedded file it costs nothing to compile and reads as
// the JSON it is. Each file holds one entry per line (or per few lines),
// so that a change to the spec shows as a small diff.

import (
	"bytes"
	"encoding/json"
	"fmt"

	toolprobe "github.com/worldc/worldc/internal/probe"
)

// jsonText is v as compact JSON without HTML escaping (`<` stays `<`),
// with no trailing newline: for strings and string lists, which always
// encode.
func jsonText(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic(fmt.Sprintf("gen: %T does not encode: %v", v, err)) // strings only
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// rawJSON checks that raw is one valid JSON value, as the runtime will
// read it back byte for byte (a json.RawMessage).
func rawJSON(what string, raw []byte) ([]byte, error) {
	if !json.Valid(raw) {
		return nil, fmt.Errorf("gen: %s is not valid JSON: %.80s", what, raw)
	}
	return raw, nil
}

// toolsJSON renders tools.json: each tool's name, service, description and
// parameter schema, in declaration order, one tool per line; the registry
// (runtime.RegistryOf) pairs them with the handlers in the same order.
func (g *generator) toolsJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, t := range g.w.Tools {
		schema, err := rawJSON("the parameter schema of "+t.Name, []byte(g.schema(t)))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, `{"name":%s,"service":%s,"description":%s,"parameters":%s}`,
			jsonText(t.Name), jsonText(t.Service.Name), jsonText(g.toolDescription(t)), schema)
		if i < len(g.w.Tools)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}

// probesJSON renders probes.json, the conformance probes of the tools
// (runtime.DecodeProbes reads it): per tool, the candidate values of each
// parameter (one parameter per line), the require messages in order, and
// whole example arguments (one per line).
func (g *generator) probesJSON() ([]byte, error) {
	probes := toolprobe.Probes(g.w)
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, tp := range probes {
		fmt.Fprintf(&b, `{"tool":%s,"params":[`, jsonText(tp.Tool))
		for j, p := range tp.Params {
			fmt.Fprintf(&b, "\n  {\"name\":%s,\"candidates\":[", jsonText(p.Name))
			for k, c := range p.Candidates {
				c, err := rawJSON(fmt.Sprintf("a candidate of %s(%s)", tp.Tool, p.Name), c)
				if err != nil {
					return nil, err
				}
				if k > 0 {
					b.WriteByte(',')
				}
				b.Write(c)
			}
			b.WriteString("]}")
			if j < len(tp.Params)-1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte(']')
		if len(tp.Requires) > 0 {
			fmt.Fprintf(&b, ",\n \"requires\":%s", jsonText(tp.Requires))
		}
		if len(tp.Examples) > 0 {
			b.WriteString(",\n \"examples\":[")
			for k, x := range tp.Examples {
				x, err := rawJSON("an example of "+tp.Tool, x)
				if err != nil {
					return nil, err
				}
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString("\n  ")
				b.Write(x)
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
		if i < len(probes)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}
