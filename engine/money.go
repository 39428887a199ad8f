package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/numenhq/numen/routing"
)

// Money is an amount in EUR, counted in ten-thousandths of a euro (the
// API's four decimals), so that costs add up exactly: no float ever holds
// money.
type Money int64

// moneyScale is the number of Money units in one euro.
const moneyScale = 10000

// String returns the amount as the API writes costs: a decimal string with
// four decimals, such as "0.0100".
func (m Money) String() string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d.%04d", sign, m/moneyScale, m%moneyScale)
}

// ParseMoney reads a non-negative decimal amount in EUR with at most four
// decimals, such as "0.01" or "12.5", exactly.
func ParseMoney(s string) (Money, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 4 || len(whole) > 12 || !digits(whole) || !digits(frac) {
		// Say what is wrong when it is one thing: a sign, the decimals,
		// the size.
		w, f, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
		if w != "" && digits(w) && digits(f) {
			switch {
			case s[0] == '-':
				return 0, fmt.Errorf("amount %q: a negative amount: want 0 or more, such as 0.0125", s)
			case len(w) > 12:
				return 0, fmt.Errorf("amount %q: too large: at most 12 digits before the point", s)
			case len(f) > 4:
				return 0, fmt.Errorf("amount %q: %d decimals: want at most 4, such as 0.0125", s, len(f))
			}
		}
		return 0, fmt.Errorf("amount %q: want a decimal such as 0.0125, with at most 4 decimals", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 4-len(frac)), 10, 64)
	}
	return Money(w*moneyScale + f), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MarshalText writes the API form, so Money reads and writes as a JSON string.
func (m Money) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads an amount with ParseMoney.
func (m *Money) UnmarshalText(b []byte) error {
	v, err := ParseMoney(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Prices is a price table: what one completed lookup costs, per product,
// and per route where a route costs something else. Rejected and failed
// lookups, and answers served from the cache, cost nothing.
type Prices struct {
	HLR, MNP, NT Money
	// Routes overrides the product's price for a route identifier.
	Routes map[string]Money `json:",omitempty"`
}

// DefaultPrices are the prices of an engine built without a price table:
// round figures for demonstrations, not a tariff. Operators set their own.
var DefaultPrices = Prices{HLR: 100, MNP: 50, NT: 10} // 0.0100, 0.0050, 0.0010 EUR

// Of returns the price of one lookup of product over route.
func (p *Prices) Of(product routing.Product, route string) Money {
	if m, ok := p.Routes[route]; ok {
		return m
	}
	switch product {
	case routing.HLR:
		return p.HLR
	case routing.MNP:
		return p.MNP
	case routing.NT:
		return p.NT
	}
	return 0
}
