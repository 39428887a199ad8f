package routing

import (
	"strconv"

	"github.com/numenhq/numen/numbering/textfmt"
	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
)

// jsonDecoder turns parsed JSON into routing's types, strictly: an unknown
// key or a value of the wrong kind is an error naming its path, line and
// column.
type jsonDecoder struct {
	data []byte
}

func (d *jsonDecoder) errorAt(off int, path, msg string) error {
	if path != "" {
		msg = path + ": " + msg
	}
	return errorAt(d.data, off, msg)
}

// fields calls field for each key of an object (a null is an empty object),
// and fails on a key given twice and on a key field does not know (field
// returns false).
func (d *jsonDecoder) fields(v *jsonpos.Value, path string, field func(name string, v *jsonpos.Value) (known bool, err error)) error {
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.Object:
	default:
		return d.errorAt(v.Off, path, "want an object, have "+jsonKindNames[v.Kind])
	}
	for i, k := range v.Keys {
		for _, before := range v.Keys[:i] {
			if before.Name == k.Name {
				return d.errorAt(k.Off, path, textfmt.Sprintf("key %q given twice", k.Name))
			}
		}
		known, err := field(k.Name, &v.Values[i])
		if err != nil {
			return err
		}
		if !known {
			return d.errorAt(k.Off, path, textfmt.Sprintf("unknown field %q", k.Name))
		}
	}
	return nil
}

// elems calls elem for each element of an array (a null is an empty one).
func (d *jsonDecoder) elems(v *jsonpos.Value, path string, elem func(i int, v *jsonpos.Value) error) error {
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.Array:
	default:
		return d.errorAt(v.Off, path, "want an array, have "+jsonKindNames[v.Kind])
	}
	for i := range v.Values {
		if err := elem(i, &v.Values[i]); err != nil {
			return err
		}
	}
	return nil
}

// str reads a string, or null as "" (set reports which).
func (d *jsonDecoder) str(v *jsonpos.Value, path string, dst *string, set *bool) error {
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.String:
		*dst = v.Text
		if set != nil {
			*set = true
		}
		return nil
	}
	return d.errorAt(v.Off, path, "want a string, have "+jsonKindNames[v.Kind])
}

// flex reads a string or a whole number (an MCCMNC), as text; null is "".
func (d *jsonDecoder) flex(v *jsonpos.Value, path string, dst *string) error {
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.String:
		*dst = v.Text
		return nil
	case jsonpos.Number:
		if isDigits(v.Text) {
			*dst = v.Text
			return nil
		}
	}
	what := jsonKindNames[v.Kind]
	if v.Kind == jsonpos.Number {
		what = v.Text
	}
	return d.errorAt(v.Off, path, "want a string or a whole number, have "+what)
}

// boolean reads true or false, or null (set stays false).
func (d *jsonDecoder) boolean(v *jsonpos.Value, path string, dst *bool, set *bool) error {
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.Bool:
		*dst, *set = v.Text == "true", true
		return nil
	}
	return d.errorAt(v.Off, path, "want true or false, have "+jsonKindNames[v.Kind])
}

// integer reads a whole number that fits an int, or null as 0.
func (d *jsonDecoder) integer(v *jsonpos.Value, path string, dst *int) error {
	switch v.Kind {
	case jsonpos.Null:
		return nil
	case jsonpos.Number:
		if n, err := strconv.Atoi(v.Text); err == nil {
			*dst = n
			return nil
		}
		return d.errorAt(v.Off, path, "want a whole number, have "+v.Text)
	}
	return d.errorAt(v.Off, path, "want a whole number, have "+jsonKindNames[v.Kind])
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// decodeMap reads a routing map object (see ParseMap).
func decodeMap(data []byte, v *jsonpos.Value) (*Map, error) {
	d := &jsonDecoder{data}
	var (
		m                             Map
		dflt, dfltSnake               string
		hasDflt, hasDfltSnake         bool
		fallback, fallbackSnake       bool
		hasFallback, hasFallbackSnake bool
	)
	if v.Kind != jsonpos.Object {
		return nil, d.errorAt(v.Off, "", "want a JSON object, have "+jsonKindNames[v.Kind])
	}
	err := d.fields(v, "", func(name string, v *jsonpos.Value) (bool, error) {
		switch name {
		case "defaultRoute":
			return true, d.str(v, name, &dflt, &hasDflt)
		case "default_route":
			return true, d.str(v, name, &dfltSnake, &hasDfltSnake)
		case "mnpFallback":
			return true, d.boolean(v, name, &fallback, &hasFallback)
		case "mnp_fallback":
			return true, d.boolean(v, name, &fallbackSnake, &hasFallbackSnake)
		case "mccmncs":
			return true, d.elems(v, name, func(i int, v *jsonpos.Value) error {
				var r MCCMNCRule
				path := index(name, i)
				err := d.fields(v, path, func(f string, v *jsonpos.Value) (bool, error) {
					switch f {
					case "mccmnc":
						return true, d.flex(v, path+"."+f, &r.MCCMNC)
					case "countrycode":
						return true, d.str(v, path+"."+f, &r.CountryCode, nil)
					case "route":
						return true, d.str(v, path+"."+f, &r.Route, nil)
					case "mno":
						return true, d.str(v, path+"."+f, &r.MNO, nil)
					case "confidence":
						return true, d.str(v, path+"."+f, &r.Confidence, nil)
					case "origin":
						return true, d.str(v, path+"."+f, &r.Origin, nil)
					}
					return false, nil
				})
				m.MCCMNCs = append(m.MCCMNCs, r)
				return err
			})
		case "prefixes":
			return true, d.elems(v, name, func(i int, v *jsonpos.Value) error {
				var r PrefixRule
				path := index(name, i)
				err := d.fields(v, path, func(f string, v *jsonpos.Value) (bool, error) {
					switch f {
					case "countrycode":
						return true, d.str(v, path+"."+f, &r.CountryCode, nil)
					case "cns":
						return true, d.str(v, path+"."+f, &r.CNS, nil)
					case "route":
						return true, d.str(v, path+"."+f, &r.Route, nil)
					case "mccmnc":
						return true, d.flex(v, path+"."+f, &r.MCCMNC)
					case "mno":
						return true, d.str(v, path+"."+f, &r.MNO, nil)
					}
					return false, nil
				})
				m.Prefixes = append(m.Prefixes, r)
				return err
			})
		case "countries":
			return true, d.elems(v, name, func(i int, v *jsonpos.Value) error {
				var r CountryRule
				path := index(name, i)
				err := d.fields(v, path, func(f string, v *jsonpos.Value) (bool, error) {
					switch f {
					case "countrycode":
						return true, d.str(v, path+"."+f, &r.CountryCode, nil)
					case "route":
						return true, d.str(v, path+"."+f, &r.Route, nil)
					}
					return false, nil
				})
				m.Countries = append(m.Countries, r)
				return err
			})
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	var problems []string
	switch {
	case hasDflt && hasDfltSnake && dflt != dfltSnake:
		problems = append(problems, textfmt.Sprintf("defaultRoute %q and default_route %q disagree", dflt, dfltSnake))
	case hasDflt:
		m.DefaultRoute = dflt
	default:
		m.DefaultRoute = dfltSnake
	}
	switch {
	case hasFallback && hasFallbackSnake && fallback != fallbackSnake:
		problems = append(problems, "mnpFallback and mnp_fallback disagree")
	case hasFallback:
		m.MNPFallback = fallback
	case hasFallbackSnake:
		m.MNPFallback = fallbackSnake
	}
	if len(problems) > 0 {
		return nil, &MapError{Problems: problems}
	}
	return &m, nil
}

// decodeCoverage reads coverage data (see ParseCoverage).
func decodeCoverage(data []byte, v *jsonpos.Value) (*Coverage, error) {
	d := &jsonDecoder{data}
	if v.Kind != jsonpos.Object {
		return nil, d.errorAt(v.Off, "", "want a JSON object, have "+jsonKindNames[v.Kind])
	}
	var c Coverage
	err := d.fields(v, "", func(name string, v *jsonpos.Value) (bool, error) {
		switch name {
		case "about":
			return true, d.str(v, name, &c.About, nil)
		case "routes":
			return true, d.elems(v, name, func(i int, v *jsonpos.Value) error {
				var r Route
				var product string
				path := index(name, i)
				err := d.fields(v, path, func(f string, v *jsonpos.Value) (bool, error) {
					switch f {
					case "id":
						return true, d.str(v, path+"."+f, &r.ID, nil)
					case "product":
						return true, d.str(v, path+"."+f, &product, nil)
					case "name":
						return true, d.str(v, path+"."+f, &r.Name, nil)
					}
					return false, nil
				})
				r.Product = Product(product)
				c.Routes = append(c.Routes, r)
				return err
			})
		case "networks":
			return true, d.elems(v, name, func(i int, v *jsonpos.Value) error {
				var n Network
				path := index(name, i)
				err := d.fields(v, path, func(f string, v *jsonpos.Value) (bool, error) {
					switch f {
					case "mccmnc":
						return true, d.str(v, path+"."+f, &n.MCCMNC, nil)
					case "countrycode":
						return true, d.str(v, path+"."+f, &n.CountryCode, nil)
					case "mno":
						return true, d.str(v, path+"."+f, &n.MNO, nil)
					}
					return false, nil
				})
				c.Networks = append(c.Networks, n)
				return err
			})
		case "scores":
			return true, d.elems(v, name, func(i int, v *jsonpos.Value) error {
				var s Score
				path := index(name, i)
				err := d.fields(v, path, func(f string, v *jsonpos.Value) (bool, error) {
					switch f {
					case "route":
						return true, d.str(v, path+"."+f, &s.Route, nil)
					case "mccmnc":
						return true, d.str(v, path+"."+f, &s.MCCMNC, nil)
					case "score":
						return true, d.integer(v, path+"."+f, &s.Score)
					}
					return false, nil
				})
				c.Scores = append(c.Scores, s)
				return err
			})
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}
