package gen

import (
	"fmt"

	"github.com/worldc/worldc/compiler/ir"
)

// This file builds, by hand, a second world in the shape of tau2-bench
// retail (docs/design/tau2-retail.md): value records, a variant record,
// lists and maps, entity keys, seeds holding composite values, and tools,
// invariants and tasks using every issue-4 node (Index, StructLit, MapLit,
// typed ListLit, aggregates and loops over lists and maps, VarDecl, Assign
// through paths, Fail, messages built from values, local invariants,
// `unchanged except`, expected failures).

func listT(elem *ir.Type) *ir.Type { return &ir.Type{Kind: ir.KindList, Elem: elem} }
func mapT(elem *ir.Type) *ir.Type  { return &ir.Type{Kind: ir.KindMap, Elem: elem} }
func structT(sd *ir.StructDef) *ir.Type {
	return &ir.Type{Kind: ir.KindStruct, Struct: sd}
}

func vList(xs ...*ir.Value) *ir.Value { return &ir.Value{Kind: ir.KindList, List: xs} }

// vMap builds a map constant from key, value pairs (sorted by key, as the
// IR keeps them).
func vMap(kvs ...any) *ir.Value {
	v := &ir.Value{Kind: ir.KindMap}
	for i := 0; i < len(kvs); i += 2 {
		v.Entries = append(v.Entries, ir.MapEntry{Key: kvs[i].(string), Value: kvs[i+1].(*ir.Value)})
	}
	for i := range v.Entries {
		for j := i + 1; j < len(v.Entries); j++ {
			if v.Entries[j].Key < v.Entries[i].Key {
				v.Entries[i], v.Entries[j] = v.Entries[j], v.Entries[i]
			}
		}
	}
	return v
}

// vRec builds a record constant of sd: one value per AllFields, null for
// the ones not given.
func vRec(sd *ir.StructDef, vals map[string]*ir.Value) *ir.Value {
	v := &ir.Value{Kind: ir.KindStruct}
	for _, f := range sd.AllFields() {
		x, ok := vals[f.Name]
		if !ok {
			x = vNull()
		}
		v.Fields = append(v.Fields, x)
	}
	for k := range vals {
		if sd.Field(k) == nil {
			panic(fmt.Sprintf("record %s: no field %s", sd.Name, k))
		}
	}
	return v
}

// structDef declares a value record.
func (b *builder) structDef(name, doc string, fields ...*ir.Field) *ir.StructDef {
	sd := &ir.StructDef{Name: name, Doc: doc, Fields: fields}
	for _, f := range fields {
		f.Struct = sd
		if f.Type.Kind == ir.KindEnum && f.Type.Enum.Field == nil {
			f.Type.Enum.Field = f
		}
	}
	b.w.Structs = append(b.w.Structs, sd)
	return sd
}

// variantDef declares a variant record `by tag` with the given cases.
func (b *builder) variantDef(name, doc, tag string, common []*ir.Field, cases ...*ir.Case) *ir.StructDef {
	sd := b.structDef(name, doc, common...)
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
		for _, f := range c.Fields {
			f.Struct, f.Case = sd, c
		}
	}
	sd.Tag = &ir.Field{Name: tag, Type: enumT(names...), Struct: sd}
	sd.Tag.Type.Enum.Field = sd.Tag
	sd.Cases = cases
	return sd
}

func caseOf(name string, fields ...*ir.Field) *ir.Case { return &ir.Case{Name: name, Fields: fields} }

// sfield reads field f of the value record x; a case field reads as
// optional.
func sfield(x ir.Expr, f *ir.Field) *ir.FieldRef {
	t := f.Type
	if f.Case != nil {
		t = opt(t)
	}
	return &ir.FieldRef{ExprBase: ir.ExprBase{T: t}, X: x, Field: f}
}

func idx(x, key ir.Expr) *ir.Index {
	return &ir.Index{ExprBase: ir.ExprBase{T: x.Type().Elem}, X: x, Key: key}
}

func strLit(s string) *ir.Lit  { return lit(typ(ir.KindString), vStr(s)) }
func intLit0(i int64) *ir.Lit  { return lit(typ(ir.KindInt), vInt(i)) }
func decLit(f float64) *ir.Lit { return lit(typ(ir.KindDecimal), vDec(f)) }

func recLit(sd *ir.StructDef, c *ir.Case, fields ...*ir.FieldInit) *ir.StructLit {
	return &ir.StructLit{ExprBase: ir.ExprBase{T: structT(sd)}, Struct: sd, Case: c, Fields: fields}
}

func fi(f *ir.Field, v ir.Expr) *ir.FieldInit { return &ir.FieldInit{Field: f, Value: v} }

// keyLookup is E["key"] of a keyed entity.
func keyLookup(e *ir.Entity, key string) *ir.Lookup {
	return &ir.Lookup{ExprBase: ir.ExprBase{T: recT(e)}, Entity: e, Key: strLit(key)}
}

// retailWorld holds the pieces of the retail fixture that tests poke at.
type retailWorld struct {
	*ir.World
	product, user, order          *ir.Entity
	variant, address, pm, item    *ir.StructDef
	payment                       *ir.StructDef
	cancel, modifyItems, addPM    *ir.Tool
	setBalance, placeOrder, getOr *ir.Tool
}

// retail is the fixture world: a catalog of products with variants, users
// with an address and payment methods (a variant record: credit card, gift
// card or PayPal), orders with items, payments and an optional exchange.
func retail() *retailWorld {
	b := newBuilder("retail")
	b.w.Title, b.w.Industry, b.w.Country, b.w.Currency = "Retail fixture", "retail", "US", "USD"
	rw := &retailWorld{World: b.w}

	// --- records ---------------------------------------------------------
	price := fld("price", typ(ir.KindDecimal))
	price.Bounds = []ir.Bound{{Op: ">=", Value: vDec(0)}}
	available := fld("available", typ(ir.KindBool))
	available.Default = vBool(true)
	variant := b.structDef("Variant", "A variant item of a product",
		fld("item_id", typ(ir.KindString)), fld("options", mapT(typ(ir.KindString))), available, price)
	address := b.structDef("Address", "A postal address",
		fld("address1", typ(ir.KindString)), fld("address2", typ(ir.KindString)), fld("city", typ(ir.KindString)),
		fld("country", typ(ir.KindString)), fld("zip", typ(ir.KindString)))
	address.Fields[1].Doc = "May be empty"
	balance := fld("balance", typ(ir.KindDecimal))
	balance.Bounds = []ir.Bound{{Op: ">=", Value: vDec(0)}}
	pmID := fld("id", typ(ir.KindString))
	pm := b.variantDef("PaymentMethod", "How a user pays", "source", []*ir.Field{pmID},
		caseOf("credit_card", fld("brand", typ(ir.KindString)), fld("last_four", typ(ir.KindString))),
		caseOf("gift_card", balance),
		caseOf("paypal"))
	txType := fld("transaction_type", enumT("payment", "refund"))
	payment := b.structDef("Payment", "", txType, fld("amount", typ(ir.KindDecimal)), fld("payment_method_id", typ(ir.KindString)))

	// --- catalog -----------------------------------------------------------
	catalog := b.service("catalog", "Products and their variant items")
	prodID := fld("product_id", typ(ir.KindString))
	variants := fld("variants", mapT(structT(variant)))
	variants.Doc = "Variant items by item id"
	product := b.entity(catalog, "Product", "A product type", fld("name", typ(ir.KindString)), prodID, variants)
	product.Key = prodID

	item := b.structDef("OrderItem", "", fld("name", typ(ir.KindString)), fld("product_id", refT(product)),
		fld("item_id", typ(ir.KindString)), fld("price", typ(ir.KindDecimal)), fld("options", mapT(typ(ir.KindString))))

	getProduct := b.stdTool(catalog, "get_product_details", ir.ToolGet, product, "Get a product and its variants")
	getProduct.Params[0].Name = "product_id"
	{
		// get_item_details: a loop over an entity with `k in m`, then fail.
		pItem := param("item_id", typ(ir.KindString), "An item id")
		p := &ir.Var{Name: "p", Type: recT(product)}
		b.tool(catalog, &ir.Tool{Name: "get_item_details", Kind: ir.ToolCustom, Doc: "Get a variant item by its id",
			Params: []*ir.Param{pItem}, Returns: structT(variant),
			Body: []ir.Stmt{
				&ir.For{Var: p, Entity: product, Where: bin("in", varRef(pItem.Var), field(varRef(p), variants)),
					Body: []ir.Stmt{&ir.Return{Value: idx(field(varRef(p), variants), varRef(pItem.Var))}}},
				&ir.Fail{Message: "Item not found"},
			}})
	}
	{
		// list_all_product_types: a mutable map filled through a path.
		types := &ir.Var{Name: "types", Type: mapT(typ(ir.KindString))}
		p := &ir.Var{Name: "p", Type: recT(product)}
		b.tool(catalog, &ir.Tool{Name: "list_all_product_types", Kind: ir.ToolCustom, Doc: "Product ids by product name",
			Returns: mapT(typ(ir.KindString)),
			Body: []ir.Stmt{
				&ir.VarDecl{Var: types, Value: &ir.MapLit{ExprBase: ir.ExprBase{T: mapT(typ(ir.KindString))}}},
				&ir.For{Var: p, Entity: product, Body: []ir.Stmt{
					&ir.Assign{Root: varRef(types), Path: []ir.PathStep{{Index: field(varRef(p), product.Field("name"))}}, Value: field(varRef(p), prodID)},
				}},
				&ir.Return{Value: varRef(types)},
			}})
	}

	// --- store -------------------------------------------------------------
	store := b.service("store", "Users and their orders")
	userID := fld("user_id", typ(ir.KindString))
	methods := fld("payment_methods", mapT(structT(pm)))
	addr := fld("address", structT(address))
	user := b.entity(store, "User", "A customer", userID, addr, fld("email", typ(ir.KindString)), methods)
	user.Key = userID
	orderID := fld("order_id", typ(ir.KindString))
	status := fld("status", enumT("pending", "pending (item modified)", "delivered", "cancelled", "exchange requested"))
	items := fld("items", listT(structT(item)))
	history := fld("payment_history", listT(structT(payment)))
	cancelReason := fld("cancel_reason", opt(enumT("no longer needed", "ordered by mistake")))
	exchangeItems := fld("exchange_items", opt(listT(typ(ir.KindString))))
	gift := fld("gift_address", opt(structT(address)))
	tags := fld("tags", mapT(listT(typ(ir.KindString))))
	tags.Doc = "Labels by topic"
	ordUser := fld("user_id", refT(user))
	order := b.entity(store, "Order", "An order, such as #W1", orderID, ordUser, addr2(address), items, status, history, cancelReason, exchangeItems, gift, tags)
	order.Key = orderID
	orders := fld("orders", listT(refT(order)))
	orders.Entity = user
	user.Fields = append(user.Fields, orders)
	rw.product, rw.user, rw.order = product, user, order
	rw.variant, rw.address, rw.pm, rw.item, rw.payment = variant, address, pm, item, payment

	getOrder := b.stdTool(store, "get_order_details", ir.ToolGet, order, "Get an order")
	getOrder.Params[0].Name = "order_id"
	rw.getOr = getOrder
	b.stdTool(store, "get_user_details", ir.ToolGet, user, "Get a user").Params[0].Name = "user_id"
	b.stdTool(store, "list_orders", ir.ToolList, order, "")
	createOrder := b.stdTool(store, "create_order", ir.ToolCreate, order, "Record an order")
	{
		// update for a keyed entity: the key names the record, the other
		// fields may be set.
		upd := b.stdTool(store, "update_order", ir.ToolUpdate, order, "")
		upd.Params[0].Name = "order_id"
		var ps []*ir.Param
		for _, p := range upd.Params {
			if p.Field != orderID {
				ps = append(ps, p)
			}
		}
		upd.Params = ps
	}

	{
		// modify_user_address: a record parameter stored whole.
		pu := param("user", refT(user), "")
		pa := param("address", structT(address), "The new address")
		b.tool(store, &ir.Tool{Name: "modify_user_address", Kind: ir.ToolCustom, Doc: "Change a user's address",
			Params: []*ir.Param{pu, pa}, Returns: recT(user),
			Body: []ir.Stmt{
				&ir.Assign{Root: varRef(pu.Var), Path: []ir.PathStep{{Field: addr}}, Value: varRef(pa.Var)},
				&ir.Return{Value: varRef(pu.Var)},
			}})
	}
	{
		// add_payment_method: a variant parameter, inserted into a map.
		pu := param("user", refT(user), "")
		pm0 := param("method", structT(pm), "The payment method to add")
		rw.addPM = b.tool(store, &ir.Tool{Name: "add_payment_method", Kind: ir.ToolCustom, Doc: "Add a payment method to a user",
			Params: []*ir.Param{pu, pm0}, Returns: structT(pm),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("notin", sfield(varRef(pm0.Var), pmID), field(varRef(pu.Var), methods)),
					MessageExpr: bin("+", bin("+", strLit("Payment method "), sfield(varRef(pm0.Var), pmID)), strLit(" already exists"))},
				&ir.Assign{Root: varRef(pu.Var), Path: []ir.PathStep{{Field: methods}, {Index: sfield(varRef(pm0.Var), pmID)}}, Value: varRef(pm0.Var)},
				&ir.Return{Value: idx(field(varRef(pu.Var), methods), sfield(varRef(pm0.Var), pmID))},
			}})
	}
	{
		// set_gift_card_balance: a write into a case field through a map;
		// on another case it breaks the variant (constraint_violation).
		pu := param("user", refT(user), "")
		pid := param("payment_method_id", typ(ir.KindString), "")
		pb := param("balance", typ(ir.KindDecimal), "")
		rw.setBalance = b.tool(store, &ir.Tool{Name: "set_gift_card_balance", Kind: ir.ToolCustom, Doc: "Set the balance of a gift card",
			Params: []*ir.Param{pu, pid, pb}, Returns: recT(user),
			Body: []ir.Stmt{
				&ir.Assign{Root: varRef(pu.Var), Path: []ir.PathStep{{Field: methods}, {Index: varRef(pid.Var)}, {Field: balance}}, Value: varRef(pb.Var)},
				&ir.Return{Value: varRef(pu.Var)},
			}})
	}
	{
		// cancel_pending_order: tau2's refund loop.
		po := param("order", refT(order), "")
		pr := param("reason", typ(ir.KindString), "'no longer needed' or 'ordered by mistake'")
		o := varRef(po.Var)
		u := &ir.Var{Name: "user", Type: recT(user)}
		p := &ir.Var{Name: "p", Type: structT(payment)}
		m := &ir.Var{Name: "method", Type: structT(pm)}
		pmid := sfield(varRef(p), payment.Fields[2])
		rw.cancel = b.tool(store, &ir.Tool{Name: "cancel_pending_order", Kind: ir.ToolCustom, Doc: "Cancel a pending order; gift cards are refunded at once",
			Params: []*ir.Param{po, pr}, Returns: recT(order),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("==", field(o, status), enumLit(status, "pending")), Message: "Non-pending order cannot be cancelled"},
				&ir.Require{Cond: bin("in", varRef(pr.Var), list(typ(ir.KindString), strLit("no longer needed"), strLit("ordered by mistake"))), Message: "Invalid reason"},
				&ir.Let{Var: u, Value: deref(field(o, ordUser))},
				&ir.For{Var: p, Source: field(o, history), Body: []ir.Stmt{
					&ir.Require{Cond: bin("in", pmid, field(varRef(u), methods)), MessageExpr: bin("+", bin("+", strLit("Payment method "), pmid), strLit(" not found"))},
					&ir.Let{Var: m, Value: idx(field(varRef(u), methods), pmid)},
					&ir.If{Cond: bin("==", sfield(varRef(m), pm.Tag), enumLit(pm.Tag, "gift_card")), Then: []ir.Stmt{
						&ir.Assign{Root: varRef(u), Path: []ir.PathStep{{Field: methods}, {Index: pmid}, {Field: balance}},
							Value: call(typ(ir.KindDecimal), "round", bin("+", call(typ(ir.KindDecimal), "coalesce", sfield(varRef(m), balance), decLit(0)), sfield(varRef(p), payment.Fields[1])), intLit0(2))},
					}},
					&ir.Assign{Root: o, Path: []ir.PathStep{{Field: history}}, Value: call(history.Type, "append", field(o, history),
						recLit(payment, nil, fi(txType, enumLit(txType, "refund")), fi(payment.Fields[1], sfield(varRef(p), payment.Fields[1])), fi(payment.Fields[2], pmid)))},
				}},
				&ir.Set{Target: o, Field: status, Value: enumLit(status, "cancelled")},
				&ir.If{Cond: bin("==", varRef(pr.Var), strLit("no longer needed")),
					Then: []ir.Stmt{&ir.Set{Target: o, Field: cancelReason, Value: lit(cancelReason.Type, vEnum("no longer needed"))}},
					Else: []ir.Stmt{&ir.Set{Target: o, Field: cancelReason, Value: lit(cancelReason.Type, vEnum("ordered by mistake"))}}},
				&ir.Return{Value: o},
			}})
	}
	{
		// modify_pending_order_items: parallel lists, a running sum, the
		// first matching item found by index, writes through list paths.
		po := param("order", refT(order), "")
		pIDs := param("item_ids", listT(typ(ir.KindString)), "The items to change")
		pNew := param("new_item_ids", listT(typ(ir.KindString)), "Their new item ids, in the same order")
		o := varRef(po.Var)
		diff := &ir.Var{Name: "diff", Type: typ(ir.KindDecimal)}
		i := &ir.Var{Name: "i", Type: typ(ir.KindInt)}
		id := &ir.Var{Name: "id", Type: typ(ir.KindString)}
		k := &ir.Var{Name: "k", Type: typ(ir.KindInt)}
		j := &ir.Var{Name: "j", Type: typ(ir.KindInt)}
		it := &ir.Var{Name: "it", Type: structT(item)}
		nv := &ir.Var{Name: "new", Type: structT(variant)}
		x := &ir.Var{Name: "x", Type: typ(ir.KindString)}
		newID := idx(varRef(pNew.Var), varRef(i))
		cur := idx(field(o, items), varRef(k))
		prodVariants := field(deref(sfield(cur, item.Fields[1])), variants)
		rw.modifyItems = b.tool(store, &ir.Tool{Name: "modify_pending_order_items", Kind: ir.ToolCustom, Doc: "Exchange items of a pending order for other variants",
			Params: []*ir.Param{po, pIDs, pNew}, Returns: recT(order),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("==", field(o, status), enumLit(status, "pending")), Message: "Non-pending order cannot be modified"},
				&ir.For{Var: x, Source: varRef(pIDs.Var), Body: []ir.Stmt{
					&ir.Require{Cond: bin("<=",
						agg2("count", typ(ir.KindInt), varRef(pIDs.Var), typ(ir.KindString), "y", func(y ir.Expr) (ir.Expr, ir.Expr) {
							return bin("==", y, varRef(x)), nil
						}),
						agg2("count", typ(ir.KindInt), field(o, items), structT(item), "z", func(z ir.Expr) (ir.Expr, ir.Expr) {
							return bin("==", sfield(z, item.Fields[2]), varRef(x)), nil
						})),
						MessageExpr: bin("+", varRef(x), strLit(" not found"))},
				}},
				&ir.Require{Cond: bin("==", call(typ(ir.KindInt), "len", varRef(pIDs.Var)), call(typ(ir.KindInt), "len", varRef(pNew.Var))), Message: "The number of items to be exchanged should match"},
				&ir.VarDecl{Var: diff, Value: decLit(0)},
				&ir.For{Var: id, Key: i, Source: varRef(pIDs.Var), Body: []ir.Stmt{
					&ir.VarDecl{Var: k, Value: intLit0(-1)},
					&ir.For{Var: it, Key: j, Source: field(o, items), Where: bin("==", sfield(varRef(it), item.Fields[2]), varRef(id)), Body: []ir.Stmt{
						&ir.If{Cond: bin("<", varRef(k), intLit0(0)), Then: []ir.Stmt{&ir.Assign{Root: varRef(k), Value: varRef(j)}}},
					}},
					&ir.Require{Cond: bin("in", newID, prodVariants), MessageExpr: bin("+", bin("+", strLit("Variant "), newID), strLit(" not found"))},
					&ir.Let{Var: nv, Value: idx(prodVariants, newID)},
					&ir.Require{Cond: sfield(varRef(nv), available), MessageExpr: bin("+", bin("+", strLit("New item "), newID), strLit(" not found or available"))},
					&ir.Assign{Root: varRef(diff), Value: bin("+", varRef(diff), bin("-", sfield(varRef(nv), price), sfield(cur, item.Fields[3])))},
					&ir.Assign{Root: o, Path: []ir.PathStep{{Field: items}, {Index: varRef(k)}, {Field: item.Fields[2]}}, Value: newID},
					&ir.Assign{Root: o, Path: []ir.PathStep{{Field: items}, {Index: varRef(k)}, {Field: item.Fields[3]}}, Value: sfield(varRef(nv), price)},
					&ir.Assign{Root: o, Path: []ir.PathStep{{Field: items}, {Index: varRef(k)}, {Field: item.Fields[4]}}, Value: sfield(varRef(nv), variant.Fields[1])},
				}},
				&ir.Assign{Root: o, Path: []ir.PathStep{{Field: history}}, Value: call(history.Type, "append", field(o, history),
					recLit(payment, nil, fi(txType, enumLit(txType, "payment")), fi(payment.Fields[1], varRef(diff)), fi(payment.Fields[2], strLit("adjustment"))))},
				&ir.Set{Target: o, Field: status, Value: enumLit(status, "pending (item modified)")},
				&ir.Assign{Root: o, Path: []ir.PathStep{{Field: exchangeItems}}, Value: call(listT(typ(ir.KindString)), "sorted", varRef(pNew.Var))},
				&ir.Assign{Root: o, Path: []ir.PathStep{{Field: tags}, {Index: strLit("modified")}}, Value: list(typ(ir.KindString), strLit("items"))},
				&ir.Return{Value: o},
			}})
	}
	{
		// place_order: an insert into a keyed entity, and an append to a
		// list of refs of another record.
		pu := param("user", refT(user), "")
		pid := param("order_id", typ(ir.KindString), "The new order's id")
		pit := param("items", listT(structT(item)), "")
		pg := param("gift_address", opt(structT(address)), "Where to send it as a gift")
		ov := &ir.Var{Name: "o", Type: recT(order)}
		rw.placeOrder = b.tool(store, &ir.Tool{Name: "place_order", Kind: ir.ToolCustom, Doc: "Place an order for a user",
			Params: []*ir.Param{pu, pid, pit, pg}, Returns: recT(order),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin(">", call(typ(ir.KindInt), "len", varRef(pit.Var)), intLit0(0)), Message: "An order needs items"},
				&ir.Insert{Entity: order, Var: ov, Fields: []*ir.FieldInit{
					fi(orderID, varRef(pid.Var)), fi(ordUser, idOf(varRef(pu.Var))), fi(order.Fields[2], field(varRef(pu.Var), addr)),
					fi(items, varRef(pit.Var)), fi(status, enumLit(status, "pending")),
					fi(history, list(structT(payment))), fi(gift, varRef(pg.Var)),
					fi(tags, &ir.MapLit{ExprBase: ir.ExprBase{T: tags.Type}, Entries: []ir.MapLitEntry{{Key: "channel", Value: list(typ(ir.KindString), strLit("agent"))}}}),
				}},
				&ir.Assign{Root: varRef(pu.Var), Path: []ir.PathStep{{Field: orders}}, Value: call(orders.Type, "append", field(varRef(pu.Var), orders), idOf(varRef(ov)))},
				&ir.Return{Value: varRef(ov)},
			}})
	}

	{
		// cancel_with_reason: `k in E`, `k not in E` and `x as E.f` (a
		// string converted to an enum: constraint_violation when it is none
		// of its values).
		pid := param("order_id", typ(ir.KindString), "")
		pr := param("reason", typ(ir.KindString), "'no longer needed' or 'ordered by mistake'")
		o := keyLookupExpr(order, varRef(pid.Var))
		b.tool(store, &ir.Tool{Name: "cancel_with_reason", Kind: ir.ToolCustom, Doc: "Cancel an order, giving a reason",
			Params: []*ir.Param{pid, pr}, Returns: recT(order),
			Body: []ir.Stmt{
				&ir.Require{Cond: keyIn(order, varRef(pid.Var), false), MessageExpr: bin("+", strLit("Order not found: "), varRef(pid.Var))},
				&ir.Require{Cond: keyIn(user, varRef(pid.Var), true), Message: "That is a user id"},
				&ir.Set{Target: o, Field: cancelReason, Value: cast(varRef(pr.Var), cancelReason.Type)},
				&ir.Set{Target: o, Field: status, Value: cast(strLit("cancelled"), status.Type)},
				&ir.Return{Value: o},
			}})
	}
	{
		// find_item: index(…) over a list, first(…) over a list, over map
		// values and over an entity's records (none is code internal).
		pid := param("order_id", typ(ir.KindString), "")
		pit := param("item_id", typ(ir.KindString), "")
		pe := param("email", typ(ir.KindString), "")
		o := &ir.Var{Name: "o", Type: recT(order)}
		k := &ir.Var{Name: "k", Type: typ(ir.KindInt)}
		u := &ir.Var{Name: "u", Type: recT(user)}
		gcard := &ir.Var{Name: "card", Type: structT(pm)}
		byID := func() *ir.Aggregate {
			return agg2("first", structT(item), field(varRef(o), items), structT(item), "it", func(it ir.Expr) (ir.Expr, ir.Expr) {
				return bin("==", sfield(it, item.Fields[2]), varRef(pit.Var)), nil
			})
		}
		b.tool(store, &ir.Tool{Name: "find_item", Kind: ir.ToolCustom, Doc: "An item of an order, checked against the buyer's gift card",
			Params: []*ir.Param{pid, pit, pe}, Returns: structT(item),
			Body: []ir.Stmt{
				&ir.Let{Var: o, Value: keyLookupExpr(order, varRef(pid.Var))},
				&ir.Let{Var: k, Value: agg2("index", typ(ir.KindInt), field(varRef(o), items), structT(item), "it", func(it ir.Expr) (ir.Expr, ir.Expr) {
					return bin("==", sfield(it, item.Fields[2]), varRef(pit.Var)), nil
				})},
				&ir.Require{Cond: bin(">=", varRef(k), intLit0(0)), MessageExpr: bin("+", bin("+", strLit("Item "), varRef(pit.Var)), strLit(" not found"))},
				&ir.Let{Var: u, Value: agg("first", recT(user), user, "x", func(x ir.Expr) (ir.Expr, ir.Expr) {
					return bin("==", field(x, user.Fields[2]), varRef(pe.Var)), nil
				})},
				&ir.Let{Var: gcard, Value: agg2("first", structT(pm), field(varRef(u), methods), structT(pm), "m", func(m ir.Expr) (ir.Expr, ir.Expr) {
					return bin("==", sfield(m, pm.Tag), enumLit(pm.Tag, "gift_card")), nil
				})},
				&ir.Require{Cond: bin(">=", call(typ(ir.KindDecimal), "coalesce", sfield(varRef(gcard), balance), decLit(0)), sfield(byID(), item.Fields[3])),
					MessageExpr: bin("+", strLit("Not enough on "), sfield(varRef(gcard), pmID))},
				&ir.Require{Cond: bin("==", sfield(byID(), item.Fields[3]), sfield(idx(field(varRef(o), items), varRef(k)), item.Fields[3])), Message: "unreachable"},
				&ir.Return{Value: byID()},
			}})
	}

	// --- invariants ----------------------------------------------------------
	ov := &ir.Var{Name: "o", Type: recT(order)}
	b.w.Invariants = append(b.w.Invariants, &ir.Invariant{Name: "orders_are_listed_by_their_user",
		Policy: "Every order is listed among its user's orders.", Var: ov, Entity: order, Local: true,
		Check: bin("in", idOf(varRef(ov)), field(deref(field(varRef(ov), ordUser)), orders))})
	ov2 := &ir.Var{Name: "o", Type: recT(order)}
	b.w.Invariants = append(b.w.Invariants, &ir.Invariant{Name: "items_are_variants_of_their_product",
		Policy: "Every item of an order is a variant of its product.", Var: ov2, Entity: order,
		Check: agg2("forall", typ(ir.KindBool), field(varRef(ov2), items), structT(item), "it", func(it ir.Expr) (ir.Expr, ir.Expr) {
			return nil, bin("in", sfield(it, item.Fields[2]), field(deref(sfield(it, item.Fields[1])), variants))
		})})

	ov3 := &ir.Var{Name: "o", Type: recT(order)}
	b.w.Invariants = append(b.w.Invariants, &ir.Invariant{Name: "orders_have_known_users",
		Policy: "Every order belongs to a known user, whose first order is known too.", Var: ov3, Entity: order, Local: true,
		Check: bin("and", keyIn(user, convID(field(varRef(ov3), ordUser)), false),
			bin("==", field(agg("first", recT(order), order, "p", func(p ir.Expr) (ir.Expr, ir.Expr) {
				return bin("==", field(p, ordUser), field(varRef(ov3), ordUser)), nil
			}), ordUser), field(varRef(ov3), ordUser)))})

	// The policy document (`policy from`), with what would break a Go
	// string or comment if it were ever written into source.
	b.w.PolicyFile = "retail/policy.md"
	b.w.Policy = "# Retail policy\n\nEvery order is listed among its user's orders.\nEvery item of an order is a variant of\nits product.\nEvery order belongs to a known user, whose first order is known too.\n\n" +
		"Arguments are `JSON` */ /* objects; a \"quote\", a \\ backslash, a NUL \x00 and a \"\\\" is `fine`.\n"

	// --- seed ----------------------------------------------------------------
	opts := func(kv ...any) *ir.Value { return vMap(kv...) }
	v := func(id string, p float64, avail bool, o *ir.Value) *ir.Value {
		return vRec(variant, map[string]*ir.Value{"item_id": vStr(id), "options": o, "available": vBool(avail), "price": vDec(p)})
	}
	home := vRec(address, map[string]*ir.Value{"address1": vStr("1 Main St"), "address2": vStr(""), "city": vStr("Springfield"), "country": vStr("USA"), "zip": vStr("12345")})
	gc := func(id string, bal float64) *ir.Value {
		return vRec(pm, map[string]*ir.Value{"source": vEnum("gift_card"), "id": vStr(id), "balance": vDec(bal)})
	}
	cc := vRec(pm, map[string]*ir.Value{"source": vEnum("credit_card"), "id": vStr("credit_card_1"), "brand": vStr("visa"), "last_four": vStr("4242")})
	pp := vRec(pm, map[string]*ir.Value{"source": vEnum("paypal"), "id": vStr("paypal_1")})
	it := func(name, prod, id string, p float64, o *ir.Value) *ir.Value {
		return vRec(item, map[string]*ir.Value{"name": vStr(name), "product_id": vRef(prod), "item_id": vStr(id), "price": vDec(p), "options": o})
	}
	pay := func(tx string, amt float64, m string) *ir.Value {
		return vRec(payment, map[string]*ir.Value{"transaction_type": vEnum(tx), "amount": vDec(amt), "payment_method_id": vStr(m)})
	}
	b.w.Seed = []*ir.Record{
		b.record(product, "6086499569", map[string]*ir.Value{"name": vStr("T-Shirt"), "product_id": vStr("6086499569"), "variants": vMap(
			"1001", v("1001", 19.5, true, opts("color", vStr("blue"), "size", vStr("M"))),
			"1002", v("1002", 21.25, true, opts("color", vStr("red"), "size", vStr("L"))),
			"1003", v("1003", 18, false, opts("color", vStr("green"), "size", vStr("S"))),
		)}),
		b.record(product, "3377618313", map[string]*ir.Value{"name": vStr("Action Camera"), "product_id": vStr("3377618313"), "variants": vMap(
			"2001", v("2001", 299.99, true, opts("resolution", vStr("4K"))),
		)}),
		b.record(user, "sara_doe_1", map[string]*ir.Value{"user_id": vStr("sara_doe_1"), "address": home, "email": vStr("sara@example.com"),
			"payment_methods": vMap("gift_card_1", gc("gift_card_1", 40), "credit_card_1", cc), "orders": vList(vRef("#W1"), vRef("#W2"))}),
		b.record(user, "tom_li_2", map[string]*ir.Value{"user_id": vStr("tom_li_2"), "address": home, "email": vStr("tom@example.com"),
			"payment_methods": vMap("paypal_1", pp), "orders": vList(vRef("#W3"))}),
		b.record(order, "#W1", map[string]*ir.Value{"order_id": vStr("#W1"), "user_id": vRef("sara_doe_1"), "address": home,
			"items":  vList(it("T-Shirt", "6086499569", "1001", 19.5, opts("color", vStr("blue"), "size", vStr("M"))), it("Action Camera", "3377618313", "2001", 299.99, opts("resolution", vStr("4K")))),
			"status": vEnum("pending"), "payment_history": vList(pay("payment", 319.49, "gift_card_1")), "tags": vMap()}),
		b.record(order, "#W2", map[string]*ir.Value{"order_id": vStr("#W2"), "user_id": vRef("sara_doe_1"), "address": home,
			"items":  vList(it("T-Shirt", "6086499569", "1002", 21.25, opts("color", vStr("red"), "size", vStr("L")))),
			"status": vEnum("delivered"), "payment_history": vList(pay("payment", 21.25, "credit_card_1")),
			"exchange_items": vList(), "tags": vMap("note", vList(vStr("fragile"), vStr("gift")))}),
		b.record(order, "#W3", map[string]*ir.Value{"order_id": vStr("#W3"), "user_id": vRef("tom_li_2"), "address": home,
			"items":  vList(it("T-Shirt", "6086499569", "1001", 19.5, opts("color", vStr("blue"), "size", vStr("M")))),
			"status": vEnum("pending"), "payment_history": vList(pay("payment", 19.5, "paypal_1")),
			"gift_address": vRec(address, map[string]*ir.Value{"address1": vStr("9 Elm Rd"), "address2": vStr("Apt 2"), "city": vStr("Shelbyville"), "country": vStr("USA"), "zip": vStr("54321")}),
			"tags":         vMap()}),
	}

	// --- tasks -----------------------------------------------------------------
	w1 := keyLookup(order, "#W1")
	sara := keyLookup(user, "sara_doe_1")
	fails := func(s string) *string { return &s }
	b.w.Tasks = append(b.w.Tasks, &ir.Task{Name: "cancel_with_refund", Persona: "Customer",
		Instruction: "Cancel order #W1, I no longer need it.", Domain: "ToC/retail", Capabilities: []string{"tool_use"},
		Meta: []ir.MetaEntry{{Key: "split", Value: []string{"train", "base"}}, {Key: "source_id", Value: "17"},
			{Key: "nl_assertions", Value: []string{"Agent says the refund is $319.49.", "`*/ \"quoted\"`"}}, {Key: "empty", Value: []string{}},
			{Key: "weight", Value: int64(2)}, {Key: "share", Value: 0.25}, {Key: "whole", Value: 3.0}, {Key: "reviewed", Value: true}},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: `store.Order["#W1"].status == cancelled`, Expr: bin("==", field(w1, status), enumLit(status, "cancelled"))},
			{Kind: ir.AssertExpr, Text: `store.User["sara_doe_1"].payment_methods["gift_card_1"].balance == 359.49`,
				Expr: bin("==", sfield(idx(field(sara, methods), strLit("gift_card_1")), balance), decLit(359.49))},
			{Kind: ir.AssertExpr, Text: `len(store.Order["#W1"].payment_history) == 2`, Expr: bin("==", call(typ(ir.KindInt), "len", field(w1, history)), intLit0(2))},
			{Kind: ir.AssertUnchanged, Text: `unchanged except store.Order["#W1"], store.User["sara_doe_1"]`, Except: []*ir.Lookup{w1, sara}},
		},
		Solution: []*ir.Step{
			{Tool: getOrder, Args: []*ir.Arg{arg(getOrder, "order_id", vRef("#W1"))}},
			{Tool: rw.cancel, Args: []*ir.Arg{arg(rw.cancel, "order", vRef("#W1")), arg(rw.cancel, "reason", vStr("changed my mind"))}, Fails: fails("Invalid reason")},
			{Tool: rw.cancel, Args: []*ir.Arg{arg(rw.cancel, "order", vRef("#W1")), arg(rw.cancel, "reason", vStr("no longer needed"))}},
		}})
	b.w.Tasks = append(b.w.Tasks, &ir.Task{Name: "swap_shirt", Persona: "Customer",
		Instruction: "On #W1, swap the blue T-shirt for the red one.", Domain: "ToC/retail", Capabilities: []string{"tool_use"},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: `store.Order["#W1"].items[0].item_id == "1002"`, Expr: bin("==", sfield(idx(field(w1, items), intLit0(0)), item.Fields[2]), strLit("1002"))},
			{Kind: ir.AssertExpr, Text: `store.Order["#W1"].items[0].options == {"color": "red", "size": "L"}`,
				Expr: bin("==", sfield(idx(field(w1, items), intLit0(0)), item.Fields[4]), &ir.MapLit{ExprBase: ir.ExprBase{T: mapT(typ(ir.KindString))},
					Entries: []ir.MapLitEntry{{Key: "color", Value: strLit("red")}, {Key: "size", Value: strLit("L")}}})},
			{Kind: ir.AssertExpr, Text: `store.Order["#W1"].exchange_items == ["1002"]`, Expr: bin("==", field(w1, exchangeItems), list(typ(ir.KindString), strLit("1002")))},
			{Kind: ir.AssertExpr, Text: `sum(p in store.Order["#W1"].payment_history: p.amount) == 321.24`,
				Expr: bin("==", agg2("sum", typ(ir.KindDecimal), field(w1, history), structT(payment), "p", func(p ir.Expr) (ir.Expr, ir.Expr) {
					return nil, sfield(p, payment.Fields[1])
				}), decLit(321.24))},
			{Kind: ir.AssertInvariant, Text: "invariant items_are_variants_of_their_product", Invariant: b.w.Invariants[1]},
			{Kind: ir.AssertExpr, Text: `first(it in store.Order["#W1"].items where it.item_id == "1002").price == 21.25`,
				Expr: bin("==", sfield(agg2("first", structT(item), field(w1, items), structT(item), "it", func(it ir.Expr) (ir.Expr, ir.Expr) {
					return bin("==", sfield(it, item.Fields[2]), strLit("1002")), nil
				}), item.Fields[3]), decLit(21.25))},
			{Kind: ir.AssertExpr, Text: `index(it in store.Order["#W1"].items where it.item_id == "2001") == 1`,
				Expr: bin("==", agg2("index", typ(ir.KindInt), field(w1, items), structT(item), "it", func(it ir.Expr) (ir.Expr, ir.Expr) {
					return bin("==", sfield(it, item.Fields[2]), strLit("2001")), nil
				}), intLit0(1))},
		},
		Solution: []*ir.Step{
			{Tool: rw.modifyItems, Args: []*ir.Arg{arg(rw.modifyItems, "order", vRef("#W1")), arg(rw.modifyItems, "item_ids", vList(vStr("1001"))), arg(rw.modifyItems, "new_item_ids", vList(vStr("1003")))},
				Fails: fails("New item 1003 not found or available")},
			{Tool: rw.modifyItems, Args: []*ir.Arg{arg(rw.modifyItems, "order", vRef("#W1")), arg(rw.modifyItems, "item_ids", vList(vStr("1001"))), arg(rw.modifyItems, "new_item_ids", vList(vStr("1002")))}},
		}})
	tom := keyLookup(user, "tom_li_2")
	b.w.Tasks = append(b.w.Tasks, &ir.Task{Name: "new_card_and_order", Persona: "Customer",
		Instruction: "Add my gift card gift_card_9 with 50 dollars, move to 2 Oak Ave, then order a red T-shirt as order #W9.", Domain: "ToC/retail", Capabilities: []string{"tool_use"},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: `store.User["tom_li_2"].payment_methods["gift_card_9"].source == gift_card`,
				Expr: bin("==", sfield(idx(field(tom, methods), strLit("gift_card_9")), pm.Tag), enumLit(pm.Tag, "gift_card"))},
			{Kind: ir.AssertExpr, Text: `store.User["tom_li_2"].address == Address { … }`,
				Expr: bin("==", field(tom, addr), recLit(address, nil, fi(address.Fields[0], strLit("2 Oak Ave")), fi(address.Fields[1], strLit("")),
					fi(address.Fields[2], strLit("Springfield")), fi(address.Fields[3], strLit("USA")), fi(address.Fields[4], strLit("12345"))))},
			{Kind: ir.AssertExpr, Text: `"#W9" in store.User["tom_li_2"].orders`, Expr: bin("in", handle(order, "#W9"), field(tom, orders))},
			{Kind: ir.AssertExpr, Text: `"#W9" in store.Order and "#W10" not in store.Order`, Expr: bin("and", keyIn(order, strLit("#W9"), false), keyIn(order, strLit("#W10"), true))},
			{Kind: ir.AssertExpr, Text: `store.Order["#W9"].gift_address.city == "Shelbyville"`, Expr: bin("==", sfield(field(keyLookup(order, "#W9"), gift), address.Fields[2]), strLit("Shelbyville"))},
			{Kind: ir.AssertInvariant, Text: "invariant orders_are_listed_by_their_user", Invariant: b.w.Invariants[0]},
		},
		Solution: []*ir.Step{
			{Tool: rw.addPM, Args: []*ir.Arg{arg(rw.addPM, "user", vRef("tom_li_2")), arg(rw.addPM, "method", gc("gift_card_9", 50))}},
			{Tool: rw.addPM, Args: []*ir.Arg{arg(rw.addPM, "user", vRef("tom_li_2")), arg(rw.addPM, "method", gc("gift_card_9", 10))}, Fails: fails("Payment method gift_card_9 already exists")},
			{Tool: rw.setBalance, Args: []*ir.Arg{arg(rw.setBalance, "user", vRef("tom_li_2")), arg(rw.setBalance, "payment_method_id", vStr("paypal_1")), arg(rw.setBalance, "balance", vDec(5))},
				Fails: fails("User.payment_methods[\"paypal_1\"].balance belongs to case gift_card, not paypal")},
			{Tool: toolNamed(b.w, "modify_user_address"), Args: []*ir.Arg{arg(toolNamed(b.w, "modify_user_address"), "user", vRef("tom_li_2")),
				arg(toolNamed(b.w, "modify_user_address"), "address", vRec(address, map[string]*ir.Value{"address1": vStr("2 Oak Ave"), "address2": vStr(""), "city": vStr("Springfield"), "country": vStr("USA"), "zip": vStr("12345")}))}},
			{Bind: "o", Tool: rw.placeOrder, Args: []*ir.Arg{arg(rw.placeOrder, "user", vRef("tom_li_2")), arg(rw.placeOrder, "order_id", vStr("#W9")),
				arg(rw.placeOrder, "items", vList(it("T-Shirt", "6086499569", "1002", 21.25, opts("color", vStr("red"), "size", vStr("L"))))),
				arg(rw.placeOrder, "gift_address", vRec(address, map[string]*ir.Value{"address1": vStr("9 Elm Rd"), "address2": vStr(""), "city": vStr("Shelbyville"), "country": vStr("USA"), "zip": vStr("54321")}))}},
			{Tool: getOrder, Args: []*ir.Arg{boundArg(getOrder, "order_id", "o")}},
		}})
	_ = createOrder
	return rw
}

// addr2 is the order's address field (a second field of the Address type).
func addr2(address *ir.StructDef) *ir.Field { return fld("address", structT(address)) }

// agg2 builds an aggregate over a list or map source.
func agg2(op string, t *ir.Type, src ir.Expr, elem *ir.Type, name string, body func(v ir.Expr) (ir.Expr, ir.Expr)) *ir.Aggregate {
	v := &ir.Var{Name: name, Type: elem}
	where, value := body(varRef(v))
	return &ir.Aggregate{ExprBase: ir.ExprBase{T: t}, Op: op, Var: v, Source: src, Where: where, Value: value}
}

// keyLookupExpr is E[key] of a keyed entity.
func keyLookupExpr(e *ir.Entity, key ir.Expr) *ir.Lookup {
	return &ir.Lookup{ExprBase: ir.ExprBase{T: recT(e)}, Entity: e, Key: key}
}

// keyIn is `key in E` (`not in` when not).
func keyIn(e *ir.Entity, key ir.Expr, not bool) *ir.KeyIn {
	return &ir.KeyIn{ExprBase: ir.ExprBase{T: typ(ir.KindBool)}, Entity: e, Key: key, Not: not}
}

// cast is `x as T` for the enum type t.
func cast(x ir.Expr, t *ir.Type) *ir.Cast {
	nt := *t
	nt.Optional = false
	return &ir.Cast{ExprBase: ir.ExprBase{T: &nt}, X: x}
}

// convID is the string id of the ref x (`x.id`).
func convID(x ir.Expr) *ir.Convert {
	return &ir.Convert{ExprBase: ir.ExprBase{T: typ(ir.KindString)}, X: x}
}
