module github.com/worldc/worldc/runtime

go 1.26.0
