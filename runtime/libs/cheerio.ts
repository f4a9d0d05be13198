import { load } from 'cheerio';
import { exportLib } from './export';

exportLib({ load });
