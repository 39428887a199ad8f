//go:build js

package data

// A browser build has no plan built in: importing package embed would cost
// the module about 85 KB (gzip) of package time, and the page fetches the
// plan it needs anyway (numbering.OpenBytes).
var plan []byte
