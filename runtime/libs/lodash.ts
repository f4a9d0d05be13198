// @ts-expect-error lodash ships no types here; the bundle only needs the value
import lodash from 'lodash';
import { exportLib } from './export';

exportLib(lodash);
