// The members of D read from types/driver.d.ts at build time (scripts/d-completions.mjs,
// bundled by scripts/build-console.mjs).
declare module 'driverbox:d-members' {
  const members: Record<string, Array<{ label: string; type: 'method' | 'property' | 'constant'; detail: string; info: string }>>;
  export default members;
}
