// Package worldtest is a small hand-written world in the shape the code
// generator produces, used to test the runtime package end to end: two
// entities in two services with a ref between them, four tools, an
// invariant and a task with a golden solution.
package worldtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/worldc/worldc/runtime"
)

// CustomerTier is the enum of Customer.tier.
type CustomerTier string

// The values of CustomerTier.
const (
	CustomerTierBronze CustomerTier = "bronze"
	CustomerTierSilver CustomerTier = "silver"
	CustomerTierGold   CustomerTier = "gold"
)

var customerTierValues = []string{"bronze", "silver", "gold"}

// UnmarshalJSON accepts only the enum's values.
func (v *CustomerTier) UnmarshalJSON(b []byte) error {
	return runtime.UnmarshalEnum(b, (*string)(v), customerTierValues)
}

// InvoiceStatus is the enum of Invoice.status.
type InvoiceStatus string

// The values of InvoiceStatus.
const (
	InvoiceStatusDraft  InvoiceStatus = "draft"
	InvoiceStatusIssued InvoiceStatus = "issued"
	InvoiceStatusPaid   InvoiceStatus = "paid"
)

var invoiceStatusValues = []string{"draft", "issued", "paid"}

// UnmarshalJSON accepts only the enum's values.
func (v *InvoiceStatus) UnmarshalJSON(b []byte) error {
	return runtime.UnmarshalEnum(b, (*string)(v), invoiceStatusValues)
}

// Customer is a company we bill (service crm).
type Customer struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Tier        CustomerTier  `json:"tier"`
	CreditLimit float64       `json:"credit_limit"`
	Tags        []string      `json:"tags"`
	Since       *runtime.Date `json:"since"`
}

func (r *Customer) clone() *Customer {
	c := *r
	c.Tags = slices.Clone(r.Tags)
	if r.Since != nil {
		d := *r.Since
		c.Since = &d
	}
	return &c
}

// Invoice is a bill to a customer (service billing).
type Invoice struct {
	ID       string        `json:"id"`
	Customer string        `json:"customer"` // ref Customer
	Amount   float64       `json:"amount"`
	Status   InvoiceStatus `json:"status"`
	IssuedOn *runtime.Date `json:"issued_on"`
}

func (r *Invoice) clone() *Invoice {
	c := *r
	if r.IssuedOn != nil {
		d := *r.IssuedOn
		c.IssuedOn = &d
	}
	return &c
}

// State is the world's state.
type State struct {
	j         *runtime.Journal
	Clock     runtime.Clock
	Customers *runtime.Table[*Customer]
	Invoices  *runtime.Table[*Invoice]
}

// NewState returns an empty state.
func NewState() *State {
	j := runtime.NewJournal()
	return &State{
		j:         j,
		Clock:     runtime.Clock{Today: runtime.MustDate("2026-03-14")},
		Customers: runtime.NewTable("Customer", func(r *Customer) string { return r.ID }, (*Customer).clone, j),
		Invoices:  runtime.NewTable("Invoice", func(r *Invoice) string { return r.ID }, (*Invoice).clone, j),
	}
}

// Journal implements runtime.Stateful.
func (s *State) Journal() *runtime.Journal { return s.j }

// Clone returns an independent copy of the state (copy-on-write).
func (s *State) Clone() *State {
	j := runtime.NewJournal()
	return &State{j: j, Clock: s.Clock, Customers: s.Customers.Clone(j), Invoices: s.Invoices.Clone(j)}
}

// Freeze makes the current rows the shared base of later clones.
func (s *State) Freeze() { s.j.Freeze() }

// Hash is the canonical state hash.
func (s *State) Hash() string {
	h := runtime.NewHasher()
	h.WriteValue(s.Clock)
	s.j.HashTo(h)
	return h.Sum()
}

// Snapshot is the state as JSON.
func (s *State) Snapshot() json.RawMessage { return s.j.Snapshot() }

func date(s string) *runtime.Date { d := runtime.MustDate(s); return &d }

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// seedInto inserts the world seed.
func seedInto(s *State) {
	must(s.Customers.Insert(&Customer{ID: "acme", Name: "Acme AG", Tier: CustomerTierSilver, CreditLimit: 50000, Tags: []string{"de"}, Since: date("2020-01-15")}))
	must(s.Customers.Insert(&Customer{ID: "globex", Name: "Globex Corp", Tier: CustomerTierBronze, CreditLimit: 1000}))
	must(s.Invoices.Insert(&Invoice{ID: "inv1", Customer: "acme", Amount: 1200, Status: InvoiceStatusIssued, IssuedOn: date("2026-03-01")}))
	must(s.Invoices.Insert(&Invoice{ID: "inv2", Customer: "globex", Amount: 300, Status: InvoiceStatusDraft}))
}

// SeedState returns a new frozen state holding the world seed.
func SeedState() *State {
	s := NewState()
	seedInto(s)
	s.Freeze()
	return s
}

// BigState returns a frozen state with n customers and n invoices (for
// benchmarks): customer_1…customer_n, invoice_1…invoice_n.
func BigState(n int) *State {
	s := NewState()
	tiers := []CustomerTier{CustomerTierBronze, CustomerTierSilver, CustomerTierGold}
	statuses := []InvoiceStatus{InvoiceStatusDraft, InvoiceStatusIssued, InvoiceStatusPaid}
	for i := 1; i <= n; i++ {
		must(s.Customers.Insert(&Customer{ID: fmt.Sprintf("customer_%d", i), Name: fmt.Sprintf("Customer %d GmbH", i), Tier: tiers[i%3], CreditLimit: float64(1000 * (i%50 + 1)), Tags: []string{"t"}}))
	}
	for i := 1; i <= n; i++ {
		must(s.Invoices.Insert(&Invoice{ID: fmt.Sprintf("invoice_%d", i), Customer: fmt.Sprintf("customer_%d", i%n+1), Amount: float64(10 * (i%97 + 1)), Status: statuses[i%3], IssuedOn: date("2026-02-01")}))
	}
	s.Freeze()
	return s
}

// --- tools ---

// GetInvoiceArgs are the arguments of get_invoice.
type GetInvoiceArgs struct {
	ID string `json:"id"`
}

func getInvoice(s *State, raw json.RawMessage) (any, error) {
	var a GetInvoiceArgs
	if err := runtime.DecodeArgs(raw, &a, "id"); err != nil {
		return nil, err
	}
	return s.Invoices.Lookup(a.ID)
}

// FindInvoicesArgs are the arguments of find_invoices (customer matches by
// substring).
type FindInvoicesArgs struct {
	Customer *string        `json:"customer"`
	Status   *InvoiceStatus `json:"status"`
}

func findInvoices(s *State, raw json.RawMessage) (any, error) {
	var a FindInvoicesArgs
	if err := runtime.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	out := []*Invoice{}
	for r := range s.Invoices.All() {
		if a.Customer != nil && !strings.Contains(r.Customer, *a.Customer) {
			continue
		}
		if a.Status != nil && r.Status != *a.Status {
			continue
		}
		out = append(out, r)
		if len(out) == 50 {
			break
		}
	}
	return out, nil
}

// MarkPaidArgs are the arguments of mark_paid.
type MarkPaidArgs struct {
	Invoice string `json:"invoice"`
}

func markPaid(s *State, raw json.RawMessage) (any, error) {
	var a MarkPaidArgs
	if err := runtime.DecodeArgs(raw, &a, "invoice"); err != nil {
		return nil, err
	}
	inv, err := s.Invoices.Mut(a.Invoice)
	if err != nil {
		return nil, err
	}
	if !(inv.Status == InvoiceStatusIssued) {
		return nil, runtime.PreconditionFailed("only issued invoices can be paid")
	}
	inv.Status = InvoiceStatusPaid
	return inv, nil
}

// CreateInvoiceArgs are the arguments of create_invoice.
type CreateInvoiceArgs struct {
	Customer string        `json:"customer"`
	Amount   float64       `json:"amount"`
	IssuedOn *runtime.Date `json:"issued_on"`
}

func createInvoice(s *State, raw json.RawMessage) (any, error) {
	var a CreateInvoiceArgs
	if err := runtime.DecodeArgs(raw, &a, "customer", "amount"); err != nil {
		return nil, err
	}
	if !s.Customers.Has(a.Customer) {
		return nil, runtime.NotFound("Customer", a.Customer)
	}
	if !(a.Amount >= 0) {
		return nil, runtime.ConstraintViolation("Invoice.amount must be >= 0, got %v", a.Amount)
	}
	inv := &Invoice{ID: s.Invoices.NextID("invoice"), Customer: a.Customer, Amount: a.Amount, Status: InvoiceStatusIssued, IssuedOn: a.IssuedOn}
	if inv.IssuedOn == nil {
		d := s.Clock.Today
		inv.IssuedOn = &d
	}
	if err := s.Invoices.Insert(inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// Registry holds the world's tools.
var Registry = newRegistry()

func newRegistry() *runtime.Registry[*State] {
	r := runtime.NewRegistry[*State]()
	r.Register(runtime.Tool[*State]{Name: "get_invoice", Service: "billing", Description: "Get an invoice by id.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"the invoice id"}},"required":["id"],"additionalProperties":false}`),
		Handler:    getInvoice})
	r.Register(runtime.Tool[*State]{Name: "find_invoices", Service: "billing", Description: "Find invoices by customer or status (up to 50).",
		Parameters: json.RawMessage(`{"type":"object","properties":{"customer":{"type":["string","null"]},"status":{"type":["string","null"],"enum":["draft","issued","paid",null]}},"required":["customer","status"],"additionalProperties":false}`),
		Handler:    findInvoices})
	r.Register(runtime.Tool[*State]{Name: "mark_paid", Service: "billing", Description: "Mark an issued invoice as paid.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"invoice":{"type":"string"}},"required":["invoice"],"additionalProperties":false}`),
		Handler:    markPaid})
	r.Register(runtime.Tool[*State]{Name: "create_invoice", Service: "billing", Description: "Issue a new invoice to a customer.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"},"issued_on":{"type":["string","null"],"format":"date"}},"required":["customer","amount","issued_on"],"additionalProperties":false}`),
		Handler:    createInvoice})
	return r
}

// --- invariants, tasks, the World ---

// Violations checks the invariant within_credit: an issued invoice does not
// exceed its customer's credit limit.
func Violations(s *State) []runtime.Violation {
	var out []runtime.Violation
	for inv := range s.Invoices.All() {
		if inv.Status != InvoiceStatusIssued {
			continue
		}
		c, ok := s.Customers.Get(inv.Customer)
		if !ok || inv.Amount > c.CreditLimit {
			out = append(out, runtime.Violation{Invariant: "within_credit", Entity: "Invoice", ID: inv.ID,
				Message: fmt.Sprintf("amount %v exceeds the credit limit of customer %q", inv.Amount, inv.Customer)})
		}
	}
	return out
}

type task struct {
	info  runtime.TaskInfo
	seed  func(*State)
	grade func(*State) []runtime.AssertionResult
	start *State // frozen start state
}

func gradeSettle(s *State) []runtime.AssertionResult {
	inv1, _ := s.Invoices.Get("inv1")
	a1 := runtime.AssertionResult{Kind: runtime.AssertExpr, Text: "billing.Invoice[inv1].status == paid", Passed: inv1 != nil && inv1.Status == InvoiceStatusPaid}
	if !a1.Passed && inv1 != nil {
		a1.Detail = fmt.Sprintf("status is %s", inv1.Status)
	}
	found := false
	for r := range s.Invoices.All() {
		if r.Customer == "globex" && r.Amount == 500 && r.Status == InvoiceStatusIssued {
			found = true
		}
	}
	a2 := runtime.AssertionResult{Kind: runtime.AssertExpr, Text: "exists(i in Invoice where i.customer == globex and i.amount == 500 and i.status == issued)", Passed: found}
	a3 := runtime.AssertionResult{Kind: runtime.AssertInvariant, Text: "invariant within_credit", Passed: len(Violations(s)) == 0}
	return []runtime.AssertionResult{a1, a2, a3}
}

var tasks = []*task{{
	info: runtime.TaskInfo{
		ID: "settle_acme", Persona: "Account Manager",
		Instruction: "Acme paid invoice inv1. Record it, then bill Globex 500 EUR.",
		Tags:        runtime.TaskTags{Domain: "ToB/finance/billing", Capabilities: []string{"tool_use"}, Difficulty: []string{"multi_step"}},
		Solution: []runtime.Call{
			{Tool: "mark_paid", Args: json.RawMessage(`{"invoice":"inv1"}`)},
			{Tool: "create_invoice", Args: json.RawMessage(`{"customer":"globex","amount":500}`), Bind: "o"},
			{Tool: "get_invoice", Args: json.RawMessage(`{}`), Uses: []runtime.BoundArg{{Arg: "id", Name: "o"}}},
		},
	},
	seed: func(s *State) {
		must(s.Customers.Insert(&Customer{ID: "initech", Name: "Initech", Tier: CustomerTierGold, CreditLimit: 9000}))
	},
	grade: gradeSettle,
}}

type world struct {
	seed  *State
	tasks []*task
}

// World is the world.
var World runtime.World = newWorld()

func newWorld() *world {
	w := &world{seed: SeedState(), tasks: tasks}
	for _, t := range w.tasks {
		st := w.seed.Clone()
		t.seed(st)
		st.Freeze()
		t.start = st
	}
	return w
}

func (w *world) Info() runtime.WorldInfo {
	return runtime.WorldInfo{Name: "worldtest", Title: "Worldtest GmbH", Industry: "software", Country: "DE", Currency: "EUR", Today: w.seed.Clock.Today}
}

func (w *world) Tools() []runtime.ToolInfo { return Registry.Tools() }

func (w *world) Tasks() []runtime.TaskInfo {
	out := make([]runtime.TaskInfo, len(w.tasks))
	for i, t := range w.tasks {
		out[i] = t.info
	}
	return out
}

func (w *world) Policy() string {
	return "# Worldtest policy\n\nAn issued invoice must not exceed the customer's credit limit.\n"
}

func (w *world) NewEpisode(taskID string) (runtime.Episode, error) {
	if taskID == "" {
		return &Episode{S: w.seed.Clone()}, nil
	}
	for _, t := range w.tasks {
		if t.info.ID == taskID {
			return &Episode{S: t.start.Clone(), task: t}, nil
		}
	}
	return nil, fmt.Errorf("world worldtest has no task %q", taskID)
}

// Episode is an episode of the world.
type Episode struct {
	S    *State
	task *task
}

// Call implements runtime.Episode.
func (e *Episode) Call(tool string, args json.RawMessage) runtime.Observation {
	return Registry.Call(e.S, tool, args)
}

// StateHash implements runtime.Episode.
func (e *Episode) StateHash() string { return e.S.Hash() }

// Violations implements runtime.Episode.
func (e *Episode) Violations() []runtime.Violation { return Violations(e.S) }

// Grade implements runtime.Episode.
func (e *Episode) Grade() runtime.Grade {
	var as []runtime.AssertionResult
	if e.task != nil {
		as = e.task.grade(e.S)
	}
	return runtime.NewGrade(as, Violations(e.S))
}

// Snapshot implements runtime.Episode.
func (e *Episode) Snapshot() json.RawMessage { return e.S.Snapshot() }
