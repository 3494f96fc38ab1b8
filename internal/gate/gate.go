// Package gate is the executability gate: it vets generated world packages
// — a fast type-check with go/packages, then `go test` (or the worlds'
// conformance checks linked into one test binary per batch) — with one
// verdict per world, and places each failure in the spec it comes from.
//
// A spec that checks clean but whose package does not build or pass its
// own tests is not a world; the gate is where that is found out, for one
// world or for thousands. Writing the packages is internal/output's;
// turning specs into them, internal/pipeline's.
package gate
