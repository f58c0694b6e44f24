module github.com/novelsuite/novel

go 1.25.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/gofrs/flock v0.13.1
	github.com/itchyny/gojq v0.12.20
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.47.0
)

require (
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
