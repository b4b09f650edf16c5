"""`hipconv build`: compile a translated tree with hipcc (plan, hipcc, report). Uses the translator's
output and the build-file flag table; the translator never uses it."""
