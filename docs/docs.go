// Package docs embeds the documentation that worldc itself needs: the
// language reference goes into the prompts of the authoring loop
// (internal/author), so that what an LLM reads is what people read.
package docs

import _ "embed"

// Language is docs/language.md, the reference of the world language.
//
//go:embed language.md
var Language string
