module github.com/worldc/worldc

go 1.26

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
