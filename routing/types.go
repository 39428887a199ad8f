package routing

// Origin says which rule decided a route: the third part of an automatic
// routing_instruction and the origin of GET /route.
type Origin uint8

// Origins, in the order of the API's list. OriginStatic marks a route the
// caller named; it has no API name.
const (
	OriginStatic Origin = iota
	OriginScore
	OriginGlobalCountry
	OriginGlobalMCCMNC
	OriginGlobalPrefix
	OriginUserCountry
	OriginUserMCCMNC
	OriginUserPrefix
	OriginMNPFallback
	OriginPlatformDefault
	OriginUserDefault
	OriginReject
	OriginUserReject
	OriginGlobalReject
	originCount
)

var originNames = [originCount]string{
	OriginStatic:          "",
	OriginScore:           "SCORE",
	OriginGlobalCountry:   "CUSTOM_GLOBAL_COUNTRY",
	OriginGlobalMCCMNC:    "CUSTOM_GLOBAL_MCCMNC",
	OriginGlobalPrefix:    "CUSTOM_GLOBAL_PREFIX",
	OriginUserCountry:     "CUSTOM_USER_COUNTRY",
	OriginUserMCCMNC:      "CUSTOM_USER_MCCMNC",
	OriginUserPrefix:      "CUSTOM_USER_PREFIX",
	OriginMNPFallback:     "MNP_FALLBACK",
	OriginPlatformDefault: "PLATFORM_DEFAULT",
	OriginUserDefault:     "USER_DEFAULT",
	OriginReject:          "REJECT",
	OriginUserReject:      "USER_REJECT",
	OriginGlobalReject:    "GLOBAL_REJECT",
}

// String returns the API name, such as "CUSTOM_USER_PREFIX"; "" for OriginStatic.
func (o Origin) String() string {
	if o < originCount {
		return originNames[o]
	}
	return ""
}

// Origins lists the origins of automatic decisions, in the API's order.
func Origins() []Origin {
	out := make([]Origin, 0, originCount-1)
	for o := OriginScore; o < originCount; o++ {
		out = append(out, o)
	}
	return out
}

// ParseOrigin returns the Origin with the given API name.
func ParseOrigin(s string) (Origin, bool) {
	for o := OriginScore; o < originCount; o++ {
		if originNames[o] == s {
			return o, true
		}
	}
	return OriginStatic, false
}

// Rejected reports whether the origin refuses the number.
func (o Origin) Rejected() bool {
	return o == OriginReject || o == OriginUserReject || o == OriginGlobalReject
}

// Confidence is how well the chosen route is expected to serve the number.
type Confidence uint8

// Confidence levels: from the route's coverage score for the number's
// network (HighScore, NormalScore), or MNPFallback when the portability
// database answers instead of a live HLR. Rejected numbers are Low.
const (
	Low Confidence = iota
	Normal
	High
	MNPFallback
)

var confidenceNames = [...]string{Low: "LOW", Normal: "NORMAL", High: "HIGH", MNPFallback: "MNP_FALLBACK"}

// String returns the API name, such as "HIGH".
func (c Confidence) String() string {
	if int(c) < len(confidenceNames) {
		return confidenceNames[c]
	}
	return "LOW"
}

// ParseConfidence returns the Confidence with the given API name.
func ParseConfidence(s string) (Confidence, bool) {
	for i, name := range confidenceNames {
		if name == s {
			return Confidence(i), true
		}
	}
	return Low, false
}

func confidenceOf(score int) Confidence {
	switch {
	case score >= HighScore:
		return High
	case score >= NormalScore:
		return Normal
	}
	return Low
}
