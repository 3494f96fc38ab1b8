module github.com/worldc/worldc

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/coder/websocket v1.8.15
	github.com/dave/jennifer v1.7.1
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sashabaranov/go-openai v1.43.0
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/net v0.62.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/VictoriaMetrics/metrics v1.45.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/valyala/fastrand v1.1.0 // indirect
	github.com/valyala/histogram v1.2.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/worldc/worldc/runtime v0.0.0-00010101000000-000000000000
	github.com/worldc/worldc/runtime/serve v0.0.0-00010101000000-000000000000
	golang.org/x/mod v0.42.0
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0
)

replace github.com/worldc/worldc/runtime => ./runtime

replace github.com/worldc/worldc/runtime/serve => ./runtime/serve
