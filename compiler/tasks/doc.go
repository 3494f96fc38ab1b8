// Package tasks synthesises tasks for a checked world: tasks made by
// construction from what the checker knows of the world and verified by
// executing them with the compile-time evaluator (compiler/eval), written
// back as ordinary `task` blocks of the spec (`worldc tasks`).
//
// # The dependency graph
//
// BuildGraph derives the tool-dependency graph from the types and bodies
// of the tools: which parameters name records of which entity, which
// entities each result shows, which fields each tool's requires read and
// which it writes (see Graph). The sampler walks the same facts.
//
// # Origins
//
//   - dag: a chain of dependent writes from the world's start state: a
//     first write (tools no kept task covers yet drawn first), then writes
//     that take a record the chain touched or created, or whose requires
//     read a field it wrote. Arguments come from the state: the ids of the
//     records involved, the values of fields of the same name in the
//     records the other arguments name (and those they refer to), the
//     constants and fields the tool compares a parameter with, fresh
//     values of the same form for parameters that must be new (a unique
//     code), free text for reasons and notes. A write that breaks an
//     always-invariant is not taken; one that leaves a plain invariant
//     broken must be repaired by later writes (or by a write moved before
//     it) that the policy implies — the words do not ask for them. A
//     chain is kept only when every call succeeds and every invariant
//     holds at the end (always-invariants after each call).
//   - program: the same write on every record of a group (the records a
//     ref field ties to one anchor record), or on those of them whose enum
//     or bool field has a value: the agent lists the group and decides on
//     each record; the golden solution is the unrolled loop. Or a program
//     with a branch (branch.go): over a group a search lists by a ref,
//     enum or bool filter (group.go), a condition on each record — a
//     number or date above a threshold the words state, an enum or bool
//     value — chooses between two writes, or a write and none.
//   - solver: one write whose record for one parameter is chosen among a
//     group's, each tried with the evaluator (it must succeed and keep
//     every invariant and rule), under an optional constraint of the
//     words, by an objective (the lowest or highest of a number field, or
//     the only feasible one), found by exhaustive search; two optimal
//     candidates drop the draw (solver_tie).
//   - question: a count, which records (a list of their ids or names,
//     for a group of at most maxWhich), a total, the name of the record
//     with the highest or lowest value, a field of a record; the rubric
//     is `answer EXPR` over the state and `unchanged`, the solution the
//     reads that show every value the answer is computed from
//     (checkAnswer).
//   - refusal: a request a require refuses (the golden solution makes the
//     call and expects its failure message) or that the policy forbids (the
//     call would succeed but break an invariant; the words say to change
//     nothing else, and the solution does not make it). The rubric is
//     `unchanged`.
//
// # Task seeds: distractors
//
// A world's seed rarely holds two records a lookup could confuse, so a
// share of the chains and refusals are seeded draws (distract.go): one
// record the words will find by a search (the target) gets one or two
// copies in the task's own `seed { … }`, which keep every value its
// entity's finders filter by (the same customer name, the same claim)
// and differ in one other field (a city, a status, a date, an amount),
// drawn from the values the world's records of that field have (so
// within every bound), and in their unique values, new ones of the same
// form (a near-identical claim number, another e-mail), with new ids of
// the world's form. The task's start state (the world seed and the
// copies) must break no invariant. The draw's first write acts on the
// target (or a copy), the draw runs on that start state, its lookups
// prefer the filters whose results hold the copies, and the words tell
// the record apart by a field only it has among the results — a unique
// value last. A draw whose lookups do not return every copy is dropped
// (distractor_unused). Profile.Distractors counts them with the other
// records the lookups return; two make a task hard.
//
// # Words and the dataflow check
//
// Every record a write acts on is grounded: created by an earlier call,
// named by a key users know (one no read tool finds from other fields),
// or by its id when no read tool finds records of its entity at all,
// held by a ref field of a record the task identified, or found by a read
// tool from values of its fields (a search's filters, a custom finder's
// parameters), executed on the state where the task needs it, with a
// field that tells it apart from the other records found (distractors).
// The lookups go into the golden solution before the write. The words
// are written from templates (each tool's doc, the records as a user
// identifies them, the values a user gives) and marked as such
// (`meta { instruction_source: "template" }`, Meta.InstructionSource).
// A dataflow check then verifies, independently of how the words were
// made, that every argument of the golden solution is given by the words
// or was shown by an observation of an earlier call, and that no internal
// id (of a record users do not know by its id, or of the form the world
// gives new records) appears in the words. A write whose outcome another
// writing tool's words describe (a ticket resolved or closed) has its
// end state said in the words, and the check requires it.
//
// Words written by another writer — an LLM (internal/taskwords) — are
// asked for with Result.WordsRequests, held to the same check with
// Result.CheckWords and put in with Result.SetWords, which marks them
// `instruction_source: "llm"` and writes the spec again.
//
// # Rubrics
//
// A chain's or a program's rubric comes from the state diff: each record
// created or changed asserted whole, each deleted one asserted gone,
// `unchanged except` those records (a collateral write fails the task),
// and the invariants whose records the run wrote. It is false at the
// start and reaches 1 exactly at the expected final state.
//
// # Distinctness, coverage, verification
//
// Candidates with the canonical form of a kept one (solution and rubric),
// or with its tool sequence over the same records, are dropped. N of the
// candidates are kept (those whose writing tools other tasks cover are
// dropped first) and the written spec is checked as a whole
// (compiler.CheckSource): W014 and W021 replay every golden solution with
// the evaluator's grader; a task the check refuses is dropped, counted
// under its code, and replaced by the next candidate. Everything is
// deterministic for a seed: the same spec and seed give the same bytes.
package tasks
