/**
 * @rxfleet/cli/codegen: TypeScript types and resource descriptors from CustomResourceDefinitions,
 * the functions behind `rxfleet gen types` (formerly `rxfleet/codegen`). A build-time tool: it
 * loads json-schema-to-typescript and prettier, which a controller at run time never needs.
 *
 * @example
 * ```ts
 * import { generateTypes, readCrds } from '@rxfleet/cli/codegen';
 * const files = await generateTypes({ crds: readCrds(fs.readFileSync('widgets.yaml', 'utf8')) });
 * ```
 * @packageDocumentation
 * @module @rxfleet/cli/codegen
 */
export type { CrdSchemaOptions, JsonSchemaNode } from './crd-schema.js';
export { crdSchemaToJsonSchema } from './crd-schema.js';
export type { GeneratedFile, GenerateTypesOptions } from './generate-types.js';
export { generateTypes } from './generate-types.js';
export { readCrdFromCluster, readCrds } from './read-crds.js';
