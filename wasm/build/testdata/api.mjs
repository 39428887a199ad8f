// Exercises every function of numen.mjs in Node, for node_test.go:
//
//   node api.mjs DIST BASE IN OUT
//
// imports DIST/numen.mjs, loads the module from BASE (a loopback server
// serving the package), runs the inputs of the JSON file IN and writes what
// the module answered, and every error it threw, as JSON into OUT. The Go
// test compares them with package numbering's and routing's answers.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [dist, base, inPath, outPath] = process.argv.slice(2);
const { Numen } = await import(pathToFileURL(`${dist}/numen.mjs`).href);
const input = JSON.parse(readFileSync(inPath, "utf8"));
const out = {};

// thrown runs f and returns what it threw: {name, message, cause}, or null.
async function thrown(f) {
  try {
    await f();
    return null;
  } catch (err) {
    return { name: err.constructor.name, message: String(err.message), cause: err.cause === undefined ? undefined : String(err.cause) };
  }
}

out.loadErrors = {
  missingModule: await thrown(() => Numen.load(new URL("nothing.wasm", base))),
  missingPlan: await thrown(() => Numen.load(new URL("numen.wasm", base), { plan: new URL("nothing.bin", base) })),
  packAsPlan: await thrown(() => Numen.load(new URL("numen.wasm", base), { plan: new URL("numen-timezones.bin", base) })),
  unknownPack: await thrown(() => Numen.load(new URL("numen.wasm", base), { packs: ["colours"] })),
  network: await thrown(() => Numen.load(new URL("numen.wasm", input.closed))),
  networkPlan: await thrown(() => Numen.load(new URL("numen.wasm", base), { plan: new URL("numen-core.bin", input.closed) })),
  badModule: await thrown(() => Numen.load(new URL("/bad/numen.wasm", base), { plan: new URL("numen-core.bin", base) })),
  notModule: await thrown(() => Numen.load(new URL("numen-core.bin", base))),
  emptyPlan: await thrown(() => Numen.load(new URL("numen.wasm", base), { plan: "data:application/octet-stream," })),
};

const numen = await Numen.load(new URL("numen.wasm", base));
out.version = numen.version();
out.core = input.numbers.map((n) => numen.classify(n));
out.checks = input.checks.map((n) => numen.check(n));

// Bad input: non-strings throw TypeErrors; the rest is answered.
out.typeErrors = {
  classifyNumber: await thrown(() => numen.classify(4915123456789)),
  classifyNull: await thrown(() => numen.classify(null)),
  checkUndefined: await thrown(() => numen.check()),
  checkObject: await thrown(() => numen.check({ toString: () => "+49" })),
  routeArray: await thrown(() => numen.route(["+49"], {})),
};
out.odd = input.odd.map((s) => numen.classify(s));
out.oddChecks = input.odd.map((s) => numen.check(s));
const huge = "+49" + "1".repeat(10_000_000);
const hugeResult = numen.classify(huge);
out.huge = { sameInput: hugeResult.number === huge, is_valid: hugeResult.is_valid, invalid_reason: hugeResult.invalid_reason, check: numen.check(huge) };
out.surrogates = [numen.classify("+49 151 \uD800 23456789"), numen.classify("\uDFFF"), numen.check("+49\uD83D")];

// Packs, by name and by URL; a pack of the wrong kind is refused.
out.packErrors = {
  corePlanAsPack: await thrown(() => numen.loadPack(new URL("numen-core.bin", base))),
  missing: await thrown(() => numen.loadPack(new URL("nothing.bin", base))),
  garbage: await thrown(() => numen.loadPack(new URL("numen.mjs", base))),
};
out.packsAfterErrors = numen.version().packs;
out.afterErrors = numen.classify("+4915123456789");
out.loadedNetworks = await numen.loadPack("networks");
out.loadedRegions = await numen.loadPack(new URL("numen-regions.bin", base));
out.loadedTimezones = await numen.loadPack("timezones");
out.versionFull = numen.version();
out.full = input.numbers.map((n) => numen.classify(n));

// Routes: maps as objects and as JSON text; more maps than the module keeps.
out.routes = input.maps.map((m, i) => input.routeNumbers.map((n) => numen.route(n, i % 2 ? m : JSON.parse(m))));
out.badMap = await thrown(() => numen.route("+4915123456789", input.badMap));
out.badMapJSON = await thrown(() => numen.route("+4915123456789", "{"));
const manyMap = (i) => ({ defaultRoute: "GT1", prefixes: [{ cns: `+49151${String(i).padStart(2, "0")}`, route: "GT2" }] });
for (let i = 0; i < 100; i++) {
  numen.route("+4915123456789", manyMap(i));
}
out.firstMapAgain = numen.route(input.routeNumbers[0], input.maps[0]);
out.manyMaps = [numen.route("+49 151 07123456", manyMap(7)), numen.route("+49 151 99123456", manyMap(99))];
// Objects by identity: more than the module keeps, then the first again.
const objects = Array.from({ length: 70 }, (_, i) => manyMap(i));
const routedObjects = objects.map((m, i) => numen.route(`+49 151 ${String(i).padStart(2, "0")}123456`, m).route);
routedObjects.push(numen.route("+49 151 00123456", objects[0]).route, numen.route("+49 151 69123456", objects[69]).route);
// An object is read at its first use: a change after it is not seen.
const changed = manyMap(42);
const beforeChange = numen.route("+49 151 42123456", changed).route;
changed.prefixes[0].route = "DS7";
out.objectMaps = { noMap: [numen.route("+49 151 00123456"), numen.route("+49 151 00123456", null)], routed: routedObjects, beforeChange, afterChange: numen.route("+49 151 42123456", changed).route, copy: numen.route("+49 151 42123456", structuredClone(changed)).route };
out.mapLimits = {
  huge: await thrown(() => numen.route("+4915123456789", { defaultRoute: "GT1", note: "x".repeat(1 << 20) })),
  hugeText: await thrown(() => numen.route("+4915123456789", JSON.stringify({ defaultRoute: "GT1", note: "\u00e9".repeat(600_000) }))),
  justUnder: numen.route("+4915123456789", JSON.stringify({ defaultRoute: "GT1", prefixes: [{ cns: "+4915", route: "GT2" }] }) + " ".repeat(1_000_000)).route,
};
// route() per call with a map of 1,000 prefixes: as the same object each
// time, and as its JSON made anew each time (what every call cost before
// maps were remembered by identity).
const bigMap = { defaultRoute: "GT1", prefixes: Array.from({ length: 1000 }, (_, i) => ({ cns: `+49151${String(i).padStart(3, "0")}`, route: i % 2 ? "GT2" : "DS7" })) };
const perCall = (f, n) => {
  for (let i = 0; i < n; i++) f(i); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f(i);
  return ((performance.now() - t0) * 1000) / n;
};
const routeNumber = (i) => `+49151${String(i % 1000).padStart(3, "0")}12345`;
const bigJSON = JSON.stringify(bigMap);
out.routeTiming = {
  objectUs: perCall((i) => numen.route(routeNumber(i), bigMap), 20000),
  stringUs: perCall((i) => numen.route(routeNumber(i), bigJSON), 20000),
  freshJSONUs: perCall((i) => numen.route(routeNumber(i), JSON.stringify(bigMap)), 2000),
  same: numen.route(routeNumber(7), bigMap).route === numen.route(routeNumber(7), bigJSON).route,
};

// Packs loaded at load time.
const withPacks = await Numen.load(new URL("numen.wasm", base), { packs: ["networks", "regions", "timezones"] });
out.loadWithPacks = input.numbers.slice(0, 500).map((n) => withPacks.classify(n));

// National input with a country; format in every style and from countries.
const attempt = (f) => {
  try {
    return { ok: f() };
  } catch (err) {
    return { error: { name: err.constructor.name, message: String(err.message) } };
  }
};
out.nationalClassify = input.national.map(({ s, country }) => numen.classify(s, { country }));
out.nationalChecks = input.nationalChecks.map(({ s, country }) => numen.check(s, { country }));
out.formats = input.formats.map(({ s, country, style, from }) => attempt(() => numen.format(s, { country, style, from })));
out.formatDefault = [numen.format("+49 151 23456789"), numen.format("+49 151 23456789", {}), numen.format("+49 151 23456789", { style: "NATIONAL" })];
// Without a country (absent, undefined or null), today's answers.
out.noCountry = input.numbers.slice(0, 200).map((n, i) => [numen.classify(n, [undefined, {}, { country: null }][i % 3]), numen.check(n, { country: undefined })]);
out.countryErrors = {
  classifyUnknown: await thrown(() => numen.classify("0151 23456789", { country: "XX" })),
  checkUnknown: await thrown(() => numen.check("0151 2", { country: "Germany" })),
  formatUnknown: await thrown(() => numen.format("0151 23456789", { country: "" })),
  formatUnknownFrom: await thrown(() => numen.format("+4915123456789", { from: "ZZ" })),
  formatUnreadable: await thrown(() => numen.format("0 1", { country: "DE" })),
  formatNoCountry: await thrown(() => numen.format("0151 23456789")),
  formatStyle: await thrown(() => numen.format("+4915123456789", { style: "short" })),
  classifyNumberCountry: await thrown(() => numen.classify("0151 23456789", { country: 49 })),
  formatNumberFrom: await thrown(() => numen.format("+4915123456789", { from: 33 })),
  formatText: await thrown(() => numen.format(4915123456789)),
};

writeFileSync(outPath, JSON.stringify(out));
