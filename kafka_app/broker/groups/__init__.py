"""Consumer groups: the coordinator's membership and assignments, and committed offsets."""
