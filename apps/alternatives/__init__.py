"""Design alternatives: studies of one requirement's candidate fabrics (docs/alternatives.md)."""
