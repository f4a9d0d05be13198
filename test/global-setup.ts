// Tests run the host from source, but it loads the runtime bundle from dist/, and the
// CLI tests start bin/driverbox.js, which loads dist/host: build both once here.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
