// A driver's options object as JSON text, taken at the call: functions, prototypes and cycles
// never cross to the host, and a later change to the object changes nothing.
import { raise } from './error-text';
import { parse, stringify } from './intrinsics';

/** The driver's options as JSON text, taken now: functions, prototypes and cycles never cross. */
export function optionsJson(options: unknown, fn: string): string {
  if (typeof options === 'string') return stringify({ url: options });
  if (!options || typeof options !== 'object') throw raise(new TypeError(`${fn}: options must be an object such as { url: '/status' }`));
  try {
    const text = stringify(options) as string | undefined;
    if (text === undefined) parse(text as never); // a toJSON() that answers nothing: the same error as ever
    return text!;
  } catch (error) {
    throw raise(new TypeError(`${fn}: options must be plain data (${(error as Error).message})`));
  }
}
