// A fixture that cannot be read or breaks the format. Every problem found is listed, each
// naming its field path (`routes[3].status: …`), so a hand-written file is fixed in one pass.
import { DriverboxError } from '../contract/errors.js';

export class FixtureError extends DriverboxError {
  /** The fixture file, or null for a fixture given as an object. */
  readonly file: string | null;
  /** One line per problem: "field.path: what is wrong". */
  readonly problems: string[];

  constructor(file: string | null, problems: string[]) {
    const where = file ? `fixture ${file}` : 'fixture';
    const message = problems.length === 1 ? `${where}: ${problems[0]}` : `${where} has ${problems.length} problems:\n${problems.map((p) => `  ${p}`).join('\n')}`;
    super('INVALID_FIXTURE', message);
    this.name = 'FixtureError';
    this.file = file;
    this.problems = problems;
  }
}
