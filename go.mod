module github.com/numenhq/numen

go 1.26

require (
	github.com/nyaruka/phonenumbers/v2 v2.0.7
	golang.org/x/text v0.34.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
