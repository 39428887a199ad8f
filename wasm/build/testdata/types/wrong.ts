// Mistakes numen.d.ts must catch: TestTypeScript expects tsc to report
// each line marked with an error.
import { Numen, AsYouType } from "@numen/numen";

const numen = await Numen.load();
numen.find("text", { leniency: "loose" }); // error: not a Leniency
numen.asYouType("DE").input(5); // error: not a string
const n: string = numen.asYouType("DE").number(); // error: may be null
numen.find("text")[0].begin; // error: no such field
numen.asYouType("DE").getTemplate(); // error: no such method
new AsYouType(); // error: made by numen.asYouType
console.log(n);
