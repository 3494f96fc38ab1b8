// Package author is the authoring loop: it turns business briefs into
// vetted world specs with an LLM behind any OpenAI-compatible
// chat-completions endpoint, and leaves construction traces that are
// training data.
//
// For each brief, Run prompts the model (Prompts), extracts the spec from
// the reply (Extract), checks it in-process (compiler.CheckSource), feeds
// the diagnostics back in a repair prompt until it checks clean, then runs
// the executability gate (Gate, the code `worldc build` runs) and repairs on
// its findings the same way. A brief that never passes is reported and its
// last draft kept as <id>.failed.world, never as <id>.world. Every attempt
// is one JSONL record of OUT/traces/<id>.jsonl (Trace).
//
// The rest of the package works on what the loop leaves: Export writes
// supervision sets from traces, Corrupt applies named corruption operators
// to valid specs (synthetic repair pairs, and a test of the checker), and
// Taxonomy samples briefs and reports a corpus's coverage.
package author
