module github.com/novelsuite/novel

go 1.25.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/go-shiori/go-epub v1.2.1
	github.com/gofrs/flock v0.13.1
	github.com/gofrs/uuid/v5 v5.0.0
	github.com/itchyny/gojq v0.12.20
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.47.0
	golang.org/x/text v0.34.0
)

require (
	github.com/gabriel-vasile/mimetype v1.4.3 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/vincent-petithory/dataurl v1.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/net v0.50.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.42.0 // indirect
)
