module github.com/novelsuite/novel

go 1.25.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/go-shiori/go-epub v1.2.1
	github.com/gofrs/flock v0.13.1
	github.com/gofrs/uuid/v5 v5.0.0
	github.com/itchyny/gojq v0.12.20
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.47.0
	golang.org/x/text v0.31.0
)

require (
	github.com/gabriel-vasile/mimetype v1.4.3 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/vincent-petithory/dataurl v1.0.0 // indirect
	golang.org/x/net v0.46.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
)
