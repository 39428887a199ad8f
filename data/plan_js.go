//go:build js

package data

import _ "embed"

// The browser module embeds the plan without its optional sections.
//
//go:embed numbering/plan-core.bin
var plan []byte
