package ir

import "testing"

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"PurchaseOrder": "purchase_order", "HTTPRequest": "http_request", "OrderV2": "order_v2",
		"Invoice": "invoice", "LineItem": "line_item", "ABC": "abc", "already_snake": "already_snake",
	} {
		if got := SnakeName(in); got != want {
			t.Errorf("SnakeName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"credit_limit": "CreditLimit", "customer_id": "CustomerID", "Invoice": "Invoice",
		"api_url": "APIURL", "totalDue": "TotalDue", "sku": "SKU",
		"SlaPolicy": "SLAPolicy", "orderId": "OrderID", "in progress": "InProgress", "2nd": "X2nd", "": "X",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"pending (item modified)": "PendingItemModified", "a-b": "AB", "2nd": "V2nd", "": "V", "café": "Caf",
	} {
		if got := EnumValueName(in); got != want {
			t.Errorf("EnumValueName(%q) = %q, want %q", in, got, want)
		}
	}
}
