// TypeScript declarations of numen.mjs: Numen in the browser.

/** The packs a page loads when it shows their fields. */
export type PackName = "networks" | "regions" | "timezones";

/** The NT result object of the sidecar's POST /nt-lookup (without id, cost, storage and timestamp). */
export interface NTResult {
  /** E.164 form when the input parsed, else the input as given. */
  number: string;
  number_type:
    | "UNKNOWN" | "LANDLINE" | "MOBILE" | "MOBILE_OR_LANDLINE" | "TOLL_FREE" | "PREMIUM_RATE"
    | "SHARED_COST" | "VOIP" | "PAGER" | "UAN" | "VOICEMAIL";
  query_status: "OK" | "FAILED";
  is_valid: boolean;
  invalid_reason: string | null;
  is_possibly_ported: boolean | null;
  is_vanity_number: boolean | null;
  qualifies_for_hlr_lookup: boolean | null;
  /** Null without the "networks" pack. */
  mccmnc: string | null;
  mcc: string | null;
  mnc: string | null;
  /** Null without the "networks" pack. */
  original_network_name: string | null;
  original_country_name: string | null;
  original_country_code: string | null;
  original_country_prefix: string | null;
  /** The area of a geographic number with the "regions" pack, else the country; null when invalid. Frozen. */
  regions: readonly string[] | null;
  /** Null without the "timezones" pack. Frozen. */
  timezones: readonly string[] | null;
  info_text: string | null;
  /** The number as people write it: "+49 1512 3456789"; null when it is not valid. */
  international_format: string | null;
  /** As dialled within its country: "01512 3456789"; null when it is not valid. */
  national_format: string | null;
  /** The packs loaded when the number was classified. */
  packs: readonly PackName[];
}

/** Where input being typed stands. */
export interface CheckResult {
  /** valid: a valid number as typed; incomplete: more digits can make one; impossible: none can. */
  state: "valid" | "incomplete" | "impossible";
  /** The type of a valid number, or the types incomplete input can still become ("UNKNOWN": personal numbers). Frozen. */
  types: readonly NTResult["number_type"][];
  /** ISO 3166-1 alpha-2 codes (or "001" for global services) the input can still be a number of. Frozen. */
  countries: readonly string[];
  /** The calling code, once complete (with a country: the country's, for national input). */
  calling_code: number | null;
  /** For valid input: more digits could make another valid number. */
  longer: boolean;
  /** Why impossible input is impossible. */
  reason: string | null;
}

/** The route decision object of GET /route. */
export interface RouteDecision {
  route: string;
  confidence_level: "LOW" | "NORMAL" | "HIGH" | "MNP_FALLBACK";
  /** The number's network code; "" when it is not known (never null, as in GET /route). */
  mccmnc: string;
  origin: string;
}

/** A routing map: the "map" of GET /routing-map. */
export interface RoutingMap {
  defaultRoute?: string | null;
  mnpFallback?: boolean;
  mccmncs?: { mccmnc: string | number; route: string; countrycode?: string | null; mno?: string | null }[];
  prefixes?: { cns: string; route: string; countrycode?: string | null; mccmnc?: string | number | null; mno?: string | null }[];
  countries?: { countrycode: string; route: string }[];
}

/**
 * Options of classify and check: national input read in a country. Without
 * country (or with null), input is read in international format only.
 */
export interface CountryOptions {
  /**
   * ISO 3166-1 alpha-2 code (either case), such as "DE": national input is
   * read as written or dialled there, as libphonenumber's
   * parse(text, country) reads it ("0151 23456789", "00 33 1 23 45 67 89";
   * "+" numbers whatever the country). An unknown country throws an Error
   * naming it.
   */
  country?: string | null;
}

/** How format writes a number (libphonenumber's E.164, INTERNATIONAL, NATIONAL, RFC3966). */
export type FormatStyle = "e164" | "international" | "national" | "rfc3966";

export interface FormatOptions extends CountryOptions {
  /** Default "international": "+49 151 23456789"; "national": "0151 23456789"; "e164": "+4915123456789"; "rfc3966": "tel:+49-151-23456789". */
  style?: FormatStyle | null;
  /** As dialled from this country (ISO 3166-1 alpha-2): "00 49 151 23456789" from FR, "011 49 ..." from US, the national format from DE. Overrides style. */
  from?: string | null;
}

/** How sure find must be that a match is a number (libphonenumber's Leniency), in either case. */
export type Leniency =
  | "possible" | "valid" | "strict_grouping" | "exact_grouping"
  | "POSSIBLE" | "VALID" | "STRICT_GROUPING" | "EXACT_GROUPING";

export interface FindOptions extends CountryOptions {
  /**
   * "possible": numbers of a possible length; "valid" (the default): valid numbers;
   * "strict_grouping": valid, with digits grouped as the number's formats group them (or not at
   * all); "exact_grouping": grouped exactly as formatted.
   */
  leniency?: Leniency | null;
}

/** A number find found: where it is in the text, and what classify says of it. */
export interface PhoneMatch extends NTResult {
  /** The index of its first character in the text (UTF-16 code units, as String.prototype.slice takes it). */
  start: number;
  /** The index after its last character. */
  end: number;
  /** text.slice(start, end). */
  raw: string;
}

/**
 * An as-you-type formatter for a phone number field (numen.asYouType(country)), as
 * libphonenumber-js's AsYouType. Its state lives in the module; a page may make any number of
 * them (the module keeps 1,024 and remakes a dropped one from what was typed).
 */
export declare class AsYouType {
  /** Made by numen.asYouType(country). */
  private constructor();
  /** The country national input is read in ("" for international input only). */
  readonly country: string;
  /**
   * Appends text, character by character as if typed, and returns what the field shows:
   * "+49 1512 3456789", "01512 3456789" in DE; the input as typed where it cannot be formatted.
   */
  input(text: string): string;
  /** Forgets what was typed. */
  reset(): void;
  /** What was typed since the last reset (the concatenation of the inputs). */
  getChars(): string;
  /** What the field shows: input's last answer ("" after reset). */
  getText(): string;
  /** Where the input stands, as numen.check(getChars(), {country}). */
  check(): CheckResult;
  /** check().state === "valid". */
  isValid(): boolean;
  /** The number typed so far in E.164 once it reads as a number, else null. */
  number(): string | null;
  /** number() as libphonenumber-js's getNumberValue: undefined when there is none. */
  getNumberValue(): string | undefined;
  /** The caret's index in getText() after the first rawIndex characters of getChars(). */
  formattedPosition(rawIndex: number): number;
  /** The number of characters of getChars() before index formattedIndex of getText(). */
  rawPosition(formattedIndex: number): number;
  /** Frees the module's formatter now (else it is freed when this object is collected). */
  free(): void;
}

export interface Version {
  /** The version of numen.wasm. */
  program: string;
  /** The numbering data: libphonenumber release and Numen's data digest. */
  data: string;
  packs: PackName[];
}

export interface LoadOptions {
  /** The core plan (default: numen-core.bin beside the module). */
  plan?: string | URL;
  /** Packs to load at once. */
  packs?: (PackName | string | URL)[];
}

export declare class Numen {
  /**
   * Loads numen.wasm and its core plan; resolves when ready. Rejects with an Error naming the URL and
   * the cause when the module or the plan cannot be fetched (HTTP status, network error), compiled or
   * opened ("numen: fetching the module https://…/numen.wasm: HTTP 404 Not Found"); the fetch's or
   * the compiler's own error is its cause. Under a Content-Security-Policy, script-src needs
   * 'wasm-unsafe-eval'. Loading defines no global variables.
   */
  static load(wasmURL?: string | URL, options?: LoadOptions): Promise<Numen>;
  /** Adds a pack (by name, fetched from beside the module, or by URL relative to the module's folder); resolves to the packs loaded. */
  loadPack(pack: PackName | string | URL): Promise<readonly PackName[]>;
  version(): Version;
  /** The NT result; with options.country, national input is read as written or dialled in that country. */
  classify(text: string, options?: CountryOptions): NTResult;
  /**
   * Where input being typed stands; with options.country, read as classify reads it: "0151 2" in DE
   * is incomplete (a German mobile number). While the input may still become the country's
   * international prefix ("0" in DE, "01" in US) it is incomplete with no calling code yet.
   */
  check(text: string, options?: CountryOptions): CheckResult;
  /**
   * The number as people write it, in options.style or as dialled from options.from. Numbers that
   * are not valid are formatted too (as libphonenumber does). Throws an Error naming the reason for
   * input that cannot be read as a number ("numbering: parsing \"0 1\" in DE: not a number") or an
   * unknown country; a TypeError for an unknown style or an option that is not a string.
   */
  format(text: string, options?: FormatOptions): string;
  /** The countries of the plan (ISO 3166-1 alpha-2, sorted): the values the country options take (libphonenumber-js's getCountries). */
  getCountries(): string[];
  /** A country's calling code: "49" for "DE" (libphonenumber-js's getCountryCallingCode). Throws an Error for an unknown country. */
  getCountryCallingCode(country: string): string;
  /**
   * The phone numbers in a text, in order (libphonenumber-js's findPhoneNumbersInText). Throws an
   * Error for an unknown country or leniency, or a text over 524,288 bytes of UTF-8.
   */
  find(text: string, options?: FindOptions): PhoneMatch[];
  /** A formatter for a phone number field; country reads national input ("" or none: "+" input only). */
  asYouType(country?: string | null): AsYouType;
  /**
   * Throws an Error listing every problem of a bad map. A map is compiled once: a string is
   * remembered by its text, an object by its identity (read at its first use: to change the map,
   * pass a new object). The module keeps the 64 maps used last and compiles an older one again when
   * it comes back. A map's JSON is at most 1,048,576 bytes of UTF-8; a larger one throws saying so.
   */
  route(text: string, routingMap: RoutingMap | string): RouteDecision;
}

export default Numen;
