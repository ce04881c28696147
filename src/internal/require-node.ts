// Imported first by every entry point of the package, so that an unsupported Node fails here, with
// a message saying how to get a newer one, instead of deep inside undici or fetch on the first request.
// It imports nothing itself: ES modules evaluate depth-first in import order, so this body runs
// before any other module of rxfleet (or its dependencies) has run.
const MIN_MAJOR = 22;
const MIN_MINOR = 19;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < MIN_MAJOR || (major === MIN_MAJOR && minor < MIN_MINOR)) {
  throw new Error(
    `rxfleet needs Node ≥ ${MIN_MAJOR}.${MIN_MINOR}; this is v${process.versions.node}. ` +
      'To run a project\'s npm scripts on Node 24 without changing this one: `npm install --save-dev node@24` ' +
      '(npm puts it first on the scripts\' PATH; `npm create rxfleet` projects have it). ' +
      'Or with nvm: `nvm install 24`, or `nvm use` where an .nvmrc names it.',
  );
}
export {};
