// Package browser benchmarks Numen's browser package in headless Chromium
// against libphonenumber-js/max, the JavaScript library web pages use,
// side by side in one page (page/): the time from starting to load each
// library to its first answer, with the memory it then holds, on loopback
// and over an emulated 1.6 Mbit/s link; classifying the benchmark corpus;
// checking input as it is typed; formatting a phone field key by key
// (Numen's asYouType, libphonenumber-js's AsYouType); and finding the
// numbers of a page of text (find, findPhoneNumbersInText). run.sh runs the
// benchmarks and compares the two with benchstat; README.md one folder up
// has the results.
//
// The page times its own loops with performance.now() and each benchmark
// reports that time as ns/op, so that the cost of driving the browser over
// CDP is not counted. TestPage runs every function of the page once, so
// that CI keeps the benchmarks working.
package browser
