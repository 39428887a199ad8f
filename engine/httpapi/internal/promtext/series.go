package promtext

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ParseSeries reads a series written as name or name{k="v",...}: a metric
// name, then label names with values in double quotes, without escapes (a
// value is UTF-8 and holds no double quote or backslash), separated by commas (one
// after the last allowed). It returns the labels in the order written, nil
// for none.
func ParseSeries(s string) (name string, labels []Label, err error) {
	name, rest, braces := strings.Cut(s, "{")
	if !validName(name, true) {
		return "", nil, fmt.Errorf("metric name %q", name)
	}
	if !braces {
		return name, nil, nil
	}
	for {
		if rest == "}" {
			return name, labels, nil
		}
		label, after, ok := strings.Cut(rest, `="`)
		if !ok || !validName(label, false) || strings.HasPrefix(label, "__") {
			return "", nil, fmt.Errorf("at %q: want a label name, =, then a value in double quotes", rest)
		}
		value, after, ok := strings.Cut(after, `"`)
		if !ok {
			return "", nil, fmt.Errorf("label %s: no closing double quote", label)
		}
		if strings.Contains(value, `\`) || !utf8.ValidString(value) {
			return "", nil, fmt.Errorf("label %s: a backslash or invalid UTF-8 in the value", label)
		}
		for _, l := range labels {
			if l.Name == label {
				return "", nil, fmt.Errorf("label %s given twice", label)
			}
		}
		labels = append(labels, Label{label, value})
		switch {
		case after == "}":
			return name, labels, nil
		case strings.HasPrefix(after, ","):
			rest = after[1:]
		default:
			return "", nil, errors.New("want , or } after a label's value, and nothing after the }")
		}
	}
}
