// The providers' first-contact probes share the streams layer's one limiter (src/streams/concurrency-limit.ts),
// which also paces the watches' lists per server.
export { concurrencyLimit } from '../../streams/concurrency-limit.js';
