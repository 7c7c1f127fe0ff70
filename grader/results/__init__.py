"""Score documents: the canonical per-submission result and its JSON Schema."""
