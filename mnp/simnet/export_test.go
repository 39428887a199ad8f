package simnet

// Internals for the tests of package simnet_test.
var (
	NumberHash     = (*Net).numberHash
	Draw           = draw
	RoamingRegions = roamingRegions[:]
)
