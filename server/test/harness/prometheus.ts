/** Reading Prometheus text format in tests. */

/** `GET <url>` and its body; throws on anything but 200. */
export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/**
 * The value of the sample `name` whose labels include `labels` (summed when several match,
 * e.g. every status of a route); 0 when none does.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v)) total += Number(match[3]);
  }
  return total;
}

/** Every value the label `label` takes on samples of `name`. */
export function labelValues(text: string, name: string, label: string): string[] {
  const values = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const m = new RegExp(`[{,]${label}="([^"]*)"`).exec(line);
    if (m) values.add(m[1]!);
  }
  return [...values];
}
