// Package runtime is the small library every generated worldc environment
// package imports. A compiled world is plain Go code; this package supplies
// the pieces that are the same in every world.
//
// # The model
//
// A world's state is a set of tables, one per entity, tied together by one
// [Journal]:
//
//	type State struct {
//		j         *runtime.Journal
//		Customers *runtime.Table[*Customer]
//		Invoices  *runtime.Table[*Invoice]
//	}
//
// A [Table] keeps rows keyed by string ID in insertion order. Tables are
// copy-on-write: a table is an immutable shared base plus a small private
// overlay of the rows changed since. [Table.Clone] copies only the overlay,
// so resetting an episode to a seed of 100,000 rows costs as much as to a
// seed of 10; [Journal.Freeze] folds the overlays of a state into new bases
// (once, when a seed has been built). Rows returned by [Table.Get] and
// [Table.All] are shared and must not be modified; [Table.Mut] returns a
// private copy that may be. The journal is the state's undo log and does
// the state-wide work that needs no row type: [Journal.Freeze],
// [Journal.HashTo] and [Journal.Snapshot].
//
// The generic surface is deliberately small: [Table] (eleven thin methods),
// [Registry] and [Tool]. Every method of a generic type is compiled as a
// small wrapper per type argument in every package that uses it, and the
// executability gate compiles thousands of generated packages.
//
// Agents act through tools. A [Registry] maps tool names to handlers; its
// [Registry.Call] decodes nothing itself but makes every call atomic (the
// state's journal is begun before the handler runs and rolled back if it
// returns an error or panics) and turns the outcome into an [Observation]:
// {"ok":true,"data":…} or {"ok":false,"error":{"code":…,"message":…}}.
// Handlers decode their arguments with [DecodeArgs], which is strict and
// explains every rejection in words an agent can act on. Tool errors are
// [ToolError] values with stable codes (see [CodeUnknownTool] and
// following).
//
// # Without reflection
//
// Generated worlds keep reflection off the path of a tool call: their
// handlers decode arguments with generated decoders over a [JSONReader]
// (falling back to DecodeArgs, for its error, on input they do not take),
// their records encode themselves ([JSONAppender]: the bytes encoding/json
// would write) and write their fields into state hashes ([Hashable],
// [FieldHasher]), and the seed is read by the same generated decoders.
// [Registry.Call] writes an observation once; [Observation.AppendJSON]
// copies it into a server's buffer. lower() and upper() are Python's
// ([PyLower], [PyUpper]), and comparisons of lowered strings build none
// ([EqualLower], [IsLower]).
//
// A handler in generated code reads:
//
//	func markPaid(s *State, raw json.RawMessage) (any, error) {
//		var a MarkPaidArgs // Invoice string `json:"invoice"`
//		if err := runtime.DecodeArgs(raw, &a, "invoice"); err != nil {
//			return nil, err
//		}
//		inv, err := s.Invoices.Mut(a.Invoice) // not_found if missing
//		if err != nil {
//			return nil, err
//		}
//		if inv.Status != InvoiceStatusIssued {
//			return nil, runtime.PreconditionFailed("only issued invoices can be paid")
//		}
//		inv.Status = InvoiceStatusPaid
//		return inv, nil
//	}
//
// Package internal/worldtest is a complete hand-written world in that
// shape.
//
// Records may hold composite values: value records (Go structs, decoded
// strictly by [DecodeRecord]; a variant's case read by [VariantTag]),
// lists (slices) and maps with string keys (Go maps, always visited in key
// order: [InKeyOrder], [SortedKeys]). A row copied by Mut is a deep copy
// ([CloneSlice], [CloneMap], [ClonePtr]), so a write through a path never
// reaches another state; [Appended] never shares a backing array. The
// rubric `unchanged except …` compares states row by row
// ([Journal.ChangedExcept]). Map parameters cannot be expressed in OpenAI's
// strict mode ([StrictSchema]); such tools are offered without it.
//
// Every generated world implements [World], and its episodes implement
// [Episode], so servers and trainers drive all worlds the same way. The
// conformance checks ([Conformance], [CheckSolutions], [CheckDeterminism],
// [CheckIsolation], [CheckBadArguments], [CheckTools]) are what each
// generated package's tests run.
//
// # Determinism
//
// Nothing here reads the wall clock, depends on map iteration order or keeps
// global mutable state. The world's date is a [Clock]; new IDs come from a
// per-table sequence ([Table.NextID]); iteration is in insertion order; the
// [Hasher] digests a state canonically, so a recorded trajectory of [Step]s
// replays ([Replay]) to the same state hashes, call by call.
//
// # Concurrency
//
// A state and its episode are not safe for concurrent use: calls within an
// episode are serialised by the caller. Distinct states may be used
// concurrently even when they were cloned from one frozen seed: a clone
// only reads its source, and the shared base is never written (its row
// digests for hashing are computed once, under a sync.Once).
package runtime
