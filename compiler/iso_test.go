package compiler

import (
	"strings"
	"testing"
)

// TestISOData checks the embedded ISO lists: their form (parseISO refuses
// a malformed line, a repeated code, a withdrawn code that is current or
// replaced by one that is not), the number of assigned country codes, and
// minor units the money lint relies on.
func TestISOData(t *testing.T) {
	tab, err := parseISO(iso3166Data, iso4217Data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tab.countries); n != 249 {
		t.Errorf("%d country codes; ISO 3166-1 assigns 249", n)
	}
	for _, code := range []string{"DE", "GB", "US", "SS", "CW", "XK"} {
		want := code != "XK" // Kosovo's XK is user-assigned, not ISO's
		if tab.countries[code] != want {
			t.Errorf("country %s listed: %v, want %v", code, tab.countries[code], want)
		}
	}
	if tab.countries["UK"] {
		t.Error("UK is reserved, not assigned")
	}
	for code, want := range map[string]int{
		"EUR": 2, "USD": 2, "GBP": 2, "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0,
		"BHD": 3, "KWD": 3, "TND": 3, "CLF": 4, "UYW": 4, "XAU": -1, "XDR": -1,
		"XCG": 2, "ZWG": 2, "VES": 2, "SLE": 2,
	} {
		got, ok := tab.minorUnits[code]
		if !ok || got != want {
			t.Errorf("minor units of %s: %d (listed %v), want %d", code, got, ok, want)
		}
	}
	for _, code := range []string{"HRK", "ANG", "VEF", "ZWL"} {
		if _, ok := tab.minorUnits[code]; ok {
			t.Errorf("%s is listed as current", code)
		}
		if tab.withdrawn[code] == "" {
			t.Errorf("%s is not listed as withdrawn", code)
		}
	}
	for _, bad := range []struct{ countries, currencies, want string }{
		{"DE DE", "", "repeated"},
		{"de", "", "bad or repeated"},
		{"DE", "EUR 2\nEUR 2", "repeated code EUR"},
		{"DE", "EUR two", "bad minor units"},
		{"DE", "EUR 2 3", "malformed"},
		{"DE", "EUR 2\nwithdrawn EUR USD", "both current and withdrawn"},
		{"DE", "EUR 2\nwithdrawn DEM XEU", "not current"},
	} {
		if _, err := parseISO(bad.countries, bad.currencies); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseISO(%q, %q): %v, want an error with %q", bad.countries, bad.currencies, err, bad.want)
		}
	}
}

// TestDecimals pins how a money literal's decimals are counted: the
// digits after the point, trailing zeros aside.
func TestDecimals(t *testing.T) {
	for text, want := range map[string]int{"12": 0, "12.": 0, "12.50": 1, "12.500": 1, "0.125": 3, "-3.10": 1, "100.00": 0} {
		if got := decimals(text); got != want {
			t.Errorf("decimals(%q) = %d, want %d", text, got, want)
		}
	}
}
