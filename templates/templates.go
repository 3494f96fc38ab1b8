// Package templates holds the document templates that worldc renders, embedded
// so the compiler binary carries them.
package templates

import _ "embed"

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
