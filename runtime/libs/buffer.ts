import { Buffer } from 'buffer';
import { exportLib } from './export';

exportLib({ Buffer });
