// Command worldc compiles world specs into typed Go environment packages.
//
// Usage:
//
//	worldc check [--json] PATH...      report diagnostics
//	worldc fmt [-l] [-w] PATH...       format specs canonically
//	worldc explain CODE                document a diagnostic code
//	worldc validators [--json]         list the structural validators
//	worldc grammar                     print the grammar in EBNF
//
// A PATH is a spec file, a directory (every *.world below it) or dir/...;
// "-" reads standard input. Exit status: 0 success, 1 problems found in the
// inputs, 2 bad usage.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], newStdio()))
}
