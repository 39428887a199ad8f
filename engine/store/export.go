package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
)

// codecs read each product's stored result objects back into their apiv2
// type, whose JSON attribute names, in field order, are the product's
// columns: a field added there appears in downloads too. Built at first
// use, not when a program that never exports starts.
var codecs = sync.OnceValue(func() map[engine.Product]*codec {
	return map[engine.Product]*codec{
		engine.ProductHLR: newCodec(reflect.TypeFor[apiv2.HLRResult]()),
		engine.ProductMNP: newCodec(reflect.TypeFor[apiv2.MNPResult]()),
		engine.ProductNT:  newCodec(reflect.TypeFor[apiv2.NTResult]()),
	}
})

// codec turns a result object into CSV cells.
type codec struct {
	typ     reflect.Type
	columns []string
	fields  []int // the struct field of each column
}

func newCodec(t reflect.Type) *codec {
	c := &codec{typ: t}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case name == "":
			name = f.Name
		}
		c.columns = append(c.columns, name)
		c.fields = append(c.fields, f.Index[0])
	}
	return c
}

// Columns returns the attribute names of a product's result object in the
// API's order: the header of a CSV export of a report of that product.
// It returns nil for an unknown product.
func Columns(p engine.Product) []string {
	if c := codecs()[p]; c != nil {
		return slices.Clone(c.columns)
	}
	return nil
}

// Table lays results of several products out as the rows of one table: the
// columns of a CSV download, the web page's table. A table of one
// product has that product's attributes as columns (Columns); one of
// several products starts with a "product" column, then has the union of
// their attributes (HLR's, then those MNP adds, then those NT adds).
type Table struct {
	products   []engine.Product
	header     []string
	index      map[string]int // column name → cell
	productCol bool
	cells      []string
	values     map[engine.Product]reflect.Value // a *T to decode into, per product
}

// NewTable returns the Table of results of products (at least one of HLR,
// MNP and NT).
func NewTable(products []engine.Product) (*Table, error) {
	for _, p := range products {
		if productRank(p) < 0 {
			return nil, fmt.Errorf("product %q: want HLR, MNP or NT", p)
		}
	}
	t := &Table{products: slices.Clone(products)}
	slices.SortFunc(t.products, func(a, b engine.Product) int { return productRank(a) - productRank(b) })
	t.products = slices.Compact(t.products)
	if len(t.products) == 0 {
		return nil, fmt.Errorf("a table needs the report's products")
	}
	if len(t.products) > 1 {
		t.productCol = true
		t.header = append(t.header, "product")
	}
	t.index = map[string]int{}
	for _, p := range t.products {
		for _, c := range codecs()[p].columns {
			if _, ok := t.index[c]; !ok {
				t.index[c] = len(t.header)
				t.header = append(t.header, c)
			}
		}
	}
	t.cells = make([]string, len(t.header))
	t.values = map[engine.Product]reflect.Value{}
	for _, p := range t.products {
		t.values[p] = reflect.New(codecs()[p].typ)
	}
	return t, nil
}

// Header returns the table's column names (the API's attribute names).
func (t *Table) Header() []string { return t.header }

// Row returns the cells of one result of product (its object as the API
// wrote it), one per column of Header: text as is, numbers in decimal,
// booleans as true and false, null as an empty cell, arrays joined by
// "|". The slice is reused by the next call. The cells are not
// neutralised: that is the CSV download's business (core.Neutralise).
func (t *Table) Row(product engine.Product, result []byte) ([]string, error) {
	v, ok := t.values[product]
	if !ok {
		return nil, fmt.Errorf("a %q result; the table is one of %v", product, t.products)
	}
	v.Elem().SetZero()
	if err := json.Unmarshal(result, v.Interface()); err != nil {
		return nil, err
	}
	clear(t.cells)
	if t.productCol {
		t.cells[0] = string(product)
	}
	c := codecs()[product]
	for i, name := range c.columns {
		t.cells[t.index[name]] = csvCell(v.Elem().Field(c.fields[i]))
	}
	return t.cells, nil
}

// csvCell writes one attribute as a CSV cell: text as is, numbers in
// decimal, booleans as true and false, null (a nil pointer or slice) as
// nothing, arrays joined by "|".
func csvCell(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return csvCell(v.Elem())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Slice:
		if v.IsNil() {
			return ""
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = csvCell(v.Index(i))
		}
		return strings.Join(parts, "|")
	}
	// Anything else (no result has it) as its JSON.
	b, _ := json.Marshal(v.Interface())
	return string(b)
}
