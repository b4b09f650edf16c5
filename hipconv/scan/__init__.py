"""`hipconv scan`: what would not port, per file, as data. Uses the translator; the translator never
uses it. scanner runs the translator and the checks (registry, wavefront, amd) over each file."""
