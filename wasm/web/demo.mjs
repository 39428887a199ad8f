// The demo page: a phone field formatted as the user types
// (numen.asYouType), with one status line from its check; numbers found in
// a text (numen.find); packs on demand; numen.route with a pasted map.
import { Numen } from "./numen.mjs";

const $ = (id) => document.getElementById(id);
const show = (id, value) => {
  $(id).textContent = value === null || value === undefined || value === "" ? "—" : value;
};

let numen;
try {
  numen = await Numen.load(new URL("./numen.wasm", import.meta.url));
} catch (err) {
  // Numen.load rejects with an Error naming what failed (the URL, and the
  // HTTP status or the reason): the page says so instead of "loading…".
  $("version").textContent = "not loaded";
  $("load-error").textContent = `Numen could not be loaded: ${err.message}`;
  $("load-error").hidden = false;
  $("snippet").textContent = "";
  document.body.dataset.ready = "error";
  throw err;
}
globalThis.numen = numen; // for the console, and for the browser tests

// --- The country: from the browser's language ("de-DE": DE), else none.

function defaultCountry(countries) {
  for (const tag of [navigator.language, ...(navigator.languages ?? [])]) {
    try {
      const region = new Intl.Locale(tag).maximize().region;
      if (region && countries.includes(region)) {
        return region;
      }
    } catch {
      // not a language tag
    }
  }
  return "";
}

function fillCountries() {
  const select = $("country");
  const countries = numen.getCountries();
  let names = null;
  try {
    names = new Intl.DisplayNames([navigator.language, "en"], { type: "region" });
  } catch {
    // no Intl.DisplayNames: the codes alone
  }
  const options = countries.map((c) => ({ code: c, name: names?.of(c) ?? c }));
  options.sort((a, b) => a.name.localeCompare(b.name));
  for (const { code, name } of options) {
    select.add(new Option(`${name} (+${numen.getCountryCallingCode(code)})`, code));
  }
  select.value = defaultCountry(countries);
}

// --- The field. The formatter gets what was typed ("+" and digits): the
// punctuation in the field is its own, put in again at every change. The
// caret is kept as the count of typed characters before it.

let formatter = null;
let typedBefore = ""; // what the formatter was given last

const isDigit = (ch) => /\p{Nd}/u.test(ch);

// typedOf returns what was typed in a field's value, and how many of those
// characters are before index caret.
function typedOf(value, caret) {
  let typed = "";
  let before = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (isDigit(ch) || (ch === "+" && typed === "")) {
      typed += ch;
      if (i < caret) {
        before++;
      }
    }
  }
  return { typed, before };
}

function onInput(event) {
  const field = $("number");
  let { typed, before } = typedOf(field.value, field.selectionStart ?? field.value.length);
  // Deleting only punctuation the formatter put there would bring it
  // back: delete the typed character beside it instead.
  if (typed === typedBefore && event?.inputType === "deleteContentBackward" && before > 0) {
    typed = typed.slice(0, before - 1) + typed.slice(before);
    before--;
  } else if (typed === typedBefore && event?.inputType === "deleteContentForward" && before < typed.length) {
    typed = typed.slice(0, before) + typed.slice(before + 1);
  }
  format(typed, before);
}

// format shows typed, formatted, with the caret after its first before
// characters.
function format(typed, before) {
  const field = $("number");
  let text;
  if (typed.startsWith(typedBefore) && before === typed.length && typedBefore !== "") {
    text = formatter.input(typed.slice(typedBefore.length)); // typed at the end: one step
  } else {
    formatter.reset();
    text = formatter.input(typed);
  }
  typedBefore = typed;
  field.value = text;
  if (document.activeElement === field) {
    const caret = formatter.formattedPosition(before);
    field.setSelectionRange(caret, caret);
  }
  update(typed);
}

function setCountry() {
  formatter?.free();
  formatter = numen.asYouType($("country").value);
  const typed = typedBefore;
  typedBefore = "";
  format(typed, typed.length);
  $("number").placeholder = $("country").value === "" ? "+49 1512 3456789" : "national or +…";
  find();
}

// update shows where the input stands: one status line from the
// formatter's check, and the number's fields once it is valid (the same
// answer: check says valid exactly when classify does).
function update(typed) {
  const c = formatter.check();
  const state = $("state");
  let line;
  if (typed === "") {
    line = "Type a number";
    state.dataset.state = "";
  } else {
    state.dataset.state = c.state;
    const where = c.countries.length ? ` (${c.countries.join(", ")})` : "";
    if (c.state === "valid") {
      line = `Valid ${c.types.join(", ")} number${where}${c.longer ? "; more digits can make another" : ""}`;
    } else if (c.state === "impossible") {
      line = `Not a valid number: ${c.reason}`;
    } else if (c.types.length) {
      line = `Incomplete: can still be ${c.types.join(", ")}${where}`;
    } else {
      line = "Incomplete";
    }
  }
  state.textContent = line;
  const number = c.state === "valid" ? formatter.number() : null;
  const r = number === null ? null : numen.classify(number);
  show("e164", number);
  show("type", r?.number_type);
  show("country-name", r?.original_country_name ? `${r.original_country_name} (${r.original_country_code ?? "global"}, ${r.original_country_prefix})` : "");
  show("network", r?.original_network_name);
  show("mccmnc", r?.mccmnc);
  show("regions", r?.regions?.join(", "));
  show("timezones", r?.timezones?.join(", "));
}

// --- Numbers in a text.

function find() {
  const list = $("find-results");
  list.replaceChildren();
  let matches;
  try {
    matches = numen.find($("find-text").value, { country: $("country").value || null, leniency: $("leniency").value });
  } catch (err) {
    $("find-count").textContent = err.message;
    return;
  }
  $("find-count").textContent = matches.length === 1 ? "1 number" : `${matches.length} numbers`;
  for (const m of matches) {
    const item = document.createElement("li");
    const raw = document.createElement("code");
    raw.textContent = m.raw;
    const what = m.is_valid ? `${m.international_format}, ${m.number_type}, ${m.original_country_code ?? "global"}` : `${m.number} (${m.invalid_reason})`;
    item.append(raw, ` → ${what}`);
    item.dataset.start = m.start;
    item.dataset.end = m.end;
    list.append(item);
  }
}

// --- Packs and routing, as before.

function refreshVersion() {
  const v = numen.version();
  $("version").textContent = `numen ${v.program}, ${v.data}`;
  $("packs").textContent = v.packs.length ? `loaded: ${v.packs.join(", ")}` : "none loaded";
}

async function togglePack(box) {
  if (!box.checked) {
    box.checked = numen.version().packs.includes(box.value); // a loaded pack stays
    return;
  }
  box.disabled = true;
  try {
    await numen.loadPack(box.value);
  } catch (err) {
    box.checked = false;
    $("packs").textContent = err.message;
  } finally {
    box.disabled = numen.version().packs.includes(box.value);
  }
  refreshVersion();
  update(typedBefore);
  find();
}

function route() {
  $("route-error").textContent = "";
  $("route-result").textContent = "";
  try {
    const d = numen.route($("route-number").value, $("map").value);
    $("route-result").textContent = JSON.stringify(d, null, 2);
  } catch (err) {
    $("route-error").textContent = err.message;
  }
}

async function showSnippet() {
  try {
    const resp = await fetch(new URL("./snippet.html", import.meta.url));
    $("snippet").textContent = resp.ok ? await resp.text() : `snippet.html: HTTP ${resp.status}`;
  } catch (err) {
    $("snippet").textContent = `snippet.html: ${err.message}`;
  }
}

fillCountries();
$("number").addEventListener("input", onInput);
$("country").addEventListener("change", setCountry);
$("find-text").addEventListener("input", find);
$("leniency").addEventListener("change", find);
for (const box of document.querySelectorAll(".pack")) {
  box.addEventListener("change", () => togglePack(box));
}
$("route-button").addEventListener("click", route);
for (const id of ["number", "country", "find-text", "leniency", "route-button"]) {
  $(id).disabled = false;
}
refreshVersion();
setCountry();
await showSnippet();
document.body.dataset.ready = "true";
