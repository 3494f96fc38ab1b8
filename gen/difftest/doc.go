// Package difftest holds the differential test between the two
// implementations of the language's semantics: the compile-time evaluator
// (compiler/eval), which the checker uses to validate seeds, rubrics and
// golden solutions, and the generated Go packages (generated/…), which
// agents act in. On every example world they must agree on invariant
// verdicts, rubric scores, observations and states: on the seed, on each
// task's start state, and after each step of each golden solution.
package difftest
