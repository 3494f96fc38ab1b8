// Package templates holds the document templates that worldc renders, embedded
// so the compiler binary carries them.
package templates

import "embed"

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

// Author holds the prompts of the authoring loop (compiler/author), each a
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
