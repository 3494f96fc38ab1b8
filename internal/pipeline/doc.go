// Package pipeline is the one way specs become vetted worlds: read the
// specs, check them (compiler), refuse two specs that define one world,
// generate their packages (gen), plan and write the output directory and
// its module (output), and run the executability gate on them (gate), with
// the verdict cache (cache) and shards for corpora.
//
// Every command that turns specs into worlds goes through it — build, gen,
// vet, bundle and the authoring loop — so that each rule (what is read,
// what may be written or removed, when two specs clash, when a cached
// verdict holds) is kept in one place. Commands keep their flags, their
// output and their exit codes; they learn what happens through Events.
package pipeline
