// The benchmark page's functions, which browser_test.go calls over CDP.
// Numen (numen.mjs from /wasm/, the package numen serve --wasm serves) and
// libphonenumber-js/max (its UMD bundle from /lib/) answer the same inputs
// in the same page; each function times its loop with performance.now()
// and returns nanoseconds per operation, so that what CDP costs is not
// counted. Every loop folds its answers into a checksum, returned with the
// time, so that no engine can skip the work.

let numen = null;
let lib = null;
let corpus = [];
let typed = [];
let keyed = []; // the corpus' numbers as typed into a field: "+" and digits
let page = ""; // a page of text with numbers in it

// loadScript adds a classic script (the UMD bundle) and waits for it.
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`loading ${src} failed`));
    document.head.append(s);
  });
}

const mib = (bytes) => bytes / (1 << 20);

globalThis.bench = {
  // ready loads one library and returns the milliseconds from the start
  // of the load (fetching its code included) to its first answer, and the
  // memory it holds then.
  async ready(which) {
    const t0 = performance.now();
    if (which === "numen") {
      const { Numen } = await import("/wasm/numen.mjs");
      numen = await Numen.load("/wasm/numen.wasm");
      numen.classify("+4915123456789");
    } else {
      await loadScript("/lib/libphonenumber-max.js");
      lib = globalThis.libphonenumber;
      lib.parsePhoneNumberFromString("+4915123456789").isValid();
    }
    const ms = performance.now() - t0;
    globalThis.gc?.(); // --js-flags=--expose-gc
    return {
      ms,
      wasmMiB: numen ? mib(numen._mem.buffer.byteLength) : 0,
      jsHeapMiB: mib(performance.memory?.usedJSHeapSize ?? 0),
    };
  },

  // setCorpus takes the numbers to classify; the inputs of check are every
  // beginning of them, as they are typed.
  setCorpus(numbers) {
    corpus = numbers;
    typed = [];
    for (const n of numbers) {
      for (let i = 1; i <= n.length; i++) {
        typed.push(n.slice(0, i));
      }
    }
    keyed = numbers.map((n) => n.replace(/[^+0-9]/g, ""));
    // A page of text (about 4 KB): numbers in prose, beside dates, prices
    // and order numbers, some in international format, some as written
    // in Germany.
    const words = ["Call", "on 17.05.2024 at 14:30, price 129.99 EUR, order 4711, or", "fax", "(office hours 9-17), mobile"];
    const parts = [];
    for (let i = 0; i < 80 && i < numbers.length; i++) {
      parts.push(words[i % words.length], i % 3 === 2 ? `0151 ${23456700 + i}` : numbers[i], i % 5 === 4 ? ".\n" : ";");
    }
    page = parts.join(" ");
    return typed.length;
  },

  // pageLength is the length of the page of text find reads.
  pageLength() {
    return page.length;
  },

  // asYouType types n keys into a phone field's formatter, number after
  // number of the corpus (each in international format, "+" and digits),
  // and returns the time per key: Numen's asYouType().input, or
  // libphonenumber-js's new AsYouType().input, each of which returns the
  // field's text.
  asYouType(which, n) {
    let sum = 0;
    const c = keyed;
    const t0 = performance.now();
    if (which === "numen") {
      const f = numen.asYouType();
      for (let i = 0, j = 0; i < n; j = j + 1 === c.length ? 0 : j + 1) {
        const s = c[j];
        f.reset();
        for (let k = 0; k < s.length && i < n; k++, i++) {
          sum += f.input(s[k]).length;
        }
      }
    } else {
      const f = new lib.AsYouType();
      for (let i = 0, j = 0; i < n; j = j + 1 === c.length ? 0 : j + 1) {
        const s = c[j];
        f.reset();
        for (let k = 0; k < s.length && i < n; k++, i++) {
          sum += f.input(s[k]).length;
        }
      }
    }
    return { ns: ((performance.now() - t0) * 1e6) / n, sum };
  },

  // find finds the numbers of the page of text, n times, with Germany as
  // the default country: Numen's find, or libphonenumber-js's
  // findPhoneNumbersInText (both at the "valid" leniency).
  find(which, n) {
    let sum = 0;
    const t0 = performance.now();
    if (which === "numen") {
      for (let i = 0; i < n; i++) {
        sum += numen.find(page, { country: "DE" }).length;
      }
    } else {
      for (let i = 0; i < n; i++) {
        sum += lib.findPhoneNumbersInText(page, "DE").length;
      }
    }
    return { ns: ((performance.now() - t0) * 1e6) / n, sum };
  },

  // classify answers n numbers of the corpus, round and round: Numen's
  // classify, or libphonenumber-js's parse with validity, type and country.
  classify(which, n) {
    let sum = 0;
    const c = corpus;
    const t0 = performance.now();
    if (which === "numen") {
      for (let i = 0, j = 0; i < n; i++, j = j + 1 === c.length ? 0 : j + 1) {
        const r = numen.classify(c[j]);
        sum += r.is_valid ? r.number.length : 1;
      }
    } else {
      for (let i = 0, j = 0; i < n; i++, j = j + 1 === c.length ? 0 : j + 1) {
        const p = lib.parsePhoneNumberFromString(c[j]);
        sum += p && p.isValid() ? p.number.length + (p.getType() ?? "").length + (p.country ?? "").length : 1;
      }
    }
    return { ns: ((performance.now() - t0) * 1e6) / n, sum };
  },

  // check answers n inputs being typed: Numen's check, or
  // libphonenumber-js's validatePhoneNumberLength (too short, invalid
  // country, too long...), its nearest answer to "where does this stand".
  check(which, n) {
    let sum = 0;
    const c = typed;
    const t0 = performance.now();
    if (which === "numen") {
      for (let i = 0, j = 0; i < n; i++, j = j + 1 === c.length ? 0 : j + 1) {
        sum += numen.check(c[j]).state.length;
      }
    } else {
      for (let i = 0, j = 0; i < n; i++, j = j + 1 === c.length ? 0 : j + 1) {
        sum += (lib.validatePhoneNumberLength(c[j]) ?? "").length;
      }
    }
    return { ns: ((performance.now() - t0) * 1e6) / n, sum };
  },
};
document.body.dataset.ready = "true";
