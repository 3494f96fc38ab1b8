// Package templates holds the document templates that worldc renders, embedded
// so the compiler binary carries them.
package templates

import (
	"bytes"
	"embed"
	"text/template"
)

// Policy is the text/template for a world's visible policy document
// (policy.md) when the spec gives none (`policy from "file"` is shown as it
// is instead). It is executed with a value that has the fields Title, Name,
// Industry, Country, Currency, Today and Rules (the policy texts of the
// invariants, in declaration order). Invariants are not checked when a tool
// runs (only a tool's own require can refuse a call), which is what the
// template tells the agent.
//
//go:embed policy.md.tmpl
var Policy string

// PythonClient is the bundle's Python client for the JSON episode API
// (client/worldc_client.py), standard library only.
//
//go:embed worldc_client.py
var PythonClient string

// VerlTool is the bundle's verl tool class and reward function
// (client/worldc_verl.py, beside the client it uses): the class that the
// bundle's trainers/verl/<world>.tool_config.yaml names.
//
//go:embed worldc_verl.py
var VerlTool string

//go:embed bundle_readme.md.tmpl
var bundleReadme string

var bundleReadmeTmpl = template.Must(template.New("bundle_readme.md.tmpl").Parse(bundleReadme))

// BundleData is what the bundle README is rendered from.
type BundleData struct {
	Name      string
	Worlds    []BundleWorld // at least one
	GoVersion string        // the Go toolchain the binary was built with
}

// BundleWorld is a row of the README's table of worlds.
type BundleWorld struct {
	Name, Title  string
	Tools, Tasks int
	Graph        string // the picture of its tool-dependency graph, "" for none
}

// BundleReadme renders a bundle's README.md.
func BundleReadme(d BundleData) ([]byte, error) {
	var buf bytes.Buffer
	if err := bundleReadmeTmpl.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Author holds the prompts of the authoring loop (internal/author), each a
// text/template whose first line declares its version
// (`{{- /* version: author-1 */ -}}`), and what they are built from:
//
//   - system.md.tmpl: the system prompt (the language, grammar, validators,
//     the gate's rules, an example world);
//   - author.md.tmpl: the first request for a brief;
//   - repair.md.tmpl: a request to repair a spec, with its findings;
//   - brief.md.tmpl: a request for a brief from a taxonomy sample;
//   - taxonomy.json: the industries, countries, capabilities and
//     difficulties that `worldc briefs` samples;
//   - example.world: the example world of the system prompt, a copy of one
//     of testdata/worlds (a test keeps it identical).
//
//go:embed author
var Author embed.FS
