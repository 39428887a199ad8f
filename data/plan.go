//go:build !js

package data

import _ "embed"

//go:embed numbering/plan.bin
var plan []byte
