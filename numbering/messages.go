package numbering

import "github.com/numenhq/numen/numbering/textfmt"

// The package's messages are formatted without package fmt (see package
// textfmt); TestFormatVerbs keeps them to the verbs it knows.

func sprintf(format string, args ...any) string { return textfmt.Sprintf(format, args...) }

func errorf(format string, args ...any) error { return textfmt.Errorf(format, args...) }
