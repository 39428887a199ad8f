// Type-checked by TestTypeScript against numen.d.ts (tsc --strict): the
// browser API as a page written in TypeScript uses it.
import { Numen, AsYouType, type CheckResult, type NTResult, type PhoneMatch, type Leniency } from "@numen/numen";

const numen: Numen = await Numen.load("/wasm/numen.wasm", { packs: ["networks"] });
const r: NTResult = numen.classify("0151 23456789", { country: "DE" });
const e164: string = r.number;
const c: CheckResult = numen.check("+49 15");
const state: "valid" | "incomplete" | "impossible" = c.state;
const formatted: string = numen.format("0151 23456789", { country: "DE", style: "national", from: null });

const countries: string[] = numen.getCountries();
const code: string = numen.getCountryCallingCode("DE");

const formatter: AsYouType = numen.asYouType("DE");
const text: string = formatter.input("0151");
formatter.reset();
const progress: CheckResult = formatter.check();
const number: string | null = formatter.number();
const value: string | undefined = formatter.getNumberValue();
const caret: number = formatter.formattedPosition(3);
const raw: number = formatter.rawPosition(caret);
const valid: boolean = formatter.isValid();
const chars: string = formatter.getChars() + formatter.getText() + formatter.country;
formatter.free();
numen.asYouType();
numen.asYouType(null);

const leniency: Leniency = "exact_grouping";
const matches: PhoneMatch[] = numen.find("Call 030 901820.", { country: "DE", leniency });
for (const m of numen.find("+44 20 7946 0000", { leniency: "VALID" })) {
  const where: [number, number, string] = [m.start, m.end, m.raw];
  const type: NTResult["number_type"] = m.number_type;
  console.log(where, type, m.international_format);
}

console.log(e164, state, formatted, countries, code, text, progress, number, value, raw, valid, chars, matches);
