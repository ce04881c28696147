// The first contracts: cluster names, object keys, resource descriptors, objects and errors.
export type { ClusterName } from './cluster.js';
export { clusterName } from './cluster.js';
export type { ObjectKey } from './key.js';
export { formatKey, keyOf, objectKey, parseKey } from './key.js';
export type { ResourceDescriptor } from './resource.js';
export { apiVersionOf, configMaps, customResourceDefinitions, namespaces, resource, resourceId, secrets } from './resource.js';
export type { ApplyConfiguration, ConfigMap, DeepPartial, KubeObject, Namespace, ObjectList, ObjectMeta, OwnerReference, Secret } from './object.js';
export type { KubeError, KubeErrorFields, KubeErrorType, Status, StatusCause } from './errors.js';
export { fromStatus, fromTransport, isRetryable, kubeError } from './errors.js';
export { ConfigError } from './config-error.js';
