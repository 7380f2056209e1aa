import Ajv, { type ValidateFunction } from 'ajv';
import { z } from 'zod';
import { pickListSchema, pickSchema, resultListSchema } from './schemas';

/**
 * The zod schemas compiled into plain checking functions (Ajv, from the schemas' own JSON Schema), for the
 * common case: a body that fits. Zod builds an output copy of every record it checks, which costs about as
 * much as the page's JSON.parse; the compiled check allocates nothing. A body the quick check refuses still
 * goes to zod, which has the last word and names the first wrong field. Only schemas whose output equals a
 * fitting input are listed (a /results envelope is a page of picks; a bare array goes to zod's transform).
 */

const ajv = new Ajv({ strict: false, allErrors: false });
const compile = (schema: z.ZodType) => ajv.compile(z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }));
const pickList = compile(pickListSchema);

const QUICK = new Map<z.ZodType, ValidateFunction>([
  [pickListSchema, pickList],
  [resultListSchema, pickList],
  [pickSchema, compile(pickSchema)],
]);

/** True when the body certainly fits the schema; false means "ask zod", not "wrong". */
export function fitsQuickly(schema: z.ZodType, body: unknown): boolean {
  return QUICK.get(schema)?.(body) === true;
}
