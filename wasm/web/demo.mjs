// The demo page: numen.check and numen.classify as the user types, packs
// on demand, numen.route with a pasted map.
import { Numen } from "./numen.mjs";

const $ = (id) => document.getElementById(id);
const show = (id, value) => {
  $(id).textContent = value === null || value === undefined || value === "" ? "—" : value;
};

const numen = await Numen.load(new URL("./numen.wasm", import.meta.url));
globalThis.numen = numen; // for the console, and for the browser tests

function refreshVersion() {
  const v = numen.version();
  $("version").textContent = `numen ${v.program}, ${v.data}`;
  $("packs").textContent = v.packs.length ? `loaded: ${v.packs.join(", ")}` : "none loaded";
}

function update() {
  const text = $("number").value;
  const c = numen.check(text);
  const state = $("state");
  state.dataset.state = c.state;
  let line = c.state;
  if (c.state === "incomplete" && c.types.length) {
    line += `: can still be ${c.types.join(", ")}`;
  }
  if (c.countries.length) {
    line += ` (${c.countries.join(", ")})`;
  }
  if (c.state === "impossible") {
    line += `: ${c.reason}`;
  }
  if (c.state === "valid" && c.longer) {
    line += ", and may go on";
  }
  state.textContent = text.trim() === "" ? "—" : line;
  const r = numen.classify(text);
  show("e164", r.query_status === "OK" && r.number.startsWith("+") ? r.number : "");
  show("valid", text.trim() === "" ? "" : r.is_valid ? "yes" : `no (${r.invalid_reason})`);
  show("type", r.is_valid ? r.number_type : "");
  show("country", r.original_country_name ? `${r.original_country_name} (${r.original_country_code ?? "global"}, ${r.original_country_prefix})` : "");
  show("network", r.original_network_name);
  show("mccmnc", r.mccmnc);
  show("regions", r.regions?.join(", "));
  show("timezones", r.timezones?.join(", "));
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
  update();
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

$("number").addEventListener("input", update);
for (const box of document.querySelectorAll(".pack")) {
  box.addEventListener("change", () => togglePack(box));
}
$("route-button").addEventListener("click", route);
$("number").disabled = false;
$("route-button").disabled = false;
refreshVersion();
update();
document.body.dataset.ready = "true";
