// The lazily loaded cheerio library of the sandbox (D.htmlParse): cheerio's load, bundled on its own.
import { load } from 'cheerio';
import { exportLib } from './export';

exportLib({ load });
