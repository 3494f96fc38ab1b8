package eval

import (
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// shop is a small world with every composite feature of issue 4: value
// records, a variant record, lists, maps, keyed entities, paths, mutable
// locals, loops and aggregates over lists and maps, computed failure
// messages, `unchanged except` and expected failures. Its tools follow
// tau2-bench retail (docs/design/tau2-retail.md), quirks included.
type shop struct {
	w        *ir.World
	catalog  *ir.Service
	store    *ir.Service
	reviews  *ir.Service
	Address  *ir.StructDef
	Method   *ir.StructDef
	Item     *ir.StructDef
	Payment  *ir.StructDef
	Variant  *ir.StructDef
	giftCard *ir.Case
	card     *ir.Case
	paypal   *ir.Case

	aLine1, aLine2, aCity, aZip, aCountry       *ir.Field
	mID, mBalance, mBrand, mLast4               *ir.Field
	itID, itProduct, itPrice, itOptions, itQty  *ir.Field
	payKind, payAmount, payMethod               *ir.Field
	vPrice, vAvailable                          *ir.Field
	Product, User, Order, Review                *ir.Entity
	pID, pName, pVariants                       *ir.Field
	uID, uName, uAddress, uMethods, uOrders     *ir.Field
	uTags                                       *ir.Field
	oID, oUser, oItems, oStatus, oHistory       *ir.Field
	oNote, oReturned                            *ir.Field
	rOrder, rStars                              *ir.Field
	cancelOrder, modifyItems, addMethod         *ir.Tool
	setBalance, setItem, findItem, productTypes *ir.Tool
	summary, tagUser, copies, setAddress        *ir.Tool
	moveCity, returnItems                       *ir.Tool
	inCatalog                                   *ir.Invariant
	cancelTask, noopTask                        *ir.Task
}

func newShop(t testing.TB) *shop {
	t.Helper()
	x := &shop{}
	var structs []*ir.StructDef
	x.catalog = &ir.Service{Name: "catalog"}
	x.store = &ir.Service{Name: "store"}
	x.reviews = &ir.Service{Name: "reviews"}

	x.vPrice = withBound(field("price", tDecimal), ">=", vInt(0))
	x.vAvailable = field("available", tBool)
	x.Variant = newStruct(&structs, "Variant", x.vPrice, x.vAvailable)

	x.aLine1 = field("line1", tString)
	x.aLine2 = field("line2", tOpt(tString))
	x.aCity = field("city", tString)
	x.aZip = field("zip", tString)
	x.aCountry = withDefault(field("country", tString), vStr("US"))
	x.Address = newStruct(&structs, "Address", x.aLine1, x.aLine2, x.aCity, x.aZip, x.aCountry)

	x.mID = field("id", tString)
	x.mBalance = withBound(field("balance", tDecimal), ">=", vInt(0))
	x.mBrand = field("brand", tString)
	x.mLast4 = field("last_four", tString)
	x.giftCard = newCase("gift_card", x.mBalance)
	x.card = newCase("card", x.mBrand, x.mLast4)
	x.paypal = newCase("paypal")
	x.Method = newVariant(&structs, "Method", "source", []*ir.Field{x.mID}, x.giftCard, x.card, x.paypal)

	x.pID = field("product_id", tString)
	x.pName = field("name", tString)
	x.pVariants = field("variants", tMap(tStruct(x.Variant)))
	x.Product = newEntity(x.catalog, "Product", x.pID, x.pName, x.pVariants)
	x.Product.Key = x.pID

	x.itID = field("item_id", tString)
	x.itProduct = field("product", tRef(x.Product))
	x.itPrice = withBound(field("price", tDecimal), ">=", vInt(0))
	x.itOptions = field("options", tMap(tString))
	x.itQty = withBound(withDefault(field("qty", tInt), vInt(1)), ">=", vInt(1))
	x.Item = newStruct(&structs, "Item", x.itID, x.itProduct, x.itPrice, x.itOptions, x.itQty)

	x.payKind = field("kind", enumType("payment", "refund"))
	x.payAmount = field("amount", tDecimal)
	x.payMethod = field("method", tString)
	x.Payment = newStruct(&structs, "Payment", x.payKind, x.payAmount, x.payMethod)

	x.uID = field("user_id", tString)
	x.uName = field("name", tString)
	x.uAddress = field("address", tStruct(x.Address))
	x.uMethods = field("methods", tMap(tStruct(x.Method)))
	x.uOrders = field("orders", nil)
	x.uTags = withDefault(field("tags", tList(enumType("vip", "new"))), vList())
	x.User = newEntity(x.store, "User", x.uID, x.uName, x.uAddress, x.uMethods, x.uOrders, x.uTags)
	x.User.Key = x.uID

	x.oID = field("order_id", tString)
	x.oUser = field("user", tRef(x.User))
	x.oItems = field("items", tList(tStruct(x.Item)))
	x.oStatus = field("status", enumType("pending", "cancelled", "modified"))
	x.oHistory = field("history", tList(tStruct(x.Payment)))
	x.oNote = field("note", tOpt(tString))
	x.oReturned = field("returned", tOpt(tList(tString)))
	x.Order = newEntity(x.store, "Order", x.oID, x.oUser, x.oItems, x.oStatus, x.oHistory, x.oNote, x.oReturned)
	x.Order.Key = x.oID
	x.uOrders.Type = tList(tRef(x.Order))

	x.rOrder = field("order", tRef(x.Order))
	x.rStars = withBound(withBound(field("stars", tInt), ">=", vInt(1)), "<=", vInt(5))
	x.Review = newEntity(x.reviews, "Review", x.rOrder, x.rStars)

	// Standard tools on keyed entities take the key as "id".
	stdTool(x.store, "get_order", ir.ToolGet, x.Order)
	stdTool(x.store, "get_user", ir.ToolGet, x.User)
	stdTool(x.store, "list_orders", ir.ToolList, x.Order)
	stdTool(x.store, "create_order", ir.ToolCreate, x.Order)
	stdTool(x.store, "update_order", ir.ToolUpdate, x.Order)
	stdTool(x.store, "delete_order", ir.ToolDelete, x.Order)
	stdTool(x.store, "find_orders", ir.ToolSearch, x.Order, x.oStatus, x.oItems, x.oNote)
	stdTool(x.reviews, "create_review", ir.ToolCreate, x.Review)
	stdTool(x.reviews, "delete_review", ir.ToolDelete, x.Review)

	orderOf := func(id ir.Expr) ir.Expr { return lookup(x.Order, id) }
	exists := func(e *ir.Entity, key *ir.Field, id ir.Expr) ir.Expr {
		return agg("exists", e, tBool, func(r ir.Expr) (ir.Expr, ir.Expr) { return eq(fld(r, key), id), nil })
	}
	str := func(parts ...ir.Expr) ir.Expr {
		out := parts[0]
		for _, p := range parts[1:] {
			out = bin("+", out, p)
		}
		return out
	}
	// firstIndex: var k = -1; for j, it in order.items { if k < 0 and it.item_id == id { set k = j } }
	firstIndex := func(k *ir.Var, items, id ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			varDecl(k, iLit(-1)),
			forIn(items, true, func(j, it ir.Expr) (ir.Expr, []ir.Stmt) {
				return nil, []ir.Stmt{&ir.If{Cond: and(bin("<", vr(k), iLit(0)), eq(fld(it, x.itID), id)), Then: []ir.Stmt{assign(vr(k), j)}}}
			}),
		}
	}

	// cancel_order: tau2's cancel_pending_order (one refund per history
	// entry, refunds included; gift cards credited at once, rounded).
	x.cancelOrder = customTool(x.store, "cancel_order", []*ir.Param{param("order_id", tString)}, func(p map[string]ir.Expr) []ir.Stmt {
		order := &ir.Var{Name: "order", Type: tRec(x.Order)}
		user := &ir.Var{Name: "user", Type: tRec(x.User)}
		pm := &ir.Var{Name: "pm", Type: tStruct(x.Method)}
		return []ir.Stmt{
			&ir.Require{Cond: exists(x.Order, x.oID, p["order_id"]), MessageExpr: str(sLit("Order "), p["order_id"], sLit(" not found"))},
			&ir.Let{Var: order, Value: orderOf(p["order_id"])},
			&ir.Require{Cond: eq(fld(vr(order), x.oStatus), enumLit(x.oStatus, "pending")), Message: "Non-pending order cannot be cancelled"},
			&ir.Let{Var: user, Value: deref(fld(vr(order), x.oUser))},
			forIn(fld(vr(order), x.oHistory), false, func(_, pay ir.Expr) (ir.Expr, []ir.Stmt) {
				method := fld(pay, x.payMethod)
				return nil, []ir.Stmt{
					&ir.Let{Var: pm, Value: index(fld(vr(user), x.uMethods), method)},
					&ir.If{Cond: eq(fld(vr(pm), x.Method.Tag), litT(vEnum("gift_card"), x.Method.Tag.Type)), Then: []ir.Stmt{
						assign(vr(user), call("round", tDecimal, bin("+", call("coalesce", tDecimal, fld(vr(pm), x.mBalance), dLit(0)), fld(pay, x.payAmount)), iLit(2)),
							pf(x.uMethods), pi(method), pf(x.mBalance)),
					}},
					&ir.Set{Target: vr(order), Field: x.oHistory, Value: call("append", x.oHistory.Type, fld(vr(order), x.oHistory),
						structLit(x.Payment, nil, x.payKind, enumLit(x.payKind, "refund"), x.payAmount, fld(pay, x.payAmount), x.payMethod, method))},
				}
			}),
			&ir.Set{Target: vr(order), Field: x.oStatus, Value: enumLit(x.oStatus, "cancelled")},
			&ir.Return{Value: vr(order)},
		}
	})

	// modify_items: tau2's modify_pending_order_items quirks Q1 (every
	// changed item takes the LAST new variant's price) and Q2 (the second
	// loop looks items up in the list as already renamed). Returns the
	// unrounded price difference.
	x.modifyItems = customTool(x.store, "modify_items", []*ir.Param{param("order_id", tString), param("item_ids", tList(tString)), param("new_ids", tList(tString))}, func(p map[string]ir.Expr) []ir.Stmt {
		order := &ir.Var{Name: "order", Type: tRec(x.Order)}
		diff := &ir.Var{Name: "diff", Type: tDecimal}
		lastK := &ir.Var{Name: "last_k", Type: tInt}
		lastNew := &ir.Var{Name: "last_new", Type: tString}
		k := &ir.Var{Name: "k", Type: tInt}
		item := &ir.Var{Name: "item", Type: tStruct(x.Item)}
		nid := &ir.Var{Name: "nid", Type: tString}
		variant := &ir.Var{Name: "variant", Type: tStruct(x.Variant)}
		last := &ir.Var{Name: "last", Type: tStruct(x.Variant)}
		items := func() ir.Expr { return fld(vr(order), x.oItems) }
		variants := func(it ir.Expr) ir.Expr { return via(fld(it, x.itProduct), x.pVariants) }
		return []ir.Stmt{
			&ir.Require{Cond: exists(x.Order, x.oID, p["order_id"]), Message: "Order not found"},
			&ir.Let{Var: order, Value: orderOf(p["order_id"])},
			&ir.Require{Cond: eq(call("len", tInt, p["item_ids"]), call("len", tInt, p["new_ids"])), Message: "The number of items to be exchanged should match"},
			varDecl(diff, litT(vInt(0), tDecimal)),
			varDecl(lastK, iLit(-1)),
			varDecl(lastNew, sLit("")),
			forIn(p["item_ids"], true, func(i, id ir.Expr) (ir.Expr, []ir.Stmt) {
				body := firstIndex(k, items(), id)
				return nil, append(body,
					&ir.Require{Cond: bin(">=", vr(k), iLit(0)), MessageExpr: str(sLit("Item "), id, sLit(" not found"))},
					&ir.Let{Var: item, Value: index(items(), vr(k))},
					&ir.Let{Var: nid, Value: index(p["new_ids"], i)},
					&ir.Require{Cond: bin("in", vr(nid), variants(vr(item))), Message: "Variant not found"},
					&ir.Let{Var: variant, Value: index(variants(vr(item)), vr(nid))},
					&ir.Require{Cond: fld(vr(variant), x.vAvailable), MessageExpr: str(sLit("New item "), vr(nid), sLit(" not found or available"))},
					assign(vr(diff), bin("+", vr(diff), bin("-", fld(vr(variant), x.vPrice), fld(vr(item), x.itPrice)))),
					assign(vr(lastK), vr(k)),
					assign(vr(lastNew), vr(nid)),
				)
			}),
			&ir.If{Cond: bin(">=", vr(lastK), iLit(0)), Then: []ir.Stmt{
				&ir.Let{Var: last, Value: index(variants(index(items(), vr(lastK))), vr(lastNew))},
				forIn(p["item_ids"], true, func(i, id ir.Expr) (ir.Expr, []ir.Stmt) {
					return nil, append(firstIndex(k, items(), id),
						assign(vr(order), index(p["new_ids"], i), pf(x.oItems), pi(vr(k)), pf(x.itID)),
						assign(vr(order), fld(vr(last), x.vPrice), pf(x.oItems), pi(vr(k)), pf(x.itPrice)),
					)
				}),
			}},
			&ir.Set{Target: vr(order), Field: x.oStatus, Value: enumLit(x.oStatus, "modified")},
			&ir.Return{Value: vr(diff)},
		}
	})

	// add_method(user, method): map insertion through a path.
	x.addMethod = customTool(x.store, "add_method", []*ir.Param{param("user", tRef(x.User)), param("method", tStruct(x.Method))}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			&ir.Require{Cond: bin("notin", fld(p["method"], x.mID), fld(p["user"], x.uMethods)), MessageExpr: str(sLit("Payment method "), fld(p["method"], x.mID), sLit(" exists"))},
			assign(p["user"], p["method"], pf(x.uMethods), pi(fld(p["method"], x.mID))),
			&ir.Return{Value: fld(p["user"], x.uMethods)},
		}
	})

	// set_balance(user, method, balance): a case field through a map.
	x.setBalance = customTool(x.store, "set_balance", []*ir.Param{param("user", tRef(x.User)), param("method", tString), param("balance", tDecimal)}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			&ir.Require{Cond: bin("in", p["method"], fld(p["user"], x.uMethods)), Message: "Payment method not found"},
			assign(p["user"], p["balance"], pf(x.uMethods), pi(p["method"]), pf(x.mBalance)),
			&ir.Return{Value: index(fld(p["user"], x.uMethods), p["method"])},
		}
	})

	// set_item(order_id, index, item): a list element through a lookup
	// root, unguarded (a bad index is the spec's fault: internal).
	x.setItem = customTool(x.store, "set_item", []*ir.Param{param("order_id", tString), param("index", tInt), param("item", tStruct(x.Item))}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			assign(orderOf(p["order_id"]), p["item"], pf(x.oItems), pi(p["index"])),
			&ir.Return{Value: fld(orderOf(p["order_id"]), x.oItems)},
		}
	})

	// find_item(item_id): a loop over an entity with `in` on a map, then
	// fail.
	x.findItem = customTool(x.catalog, "find_item", []*ir.Param{param("item_id", tString)}, func(p map[string]ir.Expr) []ir.Stmt {
		pv := &ir.Var{Name: "p", Type: tRec(x.Product)}
		return []ir.Stmt{
			&ir.For{Var: pv, Entity: x.Product, Where: bin("in", p["item_id"], fld(vr(pv), x.pVariants)), Body: []ir.Stmt{
				&ir.Return{Value: index(fld(vr(pv), x.pVariants), p["item_id"])},
			}},
			&ir.Fail{Message: "Item not found"},
		}
	})

	// product_types(): a typed empty map filled through a local path.
	x.productTypes = customTool(x.catalog, "product_types", nil, func(map[string]ir.Expr) []ir.Stmt {
		m := &ir.Var{Name: "m", Type: tMap(tString)}
		pv := &ir.Var{Name: "p", Type: tRec(x.Product)}
		return []ir.Stmt{
			varDecl(m, mapLit(tString)),
			&ir.For{Var: pv, Entity: x.Product, Body: []ir.Stmt{assign(vr(m), fld(vr(pv), x.pID), pi(fld(vr(pv), x.pName)))}},
			&ir.Return{Value: vr(m)},
		}
	})

	// summary(order_id): aggregates over a list and a map.
	x.summary = customTool(x.store, "summary", []*ir.Param{param("order_id", tString)}, func(p map[string]ir.Expr) []ir.Stmt {
		items := fld(orderOf(p["order_id"]), x.oItems)
		price := func(it ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(it, x.itPrice) }
		return []ir.Stmt{&ir.Return{Value: mapLit(tDecimal,
			"count", conv(aggIn("count", items, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), tDecimal),
			"sum", aggIn("sum", items, tDecimal, func(it ir.Expr) (ir.Expr, ir.Expr) {
				return nil, binT("*", fld(it, x.itPrice), fld(it, x.itQty), tDecimal)
			}),
			"min", aggIn("min", items, tDecimal, price),
			"max", aggIn("max", items, tDecimal, price),
			"options", conv(aggIn("sum", items, tInt, func(it ir.Expr) (ir.Expr, ir.Expr) { return nil, call("len", tInt, fld(it, x.itOptions)) }), tDecimal),
			"available", conv(aggIn("count", via(fld(index(items, iLit(0)), x.itProduct), x.pVariants), tInt, func(v ir.Expr) (ir.Expr, ir.Expr) {
				return fld(v, x.vAvailable), nil
			}), tDecimal),
		)}}
	})

	// tag_user(user, tags): a list of enum values, sorted.
	x.tagUser = customTool(x.store, "tag_user", []*ir.Param{param("user", tRef(x.User)), param("tags", x.uTags.Type)}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["user"], Field: x.uTags, Value: call("sorted", x.uTags.Type, p["tags"])}, &ir.Return{Value: p["user"]}}
	})

	// copies(order_id): locals hold copies; writing the record changes
	// neither the copies nor earlier observations.
	x.copies = customTool(x.store, "copies", []*ir.Param{param("order_id", tString)}, func(p map[string]ir.Expr) []ir.Stmt {
		order := &ir.Var{Name: "order", Type: tRec(x.Order)}
		all := &ir.Var{Name: "all", Type: x.oItems.Type}
		first := &ir.Var{Name: "first", Type: tStruct(x.Item)}
		opts := &ir.Var{Name: "opts", Type: tMap(tString)}
		items := func() ir.Expr { return fld(vr(order), x.oItems) }
		return []ir.Stmt{
			&ir.Let{Var: order, Value: orderOf(p["order_id"])},
			&ir.Let{Var: all, Value: items()},
			&ir.Let{Var: first, Value: index(items(), iLit(0))},
			varDecl(opts, fld(vr(first), x.itOptions)),
			assign(vr(order), dLit(1.5), pf(x.oItems), pi(iLit(0)), pf(x.itPrice)),
			assign(vr(order), sLit("x"), pf(x.oItems), pi(iLit(0)), pf(x.itOptions), pi(sLit("new"))),
			assign(vr(opts), sLit("local"), pi(sLit("mine"))),
			&ir.Return{Value: list(nil,
				fld(index(vr(all), iLit(0)), x.itPrice),
				fld(vr(first), x.itPrice),
				fld(index(items(), iLit(0)), x.itPrice),
				vr(opts),
				fld(index(items(), iLit(0)), x.itOptions),
			)},
		}
	})

	// set_address(user, address): a whole value record; move_city: one
	// field of it through a path.
	x.setAddress = customTool(x.store, "set_address", []*ir.Param{param("user", tRef(x.User)), param("address", tStruct(x.Address))}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["user"], Field: x.uAddress, Value: p["address"]}, &ir.Return{Value: fld(p["user"], x.uAddress)}}
	})
	x.moveCity = customTool(x.store, "move_city", []*ir.Param{param("user", tRef(x.User)), param("city", tString)}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{assign(p["user"], p["city"], pf(x.uAddress), pf(x.aCity)), &ir.Return{Value: fld(p["user"], x.uAddress)}}
	})
	// return_items(order_id, item_ids): an optional list, sorted.
	x.returnItems = customTool(x.store, "return_items", []*ir.Param{param("order_id", tString), param("item_ids", tList(tString))}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			&ir.Set{Target: orderOf(p["order_id"]), Field: x.oReturned, Value: call("sorted", tList(tString), p["item_ids"])},
			&ir.Return{Value: orderOf(p["order_id"])},
		}
	})

	// Every order item is a variant of its product.
	o := &ir.Var{Name: "o", Type: tRec(x.Order)}
	x.inCatalog = &ir.Invariant{
		Name: "items_in_catalog", Policy: "Items are variants of their product.", Var: o, Entity: x.Order, Local: true,
		Check: aggIn("forall", fld(vr(o), x.oItems), tBool, func(it ir.Expr) (ir.Expr, ir.Expr) {
			return nil, bin("in", fld(it, x.itID), via(fld(it, x.itProduct), x.pVariants))
		}),
	}

	x.w = &ir.World{
		Name: "shop", Today: "2026-03-14",
		// Constants built by hand are floats (vDec): a world of float numbers.
		FloatNumbers: true,
		Services:     []*ir.Service{x.catalog, x.store, x.reviews},
		Structs:      structs,
		Entities:     []*ir.Entity{x.Product, x.User, x.Order, x.Review},
		Invariants:   []*ir.Invariant{x.inCatalog},
	}
	for _, s := range x.w.Services {
		x.w.Tools = append(x.w.Tools, s.Tools...)
	}

	variant := func(price float64, avail bool) *ir.Value { return vStruct(vDec(price), vBool(avail)) }
	addr := func(line1 string, line2 *ir.Value, city, zip, country string) *ir.Value {
		return vStruct(vStr(line1), line2, vStr(city), vStr(zip), vStr(country))
	}
	item := func(id, product string, price float64, opts *ir.Value, qty int64) *ir.Value {
		return vStruct(vStr(id), vRef(product), vDec(price), opts, vInt(qty))
	}
	pay := func(kind string, amount float64, method string) *ir.Value {
		return vStruct(vEnum(kind), vDec(amount), vStr(method))
	}
	// Method fields: source, id, balance, brand, last_four.
	gift := func(id string, bal float64) *ir.Value {
		return vStruct(vEnum("gift_card"), vStr(id), vDec(bal), nil, nil)
	}
	x.w.Seed = []*ir.Record{
		record(x.Product, "p_kb", vStr("p_kb"), vStr("Keyboard"), vMap(
			"kb_linear", variant(100, true), "kb_tactile", variant(120.5, true), "kb_clicky", variant(90, false), "kb_silent", variant(110, true))),
		record(x.Product, "p_sh", vStr("p_sh"), vStr("Shoes"), vMap("sh_9", variant(50, true), "sh_10", variant(55.25, true))),
		record(x.User, "ann", vStr("ann"), vStr("Ann"), addr("1 Main", nil, "Paris", "75001", "FR"),
			vMap("gc_1", gift("gc_1", 10), "pp_1", vStruct(vEnum("paypal"), vStr("pp_1"), nil, nil, nil)),
			vList(vRef("#W1"), vRef("#W2")), vList(vEnum("vip"))),
		record(x.User, "bob", vStr("bob"), vStr("Bob"), addr("2 Side", vStr("Apt 4"), "Denver", "80280", "US"),
			vMap("cc_1", vStruct(vEnum("card"), vStr("cc_1"), nil, vStr("visa"), vStr("4242"))),
			vList(vRef("#W3")), vList()),
		record(x.Order, "#W1", vStr("#W1"), vRef("ann"), vList(
			item("kb_linear", "p_kb", 100, vMap("switch", vStr("linear")), 1),
			item("sh_9", "p_sh", 50, vMap("size", vStr("9"), "color", vStr("red")), 2),
		), vEnum("pending"), vList(pay("payment", 200, "gc_1")), vNull(), vNull()),
		record(x.Order, "#W2", vStr("#W2"), vRef("ann"), vList(item("sh_10", "p_sh", 55.25, vMap("size", vStr("10")), 1)),
			vEnum("cancelled"), vList(pay("payment", 55.25, "pp_1"), pay("refund", 55.25, "pp_1")), vStr("gift"), vNull()),
		record(x.Order, "#W3", vStr("#W3"), vRef("bob"), vList(item("kb_tactile", "p_kb", 120.5, vMap("switch", vStr("tactile")), 1)),
			vEnum("pending"), vList(pay("payment", 120.5, "cc_1")), vNull(), vNull()),
		record(x.Review, "rev_1", vRef("#W2"), vInt(4)),
	}

	arg := func(tool *ir.Tool, name string, v *ir.Value) *ir.Arg {
		for _, p := range tool.Params {
			if p.Name == name {
				return &ir.Arg{Param: p, Value: v}
			}
		}
		t.Fatalf("no param %s of %s", name, tool.Name)
		return nil
	}
	fails := "Non-pending order cannot be cancelled"
	annGift := index(fld(lookup(x.User, handle(x.User, "ann")), x.uMethods), sLit("gc_1"))
	x.cancelTask = &ir.Task{
		Name: "cancel_w1",
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: `Order["#W1"].status == cancelled`, Expr: eq(fld(lookup(x.Order, handle(x.Order, "#W1")), x.oStatus), enumLit(x.oStatus, "cancelled"))},
			{Kind: ir.AssertExpr, Text: `User["ann"].methods["gc_1"].balance == 210`, Expr: eq(fld(annGift, x.mBalance), dLit(210))},
			{Kind: ir.AssertUnchanged, Text: `unchanged except Order["#W1"], User["ann"]`, Except: []*ir.Lookup{
				lookup(x.Order, handle(x.Order, "#W1")).(*ir.Lookup), lookup(x.User, sLit("ann")).(*ir.Lookup)}},
			{Kind: ir.AssertInvariant, Text: "invariant items_in_catalog", Invariant: x.inCatalog},
		},
		Solution: []*ir.Step{
			{Tool: x.cancelOrder, Args: []*ir.Arg{arg(x.cancelOrder, "order_id", vStr("#W2"))}, Fails: &fails},
			{Bind: "o", Tool: x.cancelOrder, Args: []*ir.Arg{arg(x.cancelOrder, "order_id", vStr("#W1"))}},
		},
	}
	x.noopTask = &ir.Task{
		Name:       "noop",
		Assertions: []*ir.Assertion{{Kind: ir.AssertUnchanged, Text: "unchanged"}},
		Solution:   []*ir.Step{{Tool: x.findItem, Args: []*ir.Arg{arg(x.findItem, "item_id", vStr("sh_9"))}}},
	}
	x.w.Tasks = []*ir.Task{x.cancelTask, x.noopTask}
	return x
}

func (x *shop) state(t testing.TB) *State {
	t.Helper()
	s, err := NewState(x.w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
