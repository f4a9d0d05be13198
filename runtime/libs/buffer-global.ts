// Injected into the cheerio bundle: parts of it use Buffer as a free global.
export { Buffer } from 'buffer';
