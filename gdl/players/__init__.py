"""Players: programs (and people) that choose moves."""
