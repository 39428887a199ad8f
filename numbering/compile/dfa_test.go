package compile

import "testing"

func TestCompileDFALimits(t *testing.T) {
	t.Parallel()
	if _, err := compileDFA(make([]string, 17), 10); err == nil {
		t.Error("17 patterns accepted")
	}
	if _, err := compileDFA([]string{"("}, 10); err == nil {
		t.Error("bad pattern accepted")
	}
	// \d{1,30} has 31 states: over a limit of 10.
	if _, err := compileDFA([]string{`\d{1,30}`}, 10); err == nil {
		t.Error("state limit not enforced")
	}
	d, err := compileDFA([]string{`12\d`, `1[0-5]`, ``}, 100)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]uint16{"123": 1, "12": 2, "15": 2, "1": 0, "1234": 0, "": 0} {
		if got := d.match(in); got != want {
			t.Errorf("match(%q) = %b, want %b", in, got, want)
		}
	}
}
