// The lazily loaded Buffer library of the sandbox (D._unsafe.buffer): the `buffer` package, bundled on its own.
import { Buffer } from 'buffer';
import { exportLib } from './export';

exportLib({ Buffer });
