/** The database global-setup migrates once per run; each test file's database is a copy of it. */
export const TEMPLATE_DB = 'protection_template';

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
