import type { ZodType, ZodTypeDef } from 'zod';

/**
 * A response's JSON body read through a contract schema: typed by what the schema says the
 * answer is, and failing here, with zod's issues, when it is not (where a raw `json() as` cast
 * would type anything).
 */
export async function jsonOf<T>(res: Response, schema: ZodType<T, ZodTypeDef, unknown>): Promise<T> {
  return schema.parse(await res.json());
}

/** The `data` of a D1 envelope, read through the contract schema of what it holds. */
export async function dataOf<T>(res: Response, schema: ZodType<T, ZodTypeDef, unknown>): Promise<T> {
  const body: unknown = await res.json();
  return schema.parse((body as { data?: unknown }).data);
}
