package dsl_test

import (
	"fmt"

	"github.com/worldc/worldc/dsl"
)

func ExampleFormatSource() {
	src := `world demo { title "Demo"   today 2026-03-14 }
service crm { entity Customer { name string  tier enum { bronze, "gold plus" } = bronze // the tier
} tool get_customer : get Customer }`
	out, err := dsl.FormatSource("demo.world", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// world demo {
	//   title "Demo"
	//   today 2026-03-14
	// }
	//
	// service crm {
	//   entity Customer {
	//     name string
	//     tier enum { bronze "gold plus" } = bronze // the tier
	//   }
	//   tool get_customer: get Customer
	// }
}

func ExampleParse() {
	_, err := dsl.Parse("demo.world", []byte("seed {\n  crm.Customer acme { name = \"Acme\" }\n}\n"))
	fmt.Println(err)
	// Output:
	// demo.world:2:28: unexpected "=" (fields and arguments are written name: value)
}
