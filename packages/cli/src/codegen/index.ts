/**
 * rxfleet/codegen: TypeScript types and resource descriptors from CustomResourceDefinitions, the
 * function behind `rxfleet gen types`.
 *
 * @example
 * ```ts
 * import { generateTypes, readCrds } from 'rxfleet/codegen';
 * const files = await generateTypes({ crds: readCrds(fs.readFileSync('widgets.yaml', 'utf8')) });
 * ```
 * @module
 */
export type { CrdSchemaOptions, JsonSchemaNode } from './crd-schema.js';
export { crdSchemaToJsonSchema } from './crd-schema.js';
export type { GeneratedFile, GenerateTypesOptions } from './generate-types.js';
export { generateTypes } from './generate-types.js';
export { readCrdFromCluster, readCrds } from './read-crds.js';
