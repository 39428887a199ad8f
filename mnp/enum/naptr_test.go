package enum

import (
	"testing"

	"github.com/numenhq/numen/mnp"
	"github.com/stretchr/testify/require"
)

func TestSubstitution(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		expr, aus, want string
		matched         bool
	}{
		// RFC 6116 section 6 and RFC 3761's examples.
		{`!^.*$!sip:info@example.com!`, "+441632960083", "sip:info@example.com", true},
		{`!^.*$!mailto:info@example.com!`, "+441632960083", "mailto:info@example.com", true},
		{`!^.*$!tel:\0;npdi!`, "+4915112345678", "tel:+4915112345678;npdi", true},
		// RFC 4694 section 6.
		{`!^.*$!tel:+1-215-555-1234;npdi;rn=+1-215-555-0000!`, "+12155551234", "tel:+1-215-555-1234;npdi;rn=+1-215-555-0000", true},
		// Backreferences, another delimiter, an escaped delimiter.
		{`!^\+49(.*)$!tel:+49\1;npdi;rn=D262!`, "+4915112345678", "tel:+4915112345678;npdi;rn=D262", true},
		{`/^\+(49)(151)(.*)$/tel:+\1\2\3;x=\3\/\2/`, "+4915112345678", "tel:+4915112345678;x=12345678/151", true},
		{`#^\+(\d)(\d)#\2\1#`, "+4915112345678", "94", true},
		{`!^\+44(.*)$!tel:+44\1!`, "+4915112345678", "", false},
		// The "i" flag.
		{`!^\+49(A?)(.*)$!x\2!i`, "+4915112345678", "x15112345678", true},
		{`!^[a-z]+$!x!i`, "ABC", "x", true},
		{`!^[a-z]+$!x!`, "ABC", "", false},
		// A literal backslash in the replacement.
		{`!^.*$!a\\b!`, "+1", `a\b`, true},
		// A group that did not take part is empty.
		{`!^(x)?\+(.*)$!\1-\2!`, "+49", "-49", true},
	} {
		e, err := parseSubst(c.expr)
		require.NoError(t, err, c.expr)
		out, matched, err := e.apply(nil, []byte(c.aus), nil)
		require.NoError(t, err, c.expr)
		require.Equal(t, c.matched, matched, c.expr)
		if matched {
			require.Equal(t, c.want, string(out), c.expr)
		}
	}
}

func TestSubstitutionErrors(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		``, `!`, `!^.*$`, `!^.*$!x`, `1^.*$1x1`, `\^.*$\x\`, `i^.*$ixi`,
		`!^.*$!x!g`, `!!x!`, `!^(.*$!x!`, `!^.*$!\1!`, `!^.*$!x\!`,
	} {
		e, err := parseSubst(expr)
		if err == nil {
			_, _, err = e.apply(nil, []byte("+49"), nil)
		}
		require.ErrorIs(t, err, ErrBadRegexp, "%q", expr)
	}
}

func TestUnescape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`!^.*$!tel:+1!`:     `!^.*$!tel:+1!`,
		`!^\\+49(.*)$!\\1!`: `!^\+49(.*)$!\1!`,
		`a\"b\092c\255`:     "a\"b\\c\xff",
		`\065`:              "A",
		`x\.y`:              "x.y",
	} {
		got, err := unescape(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{`\`, `\25`, `\2x5`, `\256`} {
		_, err := unescape(in)
		require.ErrorIs(t, err, ErrBadRegexp, in)
	}
}

func TestParseURI(t *testing.T) {
	t.Parallel()
	type want struct {
		phone, npdi             bool
		rn, rnContext, mcc, mnc string
		ported                  mnp.Bool
	}
	for _, c := range []struct {
		uri  string
		want want
	}{
		// RFC 4694 section 4 and 6.
		{"tel:+1-215-555-1234;npdi;rn=+1-215-555-0000", want{phone: true, npdi: true, rn: "+1-215-555-0000"}},
		{"tel:+1-215-555-1234;rn=2155550000;rn-context=+1;npdi", want{phone: true, npdi: true, rn: "2155550000", rnContext: "+1"}},
		{"tel:+1-215-555-1234;npdi", want{phone: true, npdi: true}},
		{"tel:+1-215-555-1234", want{phone: true}},
		// Numen's server and the suppliers' dialect; names without case.
		{"tel:+4915112345678;npdi;rn=D262;rn-context=+49;mcc=262;mnc=03", want{phone: true, npdi: true, rn: "D262", rnContext: "+49", mcc: "262", mnc: "03"}},
		{"TEL:+4915112345678;NPDI;MCC=262;MNC=01;Ported=No", want{phone: true, npdi: true, mcc: "262", mnc: "01", ported: mnp.False}},
		{"tel:+4915112345678;mcc=262;mnc=003;ported=1", want{phone: true, mcc: "262", mnc: "003", ported: mnp.True}},
		{"tel:+4915112345678;ported=true;cic=+1-6789", want{phone: true, ported: mnp.True}},
		// sip with user=phone, and without.
		{"sip:+4915112345678;npdi;rn=D262@gw.example.net;user=phone", want{phone: true, npdi: true, rn: "D262"}},
		{"sips:+4915112345678;npdi;mcc=262;mnc=02@gw.example.net;transport=tls;user=phone?x=y", want{phone: true, npdi: true, mcc: "262", mnc: "02"}},
		{"sip:+4915112345678;npdi;rn=D262@gw.example.net", want{}},
		{"mailto:info@example.com", want{}},
	} {
		info, err := parseURI([]byte(c.uri))
		require.NoError(t, err, c.uri)
		got := want{info.phone, info.npdi, string(info.rn), string(info.rnContext), string(info.mcc), string(info.mnc), info.ported}
		require.Equal(t, c.want, got, c.uri)
	}
	for _, uri := range []string{
		"tel:;npdi", "tel:+49;rn=", "tel:+49;mcc=26;mnc=01", "tel:+49;mcc=262;mnc=1", "tel:+49;mcc=262",
		"tel:+49;mnc=01", "tel:+49;ported=maybe", "sip:+49;npdi", "tel:+49;mcc=2a2;mnc=01",
	} {
		_, err := parseURI([]byte(uri))
		require.ErrorIs(t, err, ErrBadURI, uri)
	}
}

func TestRoutingNumbers(t *testing.T) {
	t.Parallel()
	b, err := New([]string{"127.0.0.1"}, WithRoutingNumbers(map[string]string{
		"D262": "26203", "D2621": "26201", "+1-215-555": "310260", "+1215555000": "310410",
	}))
	require.NoError(t, err)
	for rn, want := range map[string]string{
		"D262": "26203", "d2629": "26203", "D2621": "26201", "D26215": "26201",
		"+1-215-555-0000": "310410", "+1-215-555-1000": "310260", "+1(215)5550001": "310410",
	} {
		got, ok := b.routingNetwork([]byte(rn))
		require.True(t, ok, rn)
		require.Equal(t, want, got, rn)
	}
	for _, rn := range []string{"D26", "+1-215", "X"} {
		_, ok := b.routingNetwork([]byte(rn))
		require.False(t, ok, rn)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		servers []string
		opts    []Option
		want    string
	}{
		{nil, nil, "no server"},
		{[]string{""}, nil, "servers[0]: empty server address"},
		{[]string{"127.0.0.1:"}, nil, `servers[0]: "127.0.0.1:" is not host:port or host`},
		{[]string{"127.0.0.1"}, []Option{WithSuffix("a..b")}, `suffix "a..b" is not a domain name`},
		{[]string{"127.0.0.1"}, []Option{WithTimeout(0)}, "timeout 0s is not positive"},
		{[]string{"127.0.0.1"}, []Option{WithUDPSize(100)}, "UDP size 100"},
		{[]string{"127.0.0.1"}, []Option{WithRoutingNumbers(map[string]string{"D262": "2620"})}, `routing number "D262": MCCMNC "2620" is not 5 or 6 digits`},
		{[]string{"127.0.0.1"}, []Option{WithRoutingNumbers(map[string]string{"--": "26201"})}, `routing number "--"`},
		{[]string{"127.0.0.1"}, []Option{WithCache(-1, 0)}, "must not be negative"},
	} {
		_, err := New(c.servers, c.opts...)
		require.ErrorContains(t, err, c.want)
	}
	b, err := New([]string{"::1", "[::1]:5353", "ns.example"})
	require.NoError(t, err)
	require.Equal(t, []string{"[::1]:53", "[::1]:5353", "ns.example:53"}, b.Servers())
	require.Equal(t, "enum([::1]:53)", b.Name())
}

func TestQueryName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa.", QueryName("+4915112345678", "e164.arpa"))
	require.Equal(t, "3.8.0.0.6.9.2.3.6.1.4.4.e164.example.net.", QueryName("441632960083", "e164.example.net."))
}
