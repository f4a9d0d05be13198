// Tests run the host from source; the runtime bundle it loads is built once here.
// @ts-expect-error plain ESM build script without typings
import { buildRuntime } from '../scripts/build-runtime.mjs';

export default async function setup(): Promise<void> {
  await (buildRuntime as () => Promise<string>)();
}
