// Numen in the browser: the JavaScript API around numen.wasm. See README.md.
//
// The module exports functions (Go's go:wasmexport) that read their input
// from an exchange buffer in the module's memory and write their answer
// there: a record of 32-bit words whose strings are addresses in the
// module's memory (wasm/record.go documents it). Strings are decoded once
// and cached until the plan changes, so that a classification costs a few
// hundred nanoseconds, not the tens of microseconds a syscall/js call would.

// The Go runtime's loader: go run ./wasm/build puts the Go distribution's
// wasm_exec.js in place of this line, in this module's scope (no globals).
import { Go } from "./wasm_exec.js";

const PACKS = Object.freeze(["networks", "regions", "timezones"]);
const MAX_INPUT = 4096; // characters passed on; numbering refuses more than 250 bytes anyway
const MAX_MAPS = 64; // compiled routing maps the module keeps (maxMaps in main.go)
const MAX_FILE = 64 << 20; // bytes of a plan or pack the module takes (numen_alloc)
const NO_MAP = Object.freeze({}); // route's map when none is given: the platform's rules only
const NONE = Object.freeze([]);
const STYLES = Object.freeze(["e164", "international", "national", "rfc3966"]); // by numbering.Style

const utf8 = new TextDecoder("utf-8");
const encoder = new TextEncoder();

// fetchOK fetches url and returns the response, or throws an Error that
// names what was fetched, its URL and why it failed (the fetch's own error
// is its cause).
async function fetchOK(url, what) {
  let resp;
  try {
    resp = await fetch(url);
  } catch (err) {
    throw new Error(`numen: fetching the ${what} ${url}: ${err.message}`, { cause: err });
  }
  if (!resp.ok) {
    throw new Error(`numen: fetching the ${what} ${url}: HTTP ${resp.status}${resp.statusText ? ` ${resp.statusText}` : ""}`);
  }
  return resp;
}

async function fetchBytes(url, what) {
  const resp = await fetchOK(url, what);
  try {
    return new Uint8Array(await resp.arrayBuffer());
  } catch (err) {
    throw new Error(`numen: fetching the ${what} ${url}: ${err.message}`, { cause: err });
  }
}

// instantiate compiles and instantiates the module of a response:
// streaming when it is served as application/wasm, else from its bytes.
// What fails to compile throws an Error naming the URL.
async function instantiate(resp, url, imports) {
  try {
    if (WebAssembly.instantiateStreaming && /^application\/wasm\b/i.test(resp.headers.get("Content-Type") ?? "")) {
      return (await WebAssembly.instantiateStreaming(resp, imports)).instance;
    }
    return (await WebAssembly.instantiate(await resp.arrayBuffer(), imports)).instance;
  } catch (err) {
    throw new Error(`numen: loading the module ${url}: ${err.message}`, { cause: err });
  }
}

// ascii returns n bytes of ASCII at mem[at] as a string: for a short
// string, faster than TextDecoder or String.fromCharCode.apply.
function ascii(mem, at, n) {
  let s = "";
  for (let i = at; i < at + n; i++) {
    s += String.fromCharCode(mem[i]);
  }
  return s;
}

function wantString(fn, text, what = "") {
  if (typeof text !== "string") {
    throw new TypeError(`numen.${fn}: want a string${what}, have ${text === null ? "null" : typeof text}`);
  }
}

// optionString returns options[name]: undefined when it is absent (or null),
// else a string, or throws a TypeError naming the option.
function optionString(fn, options, name) {
  const v = options?.[name];
  if (v === undefined || v === null) {
    return undefined;
  }
  wantString(fn, v, ` for ${name}`);
  return v;
}

/** Numen: one loaded module and its numbering plan. */
export class Numen {
  /**
   * Loads numen.wasm and the core plan beside it (numen-core.bin) and
   * returns a ready instance. It rejects with an Error naming the URL and
   * the cause when the module or the plan cannot be fetched (an HTTP
   * status, a network error), compiled or opened.
   * @param {string|URL} [wasmURL] where numen.wasm is; the plan and packs are looked up beside it
   * @param {{plan?: string|URL, packs?: string[]}} [options]
   */
  static async load(wasmURL = new URL("./numen.wasm", import.meta.url), options = {}) {
    const base = new URL(".", new URL(wasmURL, globalThis.location?.href ?? import.meta.url));
    const go = new Go();
    const wasm = fetchOK(wasmURL, "module");
    const planURL = options.plan ?? new URL("numen-core.bin", base);
    const plan = fetchBytes(planURL, "plan");
    plan.catch(() => {}); // awaited below; not an unhandled rejection meanwhile
    const instance = await instantiate(await wasm, wasmURL, go.importObject);
    go.run(instance); // runs main up to its select{}: the exports are ready when it returns
    const numen = new Numen(instance, base);
    numen._open(await plan, planURL);
    for (const p of options.packs ?? []) {
      await numen.loadPack(p);
    }
    return numen;
  }

  constructor(instance, base) {
    this._x = instance.exports;
    this._base = base;
    this._mem = this._x.mem;
    this._u8 = new Uint8Array(this._mem.buffer);
    this._io = this._x.numen_io();
    this._ioSize = this._x.numen_io_size();
    this._strings = new Map(); // address -> {len, s}
    this._lists = new Map(); // identity -> {count, arr}
    this._regionLists = new Map(); // calling code -> region set -> array
    this._maps = new Map(); // routing map JSON -> handle, oldest first
    this._mapObjects = new WeakMap(); // routing map object -> handle
    this._newestMap = 0; // the handle of the map compiled last
    const tables = JSON.parse(this._text(this._x.numen_tables()));
    this._types = tables.types;
    this._reasons = tables.reasons;
    this._states = tables.states;
    this._typeLists = new Array(1 << this._types.length).fill(undefined); // TypeSet -> array
    this._packs = Object.freeze([]);
  }

  // _bytes returns the module's memory, anew after it grew (a grown memory
  // detaches the old views); _ioBytes and _words view the exchange buffer.
  _bytes() {
    if (this._u8.buffer !== this._mem.buffer || this._ioBytes === undefined) {
      this._u8 = new Uint8Array(this._mem.buffer);
      this._ioBytes = this._u8.subarray(this._io, this._io + this._ioSize);
      this._words = new Uint32Array(this._mem.buffer, this._io, this._ioSize >> 2);
    }
    return this._u8;
  }

  // _text returns the answer of length n in the exchange buffer, or throws
  // the module's error (a negative length).
  _text(n) {
    const mem = this._bytes();
    if (n < 0) {
      throw new Error(utf8.decode(mem.subarray(this._io, this._io - n)));
    }
    return utf8.decode(mem.subarray(this._io, this._io + n));
  }

  // _put writes text into the exchange buffer and returns its length in
  // bytes: ASCII by hand (the common case, and faster than encodeInto for
  // a short string), the rest as UTF-8 by the TextEncoder.
  _put(text) {
    if (text.length > MAX_INPUT) {
      text = text.slice(0, MAX_INPUT);
    }
    this._bytes();
    const io = this._ioBytes;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        return encoder.encodeInto(text, io).written;
      }
      io[i] = c;
    }
    return n;
  }

  // _putAfter writes text into the exchange buffer at byte at, after an
  // input _put wrote, and returns its length in bytes.
  _putAfter(at, text) {
    if (text.length > MAX_INPUT) {
      text = text.slice(0, MAX_INPUT);
    }
    return encoder.encodeInto(text, this._ioBytes.subarray(at)).written;
  }

  // _alloc copies a file's bytes into a buffer of the module's.
  _alloc(bytes, what, url) {
    const at = bytes.length > MAX_FILE ? 0 : this._x.numen_alloc(bytes.length);
    if (at === 0) {
      throw new Error(`numen: the ${what} ${url} is ${bytes.length} bytes: the module takes 1 byte to ${MAX_FILE} bytes (64 MiB)`);
    }
    this._bytes().set(bytes, at);
  }

  _open(bytes, url) {
    this._alloc(bytes, "plan", url);
    this._opened("plan", url, this._x.numen_open());
  }

  // _opened throws the module's error of opening a plan or pack, naming
  // its URL, or drops what was decoded from the plan before.
  _opened(what, url, n) {
    if (n < 0) {
      let msg;
      try {
        this._text(n);
      } catch (err) {
        msg = err.message;
      }
      throw new Error(`numen: opening the ${what} ${url}: ${msg}`);
    }
    this._changed();
  }

  _check(n) {
    if (n < 0) {
      this._text(n);
    }
    return n;
  }

  // _changed drops what was decoded from the old plan.
  _changed() {
    this._strings.clear();
    this._lists.clear();
    this._regionLists.clear();
    this._packs = Object.freeze(this.version().packs);
  }

  // _string returns the string of len bytes at ptr in the module's memory,
  // decoded once and kept by its address (a small integer, which a Map
  // looks up faster than a computed key); the length is checked, so that
  // two strings at one address can never be mixed up.
  _string(ptr, len) {
    if (len === 0) {
      return null;
    }
    let e = this._strings.get(ptr);
    if (e === undefined || e.len !== len) {
      e = { len, s: utf8.decode(this._u8.subarray(ptr, ptr + len)) };
      this._strings.set(ptr, e);
    }
    return e.s;
  }

  // _list returns the frozen array of a record's list: count strings as
  // pairs from word at, kept by the list's identity.
  _list(w, at, count, id) {
    let e = this._lists.get(id);
    if (e === undefined || e.count !== count) {
      const arr = [];
      for (let i = 0; i < count; i++) {
        arr.push(this._string(w[at + 2 * i], w[at + 2 * i + 1]));
      }
      e = { count, arr: Object.freeze(arr) };
      this._lists.set(id, e);
    }
    return e.arr;
  }

  /**
   * Adds a pack: "networks" (original network and MCCMNC), "regions"
   * (geographic descriptions) or "timezones", fetched from beside the
   * module, or a pack's URL (relative to the module's folder).
   * @param {string|URL} pack
   */
  async loadPack(pack) {
    let url;
    if (PACKS.includes(pack)) {
      url = new URL(`numen-${pack}.bin`, this._base);
    } else if (pack instanceof URL || (typeof pack === "string" && /[./:]/.test(pack))) {
      url = new URL(pack, this._base);
    } else {
      throw new TypeError(`numen.loadPack: unknown pack ${JSON.stringify(pack) ?? String(pack)}: want ${PACKS.map((p) => `"${p}"`).join(", ")} or a pack's URL`);
    }
    this._alloc(await fetchBytes(url, "pack"), "pack", url);
    this._opened("pack", url, this._x.numen_pack());
    return this._packs;
  }

  /** The program's and the data's versions, and the packs loaded. */
  version() {
    return JSON.parse(this._text(this._x.numen_version()));
  }

  /**
   * Classifies a number: the NT result object of the sidecar's
   * /nt-lookup (without id, cost, storage and timestamp), and the packs
   * loaded ("packs"); fields a missing pack would give are null. With
   * options.country (ISO 3166-1 alpha-2, such as "DE"), national input is
   * read as written or dialled there ("0151 23456789", "00 33 1 23 45 67
   * 89"), as libphonenumber's parse(text, country) reads it; an unknown
   * country throws an Error naming it.
   * @param {string} text
   * @param {{country?: string}} [options]
   */
  classify(text, options) {
    wantString("classify", text);
    const country = optionString("classify", options, "country");
    if (country === undefined) {
      this._check(this._x.numen_classify(this._put(text)));
    } else {
      const n = this._put(text);
      this._check(this._x.numen_classify_in(n, this._putAfter(n, country)));
    }
    return this._result(text);
  }

  // _result reads a classification's record (record.go) from the exchange
  // buffer into the NT result object; text is the input classified.
  _result(text) {
    const mem = this._bytes();
    const w = this._words;
    const flags = w[0];
    const valid = (flags & 1) !== 0;
    const ok = (flags & 2) === 0;
    const mccmnc = this._string(w[5], w[6]);
    const regions = (flags & 64) !== 0 ? this._list(w, 25, w[17], w[18]) : null;
    const timezones = (flags & 128) !== 0 ? this._list(w, 25 + 2 * w[17], w[19], w[20]) : null;
    return {
      number: (flags & 288) === 32 ? ascii(mem, w[3], w[4]) : text, // parsed, and not already E.164
      number_type: this._types[w[1]],
      query_status: ok ? "OK" : "FAILED",
      is_valid: valid,
      invalid_reason: w[2] === 0 ? null : this._reasons[w[2]],
      is_possibly_ported: valid ? (flags & 4) !== 0 : null,
      is_vanity_number: ok ? (flags & 8) !== 0 : null,
      qualifies_for_hlr_lookup: ok ? (flags & 16) !== 0 : null,
      mccmnc,
      mcc: mccmnc === null ? null : mccmnc.slice(0, 3),
      mnc: mccmnc === null ? null : mccmnc.slice(3),
      original_network_name: this._string(w[7], w[8]),
      original_country_name: this._string(w[9], w[10]),
      original_country_code: this._string(w[11], w[12]),
      original_country_prefix: this._string(w[13], w[14]),
      regions,
      timezones,
      info_text: this._string(w[15], w[16]),
      // In the exchange buffer, new for each answer: read, not cached by address.
      international_format: w[22] === 0 ? null : ascii(mem, w[21], w[22]),
      national_format: w[24] === 0 ? null : ascii(mem, w[23], w[24]),
      packs: this._packs,
    };
  }

  /**
   * Writes a number as people write it: in options.style ("e164",
   * "international" (the default), "national" or "rfc3966"), or, with
   * options.from (a country), as dialled from there ("00 49 151 23456789"
   * from FR, "011 49 ..." from US, the national format from DE), which
   * overrides the style. The input is read in international format, or,
   * with options.country, as written or dialled there (see classify).
   * Numbers that are not valid are formatted too, as libphonenumber does;
   * input that cannot be read as a number, an unknown country and an
   * unknown style throw an Error naming the reason.
   * @param {string} text
   * @param {{country?: string, style?: "e164" | "international" | "national" | "rfc3966", from?: string}} [options]
   */
  format(text, options) {
    wantString("format", text);
    const country = optionString("format", options, "country");
    const from = optionString("format", options, "from");
    const styleName = optionString("format", options, "style") ?? "international";
    const style = STYLES.indexOf(styleName.toLowerCase());
    if (style < 0) {
      throw new TypeError(`numen.format: unknown style ${JSON.stringify(styleName)}: want ${STYLES.map((s) => `"${s}"`).join(", ")}`);
    }
    const n = this._put(text);
    const c = country === undefined ? -1 : this._putAfter(n, country);
    const f = from === undefined ? -1 : this._putAfter(n + Math.max(c, 0), from);
    return this._text(this._x.numen_format(n, c, style, f));
  }

  /**
   * Tells where input being typed stands: {state: "valid" | "incomplete" |
   * "impossible", types, countries, calling_code, longer, reason}. With
   * options.country, the input is read as written or dialled there, as
   * classify reads it: "0151 2" in DE is incomplete (a German mobile
   * number), "00 44 2" a British one; the calling code is the country's
   * from the first digit, except while the input may still become the
   * country's international prefix ("0" in DE, "01" in US). An unknown
   * country throws an Error naming it.
   * @param {string} text
   * @param {{country?: string}} [options]
   */
  check(text, options) {
    wantString("check", text);
    const country = optionString("check", options, "country");
    if (country === undefined) {
      this._check(this._x.numen_check(this._put(text)));
    } else {
      const n = this._put(text);
      this._check(this._x.numen_check_in(n, this._putAfter(n, country)));
    }
    return this._progress();
  }

  // _progress reads a check's record from the exchange buffer.
  _progress() {
    this._bytes();
    const w = this._words;
    return {
      state: this._states[w[0]],
      types: this._typeList(w[2]),
      countries: this._countries(w),
      calling_code: w[4] === 0 ? null : w[4],
      longer: w[3] === 1,
      reason: w[1] === 0 ? null : this._reasons[w[1]],
    };
  }

  // _typeList returns the frozen array of the type names of a TypeSet.
  _typeList(set) {
    let arr = this._typeLists[set];
    if (arr === undefined) {
      arr = [];
      for (let t = 0; t < this._types.length; t++) {
        if (set & (1 << t)) {
          arr.push(this._types[t]);
        }
      }
      arr = Object.freeze(arr);
      this._typeLists[set] = arr;
    }
    return arr;
  }

  // _countries returns the frozen array of a check record's regions, kept
  // by calling code and region set.
  _countries(w) {
    const count = w[5];
    if (count === 0) {
      return NONE;
    }
    let byCode = this._regionLists.get(w[4]);
    if (byCode === undefined) {
      byCode = new Map();
      this._regionLists.set(w[4], byCode);
    }
    let arr = byCode.get(w[6]);
    if (arr === undefined) {
      arr = [];
      for (let i = 0; i < count; i++) {
        arr.push(this._string(w[7 + 2 * i], w[8 + 2 * i]));
      }
      arr = Object.freeze(arr);
      byCode.set(w[6], arr);
    }
    return arr;
  }

  /**
   * The countries the plan knows (ISO 3166-1 alpha-2 codes, sorted), as
   * libphonenumber-js's getCountries: the country options of asYouType,
   * classify, check, format and find.
   * @returns {readonly string[]}
   */
  getCountries() {
    return Object.keys(this._callingCodes()).sort();
  }

  /**
   * A country's calling code ("49" for "DE", either case), as
   * libphonenumber-js's getCountryCallingCode; an unknown country throws
   * an Error naming it.
   * @param {string} country
   * @returns {string}
   */
  getCountryCallingCode(country) {
    wantString("getCountryCallingCode", country);
    const cc = this._callingCodes()[country.toUpperCase()];
    if (cc === undefined) {
      throw new Error(`numen.getCountryCallingCode: unknown country ${JSON.stringify(country)}`);
    }
    return String(cc);
  }

  // _callingCodes returns the calling code of each country, read once.
  _callingCodes() {
    this._countryCodes ??= JSON.parse(this._text(this._x.numen_countries()));
    return this._countryCodes;
  }

  /**
   * Finds the phone numbers in a text, as libphonenumber's
   * findNumbers (libphonenumber-js's findPhoneNumbersInText) finds them:
   * an array of matches in the order of the text, each {start, end, raw,
   * ...the fields classify gives for raw}, start and end being indexes of
   * the text (UTF-16 code units, as text.slice(start, end) takes them).
   * options.country reads national numbers as written there (without it,
   * only numbers in international format are found); options.leniency is
   * "possible", "valid" (the default), "strict_grouping" or
   * "exact_grouping", in either case. An unknown country or leniency, and
   * a text over 524,288 bytes of UTF-8, throw an Error naming them.
   * @param {string} text
   * @param {{country?: string, leniency?: string}} [options]
   */
  find(text, options) {
    wantString("find", text);
    const country = optionString("find", options, "country");
    const leniency = optionString("find", options, "leniency") ?? "valid";
    this._bytes();
    const limit = this._ioSize >> 1;
    const { read, written: n } = encoder.encodeInto(text, this._ioBytes.subarray(0, limit));
    if (read < text.length) {
      throw new Error(`numen.find: a text of ${text.length} characters is too long: the limit is ${limit} bytes of UTF-8`);
    }
    const c = country === undefined ? -1 : this._putAfter(n, country);
    const l = this._putAfter(n + Math.max(c, 0), leniency);
    const count = this._check(this._x.numen_find(n, c, l));
    const matches = new Array(count);
    for (let i = 0; i < count; i++) {
      const k = this._check(this._x.numen_find_match(i)) >> 2;
      this._bytes(); // the memory may have grown
      const w = this._words;
      const start = w[k - 2];
      const end = w[k - 1];
      const raw = text.slice(start, end);
      matches[i] = { start, end, raw, ...this._result(raw) };
    }
    return matches;
  }

  /**
   * An as-you-type formatter for a phone number field, as
   * libphonenumber-js's new AsYouType(country): input(text) appends what
   * was typed and returns the text the field shows ("+49 1512 3456789",
   * "01512 3456789" in DE). country (ISO 3166-1 alpha-2) reads national
   * input as written there; without it, only input in international
   * format ("+...") is formatted. An unknown country throws an Error naming
   * it.
   * @param {string} [country]
   * @returns {AsYouType}
   */
  asYouType(country) {
    if (country !== undefined && country !== null) {
      wantString("asYouType", country, " for country");
    }
    return new AsYouType(this, country ?? "");
  }

  // _aytNew returns the handle of a new formatter for a country.
  _aytNew(country) {
    this._bytes();
    return this._check(this._x.numen_ayt_new(this._putAfter(0, country)));
  }

  /**
   * Decides the route of a number's lookup with an account's routing map
   * (the JSON of GET /routing-map, as an object or a string), over the
   * platform's default rules and coverage: the decision object of
   * GET /route. A map with problems throws an Error listing every one.
   * A map is compiled once: a string is remembered by its text, an object
   * by its identity (read at its first use: to change the map, pass a new
   * object). The module keeps the 64 maps used last and compiles an older
   * one again when it comes back; a map's JSON is at most 1,048,576 bytes
   * of UTF-8 (1 MiB).
   * @param {string} text
   * @param {object|string} routingMap
   */
  route(text, routingMap) {
    wantString("route", text);
    const handle = this._mapHandle(routingMap ?? NO_MAP);
    return JSON.parse(this._text(this._x.numen_route(handle, this._put(text))));
  }

  // _mapHandle returns the module's handle of a routing map, compiling it
  // when it is new or the module has dropped it (it keeps MAX_MAPS).
  _mapHandle(routingMap) {
    const isObject = typeof routingMap === "object";
    if (isObject) {
      const handle = this._mapObjects.get(routingMap);
      if (handle !== undefined && this._kept(handle)) {
        return handle;
      }
    }
    const json = isObject ? JSON.stringify(routingMap) : String(routingMap);
    let handle = this._maps.get(json);
    if (handle === undefined || !this._kept(handle)) {
      handle = this._compileMap(json);
      this._maps.delete(json);
      this._maps.set(json, handle);
      if (this._maps.size > MAX_MAPS) {
        this._maps.delete(this._maps.keys().next().value); // the module dropped it too
      }
    }
    if (isObject) {
      this._mapObjects.set(routingMap, handle);
    }
    return handle;
  }

  // _kept reports whether the module still has the map of a handle: it
  // numbers maps in order and keeps the last MAX_MAPS.
  _kept(handle) {
    return handle > this._newestMap - MAX_MAPS;
  }

  // _compileMap compiles a routing map's JSON and returns its handle.
  _compileMap(json) {
    let bytes = null; // encoded here only when it may not fit
    if (json.length * 3 > this._ioSize) {
      bytes = encoder.encode(json);
      if (bytes.length > this._ioSize) {
        throw new Error(`numen.route: the routing map is ${bytes.length} bytes of JSON: the limit is ${this._ioSize} bytes (1 MiB)`);
      }
    }
    this._bytes();
    const n = bytes === null ? encoder.encodeInto(json, this._ioBytes).written : (this._ioBytes.set(bytes), bytes.length);
    const handle = this._check(this._x.numen_route_map(n));
    this._newestMap = handle;
    return handle;
  }
}

// STALE is the module's answer for a formatter it dropped (typing.go):
// the AsYouType object makes a new one and types its input again.
const STALE = -2147483648;

// formatters frees the module's formatter of an AsYouType object that was
// garbage collected; it holds the handle's cell, not the object.
const formatters = typeof FinalizationRegistry === "function"
  ? new FinalizationRegistry(({ x, cell }) => x.numen_ayt_free(cell.h))
  : null;

const SURROGATE = /[\uD800-\uDFFF]/;

// runes returns the number of code points in s[0:units]; units, the number
// of UTF-16 code units in the first n code points of s.
function runes(s, units) {
  let n = 0;
  for (let i = 0; i < units && i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || (s.charCodeAt(i - 1) & 0xfc00) !== 0xd800) {
      n++;
    }
  }
  return n;
}

function units(s, n) {
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.codePointAt(i);
    i += c > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * An as-you-type formatter (Numen.asYouType): its state lives in the
 * module; this object keeps what was typed, to type it again should the
 * module have dropped its formatter (it keeps 1,024).
 */
export class AsYouType {
  constructor(numen, country) {
    this._numen = numen;
    this._x = numen._x;
    this._cell = { h: numen._aytNew(country) };
    this._typed = "";
    this._text = "";
    /** The country the formatter reads national input in; "" for none. */
    this.country = country;
    formatters?.register(this, { x: this._x, cell: this._cell }, this);
  }

  // _call calls a formatter function of the module with the handle, after
  // making the formatter anew when the module dropped it.
  _call(fn, a, b) {
    let r = fn(this._cell.h, a, b);
    if (r === STALE) {
      this._cell.h = this._numen._aytNew(this.country);
      if (this._typed !== "") {
        this._numen._check(this._x.numen_ayt_input(this._cell.h, this._numen._put(this._typed)));
      }
      r = fn(this._cell.h, a, b);
    }
    return this._numen._check(r);
  }

  /**
   * Appends text, character by character as if typed, and returns the text
   * the field shows: formatted as libphonenumber's AsYouTypeFormatter
   * formats it, or as typed where it cannot format.
   * @param {string} text
   * @returns {string}
   */
  input(text) {
    wantString("AsYouType.input", text);
    if (text.length > MAX_INPUT) {
      throw new Error(`numen: AsYouType.input takes at most ${MAX_INPUT} characters a call, not ${text.length}`);
    }
    const numen = this._numen;
    const x = this._x;
    const n = this._call((h) => x.numen_ayt_input(h, numen._put(text)));
    this._typed += text;
    numen._bytes(); // the memory may have grown
    const io = numen._ioBytes;
    let s = "";
    for (let i = 0; i < n; i++) {
      const c = io[i];
      if (c >= 0x80) {
        s = utf8.decode(io.subarray(0, n));
        break;
      }
      s += String.fromCharCode(c);
    }
    this._text = s;
    return s;
  }

  /** Empties the field's state, as a new formatter's. */
  reset() {
    const x = this._x;
    this._call((h) => x.numen_ayt_reset(h));
    this._typed = "";
    this._text = "";
  }

  /** What was typed since the last reset, as given to input. */
  getChars() {
    return this._typed;
  }

  /** The text the field shows (the last answer of input). */
  getText() {
    return this._text;
  }

  /**
   * Where the input stands, as numen.check(typed, {country}) answers:
   * {state, types, countries, calling_code, longer, reason}.
   * @returns {import("./numen.d.ts").CheckResult}
   */
  check() {
    const x = this._x;
    this._call((h) => x.numen_ayt_check(h));
    return this._numen._progress();
  }

  /** Whether the input is a valid number (check().state === "valid"). */
  isValid() {
    return this.check().state === "valid";
  }

  /** The number typed so far in E.164 ("+4915123456789") once it can be read as one, else null. */
  number() {
    const x = this._x;
    const n = this._call((h) => x.numen_ayt_number(h));
    return n === 0 ? null : ascii(this._numen._bytes(), this._numen._io, n);
  }

  /** number(), as libphonenumber-js's getNumberValue names it: undefined when there is none. */
  getNumberValue() {
    return this.number() ?? undefined;
  }

  /**
   * The caret's place in the field's text (a string index) after the
   * first rawIndex characters typed (an index of getChars()): where to put
   * the caret after the field is formatted again.
   * @param {number} rawIndex
   */
  formattedPosition(rawIndex) {
    const x = this._x;
    const typed = this._typed;
    const r = SURROGATE.test(typed) ? runes(typed, rawIndex) : rawIndex;
    const pos = this._call((h) => x.numen_ayt_position(h, Math.max(0, r | 0), 0));
    return SURROGATE.test(this._text) ? units(this._text, pos) : pos;
  }

  /**
   * The number of characters typed (an index of getChars()) before the
   * place formattedIndex of the field's text: the caret's place in what
   * was typed.
   * @param {number} formattedIndex
   */
  rawPosition(formattedIndex) {
    const x = this._x;
    const text = this._text;
    const r = SURROGATE.test(text) ? runes(text, formattedIndex) : formattedIndex;
    const pos = this._call((h) => x.numen_ayt_position(h, Math.max(0, r | 0), 1));
    return SURROGATE.test(this._typed) ? units(this._typed, pos) : pos;
  }

  /** Frees the module's formatter now, not when this object is collected; the object then answers as a new one. */
  free() {
    formatters?.unregister(this);
    this._x.numen_ayt_free(this._cell.h);
    this._typed = "";
    this._text = "";
  }
}

export default Numen;
