package httpapi

import (
	"net/http"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
)

// balance answers GET /balance: the account's limits (Account.Limits) and
// its spending as Config.Balances counts it. An account without limits,
// or a server without Balances, reports no balance and no cap, and this
// month's spending as 0.0000 when there is no store to count it.
func (h *Handler) balance(w http.ResponseWriter, r *request) {
	limits := r.account.Limits
	out := apiv2.Balance{SpentThisMonth: engine.Money(0).String(), Reserved: engine.Money(0).String(), Currency: "EUR"}
	if h.cfg.Balances != nil {
		b, err := h.cfg.Balances.Balance(r.Context(), r.account.Key, limits)
		if err != nil {
			h.internal.log(h.log, h.cfg.Clock(), "balance", err)
			writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the balance could not be read, try again")
			return
		}
		if b.Balance != nil {
			out.Balance = apiv2.String(b.Balance.String())
		}
		out.SpentThisMonth, out.Reserved = b.SpentThisMonth.String(), b.Reserved.String()
	}
	if limits.MonthlyCap != nil {
		out.MonthlyCap = apiv2.String(limits.MonthlyCap.String())
	}
	writeJSON(w, http.StatusOK, out)
}
