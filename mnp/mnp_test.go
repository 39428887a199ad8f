package mnp

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[Status]string{Completed: "COMPLETED", Rejected: "REJECTED", Failed: "FAILED", 0: "", 9: ""} {
		require.Equal(t, want, s.String())
		if want != "" {
			got, ok := ParseStatus(want)
			require.True(t, ok)
			require.Equal(t, s, got)
		}
	}
	_, ok := ParseStatus("")
	require.False(t, ok)
	require.True(t, Completed.Charged())
	require.False(t, Rejected.Charged())
	require.False(t, Failed.Charged())

	for c, want := range map[Connectivity]string{Undetermined: "UNDETERMINED", Connected: "CONNECTED", Absent: "ABSENT", InvalidMSISDN: "INVALID_MSISDN"} {
		require.Equal(t, want, c.String())
		got, ok := ParseConnectivity(want)
		require.True(t, ok)
		require.Equal(t, c, got)
	}
	_, ok = ParseConnectivity("connected")
	require.False(t, ok, "names are upper case")

	require.Equal(t, "null", Unknown.String())
	require.Equal(t, "true", BoolOf(true).String())
	require.Equal(t, "false", BoolOf(false).String())
	require.False(t, Unknown.Known())
	require.True(t, False.Known())
	require.True(t, True.Value())
	require.False(t, False.Value())
}

func TestErrorCodes(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	codes := Codes()
	require.Equal(t, CodeInvalidNumber, codes[0])
	require.Equal(t, CodeSpendingLimit, codes[len(codes)-1])
	for _, c := range codes {
		d := c.Description()
		require.NotEmpty(t, d, "code %d", c)
		require.False(t, seen[d], "description %q twice", d)
		seen[d] = true
	}
	require.Empty(t, CodeNone.Description())
	require.Empty(t, ErrorCode(999).Description())
}

func TestCodeOfAndRetryable(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp 127.0.0.1:1: connection refused")
	unavailable := Unavailable("remote(127.0.0.1:1)", CodeNetworkUnreachable, cause)
	for _, tc := range []struct {
		err       error
		code      ErrorCode
		retryable bool
	}{
		{nil, CodeNone, false},
		{unavailable, CodeNetworkUnreachable, true},
		{fmt.Errorf("lookup: %w", unavailable), CodeNetworkUnreachable, true},
		{Unavailable("x", CodeTimeout, context.DeadlineExceeded), CodeTimeout, true},
		{context.DeadlineExceeded, CodeTimeout, true},
		{fmt.Errorf("wrapped: %w", ErrUnavailable), CodeUnavailable, true},
		{&BackendError{Backend: "x", Code: CodeBadProviderAnswer, Err: errors.New("bad json")}, CodeBadProviderAnswer, false},
		{errors.New("boom"), CodeInternal, false},
		{context.Canceled, CodeInternal, false},
	} {
		require.Equal(t, tc.code, CodeOf(tc.err), "%v", tc.err)
		require.Equal(t, tc.retryable, Retryable(tc.err), "%v", tc.err)
	}
	require.ErrorIs(t, unavailable, cause)
	require.Equal(t, "remote(127.0.0.1:1): network unreachable: no link to the subscriber's network: dial tcp 127.0.0.1:1: connection refused", unavailable.Error())
}
