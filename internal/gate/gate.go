// Package gate is the executability gate: it writes the packages the code
// generator produces (only the files whose bytes changed, never outside the
// output directory) and vets them — a fast type-check with go/packages,
// then `go test` — with one verdict per world.
//
// A spec that checks clean but whose package does not build or pass its
// own tests is not a world; the gate is where that is found out, for one
// world or for thousands.
package gate
