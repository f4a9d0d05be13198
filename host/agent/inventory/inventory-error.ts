// One error for a bad inventory, carrying every problem found so the user fixes them in one go.

export class InventoryError extends Error {
  readonly problems: readonly string[];
  readonly file: string | null;

  constructor(file: string | null, problems: readonly string[]) {
    const where = file ?? 'inventory';
    const head = problems.length === 1 ? `${where}: 1 problem` : `${where}: ${problems.length} problems`;
    super(`${head}\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'InventoryError';
    this.file = file;
    this.problems = problems;
  }
}
