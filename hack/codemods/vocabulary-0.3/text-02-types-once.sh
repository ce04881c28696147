#!/bin/sh
# Text for rules-02-types-once: the sinks' Event names become rxfleet/resources' own.
files=$(git ls-files '*.md' '*.ts' | grep -v -e '^CHANGELOG.md$' -e '^etc/api/')
perl -pi -e '
  s/\bKubeEvent\b/EventsV1Event/g;
  s/\beventsV1\b(?!Events)/eventsV1Events/g;
  s/\bEventReference\b/ObjectReference/g;
' $files
