package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// The French register: Arcep's register of assigned numbering resources
// (MAJNUM.csv: one line per block of numbers, with the holder's four- or
// five-letter code, its "mnémo", and its territory) and Arcep's register
// of assigned mobile network codes (MAJMNC.csv: MCCMNC, mnémo, holder),
// both published by Arcep as open data on data.gouv.fr. Committed under
// sources/: the mobile blocks (06 and 07) of MAJNUM as published (the
// header and the lines that start with 06 or 07, ISO-8859-1, gzipped),
// and MAJMNC as published; each pinned by the SHA-256 of its CSV.
//
// curated/fr_operators.tsv names the MCCMNC of each holder. The register
// fills gaps of libphonenumber's carrier data (libphonenumber's French
// carrier names come from the same register, older), and the ranges whose
// carrier libphonenumber names resolves to no MCCMNC, but does not stand
// against a carrier that resolves to another code: a virtual operator's
// block may carry its host's code, and Bouygues Telecom holds the blocks
// and the code 208-26 of Euro-Information Telecom, whose SIM cards carry
// 208-26 where Bouygues' main code is 208-20. Only blocks of metropolitan
// France: the overseas departments dial their own calling
// codes (+590, +594, +596, +262), whose ranges libphonenumber names.
const (
	frRegisterFile   = "arcep-MAJNUM-mobile.csv.gz"
	frRegisterSHA256 = "4e3eb9eca78909a522844ac5e9f55c8230bf3c77d4cd860ba1984f2a7e24e145"
	frMNCFile        = "arcep-MAJMNC.csv"
	frMNCSHA256      = "08dd2b277000456f71475fce79c5a97e1e27df3ad58f9aa1e7d5b283db514782"
	frRegisterName   = "Arcep numbering register MAJNUM, mobile blocks of metropolitan France, as of 2026-04-17"
	frRegisterDate   = "2026-04-17"
)

// frOperator is a line of curated/fr_operators.tsv: a block holder of the
// register by its mnémo, with the MCCMNC its blocks answer ("-": none) and
// the holder of that code in Arcep's MNC register (the holder itself, or
// the network a virtual operator's SIM cards belong to).
type frOperator struct {
	mnemo, name, mccmnc, codeHolder, reason string
	line                                    int
	used                                    bool
}

func readFROperators(curated fs.FS) (map[string]*frOperator, error) {
	lines, err := readCurated(curated, "fr_operators.tsv")
	if err != nil {
		return nil, err
	}
	out := map[string]*frOperator{}
	for _, l := range lines {
		f, n := l.f, l.n
		if len(f) != 5 || f[0] == "" || f[1] == "" || f[4] == "" ||
			(f[2] == "-") != (f[3] == "-") || (f[2] != "-" && (!allDigits(f[2]) || len(f[2]) != 5)) {
			return nil, fmt.Errorf("fr_operators.tsv line %d: want mnémo<TAB>name<TAB>MCCMNC or -<TAB>holder of the MCCMNC in MAJMNC or -<TAB>reason", n)
		}
		if out[f[0]] != nil {
			return nil, fmt.Errorf("fr_operators.tsv line %d: mnémo %s given twice", n, f[0])
		}
		out[f[0]] = &frOperator{mnemo: f[0], name: f[1], mccmnc: f[2], codeHolder: f[3], reason: f[4], line: n}
	}
	return out, nil
}

// readPinned reads a committed source, gunzipping a .gz, and checks the
// SHA-256 of its content.
func readPinned(sources fs.FS, name, sha string) ([]byte, error) {
	raw, err := fs.ReadFile(sources, name)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, 64<<20)); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != sha {
		return nil, fmt.Errorf("%s: SHA-256 %s, want %s", name, got, sha)
	}
	return raw, nil
}

// latin1 decodes ISO-8859-1, the encoding of Arcep's files.
func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func readArcepCSV(sources fs.FS, name, sha string, fields int, header string) ([][]string, error) {
	raw, err := readPinned(sources, name, sha)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(latin1(raw)))
	r.Comma = ';'
	r.FieldsPerRecord = fields
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ";") != header {
		return nil, fmt.Errorf("%s: header %q, want %q", name, rows[0], header)
	}
	return rows[1:], nil
}

// readFRRegister checks both registers against their pinned digests and
// the curated holders against MAJMNC, and turns the metropolitan 10-digit
// mobile blocks of the holders curated with an MCCMNC into prefixes. A
// holder that has a mobile network code of 208 in MAJMNC and mobile blocks
// must be curated, so that no network's blocks are left out unseen.
func readFRRegister(sources, curated fs.FS) ([]curatedRange, error) {
	mncRows, err := readArcepCSV(sources, frMNCFile, frMNCSHA256, 5, "MCC-MNC;Mnémo;Nom;Date_Attribution;Décision_Attribution")
	if err != nil {
		return nil, err
	}
	codeHolder := map[string]string{} // MCCMNC → mnémo
	hasCode := map[string]bool{}      // mnémos with a code of 208
	for _, row := range mncRows {
		codeHolder[row[0]] = row[1]
		if len(row[0]) == 5 && strings.HasPrefix(row[0], "208") {
			hasCode[row[1]] = true
		}
	}
	blocks, err := readArcepCSV(sources, frRegisterFile, frRegisterSHA256, 6, "EZABPQM;Tranche_Debut;Tranche_Fin;Mnémo;Territoire;Date_Attribution")
	if err != nil {
		return nil, err
	}
	ops, err := readFROperators(curated)
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		if op.mccmnc != "-" && codeHolder[op.mccmnc] != op.codeHolder {
			return nil, fmt.Errorf("fr_operators.tsv line %d: Arcep's MNC register gives %s to %q, not %q", op.line, op.mccmnc, codeHolder[op.mccmnc], op.codeHolder)
		}
	}
	var spans []holderSpan[*frOperator] // national numbers without the 0, 9 digits
	missing := map[string]bool{}
	for i, row := range blocks {
		block, from, to, mnemo, territory := row[0], row[1], row[2], row[3], row[4]
		if !allDigits(block+from+to) || !strings.HasPrefix(from, block) || !strings.HasPrefix(to, block) || len(from) != len(to) || (block[:2] != "06" && block[:2] != "07") {
			return nil, fmt.Errorf("%s row %d: malformed block %q", frRegisterFile, i+2, row[:3])
		}
		if territory != "Métropole" || len(from) != 10 {
			continue // overseas, or an extended-length (14-digit) machine number
		}
		lo, _ := strconv.ParseInt(from[1:], 10, 64)
		hi, _ := strconv.ParseInt(to[1:], 10, 64)
		if hi < lo {
			return nil, fmt.Errorf("%s row %d: block %s-%s ends before it starts", frRegisterFile, i+2, from, to)
		}
		op := ops[mnemo]
		if op == nil {
			if hasCode[mnemo] {
				missing[mnemo] = true
			}
			continue // a holder without a network code, nobody curated: unmapped
		}
		op.used = true
		if op.mccmnc != "-" {
			spans = append(spans, holderSpan[*frOperator]{lo, hi, op})
		}
	}
	if len(missing) > 0 {
		var m []string
		for k := range missing {
			m = append(m, k)
		}
		sort.Strings(m)
		return nil, fmt.Errorf("fr_operators.tsv: holders of mobile blocks with a network code in MAJMNC are not curated: %s", strings.Join(m, ", "))
	}
	if err := checkUsed("fr_operators.tsv", "holders without metropolitan mobile blocks in the register", ops, func(op *frOperator) (bool, int) { return op.used, op.line }); err != nil {
		return nil, err
	}
	var out []curatedRange
	err = mergeSpans(spans, frRegisterFile, func(from, to int64, op *frOperator) {
		for _, p := range coverPrefixes(from, to, 9) {
			out = append(out, curatedRange{region: "FR", prefix: "33" + p, operator: op.name, mccmnc: op.mccmnc,
				source: frRegisterName, date: frRegisterDate, where: "fr_operators.tsv line " + strconv.Itoa(op.line), overUnresolved: true})
		}
	})
	return out, err
}
