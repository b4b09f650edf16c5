"""Developer tools that are not shipped with hipconv (the rule derivation lives in tools.derive)."""
