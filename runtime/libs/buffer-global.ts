// Injected into the cheerio bundle, whose load() takes a Buffer when `typeof Buffer` says there
// is one: there is none, so the Buffer polyfill is not evaluated with cheerio in every run. The
// runtime hands a Buffer to cheerio as its text (runtime/index.ts, htmlParse).
export const Buffer = undefined;
