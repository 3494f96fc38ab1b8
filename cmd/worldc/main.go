// Command worldc compiles world specs into typed Go environment packages.
//
// Usage:
//
//	worldc check [--json] PATH...          report diagnostics
//	worldc fmt [-l] [-w] PATH...           format specs canonically
//	worldc gen [-o DIR] [--check] PATH...  check and generate world packages
//	worldc vet [DIR|PATTERN...]            the executability gate on generated packages
//	worldc build [-o DIR] PATH...          check, generate and vet: the main job
//	worldc bundle -o DIR PATH...           a bundle for trainers: server binary, schemas, tasks
//	worldc report [-o FILE] REPORT...      an HTML page of gate reports (report merge: join shards)
//	worldc synth -n N -o DIR               a synthetic corpus of valid worlds
//	worldc author [-o OUT] BRIEFS...       write worlds from briefs with an LLM
//	worldc explain CODE                    document a diagnostic code
//	worldc validators [--json]             list the structural validators
//	worldc grammar                         print the grammar in EBNF
//	worldc version                         worldc, Go and runtime versions
//
// A PATH is a spec file, a directory (every *.world below it) or dir/...;
// "-" reads standard input. Exit status: 0 success, 1 problems found in the
// inputs, 2 bad usage.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], newStdio()))
}
