#!/bin/sh
# Text (comments, markdown) for rules-01-verbs: old names that no longer exist in code, replaced
# where they are mentioned. Run from the repository root after rules-01 and calls.ts.
# CHANGELOG.md (history) and etc/api (generated) are left alone.
files=$(git ls-files '*.md' '*.ts' | grep -v -e '^CHANGELOG.md$' -e '^etc/api/')
perl -pi -e '
  s/\bputObject\b/putChange/g;
  s/\bdeleteObject\((?=(configMaps|resource)\b)/deleteChange(/g;
  s/`putObject\(resource, obj\)`/`putChange(resource, obj)`/g;
  s/\bFakeVerb\b/Verb/g;
  s/\bremoveEach\(/deleteEach(/g;
  s/\bRemoveWrite\b/DeleteWrite/g;
  s/\bRemoveTargetsWrite\b/DeleteTargetsWrite/g;
  s/\bremoveTargets\b/deleteTargets/g;
  s/\bPatchStatusWrite\b/PatchWrite/g;
  s/\bremove\((?=ctx\b)/deleteObject(/g;
' $files
