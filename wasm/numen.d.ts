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
  /** The calling code, once complete. */
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
  /** Loads numen.wasm and its core plan; resolves when ready. */
  static load(wasmURL?: string | URL, options?: LoadOptions): Promise<Numen>;
  /** Adds a pack (by name, fetched from beside the module, or by URL relative to the module's folder); resolves to the packs loaded. */
  loadPack(pack: PackName | string | URL): Promise<readonly PackName[]>;
  version(): Version;
  classify(text: string): NTResult;
  check(text: string): CheckResult;
  /** Throws an Error listing every problem of a bad map. */
  route(text: string, routingMap: RoutingMap | string): RouteDecision;
}

export default Numen;
