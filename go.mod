module github.com/numenhq/numen

go 1.26

require (
	github.com/armon/go-radix v1.0.0
	github.com/google/go-cmp v0.7.0
	github.com/nyaruka/phonenumbers/v2 v2.0.7
	github.com/stretchr/testify v1.12.1
	golang.org/x/text v0.34.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
