// Package templates holds the document templates that worldc renders, embedded
// so the compiler binary carries them.
package templates

import _ "embed"

// Policy is the text/template for a world's visible policy document
// (policy.md). It is executed with a value that has the fields Title, Name,
// Industry, Country, Currency, Today and Rules (the policy texts of the
// invariants, in declaration order).
//
//go:embed policy.md.tmpl
var Policy string
