package compiler

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/dsl"
)

// The ISO lists the world header is checked against (W030), and the
// minor units money literals are checked against (W031). The data files
// say where they come from.
var (
	//go:embed iso/iso3166-1.txt
	iso3166Data string
	//go:embed iso/iso4217.txt
	iso4217Data string
)

// isoTables holds the parsed lists.
type isoTables struct {
	countries map[string]bool
	// minorUnits maps a current currency code to its minor units, -1 where
	// ISO 4217 says N.A.
	minorUnits map[string]int
	withdrawn  map[string]string // a withdrawn currency code → its successor
}

var isoOnce = sync.OnceValue(func() *isoTables {
	t, err := parseISO(iso3166Data, iso4217Data)
	if err != nil {
		panic(err) // the embedded files are tested (TestISOData)
	}
	return t
})

func parseISO(countries, currencies string) (*isoTables, error) {
	t := &isoTables{countries: map[string]bool{}, minorUnits: map[string]int{}, withdrawn: map[string]string{}}
	for i, line := range strings.Split(countries, "\n") {
		line, _, _ = strings.Cut(line, "#")
		for _, code := range strings.Fields(line) {
			if !countryRx.MatchString(code) || t.countries[code] {
				return nil, fmt.Errorf("iso3166-1.txt:%d: bad or repeated code %q", i+1, code)
			}
			t.countries[code] = true
		}
	}
	for i, line := range strings.Split(currencies, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case len(f) == 2 && currencyRx.MatchString(f[0]):
			units := -1
			if f[1] != "-" {
				n, err := strconv.Atoi(f[1])
				if err != nil || n < 0 || n > 4 {
					return nil, fmt.Errorf("iso4217.txt:%d: bad minor units %q", i+1, f[1])
				}
				units = n
			}
			if _, dup := t.minorUnits[f[0]]; dup {
				return nil, fmt.Errorf("iso4217.txt:%d: repeated code %s", i+1, f[0])
			}
			t.minorUnits[f[0]] = units
		case len(f) == 3 && f[0] == "withdrawn" && currencyRx.MatchString(f[1]) && currencyRx.MatchString(f[2]):
			t.withdrawn[f[1]] = f[2]
		default:
			return nil, fmt.Errorf("iso4217.txt:%d: malformed line %q", i+1, line)
		}
	}
	for old, succ := range t.withdrawn {
		if _, current := t.minorUnits[old]; current {
			return nil, fmt.Errorf("iso4217.txt: %s is both current and withdrawn", old)
		}
		if _, current := t.minorUnits[succ]; !current {
			return nil, fmt.Errorf("iso4217.txt: %s is withdrawn for %s, which is not current", old, succ)
		}
	}
	return t, nil
}

// reservedCountries explains well-formed codes that are reserved in ISO
// 3166-1 but assigned to no country, and that authors reach for.
var reservedCountries = map[string]string{
	"UK": "UK is reserved, not assigned: the United Kingdom is GB",
	"EU": "EU is reserved for the European Union, which is not a country: use a member state's code, such as DE",
	"EL": "EL is the European Union's abbreviation for Greece; its ISO code is GR",
	"AN": "AN (Netherlands Antilles) was deleted in 2010: use CW, SX or BQ",
	"YU": "YU (Yugoslavia) was deleted: use RS, ME, BA, HR, SI or MK",
	"CS": "CS (Serbia and Montenegro) was deleted in 2006: use RS or ME",
	"TP": "TP (East Timor) was replaced by TL",
	"ZR": "ZR (Zaire) was replaced by CD",
	"BU": "BU (Burma) was replaced by MM",
}

// checkCountry reports a well-formed country code that ISO 3166-1 does not
// assign (W030).
func (c *checker) checkCountry(code string, pos, end dsl.Pos) {
	if isoOnce().countries[code] {
		return
	}
	msg := fmt.Sprintf("country %q is not an officially assigned ISO 3166-1 alpha-2 code", code)
	if why, ok := reservedCountries[code]; ok {
		msg += ": " + why
	}
	c.errorf(diag.UnknownCountryOrCurrency, pos, end, "%s", msg)
}

// checkCurrency reports a well-formed currency code that is not in ISO
// 4217's List One (W030).
func (c *checker) checkCurrency(code string, pos, end dsl.Pos) {
	t := isoOnce()
	if _, ok := t.minorUnits[code]; ok {
		return
	}
	msg := fmt.Sprintf("currency %q is not a current ISO 4217 code", code)
	if succ, ok := t.withdrawn[code]; ok {
		msg += fmt.Sprintf(": it was withdrawn and replaced by %s", succ)
	}
	c.errorf(diag.UnknownCountryOrCurrency, pos, end, "%s", msg)
}

// minorUnits returns the minor units of the world's currency: the
// decimals an amount of money may have. ok is false when the world has no
// currency, an unknown one, or one without minor units (gold, the SDR).
func (c *checker) minorUnits() (units int, ok bool) {
	n, known := isoOnce().minorUnits[c.w.Currency]
	if !known || n < 0 {
		return 0, false
	}
	return n, true
}
