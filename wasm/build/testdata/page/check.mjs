// The page of csp_test.go: it loads numen.mjs and the module from /wasm/,
// asks a few questions, and writes into document.body.dataset.result, as
// JSON, what it got and what loading changed: the window's own properties
// added, whether the process.env.NODE_ENV check of other libraries still
// works, and the Content-Security-Policy violations the page saw. It adds
// no global of its own. With ?shim, the page first defines a process of
// its own, as bundlers do, which Numen must leave alone.
const result = { violations: [] };
document.addEventListener("securitypolicyviolation", (e) => {
  result.violations.push(`${e.violatedDirective}: ${e.blockedURI}`);
});
const shim = new URLSearchParams(location.search).has("shim");
if (shim) {
  globalThis.process = { env: { NODE_ENV: "production" } };
}
const pageProcess = globalThis.process;
const before = new Set([...Object.getOwnPropertyNames(window), ...Object.getOwnPropertySymbols(window).map(String)]);
try {
  const { Numen } = await import("/wasm/numen.mjs");
  const numen = await Numen.load("/wasm/numen.wasm");
  result.format = numen.classify("+49 151 23456789").international_format;
  result.check = numen.check("0151 2", { country: "DE" }).state;
  await numen.loadPack("networks");
  result.network = numen.classify("+49 151 23456789").original_network_name;
  result.route = numen.route("+49 172 3456789", { defaultRoute: "GT1", prefixes: [{ cns: "+4917", route: "GT2" }] }).route;
} catch (err) {
  result.error = `${err.constructor.name}: ${err.message}`;
}
result.added = [...Object.getOwnPropertyNames(window), ...Object.getOwnPropertySymbols(window).map(String)].filter((k) => !before.has(k));
try {
  // eslint-disable-next-line no-undef
  result.nodeEnv = typeof process !== "undefined" && process.env.NODE_ENV;
} catch (err) {
  result.nodeEnvError = `${err.constructor.name}: ${err.message}`;
}
result.sameProcess = globalThis.process === pageProcess;
document.body.dataset.result = JSON.stringify(result);
