// @ts-expect-error q ships no types here; the bundle only needs the value
import Q from 'q';
import { exportLib } from './export';

exportLib(Q);
