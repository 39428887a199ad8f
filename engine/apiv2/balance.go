package apiv2

// Balance is the response of GET /balance: the account's prepaid balance
// and monthly cap (null when it has none), what it was charged this
// calendar month (UTC), and what its lookups under way hold, as decimal
// strings in EUR with four decimals, as costs are written.
type Balance struct {
	Balance        *string `json:"balance"`
	MonthlyCap     *string `json:"monthly_cap"`
	SpentThisMonth string  `json:"spent_this_month"`
	Reserved       string  `json:"reserved"`
	Currency       string  `json:"currency"`
}
