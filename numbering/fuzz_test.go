package numbering

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzClassify feeds arbitrary text to ClassifyString: it must not panic,
// must render valid JSON, must agree with Parse, and a valid result must
// round-trip through its E.164 form.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"+49 151 23456789", "+44 (0)20 7946 0000", "0049 30 1234567", "4915123456789",
		"+1-800-FLOWERS", "tel:+33-6-12-34-56-78", "＋４９ １５１ ２３４５６７８９", "+54 9 11 2345 6789",
		"+7 8 495 123 45 67", "+1 1 650 253 0000", "+262 269 61 23 45", "+378 0549 123456",
		"", " ", "hello", "+", "++1", "+0", "+999 123", "030 1234567", "+49 30 1234567 ext. 89",
		"+49\x00", "\xff\xfe", "+1 212 555 0100 x12", "#", "+123456789012345678901234567890123456789",
	} {
		f.Add(s)
	}
	p := plan(f)
	f.Fuzz(func(t *testing.T, s string) {
		res := p.ClassifyString(s)
		if v := p.Validate(s); v != (Validity{Number: res.Number, Valid: res.Valid, Type: res.Type, Reason: res.Reason, Region: res.CountryCode}) {
			t.Fatalf("%q: Validate %+v, ClassifyString %+v", s, v, res)
		}
		out := res.AppendJSON(nil)
		if !json.Valid(out) {
			t.Fatalf("%q: invalid JSON %s", s, out)
		}
		if res.Valid != (res.Reason == NoReason) {
			t.Fatalf("%q: valid=%v but reason %v", s, res.Valid, res.Reason)
		}
		n, err := p.Parse(s)
		if (err == nil) != !res.Number.IsZero() || n != res.Number {
			t.Fatalf("%q: Parse gives %v, %v; ClassifyString gives %v", s, n, err, res.Number)
		}
		if err != nil && res.Status == StatusOK && res.CountryPrefix == "" {
			t.Fatalf("%q: status OK without a calling code", s)
		}
		if !res.Valid {
			if res.Type != Unknown || res.QualifiesForHLR || res.PossiblyPorted || res.Regions != nil {
				t.Fatalf("%q: invalid result with details: %+v", s, res)
			}
			return
		}
		if !utf8.ValidString(res.CountryName) || res.CountryPrefix == "" {
			t.Fatalf("%q: bad country fields %+v", s, res)
		}
		again := p.ClassifyString(res.Number.String())
		if again.Number != withoutVanity(res.Number) || again.Type != res.Type || !again.Valid || again.CountryCode != res.CountryCode {
			t.Fatalf("%q → %v %v; round trip → %v %v valid=%v", s, res.Number, res.Type, again.Number, again.Type, again.Valid)
		}
	})
}

func withoutVanity(n Number) Number {
	n.vanity = false
	return n
}

// FuzzParseFastPath checks parse's one-pass reading of simple input
// against the general path on the same input.
func FuzzParseFastPath(f *testing.F) {
	for _, s := range []string{"+49 151 23456789", "0049-30-1234567", " +1 (650) 253-0000 ", "++1", "1+2", "+", "  ", "+49 30 . 1234", "[+44] 20/7946.0000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var fast, slow [maxDialled]byte
		nd, plus, ok := collectSimple(s, &fast)
		if !ok {
			return
		}
		snd, splus, letters, reason, _ := collect(s, &slow)
		if reason != NoReason || letters || snd != nd || splus != plus || fast != slow {
			t.Fatalf("%q: fast path %d %v %q, general path %d %v %v %q", s, nd, plus, fast[:min(nd, len(fast))], snd, splus, reason, slow[:min(snd, len(slow))])
		}
	})
}
